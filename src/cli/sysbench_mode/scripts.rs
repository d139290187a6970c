//! sysbench mode's database tests: a bundled workload (`oltp_read_write`)
//! or a Lua script, with its command. The options sysbench mode has read
//! (argv.rs, last occurrence wins) become one qpslab load command, run by
//! the same use cases as `qpslab run`.

use super::argv::{General, SbArgs};

/// Runs test `test` (its command from the line); returns the exit code.
pub fn run(test: &str, general: &General, args: &SbArgs) -> i32 {
    let Some(command) = args.command.clone() else {
        errln!("The '{test}' test requires a command argument. See 'sysbench {test} help'");
        return 1;
    };
    let words = qpslab_words(test, &command, general, args);
    let cli = match crate::cli::args::parse_translated(&words) {
        Ok(c) => c,
        Err(m) => {
            errln!("FATAL: {m}");
            return 1;
        }
    };
    match crate::cli::commands::dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            outln!("FATAL: {e:#}");
            1
        }
    }
}

/// The qpslab command line for a sysbench one: each option once (its last
/// value), the general options sysbench mode read itself left out.
fn qpslab_words(test: &str, command: &str, _general: &General, args: &SbArgs) -> Vec<String> {
    let mut words = vec!["qpslab".to_string(), test.to_string()];
    let mut seen = std::collections::HashSet::new();
    let mut kept = Vec::new();
    for (name, _, word) in args.opts.iter().rev() {
        if matches!(name.as_str(), "verbosity" | "version" | "help") || !seen.insert(name.clone()) {
            continue;
        }
        kept.push(word.clone());
    }
    kept.reverse();
    words.extend(kept);
    words.push(command.to_string());
    words
}
