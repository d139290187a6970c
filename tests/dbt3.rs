//! DBT3 against a real sandbox MariaDB at SF 0.01: prepare loads
//! tpchgen's rows (exact counts per table, the check holds, through the
//! named pipe and over LOAD DATA LOCAL, a prepare resumes and refuses
//! another scale, a deadlocked chunk is loaded again), the power test runs the 22
//! queries and a refresh pair that leaves the data as it found it, a
//! query timeout leaves no query running, and bad options are one line.

mod common;
use common::family::{count, ok};
use common::{json, lab, text};

const SF: &str = "0.01";

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
    // the sandbox's server is on this host and reads its files/ directory
    assert_eq!(p["load_via"], "pipe", "{p}");
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
    // resumed over the connection, and saying so: the same rows either way
    let o = text(&ok(
        &["prepare", "dbt3", "--scale", SF, "--load-via", "local"],
        &db,
    ));
    assert!(
        o.contains("Resuming the interrupted DBT3 prepare: ") && o.contains(" to go\n"),
        "{o}"
    );
    assert!(
        o.contains(": 15000 rows in ") && o.contains("LOAD DATA LOCAL)"),
        "{o}"
    );
    assert_consistent(&db);
    ok(&["cleanup", "dbt3"], &db);
    assert_eq!(lab().sql(&db, "SHOW TABLES").trim(), "");
}

/// A chunk whose load fails on a deadlock (error 1213, here from a
/// trigger that fails the first attempt only) is rolled back and loaded
/// again: the resumed prepare succeeds with exact counts, where it
/// failed on the first deadlock two loaders met.
#[test]
fn a_deadlocked_chunk_is_rolled_back_and_loaded_again() {
    let db = prepared("dbt3_deadlock");
    let l = lab();
    l.sql(
        &db,
        "DELETE FROM qpslab_dbt3 WHERE part IN ('complete', 'nation:1/1')",
    );
    l.sql(&db, "DELETE FROM nation");
    l.sql(&db, "CREATE TABLE failed_once (n INT) ENGINE=MyISAM");
    l.sql_with(
        &db,
        "CREATE TRIGGER deadlock_once BEFORE INSERT ON nation FOR EACH ROW \
         IF NOT EXISTS (SELECT 1 FROM failed_once) THEN INSERT INTO failed_once VALUES (1); \
         SIGNAL SQLSTATE '40001' SET MYSQL_ERRNO = 1213, MESSAGE_TEXT = 'simulated deadlock'; END IF",
        "//",
    );
    let o = text(&ok(&["prepare", "dbt3", "--scale", SF], &db));
    assert!(o.contains("Resuming the interrupted DBT3 prepare: "), "{o}");
    assert!(
        o.contains(" met a deadlock with another loader (error 1213): rolled back (")
            && o.contains(" and loaded again (retry 1 of 3)"),
        "{o}"
    );
    assert_eq!(count(&db, "SELECT COUNT(*) FROM failed_once"), 1, "{o}");
    assert_eq!(count(&db, "SELECT COUNT(*) FROM nation"), 25, "{o}");
    assert_consistent(&db);
}

/// A database prepared at SF 0.01 (each test its own).
fn prepared(name: &str) -> String {
    let db = lab().fresh_db(name);
    ok(&["prepare", "dbt3", "--scale", SF], &db);
    db
}

