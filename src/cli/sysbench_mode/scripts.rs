//! sysbench mode's database tests: a bundled workload (`oltp_read_write`)
//! or a Lua script, with its command. The options sysbench mode has read
//! (argv.rs, last occurrence wins) become one qpslab load command, run by
//! the same use cases as `qpslab run` and printed as sysbench prints
//! (load_commands' sysbench style). Nothing is stored and the monitor is
//! off, as nothing sysbench does watches the server — unless
//! `--qpslab-store` (or QPSLAB_STORE=1) asks for both.

use super::argv::{General, SbArgs};
use crate::cli::args::Cmd;
use crate::cli::load_commands::{self, SysbenchStyle};
use crate::cli::plan::LoadPlan;

/// Runs test `test` (its command from the line); returns the exit code.
pub fn run(test: &str, general: &General, args: &SbArgs) -> i32 {
    let native = is_native(test);
    if !native && crate::workload::script::find_script(test).is_err() {
        outln!("FATAL: Cannot find benchmark '{test}': no such built-in test, file or module");
        return 1;
    }
    let Some(command) = args.command.clone() else {
        errln!("The '{test}' test requires a command argument. See 'sysbench {test} help'");
        return 1;
    };
    if command == "help" {
        return help(test, args);
    }
    // The script layer logs a failed statement as sysbench's driver does,
    // at its verbosity (read once, when a script's state is made).
    std::env::set_var("QPSLAB_SYSBENCH_VERBOSITY", general.verbosity.to_string());
    std::env::set_var("QPSLAB_SYSBENCH_ARGV", args.argv.join("\u{1f}"));
    let words = qpslab_words(test, native, &command, general, args);
    let cli = match crate::cli::args::parse_translated(&words) {
        Ok(c) => c,
        Err(m) => {
            // An option neither sysbench's nor the script's: sysbench's words.
            let unknown = m
                .strip_prefix("unexpected argument '")
                .and_then(|r| r.split('\'').next())
                .and_then(|name| {
                    args.opts
                        .iter()
                        .find(|o| o.2.split('=').next() == Some(name))
                });
            match unknown {
                Some(o) => errln!("invalid option: {}", o.2),
                None => outln!("FATAL: {m}"),
            }
            return 1;
        }
    };
    let style = SysbenchStyle {
        verbosity: general.verbosity,
        percentile: general.percentile,
        seeded: general.rand_seed != 0,
    };
    // (a script may run without a server, as in sysbench, until it
    // uses a connection)
    let plan = |a: &crate::cli::args::LoadArgs| {
        LoadPlan::from_args(a).map(|mut p| {
            p.detach_unreachable = true;
            p
        })
    };
    let done = match cli.cmd {
        Cmd::Run(a) => plan(&a).and_then(|p| load_commands::run_styled(&p, Some(&style))),
        Cmd::Prepare(a) => plan(&a)
            .and_then(|p| load_commands::prepare_styled(&p, Some(&style)))
            .map(|_| 0),
        Cmd::Cleanup(a) => plan(&a)
            .and_then(|p| load_commands::cmd_cleanup(&p))
            .map(|_| 0),
        Cmd::Command(c) => load_commands::script_command_styled(&c, true).map(|_| 0),
        other => crate::cli::commands::dispatch(crate::cli::args::Cli { cmd: other }),
    };
    match done {
        Ok(code) => code,
        Err(e) => {
            let m = format!("{e:#}");
            // A command the script lacks: sysbench's words, on stderr.
            if m.contains(&format!("has no `{command}` command")) {
                if matches!(command.as_str(), "prepare" | "cleanup") {
                    errln!("'{test}' test does not implement the '{command}' command.");
                } else {
                    errln!("Unknown command: {command}");
                }
            } else if !native && m.contains("\nstack traceback:") {
                // A script's own error: sysbench names the function that
                // failed and gives no traceback.
                let first = m.lines().next().unwrap_or("");
                let func = match command.as_str() {
                    "prepare" | "cleanup" | "help" => command.as_str(),
                    _ => "sysbench.cmdline.call_command",
                };
                outln!("FATAL: `{func}' function failed: {first}");
            } else {
                outln!("FATAL: {m}");
            }
            1
        }
    }
}

