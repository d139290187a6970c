//! LinkBench against a real sandbox MariaDB: prepare loads the graph
//! (row counts, the out-degree histogram's shape, counttable equal to
//! the links), both load methods; a 20,000-operation run has the default
//! mix within 0.3 percentage point per operation, and the server's
//! statement counters equal the statements its operations make; `check`
//! holds after runs of 1 and 16 threads and ties the row counts to the
//! operations; an interrupted prepare is refused by run and resumed by
//! prepare; bad options are one line.

mod common;
use common::family::{com_delta, count, ok, ok_runs, refused, run_campaign};
use common::{json, lab, measuring, sharing, text};
use std::collections::BTreeMap;

/// A graph of 4,000 nodes (its most linked node has 311,772 links, as
/// LinkBench's histogram gives its first-ranked id).
const MAXID1: &str = "4001";

fn assert_consistent(db: &str) {
    let o = lab().on_db(db, &["check", "linkbench", "--maxid1", MAXID1]);
    let s = text(&o);
    assert!(
        o.status.success() && s.contains("consistent: all 6 conditions hold"),
        "{s}"
    );
}

/// The run ledger's totals (`run.nodes_added` …).
fn ledger(db: &str) -> BTreeMap<String, i64> {
    lab()
        .sql(
            db,
            "SELECT part, value FROM qpslab_linkbench WHERE part LIKE 'run.%'",
        )
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once('\t')?;
            Some((
                k.trim_start_matches("run.").to_string(),
                v.trim().parse().ok()?,
            ))
        })
        .collect()
}

/// The server's statement counters over a run (`com`, the run the only
/// client) against the statements LinkStoreMysql's operations make, from
/// the run's operation counts (`ops`) and the outcomes its requesters
/// added to the ledger (`led`): ADD/UPDATE_LINK is BEGIN, the link INSERT,
/// the count INSERT when a link appeared (inserted or shown), the data
/// UPDATE unless inserted, COMMIT; DELETE_LINK is BEGIN, the visibility
/// SELECT, the hide UPDATE when it read the link visible, the count
/// INSERT when the hide changed it, COMMIT; GET_LINKS_LIST the page and,
/// when it is full, its last time (`tails`, the run's count of
/// link_list_tail); the others one statement.
/// qpslab adds, for a run of `threads` without the monitor: its ready
/// check and environment capture (2 SELECTs), the ledger's rows made
/// (1 INSERT IGNORE) and each connection's ledger UPDATE. Exact with no
/// errors; a failed attempt ran at most 5 of its statements (each error
/// is one ROLLBACK).
fn assert_statements(
    com: &BTreeMap<String, i64>,
    ops: &BTreeMap<String, i64>,
    led: &BTreeMap<String, i64>,
    threads: i64,
    tails: i64,
    errors: i64,
) {
    let (o, l) = (|k: &str| ops[k], |k: &str| led[k]);
    let (a, d) = (o("add_link") + o("update_link"), o("delete_link"));
    let hides = l("links_hidden") + l("hides_raced");
    let selects = d + o("count_link") + o("get_links_list") + tails + o("get_node");
    let want = [
        ("Com_begin", a + d),
        ("Com_commit", a + d),
        (
            "Com_insert",
            a + l("links_added") + l("links_shown") + l("links_hidden") + o("add_node") + 1,
        ),
        (
            "Com_update",
            a - l("links_added") + hides + o("update_node") + threads,
        ),
        ("Com_delete", o("delete_node")),
        ("Com_select", selects + o("multiget_link") + 2),
        (
            "Com_stmt_execute",
            a + l("links_added")
                + l("links_shown")
                + (a - l("links_added"))
                + selects
                + hides
                + l("links_hidden")
                + o("add_node")
                + o("update_node")
                + o("delete_node"),
        ),
    ];
    for (k, want) in want {
        let got = com[k];
        assert!(
            (0..=5 * errors).contains(&(got - want)),
            "{k}: the server counted {got}, the operations make {want} ({errors} errors); operations {ops:?}, ledger {led:?}"
        );
    }
    assert_eq!(com["Com_rollback"], errors, "{com:?}");
}

