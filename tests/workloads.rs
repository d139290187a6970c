//! Workloads against a real sandbox MariaDB: every workload runs, statement
//! mix per transaction matches sysbench, the data has sysbench's format, and
//! tables are interchangeable with sysbench's in both directions.

mod common;
use common::{json, lab, require_sysbench, text};

fn prepare(db: &str, tables: &str, size: &str) {
    let out = lab().on_sandbox(&[
        "prepare",
        "oltp_read_write",
        "--db",
        db,
        "--tables",
        tables,
        "--table-size",
        size,
    ]);
    assert!(out.status.success(), "prepare: {}", text(&out));
}

fn run_json(db: &str, args: &[&str]) -> serde_json::Value {
    let mut a = vec!["run"];
    a.extend_from_slice(args);
    a.extend(["--db", db, "--format", "json"]);
    let out = lab().on_sandbox(&a);
    assert!(out.status.success(), "run {args:?}: {}", text(&out));
    json(&out)
}

#[test]
fn every_workload_runs() {
    let db = lab().fresh_db("wl_all");
    prepare(&db, "2", "2000");
    for w in [
        "oltp_point_select",
        "oltp_read_only",
        "oltp_read_write",
        "oltp_write_only",
        "oltp_update_index",
        "oltp_update_non_index",
        "oltp_delete",
        "oltp_insert",
        "select_random_points",
        "select_random_ranges",
    ] {
        let j = run_json(
            &db,
            &[
                w,
                "--tables",
                "2",
                "--table-size",
                "2000",
                "--threads",
                "2",
                "--events",
                "40",
                "--time",
                "60",
            ],
        );
        assert_eq!(j["status"]["status"], "ok", "{w}: {j}");
        assert_eq!(j["totals"]["transactions"], 40, "{w}");
        assert!(j["totals"]["queries"].as_u64().unwrap() >= 40, "{w}");
    }
}

#[test]
fn statements_per_transaction_match_sysbench() {
    let db = lab().fresh_db("wl_mix");
    prepare(&db, "2", "5000");
    let ev = 200u64;
    let j = run_json(
        &db,
        &[
            "oltp_read_write",
            "--tables",
            "2",
            "--table-size",
            "5000",
            "--events",
            "200",
            "--time",
            "120",
        ],
    );
    let t = &j["totals"];
    assert_eq!(t["transactions"].as_u64(), Some(ev));
    assert_eq!(t["reads"].as_u64(), Some(14 * ev), "{t}");
    assert_eq!(t["writes"].as_u64(), Some(4 * ev), "{t}");
    assert_eq!(t["other"].as_u64(), Some(2 * ev), "{t}");
    // per-statement latency is reported for each statement type
    let kinds: Vec<&str> = j["latency_by_statement"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["statement"].as_str().unwrap())
        .collect();
    for k in [
        "point_selects",
        "simple_ranges",
        "sum_ranges",
        "order_ranges",
        "distinct_ranges",
        "index_updates",
        "non_index_updates",
        "deletes",
        "inserts",
        "begin",
        "commit",
    ] {
        assert!(kinds.contains(&k), "{k} missing from {kinds:?}");
    }
    // --skip-trx drops BEGIN/COMMIT
    let j = run_json(
        &db,
        &[
            "oltp_read_only",
            "--tables",
            "2",
            "--table-size",
            "5000",
            "--events",
            "50",
            "--skip-trx",
            "on",
        ],
    );
    assert_eq!(j["totals"]["other"].as_u64(), Some(0));
    assert_eq!(j["totals"]["reads"].as_u64(), Some(14 * 50));
}

