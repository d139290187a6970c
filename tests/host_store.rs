//! sysbench's built-in host tests kept in qpslab's store: `qpslab run cpu`
//! and `qpslab run fileio` record a run like any other (status, totals,
//! a sample per second, the test's own figures in sysbench's units);
//! sysbench mode stores only when asked (`--qpslab-store`); a campaign's
//! `[host]` step runs the tests once, keeps them with the campaign and
//! leaves them out of its tables. Real processes, no server needed for
//! the tests themselves (the campaign runs on the harness's sandbox).

mod common;
use common::{json, lab, text};
use std::path::Path;

/// A scratch directory, removed on drop (also when a test fails).
use common::scratch::{all, qpslab_in as qpslab, Scratch};

fn runs(dir: &Path, store: &str) -> Vec<serde_json::Value> {
    let o = qpslab(dir, &["runs", "--store", store, "--format", "json"]);
    assert!(o.status.success(), "{}", all(&o));
    serde_json::from_slice::<serde_json::Value>(&o.stdout)
        .expect("runs json")
        .as_array()
        .expect("an array")
        .clone()
}

fn shown(dir: &Path, id: &serde_json::Value, store: &str) -> serde_json::Value {
    let o = qpslab(
        dir,
        &[
            "show",
            &id.to_string(),
            "--store",
            store,
            "--format",
            "json",
        ],
    );
    assert!(o.status.success(), "{}", all(&o));
    serde_json::from_slice(&o.stdout).expect("show json")
}

fn figure(d: &serde_json::Value, name: &str) -> f64 {
    d["host_test"]["figures"]
        .as_array()
        .expect("figures")
        .iter()
        .find(|f| f["name"] == name)
        .and_then(|f| f["value"].as_f64())
        .unwrap_or_else(|| panic!("no figure {name}: {d}"))
}

