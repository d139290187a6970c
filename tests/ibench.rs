//! The insert benchmark against a real sandbox MariaDB: prepare creates
//! purchases_index with its three secondary indexes; inserters add
//! rows_per_commit rows per auto-committed INSERT (the server's Com_*
//! counters say so); with --delete-per-insert the row count holds; query
//! threads run range or point queries beside the inserters; bad input is
//! one line.

mod common;
use common::family::{com_counters, count, ok};
use common::{json, lab, measuring, sharing, text};

fn run(db: &str, args: &[&str]) -> serde_json::Value {
    let mut a = vec![
        "run",
        "insert-benchmark",
        "--time",
        "300",
        "--no-monitor",
        "--no-store",
        "--format",
        "json",
    ];
    a.extend(args);
    json(&ok(&a, db))
}

fn statement_count(j: &serde_json::Value, name: &str) -> u64 {
    j["latency_by_statement"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["statement"] == name)
        .map(|s| s["count"].as_u64().unwrap())
        .unwrap_or(0)
}

#[test]
fn inserts_deletes_and_queries_on_purchases_index() {
    let _shared = sharing();
    let db = lab().fresh_db("ibench_phases");
    ok(&["prepare", "iibench"], &db);
    let idx = lab().sql(
        &db,
        "SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_name = 'purchases_index' ORDER BY 1",
    );
    assert_eq!(
        idx.split_whitespace().collect::<Vec<_>>(),
        [
            "PRIMARY",
            "purchases_index_marketsegment",
            "purchases_index_pdc",
            "purchases_index_registersegment"
        ]
    );
    // load: 2 inserters x 10 events x 500 rows
    let j = run(
        &db,
        &[
            "--threads",
            "2",
            "--events",
            "20",
            "--rows-per-commit",
            "500",
        ],
    );
    assert_eq!(statement_count(&j, "insert"), 20, "{j}");
    assert_eq!(count(&db, "SELECT COUNT(*) FROM purchases_index"), 10_000);
    // deletes per insert: the count holds (within 1%: here exactly)
    let j = run(
        &db,
        &[
            "--threads",
            "2",
            "--events",
            "40",
            "--rows-per-commit",
            "500",
            "--delete-per-insert",
            "on",
        ],
    );
    assert_eq!(statement_count(&j, "delete"), 40, "{j}");
    let n = count(&db, "SELECT COUNT(*) FROM purchases_index");
    assert!((9_900..=10_100).contains(&n), "{n} rows");
    assert_eq!(
        count(&db, "SELECT MIN(transactionid) FROM purchases_index"),
        20_001
    );
    // range queries beside an inserter, then point queries
    for (pk, stats) in [
        ("off", &["query_market", "query_register", "query_pdc"][..]),
        ("on", &["query_pk"][..]),
    ] {
        let j = run(
            &db,
            &[
                "--threads",
                "2",
                "--events",
                "300",
                "--query-threads",
                "1",
                "--rows-per-commit",
                "10",
                "--query-pk-only",
                pk,
            ],
        );
        for s in stats {
            assert!(statement_count(&j, s) > 0, "{s}: {j}");
        }
        assert_eq!(j["totals"]["errors_by_code"], serde_json::json!({}), "{j}");
    }
}

#[test]
fn each_insert_and_delete_is_one_auto_committed_statement() {
    let _alone = measuring();
    let db = lab().fresh_db("ibench_shapes");
    ok(&["prepare", "iibench", "--num-secondary-indexes", "1"], &db);
    let before = com_counters();
    run(
        &db,
        &[
            "--threads",
            "2",
            "--events",
            "30",
            "--rows-per-commit",
            "100",
            "--delete-per-insert",
            "on",
        ],
    );
    let after = com_counters();
    let d = |k: &str| after[k] - before[k];
    assert_eq!((d("Com_insert"), d("Com_delete")), (30, 30));
    assert_eq!((d("Com_begin"), d("Com_commit")), (0, 0));
    // 30 INSERTs of 100 rows, less the 29 or 30 DELETEs of as many (the
    // first DELETE of each inserter may find fewer)
    let n = count(&db, "SELECT COUNT(*) FROM purchases_index");
    assert!((0..=200).contains(&n), "{n}");
}

#[test]
fn bad_input_is_one_line() {
    let _shared = sharing();
    let db = lab().fresh_db("ibench_bad");
    for (args, want) in [
        (
            vec!["run", "iibench", "--num-secondary-indexes", "5"],
            "--num-secondary-indexes must be from 0 to 3",
        ),
        (
            vec!["run", "iibench", "--events", "1"],
            "prepare insert-benchmark",
        ),
    ] {
        let o = lab().on_db(&db, &args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && err.contains(want) && err.trim().lines().count() == 1,
            "{args:?}: {}",
            text(&o)
        );
    }
    ok(&["prepare", "iibench"], &db);
    let o = lab().on_db(
        &db,
        &[
            "run",
            "iibench",
            "--query-threads",
            "2",
            "--threads",
            "2",
            "--no-store",
        ],
    );
    assert!(
        !o.status.success() && text(&o).contains("leaves no inserter"),
        "{}",
        text(&o)
    );
}

