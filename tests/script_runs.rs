//! sysbench Lua scripts run against a real sandbox: tables sysbench
//! prepared run under a script, a script of our own exercises the whole
//! API, and script errors are reported once with their file and line; a
//! script stuck in a loop or calling os.exit cannot hold or end a run
//! unreported. (The statement-count comparison with sysbench is script_compat.rs.)

mod common;
use common::{json, lab, require_sysbench, text};
use std::io::BufReader;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

fn own(name: &str) -> String {
    format!("{}/tests/scripts/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn sysbench(db: &str, args: &[&str]) -> std::process::Output {
    lab().sysbench(db, args)
}

fn qpslab(db: &str, args: &[&str]) -> std::process::Output {
    lab().on_db(db, args)
}

#[test]
fn tables_sysbench_prepared_run_under_a_script() {
    require_sysbench();
    let db = lab().fresh_db("sc_sb_prepared");
    let out = sysbench(
        &db,
        &[
            "oltp_read_write",
            "--tables=2",
            "--table-size=500",
            "prepare",
        ],
    );
    assert!(out.status.success(), "sysbench prepare: {}", text(&out));
    let out = qpslab(
        &db,
        &[
            "run",
            "oltp_read_write.lua",
            "--tables=2",
            "--table-size=500",
            "--threads=1",
            "--events=200",
            "--time=120",
            "--format",
            "json",
            "--no-store",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let j = json(&out);
    assert_eq!(j["status"]["status"], "ok", "{j}");
    let t = &j["totals"];
    assert_eq!(t["transactions"].as_u64(), Some(200), "{t}");
    // 18 statements plus BEGIN and COMMIT per transaction, as sysbench.
    assert_eq!(t["queries"].as_u64(), Some(20 * 200), "{t}");
    // The script, its hash and text are kept with the run's options.
    let o = &j["options"]["oltp"];
    assert_eq!(
        o["script"], "/usr/share/sysbench/oltp_read_write.lua",
        "{o}"
    );
    assert_eq!(o["sha256"].as_str().map(str::len), Some(64), "{o}");
    assert!(
        o["text"].as_str().unwrap_or("").contains("function event"),
        "{o}"
    );
    assert_eq!(o["options"]["tables"], 2.0, "{o}");
}

#[test]
fn the_whole_script_api_works() {
    let db = lab().fresh_db("sc_api");
    let api = own("api.lua");
    let out = qpslab(&db, &["prepare", &api]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("api prepared 20"), "{}", text(&out));
    // A custom command, in sysbench's shape too.
    let out = qpslab(&db, &[&api, "selftest"]);
    assert!(
        out.status.success() && text(&out).contains("selftest ok"),
        "{}",
        text(&out)
    );
    // A parallel command runs once per thread, each with its sysbench.tid.
    let out = qpslab(&db, &["parallel", &api, "--threads=3"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        lab()
            .sql(&db, "SELECT GROUP_CONCAT(tid ORDER BY tid) FROM api_cmd")
            .trim(),
        "0,1,2"
    );
    // The run: an ignored duplicate key restarts the event (the hook sees
    // it) and is counted; report hooks replace the interval lines and add
    // the script's own cumulative line.
    let out = qpslab(
        &db,
        &[
            "run",
            &api,
            "--threads=2",
            "--events=60",
            "--time=120",
            "--dup-every=10",
            "--mysql-ignore-errors=1062",
            "--csv",
            "--report-interval=1",
            "--no-store",
        ],
    );
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(all.contains("cumulative events 60"), "{all}");
    // Each connection prints "thread N restarts M" from its own thread
    // with Lua's print, which writes the text and its newline apart (as
    // sysbench's does): two connections' lines may run together, so the
    // counts are read wherever they are, not line by line.
    let restarts: i64 = all
        .split("thread ")
        .skip(1)
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            w.next()?;
            (w.next()? == "restarts").then_some(())?;
            let n: String = w.next()?.chars().take_while(char::is_ascii_digit).collect();
            n.parse::<i64>().ok()
        })
        .sum();
    assert!(restarts > 0, "{all}");
    assert!(
        all.contains(&format!("ignored errors:                      {restarts} ")),
        "{restarts} restarts, not counted as ignored errors:\n{all}"
    );
    let out = qpslab(&db, &["cleanup", &api]);
    assert!(out.status.success(), "{}", text(&out));
}

/// Without --events an event's end rides on the next event's first
/// request (one resume an event): every event qpslab counts ran (one row
/// each) and an event begun ahead at the run's end did not; six
/// parameters of every bound type (sent as one list) and two (sent as
/// the request's own values) bind as declared; an event with no request
/// stops the folding; with --events nothing is begun ahead.
#[test]
fn an_events_end_said_with_the_next_request_counts_each_event_once() {
    let db = lab().fresh_db("sc_fold");
    let fold = own("fold.lua");
    let runs: [(&[&str], u64); 3] = [
        (&["--time=2"], 0),
        (&["--time=2", "--noreq-at=3"], 3),
        (&["--events=40", "--time=120"], 0),
    ];
    for (args, noreq) in runs {
        let out = qpslab(&db, &["cleanup", &fold]);
        assert!(out.status.success(), "{}", text(&out));
        let out = qpslab(&db, &["prepare", &fold]);
        assert!(out.status.success(), "{}", text(&out));
        let mut a = vec![
            "run",
            &fold,
            "--threads=2",
            "--format",
            "json",
            "--no-store",
        ];
        a.extend(args);
        let out = qpslab(&db, &a);
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        let j = json(&out);
        let events = j["totals"]["transactions"].as_u64().unwrap_or(0);
        let rows: u64 = lab()
            .sql(&db, "SELECT COUNT(*) FROM fold_t")
            .trim()
            .parse()
            .unwrap_or(0);
        let no_request = if noreq > 0 { 2 } else { 0 };
        assert!(rows > 10, "{args:?}: {rows} rows");
        assert_eq!(events, rows + no_request, "{args:?}: events and rows");
        let wrong = lab().sql(
            &db,
            "SELECT COUNT(*) FROM fold_t WHERE i <> n * 1000000007 OR d <> n + 0.5 \
             OR s <> LEFT(CONCAT('s', n, '-too-long'), 8) OR z IS NOT NULL",
        );
        assert_eq!(wrong.trim(), "0", "{args:?}: values bound wrong");
        // Per connection: rows, the highest event number, and the events
        // its Lua began (thread_done's count).
        let per = lab().sql(
            &db,
            "SELECT x.c, x.m, s.n FROM (SELECT tid, COUNT(*) c, MAX(n) m FROM fold_t \
             GROUP BY tid) x JOIN fold_seen s USING (tid) ORDER BY tid",
        );
        let per: Vec<Vec<u64>> = per
            .lines()
            .map(|l| {
                l.split_whitespace()
                    .filter_map(|w| w.parse().ok())
                    .collect()
            })
            .collect();
        assert_eq!(per.len(), 2, "{args:?}: {per:?}");
        for v in &per {
            let (c, m, began) = (v[0], v[1], v[2]);
            if noreq > 0 {
                // (folding stopped at the event with no request)
                assert_eq!((m, began), (c + 1, c + 1), "{args:?}: {per:?}");
            } else if args[0].starts_with("--events") {
                assert_eq!((m, began), (c, c), "{args:?}: {per:?}");
            } else {
                assert_eq!(m, c, "{args:?}: {per:?}");
                assert!(began == c || began == c + 1, "{args:?}: {per:?}");
            }
        }
    }
}

/// The lines of `out`'s stdout that `keep` keeps, sorted (two sysbench
/// threads' lines come in either order).
fn lines_of(out: &Output, keep: fn(&str) -> bool) -> Vec<String> {
    let mut v: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| keep(l))
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

/// Runs `script` with `opts` under sysbench, then under qpslab with a
/// thread per connection and with both connections in one Lua state (one
/// shard): the lines `keep` keeps are sysbench's, `count` of them.
/// Returns sysbench's lines.
fn same_lines_as_sysbench(
    db: &str,
    script: &str,
    opts: &[&str],
    keep: fn(&str) -> bool,
    count: usize,
) -> Vec<String> {
    let theirs = sysbench(db, &[&[script][..], opts, &["run"]].concat());
    assert!(theirs.status.success(), "sysbench: {}", text(&theirs));
    let want = lines_of(&theirs, keep);
    assert_eq!(want.len(), count, "sysbench printed:\n{}", text(&theirs));
    for extra in [&[][..], &["--client-shards", "1"][..]] {
        let a = [&["run", script][..], opts, extra, &["--no-store"]].concat();
        let ours = qpslab(db, &a);
        assert!(ours.status.success(), "{extra:?}: {}", text(&ours));
        assert_eq!(lines_of(&ours, keep), want, "{extra:?}: {}", text(&ours));
    }
    want
}

#[test]
fn chunks_a_script_loads_itself_see_its_globals_as_under_sysbench() {
    require_sysbench();
    let db = lab().fresh_db("sc_loaded");
    // (each connection runs events for the 2 s, its first one checking:
    // init, two thread_inits and two first events, 7 checks each, and the
    // events' own)
    let want = same_lines_as_sysbench(
        &db,
        &own("loaded_chunks.lua"),
        &["--threads=2", "--events=0", "--time=2"],
        |l| l.ends_with(" ok") || l.ends_with(" DIFF"),
        5 * 7 + 2,
    );
    assert!(!want.iter().any(|l| l.ends_with("DIFF")), "{want:?}");
}

#[test]
fn a_scripts_lua_sees_what_it_sees_under_sysbench() {
    require_sysbench();
    let db = lab().fresh_db("sc_semantics");
    same_lines_as_sysbench(
        &db,
        &own("lua_semantics.lua"),
        &["--threads=2", "--events=0", "--time=1", "--sem-rows=12"],
        |l| l.starts_with("check "),
        2 * 16,
    );
}

#[test]
fn script_errors_name_the_file_and_line_once() {
    let db = lab().fresh_db("sc_err");
    // An API qpslab lacks: refused before anything connects.
    let out = qpslab(&db, &["run", &own("unsupported.lua"), "--events=5"]);
    assert_ne!(out.status.code(), Some(0));
    let all = text(&out);
    assert!(
        all.contains(
            "unsupported.lua:6: sysbench API sysbench.rand.hash is not supported by qpslab"
        ),
        "{all}"
    );
    // A Lua error in an event: the message with its traceback, once, and
    // the summary of what ran before it.
    let out = qpslab(
        &db,
        &[
            "run",
            &own("fails.lua"),
            "--events=100",
            "--time=60",
            "--no-store",
        ],
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.matches("fails.lua:9: bad value at event 5").count(),
        1,
        "{all}"
    );
    assert_eq!(all.matches("stack traceback").count(), 1, "{all}");
    assert!(all.contains("transactions:"), "{all}");
    // A failed statement not ignored ends the run with the server's error
    // and the script's line.
    let out = qpslab(
        &db,
        &[
            "run",
            &own("fails.lua"),
            "--sql",
            "--events=10",
            "--no-store",
        ],
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains("1146") && all.contains("fails.lua:12"),
        "{all}"
    );
}

#[test]
fn the_example_scripts_run() {
    let root = env!("CARGO_MANIFEST_DIR");
    for (name, prep, run) in [
        (
            "iibench.lua",
            vec!["--rows-per-commit=50"],
            vec![
                "--threads=3",
                "--inserters=2",
                "--rows-per-commit=50",
                "--query-rate=50",
            ],
        ),
        (
            "production_case.lua",
            vec!["--accounts=2000", "--threads=2"],
            vec!["--accounts=2000", "--threads=4", "--hot-accounts=100"],
        ),
    ] {
        let script = format!("{root}/examples/scripts/{name}");
        let db = lab().fresh_db(&format!("ex_{}", name.trim_end_matches(".lua")));
        let mut a = vec!["prepare", script.as_str()];
        a.extend(prep);
        let out = qpslab(&db, &a);
        assert!(out.status.success(), "{name} prepare: {}", text(&out));
        let mut a = vec![
            "run",
            script.as_str(),
            "--events=200",
            "--time=60",
            "--format",
            "json",
            "--no-store",
        ];
        a.extend(run);
        let out = qpslab(&db, &a);
        assert!(out.status.success(), "{name} run: {}", text(&out));
        let j = json(&out);
        assert_eq!(j["status"]["status"], "ok", "{name}: {j}");
        assert_eq!(j["totals"]["transactions"].as_u64(), Some(200), "{name}");
        assert!(
            j["totals"]["writes"].as_u64() > Some(0),
            "{name}: {}",
            j["totals"]
        );
        assert!(
            j["totals"]["reads"].as_u64() > Some(0),
            "{name}: {}",
            j["totals"]
        );
        let out = qpslab(&db, &["cleanup", script.as_str()]);
        assert!(out.status.success(), "{name} cleanup: {}", text(&out));
    }
}

#[test]
fn a_script_runs_in_a_sweep_and_a_campaign_and_is_stored_with_its_text() {
    let l = lab();
    let db = l.fresh_db("sc_camp");
    l.sql("mysql", "CREATE OR REPLACE USER 'sccamp'@'%' IDENTIFIED BY 'sccamp-pw'; GRANT ALL ON *.* TO 'sccamp'@'%';");
    let store = l.home.join("sc-camp.db").display().to_string();
    let out = qpslab(
        &db,
        &[
            "prepare",
            "oltp_read_only.lua",
            "--tables=1",
            "--table-size=500",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let out = qpslab(
        &db,
        &[
            "sweep",
            "oltp_read_only.lua",
            "--tables=1",
            "--table-size=500",
            "--threads",
            "1,2",
            "--time",
            "1",
            "--store",
            &store,
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("Scalability of oltp_read_only.lua"),
        "{}",
        text(&out)
    );
    let path = l.home.join("sc-camp.toml");
    std::fs::write(
        &path,
        format!(
            r#"
name = "sc-camp"
threads = [2]
time = 1
[data]
tables = 1
table_size = 500
[[server]]
label = "external"
dsn = "mysql://sccamp:sccamp-pw@127.0.0.1:{}/{db}"
[[workload]]
name = "oltp_read_only.lua"
options = {{ range_size = 10 }}
"#,
            l.port()
        ),
    )
    .unwrap();
    let out = l.qpslab(&["campaign", "run", path.to_str().unwrap(), "--store", &store]);
    assert!(out.status.success(), "{}", text(&out));
    let runs = json(&l.qpslab(&["runs", "--store", &store, "--format", "json"]));
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 3, "{runs:?}");
    let mut ranges = Vec::new();
    for r in runs {
        assert_eq!(r["workload"], "oltp_read_only.lua", "{r}");
        let d = l.shown(&r["id"], &store);
        let o = &d["options"]["oltp"];
        assert_eq!(o["script"], "/usr/share/sysbench/oltp_read_only.lua", "{o}");
        assert!(
            o["text"]
                .as_str()
                .unwrap_or("")
                .contains("execute_point_selects"),
            "{o}"
        );
        ranges.push(o["options"]["range_size"].as_f64().unwrap_or(0.0));
    }
    // The sweep's two runs with the default, the campaign's with its option.
    ranges.sort_by(f64::total_cmp);
    assert_eq!(ranges, vec![10.0, 100.0, 100.0]);
}

/// qpslab on database `db`, spawned with its output piped.
fn spawn_on(db: &str, args: &[&str]) -> Child {
    let mut a = args.to_vec();
    a.extend(["--db", db, "--server", common::SANDBOX]);
    lab()
        .command()
        .args(&a)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run qpslab")
}

/// Waits for `child` at most `limit` (generous: it bounds a hang, which
/// fails the test instead of holding it), reading its output meanwhile.
fn wait_bounded(mut child: Child, limit: Duration, what: &str) -> Output {
    let end = Instant::now() + limit;
    loop {
        if child.try_wait().expect("wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        if Instant::now() > end {
            let _ = child.kill();
            let out = child.wait_with_output().expect("output");
            panic!(
                "{what}: still running after {} s (a hang): {}",
                limit.as_secs(),
                text(&out)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A run of `script` on `db` with `args`, bounded to a minute.
fn bounded_run(db: &str, script: &str, args: &[&str]) -> Output {
    let mut a = vec!["run", script];
    a.extend(args);
    let what = format!("qpslab {}", a.join(" "));
    wait_bounded(spawn_on(db, &a), Duration::from_secs(60), &what)
}

#[test]
fn a_scripts_own_loop_without_event_stop_ends_at_the_events_limit() {
    let db = lab().fresh_db("sc_loop");
    let args = [
        "--threads=1",
        "--events=3",
        "--time=0",
        "--format",
        "json",
        "--no-store",
    ];
    let out = bounded_run(&db, &own("loop_no_stop.lua"), &args);
    assert!(out.status.success(), "{}", text(&out));
    let t = &json(&out)["totals"];
    assert_eq!(t["transactions"].as_u64(), Some(3), "{t}");
    assert_eq!(t["queries"].as_u64(), Some(3), "{t}");
}

#[test]
fn a_script_step_that_never_yields_is_stopped_after_the_runs_end() {
    let db = lab().fresh_db("sc_hang");
    // event() loops after 20 events; with --pcall it retries the loop
    // inside pcall, which must not swallow the stop.
    for extra in [None, Some("--pcall")] {
        let mut args = vec!["--threads=1", "--time=3", "--format", "json", "--no-store"];
        args.extend(extra);
        let out = bounded_run(&db, &own("hang_event.lua"), &args);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {}", text(&out));
        let j = json(&out);
        assert_eq!(j["status"]["status"], "failed", "{j}");
        let reason = j["status"]["reason"].as_str().unwrap_or("");
        assert!(
            reason.contains(
                "hang_event.lua: event() did not return within 2 s after the run's end; interrupted"
            ) && reason.lines().count() == 1,
            "{reason}"
        );
        // What was measured before the loop is kept.
        assert_eq!(j["totals"]["transactions"].as_u64(), Some(20), "{j}");
    }
    // A loop of queries yields at every one: still one event, stopped the
    // same way (it once restarted the event's deadline at every query),
    // on a connection alone on its thread (direct I/O) and on the reactor.
    for io in ["auto", "epoll"] {
        let out = bounded_run(
            &db,
            &own("hang_event.lua"),
            &[
                "--queries",
                "--threads=1",
                "--time=3",
                "--io-backend",
                io,
                "--format",
                "json",
                "--no-store",
            ],
        );
        // Whichever comes first after the run's end: the guard stops the
        // script (failed), or the executor's 2-s grace drops the
        // connection with its event in flight (degraded, one failed event).
        let j = json(&out);
        let reason = j["status"]["reason"].as_str().unwrap_or("");
        let guarded = out.status.code() == Some(1)
            && reason
                .contains("hang_event.lua: event() did not return within 2 s after the run's end");
        let dropped =
            out.status.code() == Some(3) && j["totals"]["failed_events"].as_u64() == Some(1);
        assert!(guarded || dropped, "{io}: {}", text(&out));
        assert_eq!(j["totals"]["transactions"].as_u64(), Some(20), "{io}: {j}");
    }
    // thread_done, after the run: its loop fails the run too (it once went
    // unnoticed, the run stored ok).
    for extra in [None, Some("--queries")] {
        let mut args = vec![
            "--loop_in=thread_done",
            "--threads=2",
            "--time=2",
            "--format",
            "json",
            "--no-store",
        ];
        args.extend(extra);
        let out = bounded_run(&db, &own("hang_event.lua"), &args);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {}", text(&out));
        let j = json(&out);
        assert_eq!(j["status"]["status"], "failed", "{j}");
        let reason = j["status"]["reason"].as_str().unwrap_or("");
        assert!(
            reason.contains("hang_event.lua: thread_done() did not return within 2 s"),
            "{extra:?}: {j}"
        );
    }
    // thread_init, before the clock starts: the run's length plus the grace.
    let out = bounded_run(
        &db,
        &own("hang_init.lua"),
        &["--threads=2", "--time=3", "--format", "json", "--no-store"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let j = json(&out);
    let reason = j["status"]["reason"].as_str().unwrap_or("");
    assert!(
        reason.contains("hang_init.lua: thread_init() did not return within 5 s"),
        "{j}"
    );
}

/// An event that fails with an ignored error every time is started over
/// inside the script until the run's end, and then given up: the run ends
/// on time, not failed (it once went on until the guard stopped it, or
/// forever on a connection alone on its thread).
#[test]
fn an_event_restarted_after_ignored_errors_ends_with_the_run() {
    let db = lab().fresh_db("sc_ignored");
    for io in ["auto", "epoll"] {
        let out = bounded_run(
            &db,
            &own("ignored_always.lua"),
            &[
                "--threads=1",
                "--time=2",
                "--mysql-ignore-errors=1146",
                "--io-backend",
                io,
                "--format",
                "json",
                "--no-store",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{io}: {}", text(&out));
        let j = json(&out);
        assert_ne!(j["status"]["status"], "failed", "{io}: {j}");
        assert_eq!(j["totals"]["transactions"].as_u64(), Some(0), "{io}: {j}");
        assert!(
            j["totals"]["ignored_errors"].as_u64().unwrap_or(0) > 0,
            "{io}: {j}"
        );
    }
}

/// Starts `script` with `args`, waits until it says (on stderr) that it
/// is looping, sends `signal`, and returns how the process ended.
fn signalled(db: &str, script: &str, args: &[&str], signal: i32) -> Output {
    let mut a = vec!["run", script];
    a.extend(args);
    let mut child = spawn_on(db, &a);
    let mut err = BufReader::new(child.stderr.take().expect("stderr"));
    // The loop starts within the run's first second; a run that never
    // says so ends (its --time bounds it) and the read returns None.
    let said = common::read_until(&mut err, |l| l.contains(": looping"));
    unsafe { libc::kill(child.id() as i32, signal) };
    let drain = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = std::io::Read::read_to_string(&mut err, &mut rest);
        rest
    });
    let out = wait_bounded(child, Duration::from_secs(60), &a.join(" "));
    let stderr = drain.join().unwrap_or_default();
    assert!(said.is_some(), "the script never started looping: {stderr}");
    Output {
        stderr: stderr.into_bytes(),
        ..out
    }
}

#[test]
fn the_first_ctrl_c_or_sigterm_stops_a_script_stuck_in_a_loop() {
    let db = lab().fresh_db("sc_hang_signal");
    // In event(), mid-run: the first SIGINT stops it, with the summary.
    let out = signalled(
        &db,
        &own("hang_event.lua"),
        &["--threads=2", "--time=300", "--no-store"],
        libc::SIGINT,
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(130), "{all}");
    assert!(
        all.contains("SQL statistics:")
            && all.contains("ABORTED")
            && !all.contains("interrupted again"),
        "{all}"
    );
    // In thread_init(), before the run starts: SIGTERM stops it.
    let out = signalled(
        &db,
        &own("hang_init.lua"),
        &["--threads=1", "--time=300", "--no-store"],
        libc::SIGTERM,
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(130), "{all}");
    assert!(!all.contains("interrupted again"), "{all}");
}

/// Ctrl-C stops a step stuck running, not the wind-down begun after it:
/// each connection's thread_done (a query, a line) and the cumulative
/// report hook still run (they were once cut off at their first
/// instruction, the guard's hook left armed on the idle state).
#[test]
fn after_ctrl_c_thread_done_and_the_report_hook_still_run() {
    let db = lab().fresh_db("sc_wind_down");
    let out = signalled(
        &db,
        &own("wind_down.lua"),
        &["--threads=2", "--time=300", "--no-store"],
        libc::SIGINT,
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(130), "{all}");
    assert_eq!(all.matches("thread_done ran").count(), 2, "{all}");
    assert!(
        all.contains("cumulative report ran") && !all.contains("report hooks are off"),
        "{all}"
    );
}

#[test]
fn a_report_hook_that_never_returns_is_stopped_and_the_run_goes_on() {
    let db = lab().fresh_db("sc_hang_report");
    let out = bounded_run(
        &db,
        &own("hang_report.lua"),
        &[
            "--threads=1",
            "--time=3",
            "--report-interval=1",
            "--no-store",
        ],
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(
        all.contains("hang_report.lua: a report hook did not return within 2 s; interrupted")
            && all.contains("the script's report hooks are off from here")
            && all.contains("SQL statistics:"),
        "{all}"
    );
}

#[test]
fn os_exit_in_a_script_ends_the_run_as_failed_or_the_command_with_its_code() {
    let db = lab().fresh_db("sc_exit");
    let script = own("exit_init.lua");
    for (where_, code) in [("thread_init", "0"), ("event", "5"), ("thread_done", "0")] {
        let out = bounded_run(
            &db,
            &script,
            &[
                &format!("--where={where_}"),
                &format!("--code={code}"),
                "--time=3",
                "--format",
                "json",
                "--no-store",
            ],
        );
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        let j = json(&out);
        assert_eq!(j["status"]["status"], "failed", "{j}");
        let reason = j["status"]["reason"].as_str().unwrap_or("");
        assert!(
            reason.contains(&format!(
                "exit_init.lua: script called os.exit({code}) in {where_}()"
            )),
            "{j}"
        );
    }
    // An error of thread_done's own is said, and the run stands, as
    // sysbench's does (exit 0, a FATAL line): only the guard's stops fail it.
    let out = bounded_run(
        &db,
        &script,
        &[
            "--where=thread_done_error",
            "--time=2",
            "--format",
            "json",
            "--no-store",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(json(&out)["status"]["status"], "ok", "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("thread_done fails on purpose"),
        "{}",
        text(&out)
    );
    // In prepare: the command ends there, with the script's code.
    for code in ["3", "0"] {
        lab().sql(&db, "DROP TABLE IF EXISTS exit_t");
        let out = lab().on_db(
            &db,
            &[
                "prepare",
                &script,
                "--where=prepare",
                &format!("--code={code}"),
            ],
        );
        assert_eq!(
            out.status.code(),
            Some(code.parse().unwrap()),
            "{}",
            text(&out)
        );
        assert_eq!(lab().sql(&db, "SELECT COUNT(*) FROM exit_t").trim(), "0");
    }
}

#[test]
fn an_event_without_a_query_gets_interval_reports_and_json_arrays_per_state() {
    let db = lab().fresh_db("sc_busy_reports");
    let out = bounded_run(
        &db,
        &own("busy_reports.lua"),
        &[
            "--threads=1",
            "--time=3",
            "--report-interval=1",
            "--no-store",
        ],
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The main state, the connection's and the reporting thread's.
    let mut states: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("state\t"))
        .collect();
    states.sort_unstable();
    assert_eq!(states, ["state\t0", "state\t0", "state\t1"], "{all}");
    // Each array's objects' "threads" values, in order.
    let mut arrays: Vec<Vec<String>> = Vec::new();
    let mut open = false;
    for line in stdout.lines() {
        match line {
            "[" => {
                assert!(!open, "an array begun inside another: {all}");
                arrays.push(Vec::new());
                open = true;
            }
            "]" => {
                assert!(open, "an array ended that was not begun: {all}");
                open = false;
            }
            l if open && l.trim_start().starts_with("\"threads\":") => {
                let v = l.trim().trim_start_matches("\"threads\":").trim();
                arrays
                    .last_mut()
                    .unwrap()
                    .push(v.trim_end_matches(',').to_string());
            }
            _ => {}
        }
    }
    assert!(!open, "an array left open: {all}");
    assert_eq!(
        arrays.len(),
        2,
        "intermediate reports, then the cumulative one: {all}"
    );
    // (the event never waits: without its yield no interval was reported)
    assert!(
        !arrays[0].is_empty() && arrays[0].iter().all(|t| t == "1"),
        "{all}"
    );
    assert_eq!(arrays[1], ["0"], "{all}");
}

#[test]
fn a_connection_in_an_ffi_usleep_holds_up_no_other_on_its_shard() {
    // Both connections on one shard: connection 0 sleeps (ffi.C.usleep of
    // a minute) from its first event on; connection 1's events go on, and
    // the run's end cuts the sleep short. A blocking usleep would give
    // connection 1 no event and hold the run for the minute.
    let db = lab().fresh_db("sc_sleeper");
    let out = qpslab(
        &db,
        &[
            "run",
            &own("sleeper.lua"),
            "--threads=2",
            "--client-shards=1",
            "--time=1",
            "--format",
            "json",
            "--no-store",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let j = json(&out);
    assert_eq!(j["client"]["shards"], 1, "{j}");
    let events: Vec<u64> = j["threads_fairness"]["events"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_u64()).collect())
        .unwrap_or_default();
    assert_eq!(events.len(), 2, "{j}");
    assert!(
        events[0] <= 1,
        "the sleeping connection ends no event before the run's end: {events:?}"
    );
    assert!(
        events[1] > 1,
        "the other connection ran its events while connection 0 slept: {events:?}"
    );
}

/// What a script connection keeps in its shard's Lua state is bounded
/// (issue 37 item 3): 64 read_write connections on one shard, and the
/// shard's live heap once every one is set up (their first events,
/// after a full collection), per connection. Bytes the collector counts,
/// never RSS or time: the same on any host. 38 statements and 68
/// parameters a connection with 4 tables, its environment and globals.
#[test]
fn a_script_connections_lua_heap_is_bounded() {
    require_sysbench();
    let db = lab().fresh_db("sc_heap");
    let tables = ["--tables=4", "--table-size=100"];
    let mut a = vec!["prepare", "oltp_read_write"];
    a.extend(tables);
    let out = qpslab(&db, &a);
    assert!(out.status.success(), "{}", text(&out));
    let script = lab().home.join("heap_probe.lua");
    let body = std::fs::read_to_string("/usr/share/sysbench/oltp_read_write.lua")
        .expect("sysbench's oltp_read_write.lua");
    std::fs::write(&script, body + HEAP_PROBE).unwrap();
    let script = script.display().to_string();
    let mut a = vec![
        "run",
        &script,
        "--threads=64",
        "--client-shards=1",
        "--time=2",
        "--no-store",
        "--no-monitor",
    ];
    a.extend(tables);
    let out = qpslab(&db, &a);
    let all = text(&out);
    let live: Vec<f64> = all
        .lines()
        .filter_map(|l| l.strip_prefix("lua live heap KB "))
        .filter_map(|v| v.trim().parse().ok())
        .collect();
    assert!(!live.is_empty(), "no heap line: {all}");
    let per = live.iter().cloned().fold(0.0, f64::max) / 64.0;
    // 43.0 KB when written: ~40 KB a connection (24 its thread_init's
    // statements and parameters, 6 the script's chunk, 10 its
    // environment) and the state's libraries, prelude and compiled
    // script, ~180 KB shared by the 64; 44.1 KB before the statements
    // held their parameters themselves.
    assert!(per <= 56.0, "{per:.1} KB of Lua heap a connection: {all}");
}

/// Appended to oltp_read_write.lua: each connection's first event prints
/// the state's live heap (every connection is set up before any event).
const HEAP_PROBE: &str = r#"
local event0, probed = event, false
function event(...)
  if not probed then
    probed = true
    collectgarbage()
    io.write(string.format("lua live heap KB %.1f\n", collectgarbage("count")))
  end
  return event0(...)
end
"#;

#[test]
fn a_one_shot_runs_states_collect_lazily_in_set_up_and_leave_files_complete_at_exit() {
    let db = lab().fresh_db("sc_left_states");
    let dir = common::scratch::Scratch::new("script", "left_states");
    let file = dir.0.join("events.txt");
    let out_opt = format!("--out={}", file.display());
    let out = bounded_run(
        &db,
        &own("left_states.lua"),
        &[
            "--threads=2",
            "--events=40",
            "--time=0",
            "--no-store",
            &out_opt,
        ],
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let said = |l: &str| stdout.lines().filter(|x| *x == l).count();
    // (state.rs: GC_SET_UP_PAUSE_PERCENT, then GC_PAUSE_PERCENT)
    assert_eq!(said("set-up pause 400"), 2, "{all}");
    // (each connection that got an event says it once; the 40 events may
    // all go to one of them)
    let mut events = stdout.lines().filter(|l| l.starts_with("events pause"));
    assert!(said("events pause 120") >= 1, "{all}");
    assert!(events.all(|l| l == "events pause 120"), "{all}");
    // The file was never closed: the exit flushed it, every line there.
    let lines = std::fs::read_to_string(&file).unwrap();
    assert_eq!(lines.lines().count(), 40, "{lines}");
    assert!(
        lines
            .lines()
            .all(|l| l == "event of connection 0" || l == "event of connection 1"),
        "{lines}"
    );
}

#[test]
fn a_scripts_own_collector_settings_from_its_set_up_stay_in_its_events() {
    let db = lab().fresh_db("sc_own_collector");
    // One shard: both connections share one state and its collector.
    let out = bounded_run(
        &db,
        &own("own_collector.lua"),
        &[
            "--threads=2",
            "--client-shards=1",
            "--events=20",
            "--time=0",
            "--no-store",
        ],
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let said: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("events pause"))
        .collect();
    // (each connection that got an event says it once; the 20 events may
    // all go to one of them)
    assert!(!said.is_empty(), "{all}");
    assert!(
        said.iter().all(|l| *l == "events pause 150, running false"),
        "{all}"
    );
}

#[test]
fn prepares_sent_in_a_batch_run_and_fail_as_sysbenchs_one_at_a_time() {
    require_sysbench();
    let db = lab().fresh_db("sc_prepare_batch");
    let script = own("prepare_batch.lua");
    let kept = |out: &Output, tid: &str| -> Vec<String> {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.starts_with(&format!("pb {tid} ")))
            .map(|l| l.replacen(&format!("pb {tid} "), "pb ", 1))
            .collect()
    };
    let opts = ["--events=2", "--time=0"];
    // (one thread: sysbench's threads print their lines interleaved)
    let theirs = sysbench(
        &db,
        &[&[&script[..], "--threads=1"][..], &opts, &["run"]].concat(),
    );
    assert!(theirs.status.success(), "sysbench: {}", text(&theirs));
    let want = kept(&theirs, "0");
    assert_eq!(want.len(), 12, "sysbench printed:\n{}", text(&theirs));
    // A thread of its own, and two connections in one Lua state, whose
    // batches must not mix.
    for extra in [
        &["--threads=1"][..],
        &["--threads=2", "--client-shards=1"][..],
    ] {
        let a = [&["run", &script[..]][..], &opts, extra, &["--no-store"]].concat();
        let ours = qpslab(&db, &a);
        assert!(ours.status.success(), "{extra:?}: {}", text(&ours));
        assert_eq!(kept(&ours, "0"), want, "{extra:?}: {}", text(&ours));
        if extra.len() == 2 {
            assert_eq!(kept(&ours, "1"), want, "{extra:?}: {}", text(&ours));
        }
    }
    // A refused prepare whose phase then fails of its own fails the set-up
    // with the prepare's error, at the script's line, in sysbench's words
    // (under sysbench, nothing after it runs).
    let dir = common::scratch::Scratch::new("script", "prepare_batch");
    let bad = dir.0.join("bad_init.lua");
    std::fs::write(
        &bad,
        "function thread_init()\n  con = sysbench.sql.driver():connect()\n  a = con:prepare(\"SELECT 1\")\n  b = con:prepare(\"SELECT * FROM pb_nowhere\")\n  error(\"later\")\nend\nfunction event() end\n",
    )
    .unwrap();
    let out = qpslab(
        &db,
        &[
            "run",
            &bad.display().to_string(),
            "--events=1",
            "--no-store",
        ],
    );
    let all = text(&out);
    assert_ne!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("FATAL: mysql_stmt_prepare() failed"), "{all}");
    assert!(all.contains("bad_init.lua:4: SQL API error"), "{all}");
}