#[test]
fn prepare_run_and_check() {
    let share = sharing();
    let db = lab().fresh_db("lb_run");
    let o = ok(
        &[
            "prepare",
            "linkbench",
            "--maxid1",
            MAXID1,
            "--loaders",
            "4",
            "--format",
            "json",
        ],
        &db,
    );
    let p = json(&o);
    // the sandbox's server is on this host and reads its files/ directory
    assert_eq!(p["load_via"], "pipe", "{p}");
    assert_eq!(count(&db, "SELECT COUNT(*) FROM nodetable"), 4000);
    let links = count(&db, "SELECT COUNT(*) FROM linktable");
    let counts = count(&db, "SELECT SUM(count) FROM counttable");
    let count_rows = count(&db, "SELECT COUNT(*) FROM counttable");
    assert_eq!(links, counts);
    assert_eq!(
        p["rows"].as_i64().unwrap(),
        4000 + links + count_rows,
        "{p}"
    );
    // Distribution.dat: 19.7% of nodes have no links, 53% one, the top one 311,772
    let linked = count(&db, "SELECT COUNT(DISTINCT id) FROM counttable") as f64 / 4000.0;
    assert!(
        (0.76..0.84).contains(&linked),
        "{linked} of the nodes have links"
    );
    let one = count(
        &db,
        "SELECT COUNT(*) FROM (SELECT id FROM counttable GROUP BY id HAVING SUM(count) = 1) t",
    ) as f64
        / 4000.0;
    assert!(
        (0.49..0.57).contains(&one),
        "{one} of the nodes have one link"
    );
    let top = count(
        &db,
        "SELECT MAX(s) FROM (SELECT SUM(count) s FROM counttable GROUP BY id) t",
    );
    assert!((311_772..=311_774).contains(&top), "{top}");
    // two link types, payloads from the motif generators' byte ranges
    assert_eq!(
        count(&db, "SELECT COUNT(DISTINCT link_type) FROM linktable"),
        2
    );
    assert_eq!(
        count(
            &db,
            "SELECT COUNT(*) FROM linktable WHERE data REGEXP '[^ -d]'"
        ),
        0
    );
    assert_consistent(&db);

    // 20,000 operations over 16 connections: the default mix, the only
    // client of the sandbox (the monitor's queries off)
    let led_before = ledger(&db);
    drop(share);
    let alone = measuring();
    let mut o = None;
    let com = com_delta(|| {
        o = Some(ok(
            &[
                "run",
                "linkbench",
                "--maxid1",
                MAXID1,
                "--threads",
                "16",
                "--events",
                "20000",
                "--time",
                "300",
                "--format",
                "json",
                "--no-store",
                "--no-monitor",
            ],
            &db,
        ))
    });
    drop(alone);
    let _share = sharing();
    let j = json(&o.unwrap());
    let ops = j["operations"].as_array().unwrap_or_else(|| panic!("{j}"));
    let total: u64 = ops.iter().map(|k| k["count"].as_u64().unwrap()).sum();
    assert!((20_000..20_100).contains(&total), "{total}");
    let mix = [
        ("add_link", 8.9886601),
        ("delete_link", 2.9907664),
        ("update_link", 8.0122125),
        ("count_link", 4.8863567),
        ("multiget_link", 0.5261142),
        ("get_links_list", 50.7119145),
        ("add_node", 2.5732789),
        ("update_node", 7.366437),
        ("delete_node", 1.0115914),
        ("get_node", 12.9326683),
    ];
    for (op, want) in mix {
        let k = ops
            .iter()
            .find(|k| k["op"] == op)
            .unwrap_or_else(|| panic!("{op}: {j}"));
        let share = k["count"].as_u64().unwrap() as f64 * 100.0 / total as f64;
        assert!((share - want).abs() <= 0.3, "{op}: {share:.3}% vs {want}%");
        assert!(k["latency_ms"]["max"].as_f64().unwrap() > 0.0, "{k}");
    }
    let by_op: BTreeMap<String, i64> = ops
        .iter()
        .map(|k| {
            (
                k["op"].as_str().unwrap().to_string(),
                k["count"].as_i64().unwrap(),
            )
        })
        .collect();
    let led: BTreeMap<String, i64> = ledger(&db)
        .into_iter()
        .map(|(k, v)| (k.clone(), v - led_before.get(&k).copied().unwrap_or(0)))
        .collect();
    let errors: i64 = j["totals"]["errors_by_code"]
        .as_object()
        .map_or(0, |m| m.values().filter_map(|v| v.as_i64()).sum());
    let tails = j["latency_by_statement"]
        .as_array()
        .and_then(|v| v.iter().find(|s| s["statement"] == "link_list_tail"))
        .map_or(0, |s| s["count"].as_i64().unwrap_or(0));
    assert_statements(&com, &by_op, &led, 16, tails, errors);
    // Every ADD_NODE made one node. (This once read 513 nodes for 514
    // operations: DELETE_LINK left its transaction open after the count
    // update, so the connection's next operations, an ADD_NODE among
    // them, went into it and were lost with it at the connection's end.)
    assert_eq!(
        count(&db, "SELECT COUNT(*) FROM nodetable WHERE id >= 4001"),
        by_op["add_node"],
        "nodes added vs add_node; the run's errors: {}",
        j["totals"]["errors_by_code"]
    );
    assert_eq!(led["nodes_added"], by_op["add_node"], "{led:?}");
    assert_consistent(&db);

    // one connection, and the text report's operations table
    let o = ok(
        &[
            "run",
            "linkbench",
            "--maxid1",
            MAXID1,
            "--threads",
            "1",
            "--events",
            "2000",
            "--no-store",
        ],
        &db,
    );
    let s = text(&o);
    assert!(
        s.contains("Operations:") && s.contains("get_links_list") && !s.contains("nopm"),
        "{s}"
    );
    assert_consistent(&db);

    // check ties the row counts to the operations: a node deleted behind
    // the runs' back is found
    lab().sql(&db, "DELETE FROM nodetable ORDER BY id LIMIT 1");
    let o = lab().on_db(&db, &["check", "linkbench", "--maxid1", MAXID1]);
    let s = text(&o);
    assert!(
        !o.status.success()
            && s.contains("nodes = loaded + added by ADD_NODE - deleted by DELETE_NODE (the run ledger): VIOLATED")
            && s.contains("INCONSISTENT: 1 of 6"),
        "{s}"
    );
    lab().sql(
        &db,
        "INSERT INTO nodetable (id, type, version, time, data) VALUES (1, 2048, 1, 0, '')",
    );
    assert_consistent(&db);

    // check finds a count that no longer matches, and exits 1
    lab().sql(
        &db,
        "UPDATE counttable SET count = count + 1 ORDER BY id LIMIT 1",
    );
    let o = lab().on_db(&db, &["check", "linkbench", "--maxid1", MAXID1]);
    assert!(
        !o.status.success() && text(&o).contains("VIOLATED"),
        "{}",
        text(&o)
    );
    ok(&["cleanup", "linkbench"], &db);
    assert_eq!(
        count(
            &db,
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'lb_run'"
        ),
        0
    );
}