#[test]
fn power_test_runs_the_22_queries_and_a_refresh_pair_leaves_the_data() {
    let db = prepared("dbt3_power");
    let o = lab().on_db(
        &db,
        &[
            "run",
            "dbt3",
            "--scale",
            SF,
            "--test",
            "power",
            "--validation",
            "on",
            "--format",
            "json",
        ],
    );
    let s = text(&o);
    assert!(o.status.success(), "{s}");
    let j = json(&o);
    let b = &j["dbt3"];
    assert_eq!(b["test"], "power");
    let qs = b["queries"].as_object().expect("queries");
    assert_eq!(qs.len(), 22, "{b}");
    for q in 1..=22 {
        let f = &qs[&format!("Q{q}")];
        assert!(f["seconds"].as_f64().unwrap_or(-1.0) >= 0.0, "Q{q}: {f}");
        assert!(
            f.get("error").is_none() && f.get("timed_out").is_none(),
            "Q{q}: {f}"
        );
        assert!(f["plan"].is_object(), "Q{q} has no plan: {f}");
    }
    // the validation answers that hold at any scale's shape
    assert_eq!(qs["Q1"]["rows"], 4);
    assert_eq!(qs["Q4"]["rows"], 5);
    assert_eq!(qs["Q12"]["rows"], 2);
    assert_eq!(
        qs["Q6"]["params"],
        serde_json::json!(["1994-01-01", "0.06", "24"])
    );
    assert!(b["refresh"]["RF1"].as_f64().is_some() && b["refresh"]["RF2"].as_f64().is_some());
    assert!(b["geomean_s"].as_f64().unwrap_or(0.0) > 0.0, "{b}");
    assert!(b["power"].as_f64().unwrap_or(0.0) > 0.0, "{b}");
    assert_eq!(b["composite_name"], "QphH-like (not a TPC result)");
    assert!(j["run_id"].as_i64().is_some(), "{j}");
    // RF2 took away what RF1 put in: the load's counts and pairs hold
    assert_consistent(&db);
    assert_eq!(
        count(
            &db,
            "SELECT COUNT(*) FROM orders WHERE o_orderkey & 24 <> 0"
        ),
        0
    );
    // a drawn stream: seedable, the same parameters for the same seed
    let params = |seed: &str| {
        let o = ok(
            &[
                "run",
                "dbt3",
                "--scale",
                SF,
                "--queries",
                "3,14",
                "--refresh",
                "off",
                "--rand-seed",
                seed,
                "--no-store",
                "--format",
                "json",
            ],
            &db,
        );
        json(&o)["dbt3"]["queries"]["Q3"]["params"].clone()
    };
    assert_eq!(params("7"), params("7"));
}

#[test]
fn throughput_test_runs_streams_beside_the_refresh_stream() {
    let db = prepared("dbt3_tput");
    let o = ok(
        &[
            "run",
            "dbt3",
            "--scale",
            SF,
            "--test",
            "throughput",
            "--streams",
            "2",
            "--queries",
            "1,6,14",
            "--format",
            "json",
        ],
        &db,
    );
    let b = &json(&o)["dbt3"];
    assert_eq!(b["streams"], 2);
    let streams = b["stream_queries"].as_array().expect("streams");
    assert_eq!(streams.len(), 2);
    for s in streams {
        assert_eq!(s.as_object().map(|m| m.len()), Some(3), "{s}");
    }
    assert!(b["refresh"]["RF1"].as_f64().is_some(), "{b}");
    // a subset: no composite
    assert!(b["throughput"].is_null() && b["composite"].is_null(), "{b}");
    assert_consistent(&db);
}