#[test]
fn qpslab_run_cpu_is_stored_like_any_run() {
    let s = Scratch::new("host-store", "cpu");
    let store = s.0.join("r.db").display().to_string();
    let o = qpslab(
        &s.0,
        &[
            "run",
            "cpu",
            "--time=3",
            "--threads=2",
            "--store",
            &store,
            "--label",
            "box",
        ],
    );
    let out = all(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("events per second:"),
        "sysbench's result section: {out}"
    );
    assert!(
        out.contains("qpslab: stored as run 1 (qpslab show 1 --store"),
        "{out}"
    );
    let r = runs(&s.0, &store);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(
        (r[0]["workload"].as_str(), r[0]["label"].as_str()),
        (Some("cpu"), Some("box"))
    );
    assert_eq!(r[0]["status"], "ok");
    let d = shown(&s.0, &r[0]["id"], &store);
    assert_eq!(d["run"]["threads"], 2);
    assert!(figure(&d, "events_per_s") > 0.0, "{d}");
    assert!(
        d["host_test"]["latency_avg_ms"].as_f64().unwrap() > 0.0,
        "{d}"
    );
    // a sample a second though no --report-interval was given, and none printed
    let samples = d["samples"].as_array().expect("samples").len();
    assert!((1..=4).contains(&samples), "{samples} samples: {d}");
    assert!(
        !out.contains("[ 1s ]"),
        "no interval lines were asked for: {out}"
    );
    // the text view says what it is
    let o = qpslab(&s.0, &["show", "1", "--store", &store]);
    let t = all(&o);
    assert!(
        t.contains("server:   none (a host test") && t.contains("events_per_s"),
        "{t}"
    );
    // and so does its page
    let page = s.0.join("run1.html");
    let o = qpslab(
        &s.0,
        &[
            "report",
            "1",
            "--store",
            &store,
            "-o",
            page.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", all(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("Host test: cpu") && html.contains("events_per_s"),
        "{html}"
    );
}

#[test]
fn qpslab_run_fileio_keeps_its_reads_writes_and_throughput() {
    let s = Scratch::new("host-store", "fileio");
    let store = s.0.join("r.db").display().to_string();
    let size = "--file-total-size=8M";
    let o = qpslab(&s.0, &["prepare", "fileio", size, "--file-num=2"]);
    assert!(o.status.success(), "{}", all(&o));
    let o = qpslab(
        &s.0,
        &[
            "run",
            "fileio",
            size,
            "--file-num=2",
            "--file-test-mode=rndrw",
            "--time=1",
            "--report-interval=1",
            "--store",
            &store,
        ],
    );
    let out = all(&o);
    assert!(o.status.success(), "{out}");

    let r = runs(&s.0, &store);
    assert_eq!(r[0]["workload"], "fileio");
    let d = shown(&s.0, &r[0]["id"], &store);
    assert!(
        figure(&d, "reads_per_s") > 0.0 && figure(&d, "writes_per_s") > 0.0,
        "{d}"
    );
    assert!(figure(&d, "read_mib_per_s") > 0.0, "{d}");
    // a sample for each interval line printed
    let lines = out.lines().filter(|l| l.starts_with("[ ")).count();
    assert_eq!(d["samples"].as_array().unwrap().len(), lines, "{out}");
    // reads and writes are the run's reads and writes, fsyncs its others
    let o = qpslab(&s.0, &["cleanup", "fileio", size, "--file-num=2"]);
    assert!(o.status.success(), "{}", all(&o));
    assert!(
        !s.0.join("test_file.0").exists(),
        "cleanup removed the files"
    );
}

#[test]
fn sysbench_mode_stores_only_when_asked() {
    let s = Scratch::new("host-store", "sbmode");
    let o = qpslab(&s.0, &["sysbench", "cpu", "--time=1", "run"]);
    assert!(o.status.success(), "{}", all(&o));
    assert!(!all(&o).contains("stored as run"), "{}", all(&o));
    assert!(
        !s.0.join("home").join("results.db").exists(),
        "nothing stored without --qpslab-store"
    );
    let store = s.0.join("asked.db").display().to_string();
    let o = qpslab(
        &s.0,
        &[
            "sysbench",
            "memory",
            "--time=1",
            "--memory-total-size=64M",
            &format!("--qpslab-store={store}"),
            "run",
        ],
    );
    assert!(o.status.success(), "{}", all(&o));
    let r = runs(&s.0, &store);
    let d = shown(&s.0, &r[0]["id"], &store);
    assert!(figure(&d, "memory_mib_per_s") > 0.0, "{d}");
    assert_eq!(
        d["options"]["oltp"]["memory-total-size"], "64M",
        "{}",
        d["options"]
    );
    // --no-store in qpslab mode: nothing kept
    let o = qpslab(&s.0, &["run", "cpu", "--time=1", "--no-store"]);
    assert!(
        o.status.success() && !all(&o).contains("stored as run"),
        "{}",
        all(&o)
    );
    assert!(!s.0.join("home").join("results.db").exists());
}

#[test]
fn a_campaign_characterises_the_host_once_and_keeps_it_apart_from_its_points() {
    let l = lab();
    l.fresh_db("camphost");
    l.sql("mysql", "CREATE OR REPLACE USER 'camph'@'%' IDENTIFIED BY 'camph-pw'; GRANT ALL ON *.* TO 'camph'@'%';");
    let s = Scratch::new("host-store", "campaign");
    let path = s.0.join("c-host.toml");
    std::fs::write(
        &path,
        format!(
            r#"
name = "c-host"
threads = [1]
time = 1
[data]
tables = 1
table_size = 200
[host]
tests = ["cpu", "fileio"]
time = 1
file_total_size = "8M"
dir = "{}"
[[server]]
label = "external"
dsn = "mysql://camph:camph-pw@127.0.0.1:{}/camphost"
[[workload]]
name = "oltp_point_select"
"#,
            s.0.display(),
            l.port()
        ),
    )
    .unwrap();
    let store = s.0.join("c-host.db").display().to_string();
    let o = l.qpslab(&["campaign", "run", path.to_str().unwrap(), "--store", &store]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("Host characterisation: cpu kept as run"), "{t}");
    assert!(
        t.contains("Host characterisation: fileio kept as run"),
        "{t}"
    );
    assert!(
        t.contains("Host characterisation (what the host could do"),
        "{t}"
    );
    assert!(
        std::fs::read_dir(&s.0).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("qpslab-host-fileio")),
        "fileio's files were removed"
    );
    let all_runs = json(&l.qpslab(&["runs", "--store", &store, "--format", "json"]));
    let workloads: Vec<&str> = all_runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["workload"].as_str().unwrap())
        .collect();
    assert_eq!(
        workloads,
        ["cpu", "fileio", "oltp_point_select"],
        "{all_runs}"
    );
    let host = &all_runs[0];
    assert_eq!(host["label"], "host");
    assert!(
        host["campaign_id"].as_i64().is_some(),
        "kept with the campaign: {host}"
    );
    // the campaign's tables are its points only
    let o = l.qpslab(&[
        "scalability",
        "--store",
        &store,
        "--campaign",
        &host["campaign_id"].to_string(),
    ]);
    let sc = text(&o);
    assert!(o.status.success() && !sc.contains("cpu"), "{sc}");
    // a rerun keeps them and runs nothing again
    let o = l.qpslab(&["campaign", "run", path.to_str().unwrap(), "--store", &store]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let runs_after = json(&l.qpslab(&["runs", "--store", &store, "--format", "json"]));
    assert_eq!(runs_after.as_array().unwrap().len(), 3, "{t}");
}