#[test]
fn data_has_sysbench_format() {
    let db = lab().fresh_db("wl_data");
    prepare(&db, "1", "3000");
    let l = lab();
    assert_eq!(
        l.sql(&db, "SELECT COUNT(*), MIN(id), MAX(id) FROM sbtest1")
            .trim(),
        "3000\t1\t3000"
    );
    let bad_k = l.sql(&db, "SELECT COUNT(*) FROM sbtest1 WHERE k < 1 OR k > 3000");
    assert_eq!(bad_k.trim(), "0");
    let c_ok = l.sql(
        &db,
        "SELECT COUNT(*) FROM sbtest1 WHERE c REGEXP '^[0-9]{11}(-[0-9]{11}){9}$'",
    );
    assert_eq!(c_ok.trim(), "3000");
    let pad_ok = l.sql(
        &db,
        "SELECT COUNT(*) FROM sbtest1 WHERE pad REGEXP '^[0-9]{11}(-[0-9]{11}){4}$'",
    );
    assert_eq!(pad_ok.trim(), "3000");
    let idx = l.sql(&db, "SHOW INDEX FROM sbtest1 WHERE Key_name = 'k_1'");
    assert!(idx.contains("k_1"), "{idx}");
    let ddl = l.sql(&db, "SHOW CREATE TABLE sbtest1");
    for col in [
        "`id` int(11) NOT NULL AUTO_INCREMENT",
        "`k` int(11) NOT NULL DEFAULT 0",
        "`c` char(120) NOT NULL DEFAULT ''",
        "`pad` char(60) NOT NULL DEFAULT ''",
    ] {
        assert!(ddl.contains(col), "{col} not in {ddl}");
    }
    // a second prepare on existing tables is refused with advice
    let out = lab().on_sandbox(&[
        "prepare",
        "oltp_read_write",
        "--db",
        &db,
        "--tables",
        "1",
        "--table-size",
        "10",
    ]);
    assert!(!out.status.success());
    assert!(text(&out).contains("already exists"), "{}", text(&out));
    let out = lab().on_sandbox(&["cleanup", "oltp_read_write", "--db", &db, "--tables", "1"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(l.sql(&db, "SHOW TABLES").trim(), "");
}

fn sysbench(db: &str, args: &[&str]) -> std::process::Output {
    lab().sysbench(db, args)
}

#[test]
fn tables_are_interchangeable_with_sysbench() {
    require_sysbench();
    // qpslab prepare → sysbench run
    let db = lab().fresh_db("wl_q2s");
    prepare(&db, "2", "2000");
    let out = sysbench(
        &db,
        &[
            "oltp_read_write",
            "--tables=2",
            "--table-size=2000",
            "--events=100",
            "--time=0",
            "run",
        ],
    );
    assert!(
        out.status.success(),
        "sysbench run on qpslab tables: {}",
        text(&out)
    );
    assert!(
        text(&out).contains("transactions:                        100"),
        "{}",
        text(&out)
    );
    // sysbench prepare → qpslab run
    let db = lab().fresh_db("wl_s2q");
    let out = sysbench(
        &db,
        &[
            "oltp_read_write",
            "--tables=2",
            "--table-size=2000",
            "prepare",
        ],
    );
    assert!(out.status.success(), "sysbench prepare: {}", text(&out));
    let j = run_json(
        &db,
        &[
            "oltp_read_write",
            "--tables",
            "2",
            "--table-size",
            "2000",
            "--events",
            "100",
            "--time",
            "60",
        ],
    );
    assert_eq!(j["totals"]["transactions"].as_u64(), Some(100));
    assert_eq!(j["totals"]["reads"].as_u64(), Some(1400));
}

#[test]
fn text_protocol_mode_and_rate_mode() {
    let db = lab().fresh_db("wl_modes");
    prepare(&db, "1", "1000");
    let j = run_json(
        &db,
        &[
            "oltp_read_write",
            "--table-size",
            "1000",
            "--events",
            "30",
            "--db-ps-mode",
            "disable",
        ],
    );
    assert_eq!(j["totals"]["reads"].as_u64(), Some(14 * 30));
    // closed model: no schedule, no lag
    assert!(j["totals"]["schedule_lag_ms"].is_null(), "{j}");
    // the load threads' CPU apart from the process's (monitor, store,
    // coordinator): some, and no more than the whole process used
    let c = &j["client"];
    let (load, all) = (
        c["load_cpu_seconds"].as_f64().unwrap(),
        c["process_cpu_seconds"].as_f64().unwrap(),
    );
    assert!(load > 0.0 && load <= all, "{c}");
    assert!(c["load_cpu_us_per_query"].as_f64().unwrap() > 0.0, "{c}");
    assert!(c["tool_cpu_ms_per_s"].as_f64().unwrap() >= 0.0, "{c}");
    // one connection alone on its client thread: direct I/O, by poll()
    assert_eq!(c["direct_io_connections"], 1, "{c}");
    assert_eq!(c["direct_io_uring_connections"], 0, "{c}");
    assert!(j["intervals"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["load_cpu_s"].as_f64().is_some()));
    assert_eq!(j["totals"]["writes"].as_u64(), Some(4 * 30));
    // rate mode: bounded by --events, reports backlog per interval and keeps going
    let j = run_json(
        &db,
        &[
            "oltp_point_select",
            "--table-size",
            "1000",
            "--rate",
            "200",
            "--events",
            "100",
            "--time",
            "60",
            "--report-interval",
            "0.5",
        ],
    );
    assert_eq!(j["status"]["status"], "ok");
    assert_eq!(j["totals"]["transactions"].as_u64(), Some(100));
    // an idle server that keeps up: the rate set the throughput, not
    // contention among the users
    let b = &j["monitor"]["bottleneck"];
    // (a busy test host adds "(host shared: …)")
    let verdict = b["verdict"].as_str().unwrap_or_default();
    assert!(verdict.starts_with("rate-limited (--rate)"), "{b}");
    assert!(j["intervals"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i.get("backlog").is_some()));
    // rate mode waits on timers through the reactor: no direct I/O
    assert_eq!(j["client"]["direct_io_connections"], 0, "{}", j["client"]);
    // the generator's wake-up lateness is reported apart from latency
    let lag = &j["totals"]["schedule_lag_ms"];
    assert!(lag["p99"].as_f64().is_some_and(|v| v >= 0.0), "{lag}");
    assert!(j["totals"]["generator_late_intervals"].is_u64(), "{j}");
    assert!(j["intervals"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["lag_p99_ms"].is_f64()));
}

#[test]
fn text_output_keeps_sysbench_lines() {
    let db = lab().fresh_db("wl_text");
    prepare(&db, "1", "1000");
    let out = lab().on_sandbox(&[
        "run",
        "oltp_point_select",
        "--db",
        &db,
        "--table-size",
        "1000",
        "--time",
        "2",
        "--report-interval",
        "1",
        "--percentile",
        "95,99",
    ]);
    let s = text(&out);
    assert!(out.status.success(), "{s}");
    let line = s
        .lines()
        .find(|l| l.starts_with("[ 1s ] thds: 1 tps: "))
        .unwrap_or_else(|| panic!("no interval line: {s}"));
    assert!(
        line.contains("qps: ")
            && line.contains("(r/w/o: ")
            && line.contains("lat (ms,95%): ")
            && line.contains("err/s: ")
            && line.contains("reconn/s: "),
        "{line}"
    );
    for needle in [
        "SQL statistics:",
        "transactions:",
        "queries:",
        "95th percentile:",
        "Threads fairness:",
        "p99:",
        "load CPU per query:",
        "tool overhead:",
        "qpslab process CPU per query:",
        "share of host CPU:",
    ] {
        assert!(s.contains(needle), "'{needle}' missing:\n{s}");
    }
}

/// The summary and the run document give the spread of events per
/// connection beside sysbench's threads fairness (issue 37); its figures
/// depend on timing, so only their presence and order are checked.
#[test]
fn summary_gives_events_per_connection() {
    let db = lab().fresh_db("wl_spread");
    prepare(&db, "1", "1000");
    let args = [
        "oltp_point_select",
        "--table-size",
        "1000",
        "--threads",
        "4",
        "--events",
        "400",
    ];
    let mut a = vec!["run", "--db", &db];
    a.extend_from_slice(&args);
    let out = lab().on_sandbox(&a);
    let s = text(&out);
    assert!(out.status.success(), "{s}");
    let line = s
        .lines()
        .find(|l| l.trim_start().starts_with("events per connection:"))
        .unwrap_or_else(|| panic!("no spread line: {s}"));
    for part in ["min ", "/ median ", "/ max ", "stddev ", "% of the mean)"] {
        assert!(line.contains(part), "'{part}' missing: {line}");
    }
    let fairness = s.find("Threads fairness:").expect("sysbench's block");
    assert!(s.find(line).is_some_and(|at| at > fairness), "{s}");
    let j = run_json(&db, &args);
    let f = &j["threads_fairness"];
    let events: Vec<u64> = f["events"]
        .as_array()
        .expect("events by connection")
        .iter()
        .filter_map(|e| e.as_u64())
        .collect();
    assert_eq!(events.len(), 4, "{f}");
    let spread = &f["events_spread"];
    let (min, max) = (spread["min"].as_u64(), spread["max"].as_u64());
    assert_eq!(min, events.iter().min().copied(), "{f}");
    assert_eq!(max, events.iter().max().copied(), "{f}");
    for key in ["median", "stddev", "stddev_over_mean"] {
        assert!(spread[key].as_f64().is_some_and(|v| v >= 0.0), "{key}: {f}");
    }
}

/// `--io-backend uring`: every connection on its client thread's io_uring
/// ring, the same counts as the reactor (transactions, reads, writes),
/// reconnects included; `--client-cpus` pins and sizes the client threads
/// and is recorded; a CPU that is not online is refused in one line.
#[test]
fn io_uring_backend_and_pinned_client_threads() {
    let db = lab().fresh_db("wl_uring");
    prepare(&db, "2", "1000");
    // `events` read-only transactions on `threads` connections over
    // io_uring, reconnecting every 15: exact counts, no error
    // (read-only: a read-write mix on 1000 rows may deadlock and retry,
    // which would make the counts inexact)
    let exact = |threads: &str, events: u64, extra: &[&str]| {
        let n = events.to_string();
        let mut a = vec![
            "oltp_read_only",
            "--tables",
            "2",
            "--table-size",
            "1000",
            "--threads",
            threads,
            "--events",
            &n,
            "--reconnect",
            "15",
            "--io-backend",
            "uring",
        ];
        a.extend_from_slice(extra);
        let j = run_json(&db, &a);
        let t = &j["totals"];
        assert_eq!(j["status"]["status"], "ok", "{j}");
        assert_eq!(t["transactions"].as_u64(), Some(events), "{t}");
        assert_eq!(t["reads"].as_u64(), Some(14 * events), "{t}");
        assert_eq!(t["other"].as_u64(), Some(2 * events), "{t}");
        assert_eq!(t["failed_events"].as_u64(), Some(0), "{t}");
        assert_eq!(t["ignored_errors"].as_u64(), Some(0), "{t}");
        assert!(t["reconnects"].as_u64().unwrap_or(0) >= 4, "{t}");
        j
    };
    // 4 connections on one client thread's ring
    let j = exact("4", 200, &["--client-cpus", "0"]);
    let c = &j["client"];
    assert_eq!(c["io_uring_connections"], 4, "{c}");
    assert_eq!(c["direct_io_uring_connections"], 0, "{c}");
    assert_eq!(c["direct_io_connections"], 0, "{c}");
    // one CPU given: one client thread, pinned there, recorded
    assert_eq!(c["shards"], 1, "{c}");
    assert_eq!(c["pinned_cpus"], "0", "{c}");
    assert_eq!(j["options"]["client_cpus"], "0", "{}", j["options"]);
    // one connection alone on its thread: direct I/O on a ring of its own
    // (a request and its receive in one submit)
    let j = exact("1", 100, &[]);
    let c = &j["client"];
    assert_eq!(c["direct_io_connections"], 1, "{c}");
    assert_eq!(c["direct_io_uring_connections"], 1, "{c}");
    assert_eq!(c["io_uring_connections"], 0, "{c}");

    let out = lab().on_sandbox(&[
        "run",
        "oltp_point_select",
        "--db",
        &db,
        "--events",
        "1",
        "--client-cpus",
        "65000",
    ]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains("--client-cpus") && t.contains("not online"),
        "{t}"
    );
}
