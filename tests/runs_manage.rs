//! Curating stored runs on a real sandbox: two short monitored runs of
//! different workloads and a third of the first at other users; tag and
//! untag, note and clear, exclude (scalability leaves it out and says
//! so), baseline and `diff` (per-transaction counters, largest relative
//! change first), `diff RUN` against the baseline, the run page's marks
//! and baseline section, and delete (its rows gone, a running run and a
//! delete without --yes refused).

mod common;
use common::{json, lab, outcome, sharing, text, Lab};
use qpslab::store::{NewRun, Store};
use qpslab::ui::{self, Mode};
use serde_json::Value;

/// Runs `workload` for 3 s at `threads` users into `store`; its id.
fn run(l: &Lab, db: &str, store: &str, workload: &str, threads: &str) -> i64 {
    let o = l.on_db(
        db,
        &[
            "run",
            workload,
            "--table-size",
            "1000",
            "--time",
            "3",
            "--threads",
            threads,
            "--monitor-interval",
            "0.5",
            "--store",
            store,
        ],
    );
    assert!(o.status.success(), "{}", outcome(&o));
    let runs = json(&l.qpslab(&["runs", "--store", store, "--format", "json"]));
    runs.as_array().unwrap().last().unwrap()["id"]
        .as_i64()
        .unwrap()
}

/// `qpslab ARGS --store STORE`, which must succeed; its stdout and stderr.
fn ok(l: &Lab, store: &str, args: &[&str]) -> String {
    let mut a = args.to_vec();
    a.extend(["--store", store]);
    let o = l.qpslab(&a);
    assert!(o.status.success(), "{args:?}: {}", outcome(&o));
    text(&o)
}

/// `qpslab ARGS --store STORE`, which must fail with one line; that line.
fn refused(l: &Lab, store: &str, args: &[&str]) -> String {
    let mut a = args.to_vec();
    a.extend(["--store", store]);
    let o = l.qpslab(&a);
    assert!(!o.status.success(), "{args:?} should fail: {}", outcome(&o));
    let err = String::from_utf8_lossy(&o.stderr).trim().to_string();
    assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    err
}

fn runs_json(l: &Lab, store: &str, extra: &[&str]) -> Vec<Value> {
    let mut a = vec!["runs", "--store", store, "--format", "json"];
    a.extend(extra);
    json(&l.qpslab(&a)).as_array().unwrap().clone()
}

fn ids(rows: &[Value]) -> Vec<i64> {
    rows.iter().map(|r| r["id"].as_i64().unwrap()).collect()
}