#[test]
fn multi_row_inserts_load_the_same_graph() {
    let _share = sharing();
    let db = lab().fresh_db("lb_insert");
    let o = ok(
        &[
            "prepare",
            "linkbench",
            "--maxid1",
            "2001",
            "--load-method",
            "insert",
            "--partitions",
            "4",
            "--format",
            "json",
        ],
        &db,
    );
    assert!(json(&o)["load_method"] == "insert");
    // LinkBench's README partitions linktable by KEY(id1)
    assert_eq!(count(&db, "SELECT COUNT(*) FROM information_schema.partitions WHERE table_schema = 'lb_insert' AND table_name = 'linktable'"), 4);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM nodetable"), 2000);
    assert_eq!(
        count(&db, "SELECT COUNT(*) FROM linktable"),
        count(&db, "SELECT SUM(count) FROM counttable")
    );
    let o = lab().on_db(&db, &["check", "linkbench", "--maxid1", "2001"]);
    assert!(o.status.success(), "{}", text(&o));
}

/// What a graph holds apart from its load times: rows and payloads.
fn graph_digest(db: &str) -> [i64; 3] {
    [
        "SELECT SUM(CRC32(CONCAT_WS(',', id, type, version, data))) FROM nodetable",
        "SELECT SUM(CRC32(CONCAT_WS(',', id1, id2, link_type, visibility, data, version))) FROM linktable",
        "SELECT SUM(CRC32(CONCAT_WS(',', id, link_type, count, version))) FROM counttable",
    ]
    .map(|q| count(db, q))
}

