//! A store written before the documents had versions (tests/fixtures/
//! store-v0.db, made by qpslab 0e187ca: an oltp_read_only run, a
//! syscall-profiled oltp_read_write run, a TPC-C run, a two-point sweep
//! and a monitor session, on a sandbox) still reads: `runs`, `show`
//! (text and JSON), the HTML report and the UI's run, campaign and start
//! pages show its runs with their figures. Needs no server.

mod common;
use common::svg_titled;
use qpslab::store::Store;
use qpslab::ui::{self, Mode};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A private copy of the fixture (an open may write its WAL beside it).
fn fixture_copy(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qpslab-store-v0-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("v0.db");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/store-v0.db"),
        &path,
    )
    .unwrap();
    path
}

fn qpslab(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_qpslab"))
        .args(args)
        .env(
            "QPSLAB_HOME",
            std::env::temp_dir().join("qpslab-store-v0-home"),
        )
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "qpslab {args:?}: {}\n{text}{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    text
}

#[test]
fn runs_and_show_read_an_old_store() {
    let path = fixture_copy("cli");
    let store = path.to_str().unwrap();
    let runs = qpslab(&["runs", "--store", store]);
    for label in ["old-ro", "old-rw", "old-tpcc", "old-sweep", "old-monitor"] {
        assert!(runs.contains(label), "{label} missing in:\n{runs}");
    }
    let shown = qpslab(&["show", "3", "--store", store]);
    for part in [
        "TPC-C:    NOPM",
        "new_order",
        "host:     vm: ",
        "sandbox:  fx (my.cnf preset default)",
    ] {
        assert!(shown.contains(part), "{part} missing in:\n{shown}");
    }
    let j: serde_json::Value = serde_json::from_str(&qpslab(&[
        "show", "3", "--store", store, "--format", "json",
    ]))
    .unwrap();
    assert_eq!(j["options"]["threads"], 2);
    assert_eq!(j["options"]["ignore_errors"]["Codes"][0], 1213);
    assert!(j["tpcc"]["nopm"].as_f64().unwrap() > 0.0, "{j}");
    assert_eq!(j["tpcc"]["transactions"][0]["type"], "new_order");
    assert_eq!(j["host"]["cpus"], 2);
    assert!(j["host"].get("preflight").is_none(), "{j}");
    assert_eq!(j["sandbox"]["name"], "fx");
    // Stored as "profile" before the my.cnf presets were named presets.
    assert_eq!(j["sandbox"]["preset"], "default", "{j}");
    let m: serde_json::Value = serde_json::from_str(&qpslab(&[
        "show", "6", "--store", store, "--format", "json",
    ]))
    .unwrap();
    assert_eq!(m["options"]["monitor_interval"], 1.0, "{m}");
    let report = path.with_file_name("run-3.html");
    qpslab(&[
        "report",
        "3",
        "--store",
        store,
        "-o",
        report.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&report).unwrap();
    for part in ["TPC-C", "NOPM", "new_order", "old-tpcc"] {
        assert!(html.contains(part), "{part} missing in the report");
    }
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn the_ui_renders_an_old_store() {
    let path = fixture_copy("ui");
    let s = Store::open(&path).unwrap();
    let page = |id: i64| ui::run_page(&s, id, Mode::Ui).unwrap().expect("a page");
    let tpcc = page(3);
    for part in ["<h2>TPC-C</h2>", "new_order", "Run options", "Intel"] {
        assert!(tpcc.contains(part), "{part} missing in run 3's page");
    }
    // The profile section from the old summary: syscalls per side with
    // their most frequent by name.
    let profiled = page(2);
    for part in ["<h3>Syscalls</h3>", "recvfrom", "old-rw"] {
        assert!(profiled.contains(part), "{part} missing in run 2's page");
    }
    for id in [1, 4, 5, 6] {
        assert!(page(id).contains("Run options"), "run {id}'s page");
    }
    // Latency as a distribution from the old histograms: the spectrum of
    // all events and each statement, with its percentile ticks; the
    // per-statement chart over time absent, with why.
    let rw = page(2);
    let spectrum = svg_titled(&rw, "Latency spectrum: all events and each statement");
    for tick in [">0<", ">90<", ">99<"] {
        assert!(
            spectrum.contains(tick),
            "{tick} missing in run 2's spectrum"
        );
    }
    assert!(spectrum.matches("<polyline").count() >= 2, "{spectrum}");
    assert!(rw.contains("Latency per statement over time: not stored for this run"));
    assert!(!rw.contains("Latency per statement over time, p95"));
    let sweep = ui::campaign_page(&s, 1, Mode::Ui)
        .unwrap()
        .expect("the sweep's page");
    assert!(sweep.contains("oltp_point_select"));
    let index = ui::index_page(&s, &Default::default()).unwrap();
    assert!(index.contains("old-monitor"));
    drop(s);
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

/// Schema v10 keeps what a listing shows of the documents (NOPM, the load
/// threads' CPU, lock shares, the options' key) as columns: the
/// migration fills them for the runs stored before, with the values a
/// read-only open of the unmigrated store computes from the documents.
#[test]
fn the_listed_columns_are_backfilled_as_read_before() {
    let before = fixture_copy("listed-ro");
    let ro = Store::open_read_only(&before, |_| false).unwrap();
    let read = ro.list_runs(&Default::default()).unwrap();
    let path = fixture_copy("listed-rw");
    let migrated = Store::open(&path).unwrap();
    let listed = migrated.list_runs(&Default::default()).unwrap();
    assert_eq!(read.len(), listed.len());
    let key = |r: &qpslab::store::RunRow| {
        (
            r.id,
            r.nopm.map(f64::to_bits),
            r.load_cpu_s.map(f64::to_bits),
            r.locks.clone(),
            r.options_key.clone(),
        )
    };
    assert_eq!(
        read.iter().map(key).collect::<Vec<_>>(),
        listed.iter().map(key).collect::<Vec<_>>()
    );
    let tpcc = listed
        .iter()
        .find(|r| r.workload.starts_with("tpcc"))
        .unwrap();
    assert!(tpcc.nopm.is_some_and(|n| n > 0.0), "{tpcc:?}");
    assert!(listed.iter().filter(|r| r.load_cpu_s.is_some()).count() >= 4);
    assert!(listed[0]
        .options_key
        .as_deref()
        .is_some_and(|k| k.contains("table_size")));
    drop(migrated);
    let db = rusqlite::Connection::open(&path).unwrap();
    let v: i64 = db
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert!(v >= 10);
    let index: i64 = db
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'runs_listing'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(index, 1);
    for p in [&before, &path] {
        let _ = std::fs::remove_dir_all(p.parent().unwrap());
    }
}

/// Schema v11 keeps what a campaign page reads of each point's documents
/// (the round's pre-flight check, the operations' figures) as columns, a
/// campaign's in one partial index: the migration fills them for the runs
/// stored before with what a read-only open of the unmigrated store reads
/// from the documents, and the page shows them.
#[test]
fn a_campaign_s_parts_are_backfilled_as_read_before() {
    let before = fixture_copy("parts-ro");
    let path = fixture_copy("parts-rw");
    // The fixture's sweep (campaign 1, runs 4 and 5) given a pre-flight
    // check and operations in the documents they are stored in.
    for p in [&before, &path] {
        let db = rusqlite::Connection::open(p).unwrap();
        db.execute_batch(
            r#"UPDATE runs SET host = json_set(host, '$.preflight', json('{"loop_cov":0.04,"host_busy_outside_qpslab":0.02,"seconds":1.0,"load_average":"0.50"}')) WHERE campaign_id = 1;
               UPDATE runs SET summary = json_set(summary, '$.operations', json('[{"op":"get_node","count":500,"share_pct":100.0,"per_s":250.0,"latency_ms":{"p99":1.5}}]')) WHERE id = 5;
               PRAGMA wal_checkpoint(TRUNCATE);"#,
        )
        .unwrap();
    }
    let key = |parts: std::collections::BTreeMap<i64, qpslab::store::RunParts>| {
        parts
            .into_iter()
            .map(|(id, p)| {
                let ops = p.operations.map(|o| {
                    o.iter()
                        .map(|o| (o.op.clone(), o.count, o.per_s.to_bits()))
                        .collect::<Vec<_>>()
                });
                let pre = p.preflight.map(|f| (f.loop_cov.to_bits(), f.load_average));
                (id, pre, ops)
            })
            .collect::<Vec<_>>()
    };
    let ro = Store::open_read_only(&before, |_| false).unwrap();
    let read = key(ro.campaign_parts(1).unwrap());
    drop(ro);
    let migrated = Store::open(&path).unwrap();
    let parts = key(migrated.campaign_parts(1).unwrap());
    assert_eq!(read, parts);
    assert_eq!(parts.len(), 2, "{parts:?}");
    assert!(parts.iter().all(|(_, pre, _)| pre.is_some()), "{parts:?}");
    assert_eq!(parts[1].2.as_ref().unwrap()[0].0, "get_node");
    assert!(parts[0].2.is_none());
    assert!(migrated.campaign_parts(2).unwrap().is_empty());
    let page = ui::campaign_page(&migrated, 1, Mode::Ui)
        .unwrap()
        .expect("the sweep's page");
    for part in [
        "Measurement conditions",
        "load average 0.50",
        ">Operations</h2>",
        "get_node ops/s",
    ] {
        assert!(page.contains(part), "{part} missing in the campaign page");
    }
    drop(migrated);
    let db = rusqlite::Connection::open(&path).unwrap();
    let v: i64 = db
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert!(v >= 11);
    // The page's query is answered from the partial index alone.
    let plan: Vec<String> = db
        .prepare(
            "EXPLAIN QUERY PLAN SELECT id, preflight, operations FROM runs \
             WHERE campaign_id = 1 AND (preflight IS NOT NULL OR operations IS NOT NULL)",
        )
        .unwrap()
        .query_map([], |r| r.get::<_, String>(3))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert!(
        plan.iter().any(|p| p.contains("COVERING INDEX runs_parts")),
        "{plan:?}"
    );
    // Each open's search for runs left running reads an index of them.
    let plan: String = db
        .query_row(
            "EXPLAIN QUERY PLAN SELECT id, pid, boot_id FROM main.runs WHERE status = 'running'",
            [],
            |r| r.get(3),
        )
        .unwrap();
    assert!(plan.contains("INDEX runs_running"), "{plan}");
    drop(db);
    for p in [&before, &path] {
        let _ = std::fs::remove_dir_all(p.parent().unwrap());
    }
}
