//! qpslab: a MySQL/MariaDB performance lab in one binary.
//!
//! Data flows one way: server → protocol → workload → exec → stats →
//! store → analyze → report/ui, the monitor beside exec (see
//! shared/DESIGN.md); `lab` composes them into use cases and `cli` wires
//! those to the command line.

#[macro_use]
mod out;

mod analyze;
mod campaign;
mod cli;
mod exec;
mod lab;
mod monitor;
mod profiler;
mod protocol;
mod report;
mod secret;
mod server;
mod stats;
mod store;
mod ui;
mod workload;

fn main() {
    let args = cli::parse_command_line();
    secret::scrub_process_title();
    exec::install_ctrl_c();
    match cli::dispatch(args) {
        Ok(code) => std::process::exit(out::settle(code)),
        Err(e) => {
            // One line: what failed, and what to do (the context chain, joined).
            let msg = format!("{e:#}");
            // Foreign text in it (a server's message) is made inert and
            // bounded (see out::inert_line).
            let line = |l: &str| out::inert_line(l, out::MAX_LINE);
            errln!("qpslab: {}", line(msg.lines().next().unwrap_or("")));
            for extra in msg.lines().skip(1).take(out::MAX_LINES) {
                errln!("  {}", line(extra));
            }
            // An error that a Ctrl-C caused (an interrupted prepare) is an
            // interruption, not bad input; a script's os.exit(N) in a
            // command ends it with N.
            let code = workload::script::exit_requested().unwrap_or(2);
            std::process::exit(out::settle(if exec::interrupted() { 130 } else { code }));
        }
    }
}
