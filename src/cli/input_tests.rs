//! Property tests: no input on the command line or in a campaign file makes
//! qpslab panic. Every generated argument list goes through clap and then
//! through the same offline checks a command runs before it touches a
//! server; every generated campaign file through the parser, the matrix
//! expansion and each point's option checks. Errors are fine; panics
//! (an overflowing `Duration`, a slice out of range) are not.

use super::args::{Cli, Cmd};
use super::plan::LoadPlan;
use crate::campaign::CampaignFile;
use clap::Parser;
use proptest::prelude::*;

/// Values that have broken parsers before, plus arbitrary ones.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "0",
            "-1",
            "1",
            "1e300",
            "-1e300",
            "1e-300",
            "nan",
            "inf",
            "-inf",
            "NaN",
            "4294967295",
            "4294967296",
            "18446744073709551616",
            "0.0001",
            "100000",
            "1,2,0",
            "1,,2",
            "",
            " ",
            "all",
            "none",
            "on",
            "off",
            "auto",
            "0-99999999",
            "status=1e300",
            "cpu=0",
            "nosuch=1",
            "50,95,101",
            "x=y=z",
        ])
        .prop_map(str::to_string),
        any::<f64>().prop_map(|f| f.to_string()),
        any::<i64>().prop_map(|i| i.to_string()),
        "[ -~]{0,12}",
    ]
}

/// Option names of the load commands and the monitor.
const OPTIONS: &[&str] = &[
    "--tables",
    "--table-size",
    "--threads",
    "--time",
    "--events",
    "--warmup-time",
    "--rate",
    "--report-interval",
    "--rand-type",
    "--rand-spec-iter",
    "--rand-spec-pct",
    "--rand-spec-res",
    "--rand-pareto-h",
    "--rand-zipfian-exp",
    "--rand-seed",
    "--range-size",
    "--point-selects",
    "--simple-ranges",
    "--random-points",
    "--number-of-ranges",
    "--delta",
    "--percentile",
    "--connect-timeout",
    "--read-timeout",
    "--connect-rate",
    "--max-unreachable",
    "--monitor-interval",
    "--monitor-rates",
    "--monitor-off",
    "--monitor-budget",
    "--db-ps-mode",
    "--mysql-ignore-errors",
    "--client-shards",
    "--client-sched",
    "--format",
    "--reconnect",
    "--skip-trx",
    "--cooldown",
    "--repeat",
    "--count",
    "--interval",
    "--port",
];

fn argv() -> impl Strategy<Value = Vec<String>> {
    let cmd = prop::sample::select(vec![
        "run",
        "prepare",
        "cleanup",
        "sweep",
        "monitor",
        "iostat",
        "top",
        "quickstart",
    ]);
    let workload = prop::sample::select(vec![
        "oltp_point_select",
        "oltp_read_write",
        "select_random_ranges",
        "nosuch",
    ]);
    let pairs = prop::collection::vec((prop::sample::select(OPTIONS), value()), 0..6);
    (cmd, workload, pairs).prop_map(|(cmd, w, pairs)| {
        let mut v = vec!["qpslab".to_string(), cmd.to_string()];
        if !matches!(cmd, "monitor" | "iostat" | "top" | "quickstart") {
            v.push(w.to_string());
        }
        for (k, val) in pairs {
            v.push(format!("{k}={val}"));
        }
        v
    })
}

/// A campaign file of known keys with generated values (and some noise).
fn campaign_text() -> impl Strategy<Value = String> {
    let num = prop_oneof![
        prop::sample::select(vec![
            "0", "-1", "1", "1e300", "nan", "inf", "-0.0", "3", "2.5"
        ])
        .prop_map(str::to_string),
        any::<i32>().prop_map(|i| i.to_string()),
        any::<f64>()
            .prop_filter("TOML float", |f| f.is_finite())
            .prop_map(|f| format!("{f:?}")),
    ];
    let threads = prop::collection::vec(any::<u32>().prop_map(|t| (t % 5000).to_string()), 0..4)
        .prop_map(|v| format!("[{}]", v.join(", ")));
    let opt = (prop::sample::select(OPTIONS), value())
        .prop_map(|(k, v)| format!("{} = {:?}", k.trim_start_matches("--").replace('-', "_"), v));
    (
        threads,
        num.clone(),
        num.clone(),
        num.clone(),
        num,
        prop::collection::vec(opt, 0..3),
        prop::sample::select(vec!["point_select", "oltp_read_write", "nosuch"]),
    )
        .prop_map(|(threads, time, warmup, cooldown, repeat, opts, w)| {
            format!(
                "name = \"p\"\nthreads = {threads}\ntime = {time}\nwarmup = {warmup}\n\
                 cooldown = {cooldown}\nrepeat = {repeat}\n[[server]]\nlabel = \"s\"\n\
                 [[workload]]\nname = \"{w}\"\noptions = {{ {} }}\n",
                opts.join(", ")
            )
        })
}

