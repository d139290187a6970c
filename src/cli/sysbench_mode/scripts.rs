//! sysbench mode's database tests: a bundled workload (`oltp_read_write`)
//! or a Lua script, with its command. The options sysbench mode has read
//! (argv.rs, last occurrence wins) become one qpslab load command, run by
//! the same use cases as `qpslab run` and printed as sysbench prints
//! (load_commands' sysbench style). Nothing is stored and the monitor is
//! off, as nothing sysbench does watches the server — unless
//! `--qpslab-store` (or QPSLAB_STORE=1) asks for both; `--qpslab-store=FILE`
//! names the store.

use super::argv::{General, SbArgs};
use super::bundled;
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
    // The script layer logs a failed statement as sysbench's driver does,
    // at its verbosity (read once, when a script's state is made); a
    // script loaded without a command sees its argv too.
    std::env::set_var("QPSLAB_SYSBENCH_VERBOSITY", general.verbosity.to_string());
    std::env::set_var("QPSLAB_SYSBENCH_ARGV", args.argv.join("\u{1f}"));
    // A script's os.exit(n) ends the process with n at once, as sysbench's
    // does, unless a stored run would lose its samples.
    crate::workload::script::exit_at_once(!storing(args));
    let Some(command) = args.command.clone() else {
        return load_only(test);
    };
    if let Some(word) = args.bad_general_flag() {
        errln!("invalid option: {word}");
        return 1;
    }
    if command == "help" {
        return help(test, args);
    }
    // A driver sysbench does not know: said where sysbench's script asks
    // for it (a bundled test, or its script named by path).
    if let Some(driver) = args.last("db-driver").flatten().filter(|d| *d != "mysql") {
        let asks = |func: &str| {
            native || !bundled::function_at(test, func, "sysbench.sql.driver(").is_empty()
        };
        match command.as_str() {
            "run" if asks("thread_init") && (native || driver != "pgsql") => {
                return unknown_driver(test, driver, general)
            }
            "prepare" | "prewarm" | "cleanup" if driver != "pgsql" => {
                let (func, at) = bundled::driver_failure_at(test, &command);
                if native || !at.is_empty() {
                    outln!("FATAL: invalid database driver name: '{driver}'");
                    outln!(
                        "FATAL: `{func}' function failed: {at}failed to initialize the DB driver"
                    );
                    return 1;
                }
            }
            _ => {}
        }
    }
    let relaxed;
    let mut undeclared = false;
    let args = if native {
        args
    } else {
        match script_values(test, &command, args) {
            Ok((a, declares)) => {
                relaxed = a;
                undeclared = !declares;
                &relaxed
            }
            Err(Refused::Word(word)) => {
                errln!("invalid option: {word}");
                return 1;
            }
            Err(Refused::Fatal(m)) => {
                // (the script's chunk failed, or its options are not
                // sysbench's structure: said once, before anything runs)
                outln!("FATAL: {}", bundled::lua_message(&m));
                return 1;
            }
        }
    };
    let mut words = qpslab_words(test, native, &command, general, args);
    let cli = loop {
        let m = match crate::cli::args::parse_translated(&words) {
            Ok(c) => break Ok(c),
            Err(m) => m,
        };
        // A script that declares no options takes any: sysbench leaves
        // them to the script (qpslab's script family has no place for
        // them: they are dropped).
        let dropped = undeclared
            .then(|| unexpected_word(&m))
            .flatten()
            .and_then(|name| words.iter().position(|w| w.split('=').next() == Some(name)));
        match dropped {
            Some(i) => {
                words.remove(i);
            }
            None => break Err(m),
        }
    };
    let cli = match cli {
        Ok(c) => c,
        Err(m) => {
            // An option neither sysbench's nor the script's: sysbench's words.
            let unknown = unexpected_word(&m).and_then(|name| {
                args.opts
                    .iter()
                    .find(|o| o.2.split('=').next() == Some(name))
            });
            match unknown {
                Some(o) => errln!("invalid option: {}", o.2),
                None => outln!("FATAL: {}", bundled::lua_message(&m)),
            }
            return 1;
        }
    };
    let style = SysbenchStyle {
        verbosity: general.verbosity,
        percentile: general.percentile,
        echo: general.echo(),
        connect_at: bundled::function_at(test, "thread_init", ":connect("),
        db_debug: general.db_debug,
        checkpoints: general.report_checkpoints.clone(),
        prepare_at: if native && prepares_on_connect(test, args) {
            let func = if test.starts_with("oltp_") {
                "prepare_for_each_table"
            } else {
                "thread_init"
            };
            bundled::function_at(test, func, "con:prepare(")
        } else {
            String::new()
        },
    };
    // (a script may run without a server, as in sysbench, until it
    // uses a connection; each statement's own latency is measured only
    // when something keeps it: the store, or --db-debug's figures —
    // sysbench prints event latency alone)
    let statement_latency = storing(args) || general.db_debug;
    let plan = |a: &crate::cli::args::LoadArgs| {
        LoadPlan::from_args(a).map(|mut p| {
            p.detach_unreachable = true;
            p.config.statement_latency = statement_latency;
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
            if let Some(te) = e.downcast_ref::<crate::workload::prepare::TableExists>() {
                table_exists(test, te);
                return 1;
            }
            let m = format!("{e:#}");
            // A command the script lacks: sysbench's words, on stderr.
            if m.contains(&format!("has no `{command}` command")) {
                if matches!(command.as_str(), "prepare" | "cleanup") {
                    // (named by its file name, as in help)
                    let name = std::path::Path::new(test)
                        .file_name()
                        .map_or(test.into(), |n| n.to_string_lossy());
                    errln!("'{name}' test does not implement the '{command}' command.");
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

/// A test named without a command: sysbench loads the script and stops
/// (its main chunk may print, or raise — the OLTP scripts say a command
/// is required). qpslab loads sysbench's own script for a bundled test.
fn load_only(test: &str) -> i32 {
    let Ok(path) = crate::workload::script::find_script(test) else {
        errln!("The '{test}' test requires a command argument. See 'sysbench {test} help'");
        return 1;
    };
    match crate::workload::script::load_only(&path) {
        Ok(()) => 0,
        Err(m) => {
            outln!("FATAL: {}", bundled::lua_message(&m));
            1
        }
    }
}

/// No test named (or `-`): sysbench reads a script from standard input
/// and loads it (no command runs).
pub fn from_stdin(verbosity: u32) -> i32 {
    use std::io::{IsTerminal, Read};
    let stdin = std::io::stdin();
    if stdin.is_terminal() && verbosity >= 3 {
        outln!("Reading the script from the standard input:\n");
        crate::out::flush();
    }
    let mut text = Vec::new();
    if let Err(e) = stdin.lock().read_to_end(&mut text) {
        outln!("FATAL: reading the script from the standard input: {e}");
        return 1;
    }
    if text.iter().all(u8::is_ascii_whitespace) {
        return 0;
    }
    let path = std::env::temp_dir().join(format!("qpslab-stdin-{}.lua", std::process::id()));
    if let Err(e) = std::fs::write(&path, &text) {
        outln!(
            "FATAL: keeping the script from the standard input in {}: {e}",
            path.display()
        );
        return 1;
    }
    let loaded = crate::workload::script::load_only(&path);
    let _ = std::fs::remove_file(&path);
    match loaded {
        Ok(()) => 0,
        Err(m) => {
            outln!("FATAL: {}", bundled::lua_message(&m));
            1
        }
    }
}

/// The option a parse error of qpslab's command line names as unexpected.
fn unexpected_word(m: &str) -> Option<&str> {
    m.strip_prefix("unexpected argument '")
        .and_then(|r| r.split('\'').next())
}

/// Why a script's command line is refused before it runs.
enum Refused {
    /// An option's word (`invalid option: WORD`, on stderr).
    Word(String),
    /// The script failed to load, or declares its options wrongly
    /// (`FATAL: …`).
    Fatal(String),
}

/// A script's option values read as sysbench reads them: a number from
/// its leading digits (0 when there are none), a size that does not
/// parse as 0; with whether the script declares options at all (one
/// that declares none takes any).
fn script_values(test: &str, command: &str, args: &SbArgs) -> Result<(SbArgs, bool), Refused> {
    use crate::workload::OptKind;
    let Ok(path) = crate::workload::script::find_script(test) else {
        return Ok((args.clone(), true));
    };
    let specs = match crate::workload::script::declared_options(&path, command) {
        Ok(Some(specs)) => specs,
        Ok(None) => return Ok((args.clone(), false)),
        Err(m) => return Err(Refused::Fatal(m)),
    };
    let mut out = args.clone();
    for (name, value, word) in &mut out.opts {
        let Some(spec) = specs.iter().find(|s| s.name.replace('_', "-") == *name) else {
            continue;
        };
        let Some(v) = value.as_deref() else {
            continue;
        };
        let relaxed = match spec.kind {
            OptKind::Float => number_prefix(v).to_string(),
            OptKind::Size => crate::workload::parse_size(v).unwrap_or(0).to_string(),
            OptKind::Bool if super::argv::parse_bool(Some(v)).is_none() => {
                return Err(Refused::Word(word.clone()))
            }
            _ => continue,
        };
        *word = format!("--{}={relaxed}", name);
        *value = Some(relaxed);
    }
    Ok((out, true))
}

/// The number C's strtod reads at the start of `v` (0 when none).
fn number_prefix(v: &str) -> f64 {
    let t = v.trim_start();
    // the longest prefix that parses (strtod stops at the first byte that
    // cannot continue a number)
    (1..=t.len())
        .rev()
        .filter(|&n| t.is_char_boundary(n))
        .find_map(|n| t[..n].parse::<f64>().ok().filter(|x| x.is_finite()))
        .unwrap_or(0.0)
}

/// A bundled test's prepare that found a table there: what sysbench's
/// driver and oltp_common.lua say.
fn table_exists(test: &str, te: &crate::workload::prepare::TableExists) {
    let se = &te.server;
    outln!(
        "FATAL: mysql_drv_query() returned error {} ({}) for query '{}'",
        se.code,
        se.message,
        te.sql
    );
    outln!(
        "FATAL: `sysbench.cmdline.call_command' function failed: {}SQL error, errno = {}, state = '{}': {}",
        bundled::function_at(test, "create_table", "con:query("),
        se.code,
        se.state,
        se.message
    );
}

/// Whether bundled test `test` prepares statements on the server when a
/// connection starts (so a missing table fails there): not oltp_insert
/// (plain queries), not with --db-ps-mode=disable (emulated).
fn prepares_on_connect(test: &str, args: &SbArgs) -> bool {
    test != "oltp_insert" && args.text("db-ps-mode", "auto") != "disable"
}

/// A bundled test run with a driver other than MySQL's: sysbench's
/// thread_init fails after its header.
fn unknown_driver(test: &str, driver: &str, general: &General) -> i32 {
    if general.verbosity >= 3 {
        out!(
            "{}",
            crate::report::sysbench::sysbench_header(general.verbosity, &general.echo())
        );
    }
    // (FATAL is said at every verbosity, 0 included)
    outln!("FATAL: invalid database driver name: '{driver}'");
    outln!(
        "FATAL: `thread_init' function failed: {}failed to initialize the DB driver",
        bundled::function_at(test, "thread_init", "sysbench.sql.driver(")
    );
    outln!("FATAL: Thread initialization failed!");
    1
}

/// `sysbench TEST help`: the test's options as sysbench lists them.
fn help(test: &str, args: &SbArgs) -> i32 {
    // (sysbench names a script by its file name, whatever path led to it)
    let name = std::path::Path::new(test)
        .file_name()
        .map_or(test.into(), |n| n.to_string_lossy());
    // A script's own help() is what sysbench 1.0.20 runs first (called
    // with no argument); its option list only when it has none.
    if !is_native(test) {
        if let Ok(path) = crate::workload::script::find_script(test) {
            match crate::workload::script::script_help(&path) {
                Ok(true) => return 0,
                Ok(false) => {}
                Err(m) => {
                    outln!("FATAL: {m}");
                    return 1;
                }
            }
        }
    }
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
            errln!("'{name}' test does not implement the 'help' command.");
            1
        }
        Ok(specs) => {
            let values = crate::workload::OptValues::new(specs);
            outln!("{name} options:\n{}", values.sysbench_help());
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
    crate::workload::ALL.iter().any(|w| w.name() == test)
        || crate::workload::tpcc::is_tpcc(test)
        || crate::workload::linkbench::is_linkbench(test)
}

/// The unix socket libmariadb (Debian's sysbench) connects to for host
/// `localhost`.
const DEFAULT_SOCKET: &str = "/run/mysqld/mysqld.sock";

/// Whether the run is recorded in qpslab's store (and monitored).
fn storing(args: &SbArgs) -> bool {
    (args.given("qpslab-store") && args.flag("qpslab-store") != Some(false))
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
    const READ_HERE: [&str; 19] = [
        "report-checkpoints",
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
        "db-debug",
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
    if g.percentile > 0 {
        words.push(format!("--percentile={}", g.percentile));
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
    } else if args.flag("qpslab-store").is_none() {
        // `--qpslab-store=FILE`: that store
        words.push(format!("--store={}", args.text("qpslab-store", "")));
    }
    words.push(command.to_string());
    words
}