#[test]
fn the_named_pipe_and_load_data_local_load_the_same_graph() {
    let _share = sharing();
    let mut digests = Vec::new();
    for via in ["pipe", "local"] {
        let db = lab().fresh_db(&format!("lb_via_{via}"));
        let o = ok(
            &[
                "prepare",
                "linkbench",
                "--maxid1",
                "2001",
                "--loaders",
                "1",
                "--rand-seed",
                "7",
                "--load-via",
                via,
                "--format",
                "json",
            ],
            &db,
        );
        assert_eq!(json(&o)["load_via"], via, "{}", text(&o));
        let o = lab().on_db(&db, &["check", "linkbench", "--maxid1", "2001"]);
        assert!(o.status.success(), "{}", text(&o));
        digests.push(graph_digest(&db));
        ok(&["cleanup", "linkbench"], &db);
    }
    assert_eq!(digests[0], digests[1]);
}

#[test]
fn an_interrupted_prepare_is_refused_by_run_and_resumed_by_prepare() {
    let _share = sharing();
    let db = lab().fresh_db("lb_resume");
    let args = [
        "prepare",
        "linkbench",
        "--maxid1",
        "3001",
        "--loader-chunk-size",
        "500",
    ];
    ok(&args, &db);
    let links = count(&db, "SELECT COUNT(*) FROM linktable");
    // As a prepare stopped mid-way leaves it: chunks not recorded, one
    // of them half-loaded, the graph not complete.
    lab().sql(
        &db,
        "DELETE FROM qpslab_linkbench WHERE part IN ('complete', 'chunk.1', 'chunk.1501');
         DELETE FROM linktable WHERE id1 BETWEEN 1600 AND 1800; DELETE FROM nodetable WHERE id > 1900 AND id < 2001",
    );
    let o = lab().on_db(
        &db,
        &[
            "run",
            "linkbench",
            "--maxid1",
            "3001",
            "--events",
            "10",
            "--no-store",
        ],
    );
    let s = text(&o);
    assert!(
        !o.status.success()
            && s.contains("not a complete load")
            && s.contains("qpslab prepare linkbench"),
        "{s}"
    );
    let o = ok(&args, &db);
    let s = text(&o);
    assert!(
        s.contains("Resuming the interrupted LinkBench prepare") && s.contains("2 to go"),
        "{s}"
    );
    assert_eq!(count(&db, "SELECT COUNT(*) FROM nodetable"), 3000);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM linktable"), links);
    let o = lab().on_db(&db, &["check", "linkbench", "--maxid1", "3001"]);
    assert!(o.status.success(), "{}", text(&o));
    // a complete graph is not loaded twice, nor with another size
    refused(&args, &db, &["already loaded"]);
    refused(
        &["prepare", "linkbench", "--maxid1", "5001"],
        &db,
        &["another graph"],
    );
}

/// A prepare stopped by Ctrl-C says how many chunks it keeps: the count
/// its resume then finds, and the progress table holds.
#[test]
fn an_interrupted_prepare_counts_the_chunks_its_resume_finds() {
    let _share = sharing();
    let db = lab().fresh_db("lb_sigint");
    // ~10M rows: far more than load before the signal, on any host
    common::family::interrupt_and_resume(
        &db,
        &["prepare", "linkbench", "--maxid1", "2000001"],
        "qpslab_linkbench",
        "part LIKE 'chunk.%'",
        "Resuming the interrupted LinkBench prepare: ",
    );
    ok(&["cleanup", "linkbench"], &db);
}

#[test]
fn bad_options_are_one_line() {
    for (args, want) in [
        (
            vec!["--mix", "getlinklist=50,frobnicate=50"],
            "unknown operation 'frobnicate'",
        ),
        (
            vec!["--mix", "getlinklist=50,getnode=40"],
            "add to 90.0000, not 100",
        ),
        (
            vec!["--maxid1", "1"],
            "--maxid1 must be at least --startid1 + 2",
        ),
        (
            vec!["--maxid1", "lots"],
            "--maxid1 'lots' is not a whole number",
        ),
        (
            vec!["--read-shape", "0"],
            "--read-shape must be a Zipf shape",
        ),
        (vec!["--load-method", "carrier-pigeon"], "--load-method"),
        (
            vec!["--config", "/nonexistent/lb.properties"],
            "--config /nonexistent/lb.properties",
        ),
    ] {
        let mut a = vec!["run", "linkbench"];
        a.extend(args.iter().copied());
        let o = lab().qpslab(&a);
        let s = text(&o);
        assert!(!o.status.success() && s.contains(want), "{a:?}: {s}");
        assert_eq!(s.trim().lines().count(), 1, "{a:?}: {s}");
    }
}

