//! cli: the command line. Parses arguments (clap) into typed options,
//! interprets the connection options into a target (a sandbox by default),
//! calls the lab's use cases and prints through report. Context-rich,
//! one-line error messages are made here. It must not hold use-case logic
//! that another front end (the UI, an API) would need again (that is
//! lab's), nor statistics (analyze), SQL (lab, workload) or rendering
//! beyond choosing what to print (report).

mod agent;
mod args;
mod campaign;
mod check_report;
mod checkpoints;
mod commands;
mod dbstress;
mod dbt3;
mod fleet_plan;
mod help_topics;
mod host_tests;
mod ibench;
#[cfg(test)]
mod input_tests;
mod linkbench;
mod live;
mod load_commands;
mod metrics_listen;
mod monitor_args;
mod notes;
mod pages;
mod plan;
mod profile;
mod progress_lines;
mod quickstart;
mod results;
mod run_curation;
mod sandboxes;
mod store_copy;
mod store_retention;
mod sweep;
mod sysbench_mode;
mod target;
mod tpcc;

use args::parse_command_line;
use commands::dispatch;

use crate::{exec, out, secret, workload};

/// The program: parses the command line, runs the command and exits with
/// its code. An error is printed as one line (what failed, what to do),
/// foreign text in it made inert and bounded (see [`out::inert_line`]).
pub fn main() -> ! {
    out::line_buffer_c_stdout();
    let argv: Vec<String> = std::env::args().collect();
    if let Some(argv) = sysbench_mode::wanted(&argv).or_else(|| host_tests::wanted(&argv)) {
        secret::scrub_process_title();
        exec::install_ctrl_c();
        sysbench_mode::main(argv)
    }
    fleet_plan::keep_argv(&argv);
    let args = parse_command_line();
    notes::install();
    secret::scrub_process_title();
    exec::install_ctrl_c();
    match dispatch(args) {
        Ok(code) => std::process::exit(out::settle(code)),
        Err(e) => {
            // One line: what failed, and what to do (the context chain, joined).
            let msg = format!("{e:#}");
            let line = |l: &str| out::inert_line(l, out::MAX_LINE);
            errln!("qpslab: {}", line(msg.lines().next().unwrap_or("")));
            for extra in msg.lines().skip(1).take(out::MAX_LINES) {
                errln!("  {}", line(extra));
            }
            // An error that a Ctrl-C caused (an interrupted prepare) is an
            // interruption, not bad input; a script's os.exit(N) in a
            // command ends it with N.
            let code = workload::script::exit_code_for(&msg).unwrap_or(2);
            std::process::exit(out::settle(if exec::interrupted() { 130 } else { code }));
        }
    }
}