#[test]
fn a_bad_choice_is_refused_with_the_choices() {
    for (opt, val, choices) in [
        ("--format", "jsn", "text, json"),
        ("--db-ps-mode", "never", "auto, disable"),
        ("--rand-type", "zipf", "zipfian"),
        ("--client-sched", "fifo", "batch"),
        ("--ssl-mode", "maybe", "VERIFY_CA"),
    ] {
        let e = Cli::try_parse_from(["qpslab", "run", "oltp_point_select", opt, val]).unwrap_err();
        let line = super::args::one_line(&e);
        assert!(
            line.contains(&format!("{opt} '{val}' is not one of")) && line.contains(choices),
            "{opt}: {line}"
        );
    }
    // A workload option's bad value is named, in one line, before clap runs.
    let argv = |s: &str| -> Vec<String> { s.split_whitespace().map(str::to_string).collect() };
    let e =
        super::args::parse_from(&argv("qpslab run oltp_read_write --table-size -1")).unwrap_err();
    let line = super::args::one_line(&e);
    assert!(
        line.contains("--table-size '-1'") && !line.contains('\n'),
        "{line}"
    );
    let cli = super::args::parse_from(&argv(
        "qpslab run --threads 2 oltp_read_write --skip-trx --tables=3",
    ))
    .unwrap();
    let Cmd::Run(a) = cli.cmd else {
        panic!("not a run")
    };
    assert_eq!(
        (
            a.options.count("tables"),
            a.options.flag("skip_trx"),
            a.threads.as_str()
        ),
        (3, true, "2")
    );
    // sysbench's spellings still work.
    assert!(Cli::try_parse_from(["qpslab", "run", "x", "--mysql-ssl", "on"]).is_ok());
    assert!(Cli::try_parse_from(["qpslab", "runs", "--format", "md"]).is_ok());
    // Shared flags flattened into every command: no clash of names.
    Cli::try_parse_from(["qpslab", "campaign", "run", "f.toml", "--store", "s.db"]).unwrap();
    Cli::try_parse_from(["qpslab", "campaign", "status", "f.toml"]).unwrap();
    use clap::CommandFactory;
    Cli::command().debug_assert();
    // And a campaign file's options say the choices in one line.
    let e = super::args::LoadArgs::from_words(&["x".into(), "--rand-type".into(), "zipf".into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("zipfian") && !e.contains('\n'), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn no_argument_list_panics(args in argv()) {
        if let Ok(cli) = super::args::parse_from(&args) {
            match cli.cmd {
                Cmd::Run(a) | Cmd::Prepare(a) | Cmd::Cleanup(a) => {
                    if let Ok(plan) = LoadPlan::from_args(&a) {
                        let cfg = &plan.config;
                        // The durations a run derives from its options.
                        let _ = std::time::Duration::from_secs_f64(cfg.warmup + cfg.time);
                        let _ = std::time::Duration::from_secs_f64(cfg.interval);
                    }
                }
                Cmd::Sweep(s) if LoadPlan::from_args(&s.load).is_ok() => {
                    let _ = std::time::Duration::from_secs_f64(s.cooldown);
                }
                _ => {}
            }
        }
    }

    #[test]
    fn no_campaign_file_panics(text in campaign_text()) {
        if let Ok(c) = CampaignFile::parse(&text, "generated") {
            prop_assert!(c.time > 0.0 && c.time.is_finite() && c.cooldown >= 0.0 && c.warmup >= 0.0);
            for p in c.points() {
                let _ = super::campaign::point_plan(&c, &p);
            }
        }
    }
}

#[test]
fn a_monitor_interval_below_a_tenth_of_a_second_is_refused() {
    for v in ["0", "0.05", "7200", "x"] {
        let e = Cli::try_parse_from([
            "qpslab",
            "run",
            "oltp_point_select",
            "--monitor-interval",
            v,
        ])
        .unwrap_err();
        let line = super::args::one_line(&e);
        assert!(
            line.contains("--monitor-interval") && line.contains("from 0.1 to 3600"),
            "{v}: {line}"
        );
    }
    assert!(Cli::try_parse_from([
        "qpslab",
        "run",
        "oltp_point_select",
        "--monitor-interval",
        "0.1"
    ])
    .is_ok());
}

#[test]
fn an_empty_store_path_is_named_as_empty() {
    let e = Cli::try_parse_from(["qpslab", "runs", "--store", ""]).unwrap_err();
    let line = super::args::one_line(&e);
    assert!(
        line.contains("--store") && line.contains("empty value") && !line.contains("not one of"),
        "{line}"
    );
}

#[test]
fn a_missing_argument_is_named_with_the_usage() {
    use clap::CommandFactory;
    let mut checked = 0;
    for sub in Cli::command().get_subcommands() {
        let name = sub.get_name().to_string();
        let Err(e) = Cli::try_parse_from(["qpslab", name.as_str()]) else {
            continue;
        };
        if e.kind() != clap::error::ErrorKind::MissingRequiredArgument {
            continue;
        }
        let line = super::args::one_line(&e);
        assert!(
            line.starts_with("missing <") || line.starts_with("missing --"),
            "{name}: {line}"
        );
        assert!(
            line.contains(&format!("usage: qpslab {name} "))
                && line.contains(&format!("see qpslab {name} --help")),
            "{name}: {line}"
        );
        assert!(!line.contains('\n'), "{name}: {line}");
        checked += 1;
    }
    // report, show, compare, chart, flamegraph, run… take a required argument.
    assert!(
        checked >= 5,
        "only {checked} commands with a required argument"
    );
}

/// Every `qpslab …` command line quoted (in backticks) in src/ — the
/// hints in messages, the module docs — goes through the real parser with
/// its placeholders (`{…}`, NAME, FILE, ID…) filled in: a hint may not
/// name an option that does not exist.
#[test]
fn every_suggested_command_line_parses() {
    const PLACEHOLDERS: [&str; 20] = [
        "NAME", "FILE", "ID", "N", "RUN", "PCT", "DIR", "PATH", "A", "B", "SCRIPT", "WORKLOAD",
        "HOST", "PORT", "USER", "DB", "KIND", "METRIC", "COMMAND", "ID2",
    ];
    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs" || x == "txt") {
                out.push(p);
            }
        }
    }
    let mut all = Vec::new();
    files(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut all,
    );
    let (mut checked, mut bad) = (0, Vec::new());
    for f in &all {
        let text = std::fs::read_to_string(f).unwrap();
        for quoted in text.split('`').skip(1).step_by(2) {
            let Some(rest) = quoted.strip_prefix("qpslab ") else {
                continue;
            };
            // Sketches, pipes and alternatives are prose, not command lines.
            if ["…", "...", "|", "[", "<", "\n", "\\", ".lua"]
                .iter()
                .any(|m| rest.contains(m))
            {
                continue;
            }
            let mut filled = String::new();
            let mut depth = 0;
            for c in rest.chars() {
                match c {
                    '{' => {
                        if depth == 0 {
                            filled.push('1');
                        }
                        depth += 1;
                    }
                    '}' => depth -= 1,
                    _ if depth == 0 => filled.push(c),
                    _ => {}
                }
            }
            let argv: Vec<String> = std::iter::once("qpslab".to_string())
                .chain(filled.split_whitespace().map(|w| {
                    if PLACEHOLDERS.contains(&w) {
                        "1".to_string()
                    } else {
                        w.to_string()
                    }
                }))
                .collect();
            checked += 1;
            if let Err(e) = super::args::parse_from(&argv) {
                use clap::error::ErrorKind::*;
                // A command named in prose (`qpslab show`) is not a line.
                let named = e.kind() == MissingRequiredArgument && !rest.contains('-');
                if !matches!(e.kind(), DisplayHelp | DisplayVersion) && !named {
                    bad.push(format!(
                        "{}: `qpslab {rest}`: {}",
                        f.display(),
                        super::args::one_line(&e)
                    ));
                }
            }
        }
    }
    assert!(checked >= 20, "only {checked} command lines found");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn bad_load_input_fails_in_the_plan_before_any_server() {
    // Each refused by LoadPlan::from_args, which opens nothing: a default
    // sandbox or server is never reached (there is none in unit tests).
    for (args, want) in [
        ("oltp_read_write --rand-pareto-h 1", "--rand-pareto-h"),
        ("oltp_read_write --rand-spec-pct 101", "--rand-spec-pct"),
        ("oltp_read_write --rand-zipfian-exp 1", "--rand-zipfian-exp"),
        ("oltp_read_write --percentile abc", "--percentile"),
        ("oltp_read_write --threads 0", "--threads"),
        ("oltp_read_write --threads 1,x", "--threads"),
        ("nope", "unknown workload"),
        ("tpcc --warehouses 0", "--warehouses must be from 1"),
        ("tpcc --isolation sloppy", "--isolation"),
        (
            "dbstress --hot-share 101",
            "--hot-share must be from 0 to 100",
        ),
        ("dbstress --objects 0", "--objects must be from 1"),
        (
            "iibench --num-secondary-indexes 4",
            "--num-secondary-indexes must be from 0 to 3",
        ),
        (
            "insert-benchmark --data-length-min 20",
            "above --data-length-max",
        ),
        ("iibench --num-partitions 4", "--rows-per-partition"),
        (
            "iibench --query-threads 1 --num-secondary-indexes 0",
            "--query-pk-only",
        ),
        ("dbstress --history-tables 4 --hot-share 10", "colder"),
        ("dbstress --storage-engine a;b", "not an engine name"),
        ("oltp_read_write --tables 4000000000", "--tables"),
        ("oltp_read_write --client-cpus zz", "--client-cpus"),
        ("oltp_read_write --monitor-off nosuch", "--monitor-off"),
        (
            "oltp_read_write --monitor-rates nosuch=1",
            "--monitor-rates",
        ),
        ("oltp_read_write --profile nosuch", "--profile"),
        ("no/such/script.lua", "script"),
    ] {
        let words: Vec<String> = args.split_whitespace().map(str::to_string).collect();
        let e = super::args::LoadArgs::from_words(&words)
            .and_then(|l| LoadPlan::from_args(&l).map(|_| ()))
            .expect_err(args)
            .to_string();
        assert!(e.contains(want) && !e.contains('\n'), "{args}: {e}");
    }
    // A list of threads is a sweep's: the plan takes it, a run refuses it.
    let words: Vec<String> = "oltp_read_write --threads 1,4"
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let plan = LoadPlan::from_args(&super::args::LoadArgs::from_words(&words).unwrap()).unwrap();
    assert_eq!(plan.threads, [1, 4]);
    let e = plan.single_threads().unwrap_err().to_string();
    assert!(e.contains("qpslab sweep"), "{e}");
}

