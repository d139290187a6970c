//! dbSTRESS against a real sandbox MariaDB: prepare loads the objects and
//! their history spread over the history tables and the check holds;
//! the server's Com_* counters show each read transaction as two SELECTs
//! and each write as one DELETE, one INSERT and one UPDATE, auto-committed
//! (no BEGIN, no COMMIT), with no deadlock; the check still holds after
//! the writes and counts them; read-only writes nothing; bad input is one
//! line; a sweep over sessions stores a run per count; a campaign file
//! runs dbSTRESS and the insert benchmark from their own options.

mod common;
use common::family::{com_delta, ok};
use common::{json, lab, measuring, sharing, text};
use std::collections::BTreeMap;

/// Statements executed per stat name, from a run's JSON document.
fn by_statement(j: &serde_json::Value) -> BTreeMap<String, i64> {
    j["latency_by_statement"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["statement"].as_str().unwrap().to_string(),
                s["count"].as_i64().unwrap(),
            )
        })
        .collect()
}

const SCALE: [&str; 6] = [
    "--objects",
    "2000",
    "--history-per-object",
    "5",
    "--history-tables",
    "4",
];

fn assert_consistent(db: &str) -> serde_json::Value {
    let mut a = vec!["check", "dbstress", "--format", "json"];
    a.extend(SCALE);
    let o = lab().on_db(db, &a);
    let j = json(&o);
    assert!(o.status.success() && j["violated"] == 0, "{j}");
    j
}

fn run(db: &str, extra: &[&str]) -> serde_json::Value {
    let mut a = vec![
        "run",
        "dbstress",
        "--threads",
        "4",
        "--time",
        "300",
        "--no-monitor",
        "--no-store",
        "--format",
        "json",
    ];
    a.extend(SCALE);
    a.extend(extra);
    json(&ok(&a, db))
}

#[test]
fn transactions_have_their_shapes_and_keep_the_data_consistent() {
    let _alone = measuring();
    let db = lab().fresh_db("dbstress_shapes");
    let mut a = vec!["prepare", "dbstress", "--format", "json"];
    a.extend(SCALE);
    let p = json(&ok(&a, &db));
    assert_eq!(p["rows"], 12_000, "{p}");
    let count = |q: &str| lab().sql(&db, q).trim().parse::<i64>().unwrap();
    assert_eq!(count("SELECT COUNT(*) FROM dbs_history1"), 2_500);
    assert_eq!(count("SELECT COUNT(*) FROM dbs_object"), 2_000);
    assert_consistent(&db);

    let mut doc = serde_json::Value::Null;
    let d = com_delta(|| doc = run(&db, &["--events", "800"]));
    let n = by_statement(&doc);
    let (reads, writes) = (n["select_object"], n["delete_history"]);
    assert_eq!(reads + writes, 800, "{n:?}");
    assert!((350..=450).contains(&writes), "RW=1: {n:?}");
    assert_eq!(n["select_history"], reads);
    assert_eq!(n["insert_history"], writes);
    assert_eq!(n["update_object"], writes);
    // the server saw each write as three auto-committed statements
    for k in ["Com_delete", "Com_insert", "Com_update"] {
        assert_eq!(d[k], writes, "{k}: {d:?}");
    }
    assert_eq!((d["Com_begin"], d["Com_commit"]), (0, 0), "{d:?}");
    // two SELECTs per read (a few more: the run's own checks)
    let extra = d["Com_select"] - 2 * reads;
    assert!(
        (0..30).contains(&extra),
        "{extra} selects beyond 2 per read"
    );
    assert_eq!(
        doc["totals"]["errors_by_code"],
        serde_json::json!({}),
        "{doc}"
    );
    let j = assert_consistent(&db);
    assert_eq!(j["check"]["writes"], writes, "{j}");
    // one in four writes land elsewhere than the hot table at most
    let moved = count("SELECT COUNT(*) FROM dbs_history1 WHERE seq > 5");
    assert!(
        moved * 10 >= writes * 6,
        "{moved} of {writes} on the hot table"
    );

    // read-only: no write reaches the server
    let d = com_delta(|| doc = run(&db, &["--events", "200", "--rw-ratio", "0"]));
    assert_eq!(by_statement(&doc)["select_object"], 200);
    for k in ["Com_delete", "Com_insert", "Com_update"] {
        assert_eq!(d[k], 0, "{k}: {d:?}");
    }
    assert_eq!(doc["workload"], "dbstress-ro");
}