#[test]
fn a_query_past_its_timeout_is_killed_server_side() {
    let db = prepared("dbt3_timeout");
    // a session holding Q15's view makes Q15 wait in the server past 2 s
    let mut holder = std::process::Command::new("mariadb")
        .args(["-uroot", "-N", "-B"])
        .arg(format!("--socket={}", lab().socket().display()))
        .args([
            "-D",
            &db,
            "-e",
            "CREATE VIEW revenue0 AS SELECT 1 AS x; LOCK TABLES revenue0 READ; SELECT SLEEP(5)",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("mariadb client");
    common::await_cond(
        std::time::Duration::from_secs(10),
        "the lock holder",
        || {
            count(&db, "SELECT COUNT(*) FROM information_schema.processlist WHERE info = 'SELECT SLEEP(5)'") == 1
        },
    );
    let started = std::time::Instant::now();
    let o = lab().on_db(
        &db,
        &[
            "run",
            "dbt3",
            "--scale",
            SF,
            "--queries",
            "15",
            "--refresh",
            "off",
            "--query-timeout",
            "2",
            "--format",
            "json",
        ],
    );
    let took = started.elapsed().as_secs_f64();
    let j = json(&o);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let q15 = &j["dbt3"]["queries"]["Q15"];
    assert_eq!(q15["timed_out"], true, "{j}");
    assert!((1.9..9.0).contains(&took), "took {took} s");
    assert!(j["status"].to_string().contains("timed out"), "{j}");
    // killed, not left behind: no query of the run is in the processlist
    let left = count(
        &db,
        "SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE '%VIEW revenue%' AND info NOT LIKE '%processlist%'",
    );
    assert_eq!(left, 0);
    let _ = holder.kill();
    let _ = holder.wait();
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

#[test]
fn show_compare_and_the_run_page_give_per_query_figures_and_plan_changes() {
    let db = prepared("dbt3_compare");
    let store = lab().home.join("dbt3_compare.db").display().to_string();
    let _ = std::fs::remove_file(&store);
    let run = |label: &str| {
        let o = ok(
            &[
                "run",
                "dbt3",
                "--scale",
                SF,
                "--queries",
                "1,6,14",
                "--refresh",
                "off",
                // the same parameters in both (Q14's month decides its plan)
                "--validation",
                "on",
                "--label",
                label,
                "--store",
                &store,
                "--format",
                "json",
            ],
            &db,
        );
        json(&o)["run_id"].as_i64().expect("run_id").to_string()
    };
    let a = run("with-index");
    // the variant: no index left that Q14 can use (lineitem's shipdate
    // and partkey ones, part's primary key), so whichever plan the first
    // run took (the optimizer's pick between them varies at this size),
    // the second's differs
    lab().sql(&db, "ALTER TABLE lineitem DROP INDEX i_l_shipdate, DROP INDEX i_l_partkey, DROP INDEX i_l_suppkey_partkey; ALTER TABLE part DROP PRIMARY KEY");
    let b = run("no-index");
    let shown = lab().qpslab(&["show", &a, "--store", &store]);
    let s = text(&shown);
    assert!(shown.status.success(), "{s}");
    assert!(s.contains("query") && s.contains("plan"), "{s}");
    for q in ["Q1 ", "Q6 ", "Q14 "] {
        let line = s.lines().find(|l| l.trim_start().starts_with(q));
        assert!(line.is_some_and(|l| l.contains("ok")), "{q}: {s}");
    }
    let c = lab().qpslab(&["compare", &a, &b, "--store", &store]);
    let s = text(&c);
    assert!(c.status.success(), "{s}");
    assert!(s.contains("no-index (1 run(s)) over with-index"), "{s}");
    let q14 = s.lines().find(|l| l.trim_start().starts_with("Q14 "));
    assert!(q14.is_some_and(|l| l.contains("PLAN CHANGED")), "{s}");
    let q1 = s.lines().find(|l| l.trim_start().starts_with("Q1 "));
    assert!(q1.is_some_and(|l| l.ends_with("same")), "{s}");
    let c = lab().qpslab(&["compare", &a, &b, "--store", &store, "--format", "json"]);
    assert!(c.status.success(), "{}", text(&c));
    let j = json(&c);
    assert_eq!(j["other"]["series"], "no-index", "{j}");
    let qs = j["queries"].as_array().expect("queries");
    assert_eq!(qs.len(), 3, "{j}");
    let q14 = qs.iter().find(|q| q["query"] == "Q14").expect("Q14");
    assert_eq!(q14["plan_changed"], true, "{j}");
    assert!(q14["ratio_median"].as_f64().is_some_and(|r| r > 0.0), "{j}");
    // the two runs as a campaign's series: its page has the DBT3 section
    let campaign = {
        let conn = rusqlite::Connection::open(&store).expect("the store");
        conn.execute(
            "INSERT INTO campaigns (name, kind, definition, created_at) VALUES ('dbt3-index', 'campaign', '{}', '2026-11-27 00:00:00')",
            [],
        )
        .expect("a campaign");
        let id = conn.last_insert_rowid();
        conn.execute(
            &format!("UPDATE runs SET campaign_id = {id} WHERE id IN ({a}, {b})"),
            [],
        )
        .expect("its runs");
        id.to_string()
    };
    let html = lab().home.join("dbt3_campaign.html").display().to_string();
    let r = lab().qpslab(&[
        "report",
        "--campaign",
        &campaign,
        "-o",
        &html,
        "--store",
        &store,
    ]);
    assert!(r.status.success(), "{}", text(&r));
    let page = std::fs::read_to_string(&html).expect("the campaign page");
    // the section's heading (the last of its name: the contents list it first)
    let section = page
        .rsplit_once("DBT3 per-query time ratios against with-index")
        .map(|(_, s)| s)
        .expect("no DBT3 section on the campaign page");
    assert!(
        section.contains("no-index (1 run(s)) over with-index (1 run(s))"),
        "{section}"
    );
    assert!(
        section.contains("DBT3 median time ratio, no-index"),
        "no chart"
    );
    assert!(
        section.contains("plan changed"),
        "Q14's plan change not shown"
    );
    let html = lab().home.join("dbt3_compare.html").display().to_string();
    let r = lab().qpslab(&["report", &a, "-o", &html, "--store", &store]);
    assert!(r.status.success(), "{}", text(&r));
    let page = std::fs::read_to_string(&html).expect("the run page");
    assert!(page.contains("DBT3 seconds per query"), "no chart");
    assert!(page.contains("Q14"), "no table");
}

#[test]
fn a_profiled_power_run_keeps_each_querys_own_cpu_profile() {
    let db = prepared("dbt3_prof");
    let store = lab().home.join("dbt3_prof.db").display().to_string();
    let _ = std::fs::remove_file(&store);
    let o = ok(
        &[
            "run",
            "dbt3",
            "--scale",
            SF,
            "--queries",
            "9,1",
            "--validation",
            "on",
            "--profile",
            "cpu",
            "--profile-hz",
            "999",
            "--store",
            &store,
            "--format",
            "json",
        ],
        &db,
    );
    let j = json(&o);
    let run = j["run_id"].as_i64().expect("run_id").to_string();
    // the run's profile, as any run's
    assert_eq!(j["profile"]["kinds"][0]["kind"], "cpu", "{j}");
    // each query its own window (RF1 and RF2 too)
    let q9 = &j["dbt3"]["queries"]["Q9"]["cpu"];
    assert_eq!(q9["stacks"], "cpu-Q9", "{j}");
    assert!(q9["samples"].as_u64().unwrap_or(0) > 0, "{q9}");
    assert!(j["dbt3"]["queries"]["Q1"]["cpu"].is_object(), "{j}");
    let conn = rusqlite::Connection::open(&store).expect("the store");
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).expect(sql) };
    // Debian's mariadbd has its symbols: Q9's stacks go through the
    // executor (JOIN::exec, sub_select, evaluate_join_record) or the
    // storage engine's handler
    let executor = count(
        "SELECT COUNT(*) FROM profile_stacks WHERE kind = 'cpu-Q9' AND (stack LIKE '%JOIN::exec%' OR stack LIKE '%sub_select%' OR stack LIKE '%evaluate_join_record%' OR stack LIKE '%handler::%' OR stack LIKE '%ha_innobase::%')",
    );
    let some: Vec<String> = conn
        .prepare(
            "SELECT stack FROM profile_stacks WHERE kind = 'cpu-Q9' ORDER BY weight DESC LIMIT 3",
        )
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .unwrap_or_default();
    assert!(executor > 0, "no executor frame in Q9's stacks: {some:?}");
    for kind in ["cpu", "cpu-RF1", "cpu-RF2"] {
        let n = count(&format!(
            "SELECT COUNT(*) FROM profile_stacks WHERE run_id = {run} AND kind = '{kind}'"
        ));
        assert!(n > 0, "no {kind} stacks kept");
    }
    // its flame graph, and `show` names each query's innermost functions
    let svg = lab().home.join("dbt3_q9.svg").display().to_string();
    let f = lab().qpslab(&[
        "flamegraph",
        &run,
        "--kind",
        "cpu-Q9",
        "-o",
        &svg,
        "--store",
        &store,
    ]);
    assert!(f.status.success(), "{}", text(&f));
    let page = std::fs::read_to_string(&svg).expect("the flame graph");
    assert!(
        page.contains("<svg") && page.contains("cpu-Q9"),
        "{}",
        &page[..page.len().min(300)]
    );
    let shown = lab().qpslab(&["show", &run, "--store", &store]);
    let s = text(&shown);
    assert!(
        s.contains("each query's own window") && s.contains("flamegraph --kind cpu-Q9"),
        "{s}"
    );
    // the run page: the query's top functions beside a link to its graph
    let html = lab().home.join("dbt3_prof.html").display().to_string();
    let r = lab().qpslab(&["report", &run, "-o", &html, "--store", &store]);
    assert!(r.status.success(), "{}", text(&r));
    let page = std::fs::read_to_string(&html).expect("the run page");
    assert!(
        page.contains("on-CPU (innermost functions)") && page.contains("<h2>Profile</h2>"),
        "no per-query profile on the run page"
    );
    // in text: the profile after the table, then each query's window
    let o = ok(
        &[
            "run",
            "dbt3",
            "--scale",
            SF,
            "--queries",
            "6",
            "--refresh",
            "off",
            "--profile",
            "cpu",
            "--no-store",
        ],
        &db,
    );
    let s = text(&o);
    assert!(
        s.contains("On-CPU profile") && s.contains("each query's own window") && s.contains("Q6"),
        "{s}"
    );
}

/// A Python that has DuckDB: $QPSLAB_DUCKDB_PYTHON, scripts/deps.sh's
/// venv (target/duckdb-venv), or python3; none is a failure that says
/// so, never a pass.
fn duckdb_python() -> String {
    let venv = concat!(env!("CARGO_MANIFEST_DIR"), "/target/duckdb-venv/bin/python");
    let candidates = [
        std::env::var("QPSLAB_DUCKDB_PYTHON").unwrap_or_default(),
        venv.into(),
        "python3".into(),
    ];
    for py in candidates.iter().filter(|p| !p.is_empty()) {
        let has = std::process::Command::new(py)
            .args(["-c", "import duckdb"])
            .output()
            .is_ok_and(|o| o.status.success());
        if has {
            return py.clone();
        }
    }
    panic!("no Python with DuckDB (tried {candidates:?}): run scripts/deps.sh, which installs it in target/duckdb-venv");
}

#[test]
fn the_22_answers_match_duckdbs_on_the_same_rows() {
    let db = prepared("dbt3_answers");
    // the rows qpslab loaded, as tab-separated files, loaded into DuckDB
    let dir = lab().home.join("dbt3_answers");
    let (tsv, answers) = (dir.join("tsv"), dir.join("duckdb"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&tsv).expect("the dump folder");
    for t in [
        "region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem",
    ] {
        let rows = lab().sql(&db, &format!("SELECT * FROM {t}"));
        std::fs::write(tsv.join(format!("{t}.tsv")), rows).expect("a dump");
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/dbt3_duckdb.py");
    let o = std::process::Command::new(duckdb_python())
        .args([
            script,
            &tsv.display().to_string(),
            &answers.display().to_string(),
            SF,
        ])
        .output()
        .expect("python");
    assert!(o.status.success(), "DuckDB's answers: {}", text(&o));
    let answers = answers.display().to_string();
    let o = lab().on_db(
        &db,
        &["check", "dbt3", "--scale", SF, "--answers", &answers],
    );
    let s = text(&o);
    assert!(
        o.status.success() && s.contains("answers: 22 of 22 match"),
        "{s}"
    );
    assert!(
        !s.contains("(0 rows)"),
        "an empty answer checks little: {s}"
    );
    // a wrong reference is found and told, exit 1
    let q6 = format!("{answers}/q6.out");
    std::fs::write(&q6, "revenue\n12.34\n").expect("q6");
    let o = lab().on_db(
        &db,
        &[
            "check",
            "dbt3",
            "--scale",
            SF,
            "--answers",
            &answers,
            "--queries",
            "6,14",
        ],
    );
    let s = text(&o);
    assert_eq!(o.status.code(), Some(1), "{s}");
    assert!(
        s.contains("Q6: ANSWER DIFFERS: row 1 revenue:") && s.contains("answers: 1 of 2 match"),
        "{s}"
    );
}

#[test]
fn partitioned_orders_and_lineitem_load_and_a_power_run_passes_check() {
    let db = lab().fresh_db("dbt3_part");
    ok(&["prepare", "dbt3", "--scale", SF, "--partition", "4"], &db);
    let parts = |t: &str| {
        count(
            &db,
            &format!("SELECT COUNT(*) FROM information_schema.partitions WHERE table_schema = '{db}' AND table_name = '{t}' AND partition_method = 'HASH'"),
        )
    };
    assert_eq!(
        (parts("orders"), parts("lineitem"), parts("part")),
        (4, 4, 0)
    );
    assert_eq!(count(&db, "SELECT COUNT(*) FROM lineitem"), 60175);
    let o = lab().on_db(
        &db,
        &[
            "run",
            "dbt3",
            "--scale",
            SF,
            "--no-store",
            "--format",
            "json",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let qs = json(&o)["dbt3"]["queries"].clone();
    assert_eq!(qs.as_object().map(|m| m.len()), Some(22), "{qs}");
    assert_consistent(&db);
    let bad = lab().on_db(&db, &["prepare", "dbt3", "--partition", "5000"]);
    assert!(
        !bad.status.success() && text(&bad).contains("--partition must be from 0"),
        "{}",
        text(&bad)
    );
}

/// A campaign file runs DBT3: its tables prepared once at the workload's
/// scale, two variants (the second drops the indexes Q14 can use, by the
/// variant's SQL) × two repeats, and the campaign's report has each
/// query's ratio with its min/median/max over the repeats and Q14's plan
/// change flagged; `ratio --campaign` gives the same per query.
#[test]
fn a_campaign_runs_dbt3_variants_and_reports_per_query_ratios() {
    let toml = r#"
threads = [1]
time = 1
repeat = 2
[[variant]]
name = "with-index"
[[variant]]
name = "no-index"
sql = ["ALTER TABLE lineitem DROP INDEX i_l_shipdate, DROP INDEX i_l_partkey, DROP INDEX i_l_suppkey_partkey", "ALTER TABLE part DROP PRIMARY KEY"]
[[workload]]
name = "dbt3"
options = { scale = 0.01, queries = "1,6,14", refresh = "off", validation = "on" }
"#;
    let camp = common::family::run_campaign("dbt3-camp", toml, "campdbt3");
    let (runs, o) = common::family::ok_runs(&camp.store);
    assert_eq!(runs.len(), 4, "{}", text(&o));
    assert!(
        runs.iter()
            .all(|r| r["workload"].as_str() == Some("dbt3-sf0.01")),
        "{}",
        text(&o)
    );
    // rerun: every point is done, the end report again
    let again = lab().qpslab(&[
        "campaign",
        "run",
        camp.path.to_str().expect("a path"),
        "--store",
        &camp.store,
    ]);
    let s = text(&again);
    assert!(again.status.success(), "{s}");
    let q14 = s.lines().find(|l| l.trim_start().starts_with("Q14 "));
    assert!(q14.is_some_and(|l| l.contains("PLAN CHANGED")), "{s}");
    let c = lab().qpslab(&["ratio", "--campaign", "1", "--store", &camp.store]);
    let s = text(&c);
    assert!(c.status.success(), "{s}");
    assert!(s.contains("no-index dbt3-sf0.01 (2 run(s)) over"), "{s}");
    let q14 = s.lines().find(|l| l.trim_start().starts_with("Q14 "));
    assert!(q14.is_some_and(|l| l.contains("PLAN CHANGED")), "{s}");
    let q1 = s.lines().find(|l| l.trim_start().starts_with("Q1 "));
    assert!(q1.is_some_and(|l| l.ends_with("same")), "{s}");
}
