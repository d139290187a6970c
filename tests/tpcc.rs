//! TPC-C against a real sandbox MariaDB: prepare loads what the spec
//! says and the consistency conditions hold; a concurrent run keeps them,
//! counts New-Orders exactly as the server took them, rolls back about
//! 1% on purpose and issues about 1% remote order lines; an interrupted
//! prepare is refused by run and resumed by prepare, and one stopped by
//! Ctrl-C counts the parts it keeps; a load shares its tables with other
//! transactions (no bulk-mode table lock); bad input is one line; sweeps
//! and campaigns store TPC-C runs with their figures.

mod common;
use common::family::{count, ok, ok_runs, refused, run_campaign};
use common::{json, lab, outcome, text};

fn assert_consistent(db: &str, wh: &str) {
    let o = lab().on_db(db, &["check", "tpcc", "--warehouses", wh]);
    let s = text(&o);
    assert!(
        o.status.success() && s.contains("consistent: all 6 conditions hold"),
        "{s}"
    );
}

#[test]
fn prepare_run_and_check_under_concurrency() {
    let db = lab().fresh_db("tpcc_run");
    let o = ok(
        &["prepare", "tpcc", "--warehouses", "2", "--format", "json"],
        &db,
    );
    let p = json(&o);
    // 100,000 items; per warehouse 100,000 stock, 30,000 customers,
    // history and orders, 9,000 new orders, ~300,000 order lines.
    let rows = p["rows"].as_u64().unwrap();
    assert!((1_050_000..1_150_000).contains(&rows), "{p}");
    assert_eq!(count(&db, "SELECT COUNT(*) FROM stock1"), 200_000);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM new_orders1"), 18_000);
    let bc = count(&db, "SELECT COUNT(*) FROM customer1 WHERE c_credit = 'BC'");
    assert!(
        (5_500..6_500).contains(&bc),
        "{bc} of 60,000 customers with bad credit"
    );
    let original = count(
        &db,
        "SELECT COUNT(*) FROM item1 WHERE i_data LIKE '%ORIGINAL%'",
    );
    assert!(
        (9_000..11_000).contains(&original),
        "{original} ORIGINAL items"
    );
    // every last name of the syllables exists in each district (the first 1,000 customers)
    assert_eq!(
        count(
            &db,
            "SELECT COUNT(DISTINCT c_last) FROM customer1 WHERE c_w_id = 1 AND c_d_id = 1"
        ),
        1000
    );
    assert_consistent(&db, "2");

    let o = ok(
        &[
            "run",
            "tpcc",
            "--warehouses",
            "2",
            "--threads",
            "8",
            "--events",
            "4000",
            "--time",
            "300",
            "--format",
            "json",
            "--no-store",
        ],
        &db,
    );
    let j = json(&o);
    let t = &j["tpcc"];
    let types: Vec<(&str, u64)> = t["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["type"].as_str().unwrap(), x["count"].as_u64().unwrap()))
        .collect();
    let n = |name: &str| types.iter().find(|x| x.0 == name).unwrap().1;
    assert_eq!(types.iter().map(|x| x.1).sum::<u64>(), 4000, "{types:?}");
    // the deck: 45/43/4/4/4 (rolled-back New-Orders are New-Orders)
    let no = n("new_order") + n("new_order_rollback");
    assert!(
        (1650..1950).contains(&no) && (1550..1900).contains(&n("payment")),
        "{types:?}"
    );
    for ty in ["order_status", "delivery", "stock_level"] {
        assert!((100..260).contains(&n(ty)), "{types:?}");
    }
    // New-Orders: the server took exactly what the client counted
    let tally = &t["server_tally"];
    assert_eq!(
        tally["server"].as_i64().unwrap(),
        tally["client"].as_i64().unwrap(),
        "{t}"
    );
    assert_eq!(tally["client"].as_u64().unwrap(), n("new_order"));
    assert_eq!(
        count(&db, "SELECT SUM(d_next_o_id - 3001) FROM district1"),
        n("new_order") as i64
    );
    // the on-purpose rollbacks are about 1% and are not errors
    let rb = t["new_order_rollback_pct"].as_f64().unwrap();
    assert!((0.2..2.5).contains(&rb), "rollback {rb}%");
    assert!(t["nopm"].as_f64().unwrap() > 0.0);
    // about 1% of the new order lines come from the other warehouse
    let lines = count(&db, "SELECT COUNT(*) FROM order_line1 WHERE ol_o_id > 3000");
    let remote = count(
        &db,
        "SELECT COUNT(*) FROM order_line1 WHERE ol_o_id > 3000 AND ol_supply_w_id <> ol_w_id",
    );
    let pct = 100.0 * remote as f64 / lines as f64;
    assert!((0.4..1.8).contains(&pct), "remote lines {pct}% of {lines}");
    assert!(
        count(
            &db,
            "SELECT COUNT(*) FROM orders1 WHERE o_id > 3000 AND o_all_local = 0"
        ) > 0
    );
    // per-type latency, and latency by statement, are reported
    let lat = &t["transactions"][0]["latency_ms"];
    assert!(lat["p95"].as_f64().unwrap() > 0.0, "{t}");
    assert!(j["latency_by_statement"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["statement"] == "no_stock"));
    assert_consistent(&db, "2");

    // the text protocol runs the same profiles, and the text report has
    // the TPC-C block
    let o = ok(
        &[
            "run",
            "tpcc",
            "--warehouses",
            "2",
            "--threads",
            "4",
            "--events",
            "400",
            "--time",
            "300",
            "--db-ps-mode",
            "disable",
            "--no-store",
            "--isolation",
            "RC",
        ],
        &db,
    );
    let s = text(&o);
    assert!(
        s.contains("NOPM (New-Orders per minute)") && s.contains("new_order_rollback"),
        "{s}"
    );
    // tpmC is never printed for a run the spec's rules do not allow
    assert!(
        s.contains("tpmC:") && s.contains("not reported: keying and think times are off"),
        "{s}"
    );
    assert_consistent(&db, "2");
    // the same profiles as stored procedures, one CALL per transaction
    let o = ok(
        &[
            "run",
            "tpcc",
            "--warehouses",
            "2",
            "--threads",
            "4",
            "--events",
            "600",
            "--time",
            "300",
            "--procedures",
            "--format",
            "json",
            "--no-store",
        ],
        &db,
    );
    let j = json(&o);
    let tally = &j["tpcc"]["server_tally"];
    assert_eq!(
        tally["server"].as_i64(),
        tally["client"].as_i64(),
        "{}",
        j["tpcc"]
    );
    assert!(j["latency_by_statement"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["statement"] == "call_new_order"));
    assert_consistent(&db, "2");
    // fewer warehouses than loaded: the run uses a subset
    ok(
        &[
            "run",
            "tpcc",
            "--warehouses",
            "1",
            "--events",
            "50",
            "--time",
            "300",
            "--no-store",
        ],
        &db,
    );
    assert_consistent(&db, "2");
    ok(&["cleanup", "tpcc"], &db);
    assert_eq!(
        count(
            &db,
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'tpcc_run'"
        ),
        0
    );
}

#[test]
fn an_interrupted_prepare_is_refused_by_run_and_resumed_by_prepare() {
    let db = lab().fresh_db("tpcc_resume");
    ok(&["prepare", "tpcc"], &db);
    // As a prepare stopped mid-way leaves it: parts not recorded, one of
    // them half-loaded, the set not complete.
    lab().sql(
        &db,
        "DELETE FROM qpslab_tpcc1 WHERE part IN ('complete', 'stock.1', 'orders.1.3');
         DELETE FROM stock1 WHERE s_i_id > 60000; DELETE FROM order_line1 WHERE ol_d_id = 3 AND ol_o_id > 100",
    );
    let o = lab().on_db(&db, &["run", "tpcc", "--events", "10", "--no-store"]);
    let s = text(&o);
    assert!(
        !o.status.success()
            && s.contains("not a complete load")
            && s.contains("qpslab prepare tpcc"),
        "{s}"
    );
    let o = ok(&["prepare", "tpcc"], &db);
    let s = text(&o);
    assert!(
        s.contains("Resuming the interrupted prepare of set 1") && s.contains("2 to go"),
        "{s}"
    );
    assert_eq!(count(&db, "SELECT COUNT(*) FROM stock1"), 100_000);
    assert_consistent(&db, "1");
    // a complete set is not loaded twice, nor with another size
    refused(&["prepare", "tpcc"], &db, &["already loaded"]);
    refused(
        &["prepare", "tpcc", "--warehouses", "3"],
        &db,
        &["prepared with --warehouses 1"],
    );
    refused(
        &[
            "run",
            "tpcc",
            "--warehouses",
            "3",
            "--events",
            "10",
            "--no-store",
        ],
        &db,
        &["at least 3 warehouses"],
    );
    // tables another tool made are never loaded into
    let other = lab().fresh_db("tpcc_foreign");
    lab().sql(&other, "CREATE TABLE warehouse1 (w_id INT PRIMARY KEY)");
    let o = lab().on_db(&other, &["prepare", "tpcc"]);
    assert!(
        !o.status.success() && text(&o).contains("was not loaded by `qpslab prepare tpcc`"),
        "{}",
        text(&o)
    );
}

/// Loaders share their tables without MariaDB's bulk mode, which takes a
/// table X lock at the first insert into an empty table when
/// foreign_key_checks is off as well as unique_checks (loaders racing for
/// it deadlocked, and a clear beside the winner once hung the server:
/// bulk_load::SHARED_TABLES_SESSION). A resumed prepare loads an emptied
/// stock table while another transaction holds an intention lock on it;
/// in bulk mode it waited for that transaction's end and failed after
/// innodb_lock_wait_timeout (error 1205).
#[test]
fn a_load_shares_its_tables_with_other_transactions() {
    let db = lab().fresh_db("tpcc_shared");
    ok(&["prepare", "tpcc"], &db);
    lab().sql(
        &db,
        "TRUNCATE stock1; DELETE FROM qpslab_tpcc1 WHERE part IN ('complete', 'stock.1')",
    );
    // READ COMMITTED: the empty range takes no gap lock, only the IX
    let held = common::HeldSession::open(
        &db,
        "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED; BEGIN; \
         SELECT COUNT(*) FROM stock1 WHERE s_w_id = 1 AND s_i_id = 1 FOR UPDATE;",
    );
    let o = ok(&["prepare", "tpcc"], &db);
    drop(held);
    assert!(text(&o).contains("1 to go"), "{}", text(&o));
    assert_eq!(count(&db, "SELECT COUNT(*) FROM stock1"), 100_000);
    assert_consistent(&db, "1");
    ok(&["cleanup", "tpcc"], &db);
}

/// A prepare stopped by Ctrl-C says how many parts it keeps: the count
/// the progress table holds, and its resume finds.
#[test]
fn an_interrupted_prepare_counts_the_parts_its_resume_finds() {
    let db = lab().fresh_db("tpcc_sigint");
    // 20 warehouses, ~10M rows: far more than load before the signal
    common::family::interrupt_and_resume(
        &db,
        &["prepare", "tpcc", "--warehouses", "20"],
        "qpslab_tpcc1",
        "part NOT IN ('warehouses', 'complete')",
        "Resuming the interrupted prepare of set 1: ",
    );
    ok(&["cleanup", "tpcc"], &db);
}

#[test]
fn bad_input_is_one_line() {
    for (args, want) in [
        (
            vec!["run", "tpcc", "--warehouses", "0"],
            "--warehouses must be from 1",
        ),
        (
            vec!["run", "tpcc", "--isolation", "sloppy"],
            "--isolation: 'sloppy' is not RC",
        ),
        (vec!["run", "tpcc", "--table-size", "5"], "--table-size"),
        (
            vec!["check", "oltp_read_write"],
            "consistency conditions of tpcc (`qpslab check tpcc",
        ),
    ] {
        let o = lab().on_db("mysql", &args);
        let s = text(&o);
        assert!(
            !o.status.success() && s.contains(want) && s.trim().lines().count() == 1,
            "{args:?}: {s}"
        );
    }
}

#[test]
fn sweeps_and_campaigns_store_tpcc_runs() {
    let l = lab();
    let db = l.fresh_db("tpcc_sweep");
    ok(&["prepare", "tpcc"], &db);
    let store = l.home.join("tpcc-sweep.db").display().to_string();
    let o = ok(
        &[
            "sweep",
            "tpcc",
            "--threads",
            "1,2",
            "--time",
            "1",
            "--store",
            &store,
        ],
        &db,
    );
    assert!(text(&o).contains("nopm"), "{}", text(&o));
    // NOPM against users: the scalability table and chart
    let o = l.qpslab(&["scalability", "--store", &store]);
    assert!(
        o.status.success() && text(&o).contains("nopm") && text(&o).contains("tpcc-1w"),
        "{}",
        text(&o)
    );
    let svg = l.home.join("nopm.svg");
    let o = l.qpslab(&[
        "chart",
        "--campaign",
        "1",
        "--metric",
        "nopm",
        "--store",
        &store,
        "-o",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.contains("NOPM against users"), "{svg}");
    let o = l.qpslab(&["runs", "--store", &store, "--format", "json"]);
    let runs = json(&o);
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(runs.iter().all(|r| r["workload"] == "tpcc-1w"), "{runs:?}");
    let id = runs[0]["id"].as_i64().unwrap().to_string();
    let o = l.qpslab(&["show", &id, "--store", &store, "--format", "json"]);
    let s = text(&o);
    assert!(s.contains("nopm") && s.contains("new_order"), "{s}");

    let toml = r#"
threads = [1, 2]
time = 1
[data]
warehouses = 2
[[workload]]
name = "tpcc"
[[workload]]
name = "tpcc"
options = { warehouses = 1 }
"#;
    let camp = run_campaign("tpcc-camp", toml, "camptpcc");
    let (runs, o) = ok_runs(&camp.store);
    // a sweep over users and over warehouses: one series per warehouse count
    let mut seen: Vec<(String, i64)> = runs
        .iter()
        .map(|r| {
            (
                r["workload"].as_str().unwrap().to_string(),
                r["threads"].as_i64().unwrap(),
            )
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            ("tpcc-1w".into(), 1),
            ("tpcc-1w".into(), 2),
            ("tpcc-2w".into(), 1),
            ("tpcc-2w".into(), 2)
        ],
        "{}",
        text(&o)
    );
}
