//! sysbench mode: qpslab invoked as `sysbench` (a link to the binary) or
//! as `qpslab sysbench ARGS…` parses sysbench 1.0.20's command line as
//! sysbench does (argv.rs) and prints what sysbench prints, on the same
//! streams, with its exit codes — so scripts, CI jobs and parsers built
//! on sysbench run unchanged. The measuring underneath is qpslab's (the
//! lean client); `qpslab run …` keeps its own richer output.
//!
//! This file dispatches: version, help, built-in tests (builtin.rs), and
//! database tests (bundled workloads and Lua scripts: scripts.rs).

mod argv;
mod builtin;
mod bundled;
mod scripts;

use argv::{General, Refusal, SbArgs};

/// The version sysbench mode answers to.
pub const SYSBENCH_VERSION: &str = "1.0.20";

/// The command line to run in sysbench mode, program name first, when the
/// binary was invoked as `sysbench` or as `qpslab sysbench …`.
pub fn wanted(argv: &[String]) -> Option<Vec<String>> {
    let prog = argv.first()?;
    let base = std::path::Path::new(prog)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    if base == "sysbench" {
        return Some(argv.to_vec());
    }
    if argv.get(1).map(String::as_str) == Some("sysbench") {
        let mut v = vec!["sysbench".to_string()];
        v.extend(argv[2..].iter().cloned());
        return Some(v);
    }
    None
}

/// The banner line sysbench prints first: sysbench's version, then what
/// actually runs (qpslab, its LuaJIT).
pub fn banner() -> String {
    format!(
        "sysbench {SYSBENCH_VERSION} (using qpslab {} with bundled LuaJIT 2.1.0-beta3)",
        env!("CARGO_PKG_VERSION")
    )
}

/// Runs a sysbench command line and exits with sysbench's code.
pub fn main(argv: Vec<String>) -> ! {
    let code = run(&argv);
    std::process::exit(crate::out::settle(code))
}

fn refuse(r: Refusal) -> i32 {
    match r {
        Refusal::Stderr(m) => errln!("{m}"),
        Refusal::Stdout(m) => outln!("{m}"),
    }
    1
}

fn run(argv: &[String]) -> i32 {
    let args = match argv::split(argv) {
        Ok(a) => a,
        Err(r) => return refuse(r),
    };
    for _ in 0..args.test_option {
        errln!("{}", argv::TEST_OPTION_WARNING);
    }
    // sysbench answers --help, then --version, before it reads any other
    // option's value or warns of a deprecated name
    if args.flag("help") == Some(true) {
        print_usage();
        return 0;
    }
    if args.flag("version") == Some(true) {
        outln!("sysbench {SYSBENCH_VERSION}");
        return 0;
    }
    let general = match General::read(&args) {
        Ok(g) => g,
        Err(r) => return refuse(r),
    };
    for w in &general.warnings {
        outln!("{w}");
    }
    if general.version {
        outln!("sysbench {SYSBENCH_VERSION}");
        return 0;
    }
    if general.help {
        print_usage();
        return 0;
    }
    // sysbench 1.0.20 checks the distribution first (it has no zipfian)
    if !["uniform", "gaussian", "special", "pareto"].contains(&general.rand_type.as_str()) {
        outln!(
            "FATAL: Invalid random numbers distribution: {}.",
            general.rand_type
        );
        return 1;
    }
    // (sysbench says its banner at the notice level: verbosity 3)
    if general.verbosity >= 3 {
        outln!("{}\n", banner());
    }
    let Some(test) = args.test.clone().filter(|t| t != "-") else {
        return scripts::from_stdin(general.verbosity);
    };
    if crate::hostbench::is_builtin(&test) {
        return builtin_command(&test, &general, &args);
    }
    scripts::run(&test, &general, &args)
}

fn builtin_command(test: &str, general: &General, args: &SbArgs) -> i32 {
    let Some(command) = args.command.as_deref() else {
        errln!("The '{test}' test requires a command argument. See 'sysbench {test} help'");
        return 1;
    };
    if command == "help" {
        builtin::help(test);
        return 0;
    }
    builtin::run(test, command, general, args)
}

/// `sysbench --help`: the general options, the drivers, the tests.
fn print_usage() {
    out!("{}", include_str!("usage.txt"));
}