/// The phase sequence: each phase a stored run of one campaign with its
/// figures; l.i0 loads exactly --rows rows into a table without secondary
/// indexes; l.x adds them (timed, one build); l.i1 deletes as it inserts;
/// a query phase at a rate the inserter easily holds (100 rows/s) makes
/// that rate over the phase (its schedule is never forgiven, so a late
/// second is made up) and is judged, one no server holds (a million
/// rows/s) is judged not sustained; the schedule lag is printed apart.
/// (Whether qr100 is judged sustained depends on every second of a busy
/// host: the judgement itself is unit-tested in analyze::phase_figures.)
#[test]
fn phases_are_runs_of_one_campaign_judged_sustained_or_not() {
    let _alone = measuring();
    let db = lab().fresh_db("ibench_seq");
    let store = std::env::temp_dir().join(format!("qpslab-ibench-seq-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&store);
    let store_arg = store.to_string_lossy().to_string();
    let o = ok(
        &[
            "run",
            "insert-benchmark",
            "--phases",
            "l.i0,l.x,l.i1,qr100,qp1000000",
            "--rows",
            "20000",
            "--duration",
            "20",
            "--settle",
            "2",
            "--store",
            &store_arg,
            "--format",
            "json",
        ],
        &db,
    );
    let j = json(&o);
    let phases = j["phases"].as_array().unwrap();
    let names: Vec<&str> = phases
        .iter()
        .map(|p| p["phase"]["phase"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["l.i0", "l.x", "l.i1", "qr100", "qp1000000"], "{j}");
    let phase = |i: usize| &phases[i]["phase"];
    assert_eq!(phase(0)["rows_inserted"], 20_000, "{j}");
    assert_eq!(phase(0)["per"], "row");
    assert_eq!(phase(1)["per"], "build");
    assert!(phase(1)["seconds"].as_f64().unwrap() > 0.0, "{j}");
    assert_eq!(phase(2)["rows_deleted"], phase(2)["rows_inserted"], "{j}");
    let held = phase(3)["inserts_per_s"].as_f64().unwrap() / 100.0;
    assert!(
        (0.95..=1.05).contains(&held),
        "qr100 held {held} of its rate: {j}"
    );
    assert!(phase(3)["sustained"].is_boolean(), "{j}");
    assert!(phase(3)["intervals_at_target_pct"].is_number(), "{j}");
    assert_eq!(phase(4)["sustained"], false, "{j}");
    assert!(phase(3)["schedule_lag_p99_ms"].as_f64().is_some(), "{j}");
    assert!(phase(4)["queries"].as_u64().unwrap() > 0, "{j}");
    let idx = lab().sql(
        &db,
        "SELECT COUNT(DISTINCT index_name) FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'purchases_index'",
    );
    assert_eq!(
        idx.trim(),
        "4",
        "the primary key and the 3 secondary indexes"
    );
    // the indexes hold one entry per row after all those inserts and deletes
    let checked = ok(&["check", "insert-benchmark"], &db);
    assert!(
        text(&checked).contains("consistent: all 4 conditions hold"),
        "{}",
        text(&checked)
    );
    // every phase is a run of the campaign, its figures kept with it
    let campaign = j["campaign"].as_i64().unwrap().to_string();
    let runs = lab().qpslab(&[
        "runs",
        "--campaign",
        &campaign,
        "--store",
        &store_arg,
        "--format",
        "json",
    ]);
    assert!(runs.status.success(), "{}", text(&runs));
    assert_eq!(json(&runs).as_array().unwrap().len(), 5, "{}", text(&runs));
    let qp = phases[4]["run_id"].as_i64().unwrap().to_string();
    let shown = lab().qpslab(&["show", &qp, "--store", &store_arg]);
    assert!(
        text(&shown).contains("sustained NO") && text(&shown).contains("phase qp1000000"),
        "{}",
        text(&shown)
    );
    let _ = std::fs::remove_file(&store);
}

#[test]
fn bad_phases_are_one_line() {
    let _shared = sharing();
    let db = lab().fresh_db("ibench_bad_phases");
    for (args, want) in [
        (vec!["--phases", "l.i9"], "'l.i9' is not a phase"),
        (vec!["--phases", "l.x,l.i0"], "can only come first"),
        (vec!["--phases", "l.i1", "--no-store"], "drop --no-store"),
        (vec!["--phases", "l.i0", "--rows", "0"], "--rows 0"),
        (
            vec!["--phases", "qr100", "--num-secondary-indexes", "0"],
            "need the secondary indexes",
        ),
    ] {
        let mut a = vec!["run", "insert-benchmark", "--time", "5"];
        a.extend(args.iter());
        let o = lab().on_db(&db, &a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && err.contains(want) && err.trim().lines().count() == 1,
            "{a:?}: {}",
            text(&o)
        );
    }
}