/// `sysbench TEST help`: the test's options as sysbench lists them.
fn help(test: &str, args: &SbArgs) -> i32 {
    // A bundled workload's options as its sysbench script declares them
    // (when sysbench's scripts are installed), else qpslab's.
    let specs = match crate::workload::script::find_script(test) {
        Ok(path) => crate::workload::script::script_options(&path, "help"),
        Err(_) => {
            let mut words = vec![test.to_string()];
            words.extend(args.opts.iter().map(|o| o.2.clone()));
            crate::workload::options_for(&words, "help").map(|(_, specs)| specs)
        }
    };
    match specs {
        Ok(specs) if specs.is_empty() => {
            errln!("'{test}' test does not implement the 'help' command.");
            1
        }
        Ok(specs) => {
            let values = crate::workload::OptValues::new(specs);
            outln!("{test} options:\n{}", values.sysbench_help());
            0
        }
        Err(m) => {
            outln!("FATAL: {m}");
            1
        }
    }
}

/// Whether `test` names one of qpslab's own workloads (sysbench's bundled
/// names, which qpslab runs natively); any other is a script found as
/// sysbench finds it.
fn is_native(test: &str) -> bool {
    crate::workload::ALL.iter().any(|w| w.name() == test) || crate::workload::tpcc::is_tpcc(test)
}

/// The unix socket libmariadb (Debian's sysbench) connects to for host
/// `localhost`.
const DEFAULT_SOCKET: &str = "/run/mysqld/mysqld.sock";

/// Whether the run is recorded in qpslab's store (and monitored).
fn storing(args: &SbArgs) -> bool {
    args.flag("qpslab-store") == Some(true)
        || std::env::var("QPSLAB_STORE").is_ok_and(|v| v == "1" || v == "on")
}

/// The qpslab command line for a sysbench one: each option once (its last
/// value), the general options sysbench mode read itself left out and
/// given as qpslab's, sysbench's defaults where qpslab's differ (10 s,
/// no interval lines, `sbtest` on localhost).
fn qpslab_words(
    test: &str,
    native: bool,
    command: &str,
    general: &General,
    args: &SbArgs,
) -> Vec<String> {
    const READ_HERE: [&str; 17] = [
        "verbosity",
        "version",
        "help",
        "percentile",
        "time",
        "max-time",
        "events",
        "max-requests",
        "threads",
        "num-threads",
        "rate",
        "tx-rate",
        "report-interval",
        "qpslab-store",
        "histogram",
        "debug",
        "validate",
    ];
    // A bundled workload's own commands (prewarm …) are its script's:
    // run sysbench's script for them.
    let test = match command {
        "prepare" | "run" | "cleanup" if native => test.to_string(),
        _ => crate::workload::script::find_script(test)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| test.to_string()),
    };
    let mut words = vec!["qpslab".to_string(), test];
    let mut seen = std::collections::HashSet::new();
    let mut kept = Vec::new();
    for (name, _, word) in args.opts.iter().rev() {
        if READ_HERE.contains(&name.as_str()) || !seen.insert(name.clone()) {
            continue;
        }
        kept.push(word.clone());
    }
    kept.reverse();
    words.extend(kept);
    let g = general;
    words.push(format!("--threads={}", g.threads));
    words.push(format!("--time={}", g.time));
    words.push(format!("--events={}", g.events));
    words.push(format!("--report-interval={}", g.report_interval));
    if g.rate > 0 {
        words.push(format!("--rate={}", g.rate));
    }
    if g.histogram {
        words.push("--histogram".into());
    }
    // sysbench's client library takes host `localhost` (its default) as
    // the server's default unix socket, as the mysql client does.
    let host = args.last("mysql-host").flatten().unwrap_or("localhost");
    if host == "localhost" && !args.given("mysql-socket") {
        words.push(format!("--mysql-socket={DEFAULT_SOCKET}"));
    }
    for (name, default) in [("mysql-user", "sbtest"), ("mysql-db", "sbtest")] {
        if !args.given(name) {
            words.push(format!("--{name}={default}"));
        }
    }
    if !storing(args) {
        words.push("--no-store".into());
        words.push("--no-monitor".into());
    }
    words.push(command.to_string());
    words
}
