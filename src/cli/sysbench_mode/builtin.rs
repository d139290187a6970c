//! sysbench mode's built-in tests (`sysbench cpu run` …): hands the
//! parsed command line to hostbench and prints its results as sysbench
//! 1.0.20 does.

use super::argv::{General, SbArgs};

/// Runs built-in test `test`'s `command`; returns the exit code.
pub fn run(test: &str, command: &str, general: &General, args: &SbArgs) -> i32 {
    let _ = (general, args);
    errln!("FATAL: the built-in test '{test}' ({command}) is not implemented yet");
    1
}

/// Prints test `test`'s options (`sysbench TEST help`).
pub fn help(test: &str) {
    let _ = test;
}