/// Command lines the probe of issue 29 found accepted although they make
/// no sense: each is refused by the parser.
#[test]
fn contradictions_and_unknown_values_are_refused() {
    for args in [
        &[
            "qpslab",
            "run",
            "oltp_point_select",
            "--no-store",
            "--store",
            "x.db",
        ][..],
        &["qpslab", "runs", "--status", "bogus"][..],
    ] {
        assert!(Cli::try_parse_from(args).is_err(), "{args:?} was accepted");
    }
    assert!(Cli::try_parse_from(["qpslab", "runs", "--status", "degraded"]).is_ok());
}

/// A campaign file the TOML parser refuses gives one line with where.
#[test]
fn a_bad_campaign_file_gives_one_line_with_its_line_number() {
    let text = "threads = [1, 2]\n\n[[server]]\nlabel = \"a\"\nnosuch = 1\n";
    let e = format!("{:#}", CampaignFile::parse(text, "c.toml").unwrap_err());
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.starts_with("c.toml is not a valid campaign file (line "),
        "{e}"
    );
    assert!(e.contains("nosuch"), "{e}");
}

#[test]
fn the_my_cnf_preset_answers_to_its_older_name() {
    use super::args::ServerCmd;
    let argv = |s: &str| -> Vec<String> { s.split_whitespace().map(str::to_string).collect() };
    for flag in ["--preset", "--profile"] {
        let cli =
            super::args::parse_from(&argv(&format!("qpslab server start {flag} bench"))).unwrap();
        match cli.cmd {
            Cmd::Server {
                cmd: ServerCmd::Start(a),
            } => assert_eq!(a.preset.as_deref(), Some("bench")),
            other => panic!("{flag}: parsed as {other:?}"),
        }
    }
    for word in ["presets", "profiles"] {
        let cli = super::args::parse_from(&argv(&format!("qpslab server {word}"))).unwrap();
        assert!(
            matches!(
                cli.cmd,
                Cmd::Server {
                    cmd: ServerCmd::Presets
                }
            ),
            "{word}"
        );
    }
}

/// A script that declares no options takes any `--name=value` as its own,
/// but never a connection option under sysbench's name: `--mysql-socket=S`
/// once went to the script and the run to the default sandbox.
#[test]
fn sysbench_connection_names_are_never_a_scripts_options() {
    let dir = std::env::temp_dir().join(format!("qpslab-noopt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("noopt.lua");
    std::fs::write(&script, "function event() end\n").unwrap();
    let line = format!(
        "qpslab {} --mysql-socket=/tmp/x.sock --mysql-user=root --custom=1 run",
        script.display()
    );
    let words: Vec<String> = line.split_whitespace().map(String::from).collect();
    let cli = super::args::parse_from(&words);
    std::fs::remove_dir_all(&dir).unwrap();
    let Cmd::Run(a) = cli.unwrap().cmd else {
        panic!("not a run")
    };
    assert_eq!(
        a.conn.socket.as_deref(),
        Some(std::path::Path::new("/tmp/x.sock"))
    );
    assert_eq!(a.conn.user.as_deref(), Some("root"));
}