#[test]
fn a_linkbench_properties_file_sets_the_options() {
    let dir = std::env::temp_dir().join(format!("qpslab-lb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("LinkConfigMysql.properties");
    std::fs::write(
        &file,
        "# LinkBench's own file\nhost = example\nmaxid1 = 2001\nlink_type_count = 1\nread_function = com.facebook.LinkBench.distributions.ZipfDistribution\n\
         addlink = 10\ndeletelink = 0\nupdatelink = 0\ncountlink = 0\ngetlink = 0\ngetlinklist = 90\naddnode = 0\nupdatenode = 0\ndeletenode = 0\ngetnode = 0\n",
    )
    .unwrap();
    let _share = sharing();
    let db = lab().fresh_db("lb_config");
    let f = file.to_str().unwrap();
    ok(&["prepare", "linkbench", "--config", f], &db);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM nodetable"), 2000);
    assert_eq!(
        count(&db, "SELECT COUNT(DISTINCT link_type) FROM linktable"),
        1
    );
    let o = ok(
        &[
            "run",
            "linkbench",
            "--config",
            f,
            "--events",
            "1000",
            "--rand-seed",
            "7",
            "--format",
            "json",
            "--no-store",
        ],
        &db,
    );
    let j = json(&o);
    let ops = j["operations"].as_array().unwrap();
    let n = |op: &str| {
        ops.iter().find(|k| k["op"] == op).unwrap()["count"]
            .as_u64()
            .unwrap()
    };
    let total: u64 = ops.iter().map(|k| k["count"].as_u64().unwrap()).sum();
    assert_eq!(n("add_link") + n("get_links_list"), total);
    // 10% of 1,000 draws: a standard deviation of 0.0095, so 0.04 is over
    // four of them (the seed fixes the draws; the bound holds for any)
    assert!(
        (n("add_link") as f64 / total as f64 - 0.1).abs() < 0.04,
        "{j}"
    );
    assert_eq!(n("get_node"), 0);
    // a distribution qpslab does not run is refused, by its line
    std::fs::write(&file, "maxid1 = 2001\nread_function = REAL\n").unwrap();
    let o = lab().on_db(&db, &["run", "linkbench", "--config", f, "--events", "10"]);
    assert!(
        !o.status.success() && text(&o).contains(":2: read_function = REAL is not supported"),
        "{}",
        text(&o)
    );
}

#[test]
fn campaigns_load_the_graph_and_store_linkbench_runs() {
    let _share = sharing();
    let l = lab();
    let toml = r#"
threads = [1, 4]
time = 1
[data]
maxid1 = 2001
[[workload]]
name = "linkbench"
"#;
    let camp = run_campaign("lb-camp", toml, "camplb");
    let (path, store) = (camp.path, camp.store);
    let (runs, _) = ok_runs(&store);
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(
        runs.iter().all(|r| r["workload"] == "linkbench-2000n"),
        "{runs:?}"
    );
    let id = runs[0]["id"].as_i64().unwrap().to_string();
    let o = l.qpslab(&["show", &id, "--store", &store, "--format", "json"]);
    let s = text(&o);
    assert!(
        s.contains("\"operations\"") && s.contains("get_links_list"),
        "{s}"
    );
    // the campaign page's per-operation table
    let campaign = runs[0]["campaign_id"]
        .as_i64()
        .expect("campaign_id")
        .to_string();
    let html = l.home.join("lb-camp.html").display().to_string();
    let o = l.qpslab(&[
        "report",
        "--campaign",
        &campaign,
        "-o",
        &html,
        "--store",
        &store,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let page = std::fs::read_to_string(&html).expect("the campaign page");
    assert!(
        page.contains(">Operations</h2>") && page.contains("get_links_list ops/s"),
        "no per-operation table on the campaign page; its headings: {:?}",
        page.split("<h2")
            .skip(1)
            .map(|h| h.chars().take(80).collect::<String>())
            .collect::<Vec<_>>()
    );
    // a linkbench workload without its graph is refused, in one line
    std::fs::write(&path, "name = \"x\"\nthreads = [1]\ntime = 1\n[[server]]\nlabel = \"m\"\n[[workload]]\nname = \"linkbench\"\n").unwrap();
    let o = l.qpslab(&["campaign", "run", path.to_str().unwrap(), "--store", &store]);
    assert!(
        !o.status.success() && text(&o).contains("[data] maxid1"),
        "{}",
        text(&o)
    );
}