#[test]
fn tag_note_exclude_baseline_diff_and_delete() {
    let _g = sharing();
    let l = lab();
    let db = l.prepared_db("runs_manage", 1000);
    let path = l.home.join("runs-manage.db");
    let store = path.to_str().unwrap();
    let a = run(l, &db, store, "oltp_point_select", "1");
    let b = run(l, &db, store, "oltp_read_only", "1");
    let c = run(l, &db, store, "oltp_point_select", "2");

    // tags: several per run, a filter, removal, a bad tag refused
    ok(
        l,
        store,
        &["tag", &format!("{a}-{b}"), "smoke", "first-pair"],
    );
    ok(l, store, &["tag", &a.to_string(), "slow"]);
    ok(l, store, &["tag", &b.to_string(), "smoke", "--remove"]);
    assert_eq!(ids(&runs_json(l, store, &["--tag", "smoke"])), vec![a]);
    let rows = runs_json(l, store, &[]);
    assert_eq!(
        rows[0]["tags"],
        serde_json::json!(["first-pair", "slow", "smoke"])
    );
    let e = refused(l, store, &["tag", &a.to_string(), "two words"]);
    assert!(e.contains("not a tag"), "{e}");
    let e = refused(l, store, &["tag", "999", "x"]);
    assert!(e.contains("no run 999"), "{e}");

    // notes: set, replace, clear
    ok(l, store, &["note", &a.to_string(), "first try"]);
    ok(l, store, &["note", &a.to_string(), "disk was full"]);
    ok(l, store, &["note", &b.to_string(), "kept"]);
    ok(l, store, &["note", &b.to_string(), "--clear"]);
    let rows = runs_json(l, store, &[]);
    assert_eq!(rows[0]["note"], "disk was full");
    assert_eq!(rows[1]["note"], Value::Null);
    let listed = ok(l, store, &["runs"]);
    assert!(
        listed.contains("disk was full") && listed.contains("slow"),
        "{listed}"
    );

    // exclude: kept, marked, left out of scalability and said so
    ok(l, store, &["exclude", &b.to_string()]);
    assert_eq!(runs_json(l, store, &[])[1]["excluded"], true);
    assert!(ok(l, store, &["runs"]).contains("ok, excluded"));
    let o = l.qpslab(&["scalability", "--store", store, "--format", "json"]);
    assert!(o.status.success(), "{}", outcome(&o));
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(!out.contains("oltp_read_only"), "{out}");
    assert!(err.contains("1 excluded run left out"), "{err}");
    let best = ok(l, store, &["best"]);
    assert!(best.contains("1 excluded run left out"), "{best}");
    ok(l, store, &["exclude", &b.to_string(), "--undo"]);
    let o = l.qpslab(&["scalability", "--store", store]);
    assert!(!text(&o).contains("excluded"), "{}", text(&o));

    // diff A B: per-transaction counters, largest relative change first
    let d = json(&l.qpslab(&[
        "diff",
        &a.to_string(),
        &b.to_string(),
        "--store",
        store,
        "--format",
        "json",
    ]));
    assert_eq!(d["b_counters"]["unit"], "transaction", "{d}");
    let rows = d["diff"]["rows"].as_array().unwrap();
    let row = |n: &str| rows.iter().find(|r| r["name"] == n).cloned();
    for name in [
        "Handler_read_key",
        "Innodb_buffer_pool_read_requests",
        "rows read per query",
    ] {
        let r = row(name).unwrap_or_else(|| panic!("{name} in {d}"));
        assert!(
            r["a"].as_f64().unwrap() > 0.0 && r["b"].as_f64().unwrap() > 0.0,
            "{r}"
        );
    }
    // oltp_read_only's ranges read more rows per query than a point select
    assert!(
        row("rows read per query").unwrap()["change"]
            .as_f64()
            .unwrap()
            > 1.0,
        "{d}"
    );
    let changes: Vec<f64> = rows
        .iter()
        .filter_map(|r| r["change"].as_f64())
        .map(f64::abs)
        .collect();
    assert!(changes.windows(2).all(|w| w[0] >= w[1]), "{changes:?}");
    let t = ok(l, store, &["diff", &a.to_string(), &b.to_string()]);
    assert!(t.contains("warning: different workloads"), "{t}");
    assert!(t.contains("zero in both left out"), "{t}");
    let csv = ok(
        l,
        store,
        &[
            "diff",
            &a.to_string(),
            &b.to_string(),
            "--format",
            "csv",
            "--all",
        ],
    );
    assert!(csv.starts_with("counter,a,b,change"), "{csv}");

    // baseline: pin, list, diff RUN against it, the run page
    let e = refused(l, store, &["diff", &c.to_string()]);
    assert!(e.contains("qpslab baseline RUN"), "{e}");
    ok(l, store, &["baseline", &a.to_string()]);
    let list = ok(l, store, &["baseline", "--list"]);
    assert!(
        list.contains("oltp_point_select") && list.contains(&format!("run {a}")),
        "{list}"
    );
    let t = ok(l, store, &["diff", &c.to_string()]);
    assert!(
        t.contains(&format!("A run {a}")) && t.contains("(baseline)"),
        "{t}"
    );
    assert!(t.contains("warning: different users"), "{t}");
    {
        let s = Store::open(&path).unwrap();
        let page = ui::run_page(&s, c, Mode::Ui).unwrap().unwrap();
        assert!(
            page.contains(&format!("Against the baseline (run {a})")),
            "no baseline section"
        );
        assert!(
            page.contains("Handler_read_key"),
            "no counters in the baseline section"
        );
        let page = ui::run_page(&s, a, Mode::Ui).unwrap().unwrap();
        assert!(
            page.contains("disk was full") && page.contains("slow"),
            "no note or tags"
        );
        assert!(
            !page.contains("Against the baseline"),
            "the baseline against itself"
        );
    }

    // delete: refused without --yes off a terminal, refused while running,
    // then the run and its rows gone (its baseline pin too)
    let e = refused(l, store, &["delete", &c.to_string()]);
    assert!(e.contains("--yes"), "{e}");
    let live = Store::open(&path)
        .unwrap()
        .begin_run(&NewRun {
            workload: "oltp_point_select".into(),
            ..Default::default()
        })
        .unwrap();
    let e = refused(l, store, &["delete", &live.to_string(), "--yes"]);
    assert!(e.contains("still running"), "{e}");
    let said = ok(l, store, &["delete", &format!("{a},{c}"), "--yes"]);
    assert!(
        said.contains("deleted 2 runs") && said.contains("sample"),
        "{said}"
    );
    assert_eq!(ids(&runs_json(l, store, &[])), vec![b, live]);
    let conn = rusqlite::Connection::open(&path).unwrap();
    for table in ["samples", "metric_snaps", "run_tags", "run_statements"] {
        let n: i64 = conn
            .query_row(
                &format!("SELECT COUNT(*) FROM {table} WHERE run_id IN (?1, ?2)"),
                [a, c],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 0, "{table} keeps rows of deleted runs");
    }
    assert!(ok(l, store, &["baseline"]).contains("no baselines pinned"));
}