#[test]
fn bad_input_and_missing_tables_are_one_line() {
    let _shared = sharing();
    let db = lab().fresh_db("dbstress_bad");
    for (args, want) in [
        (
            vec!["run", "dbstress", "--hot-share", "101"],
            "--hot-share must be from 0 to 100",
        ),
        (
            vec!["run", "dbstress", "--objects", "2", "--history-tables", "4"],
            "fewer than --history-tables",
        ),
        (
            vec!["run", "dbstress", "--events", "10"],
            "prepare dbstress",
        ),
        (vec!["check", "dbstress"], "dbs_meta"),
    ] {
        let o = lab().on_db(&db, &args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && err.contains(want) && err.trim().lines().count() == 1,
            "{args:?}: {}",
            text(&o)
        );
    }
    // too few objects for the sessions' own writes
    let mut a = vec![
        "prepare",
        "dbstress",
        "--objects",
        "8",
        "--history-tables",
        "2",
    ];
    ok(&a, &db);
    a[0] = "run";
    a.extend(["--threads", "8", "--events", "10", "--no-store"]);
    let o = lab().on_db(&db, &a);
    assert!(
        !o.status.success() && text(&o).contains("at least 16 objects"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_sweep_over_sessions_stores_one_run_per_count() {
    let _shared = sharing();
    let l = lab();
    let db = l.fresh_db("dbstress_sweep");
    let scale = ["--objects", "400", "--history-tables", "2"];
    let mut a = vec!["prepare", "dbstress"];
    a.extend(scale);
    ok(&a, &db);
    let store = l.home.join("dbstress-sweep.db").display().to_string();
    let mut a = vec![
        "sweep",
        "dbstress",
        "--threads",
        "1,4",
        "--time",
        "1",
        "--think-time",
        "1",
        "--store",
        &store,
    ];
    a.extend(scale);
    ok(&a, &db);
    let runs = json(&l.qpslab(&["runs", "--store", &store, "--format", "json"]));
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(
        runs.iter()
            .all(|r| r.to_string().contains("dbstress-rw1-think1")),
        "{runs:?}"
    );
    let mut a = vec!["check", "dbstress"];
    a.extend(scale);
    let o = l.on_db(&db, &a);
    assert!(
        o.status.success() && text(&o).contains("consistent: all"),
        "{}",
        text(&o)
    );
}

/// A campaign file names dbSTRESS and the insert benchmark beside each
/// other: their tables are prepared once from their own options (not
/// from `[data]`), every point ends ok under its own workload name, and
/// the insert benchmark's `phases` (a campaign of its own) is refused in
/// one line before anything runs.
#[test]
fn a_campaign_runs_dbstress_and_the_insert_benchmark() {
    let toml = r#"
threads = [1, 2]
time = 1
[[variant]]
name = "base"
[[workload]]
name = "dbstress"
options = { objects = 200, history_tables = 2, history_per_object = 4 }
[[workload]]
name = "insert-benchmark"
options = { rows_per_commit = 10 }
"#;
    let camp = common::family::run_campaign("dbs-camp", toml, "campdbs");
    let (runs, o) = common::family::ok_runs(&camp.store);
    // recorded under the names a `run` gives them (the rw ratio, rows per commit)
    let named = |n: &str| runs.iter().filter(|r| r["workload"] == n).count();
    assert_eq!(runs.len(), 4, "{}", text(&o));
    assert_eq!(named("dbstress-rw1"), 2, "{}", text(&o));
    assert_eq!(named("insert-benchmark-rpc10"), 2, "{}", text(&o));

    let l = lab();
    let bad = l.home.join("ib-phases.toml");
    std::fs::write(
        &bad,
        "name = \"p\"\nthreads = [1]\n[[server]]\nlabel = \"x\"\n[[workload]]\nname = \"insert-benchmark\"\noptions = { phases = \"all\" }\n",
    )
    .unwrap();
    let o = l.qpslab(&["campaign", "run", bad.to_str().unwrap()]);
    let s = text(&o);
    assert!(!o.status.success(), "{s}");
    assert!(s.contains("phases are a campaign of their own"), "{s}");

    // two sizes of the same tables: refused before any server starts
    let two = l.home.join("dbs-two-sizes.toml");
    std::fs::write(
        &two,
        "name = \"t\"\nthreads = [1]\n[[server]]\nlabel = \"x\"\n[[workload]]\nname = \"dbstress\"\noptions = { objects = 100 }\n[[workload]]\nname = \"dbstress\"\noptions = { objects = 200, rw_ratio = 0 }\n",
    )
    .unwrap();
    let o = l.qpslab(&["campaign", "run", two.to_str().unwrap()]);
    let s = text(&o);
    assert!(!o.status.success(), "{s}");
    assert!(
        s.contains("share tables but size them differently") && s.contains("--objects 100"),
        "{s}"
    );
    assert!(!s.contains("Started sandbox"), "{s}");
}
