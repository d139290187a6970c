//! The Grafana dashboards in deploy/grafana against a real Prometheus:
//! both JSON models parse, every panel has a target, and every target's
//! `expr`, its template variables substituted as Grafana would, returns
//! data over a short run scraped through `--metrics-listen`. A panel the
//! sandbox cannot feed (performance_schema off) is skipped with the
//! reason printed, never passed silently.

mod common;
use common::prometheus::{free_port, Prometheus};
use common::{json, lab, outcome};
use std::io::Write;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The dashboards, relative to the crate root.
const DASHBOARDS: [&str; 2] = [
    "deploy/grafana/qpslab-run.json",
    "deploy/grafana/qpslab-campaign.json",
];

/// A scratch store path, removed on drop.
struct Scratch(std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Seconds since the epoch, now.
fn now_s() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// Every panel's (title, exprs) of a dashboard; asserts each has a target.
fn panel_exprs(path: &str) -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let doc: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path} is not JSON: {e}"));
    assert!(doc["schemaVersion"].as_i64().unwrap_or(0) >= 36, "{path}");
    let vars: Vec<&str> = doc["templating"]["list"]
        .as_array()
        .expect("templating")
        .iter()
        .filter_map(|v| v["name"].as_str())
        .collect();
    assert!(
        vars.contains(&"datasource"),
        "{path}: no datasource variable"
    );
    let panels = doc["panels"].as_array().expect("panels");
    assert!(!panels.is_empty(), "{path}: no panels");
    panels
        .iter()
        .map(|p| {
            let title = p["title"].as_str().expect("panel title").to_string();
            let exprs: Vec<String> = p["targets"]
                .as_array()
                .map(|t| t.iter().filter_map(|t| t["expr"].as_str()))
                .into_iter()
                .flatten()
                .map(String::from)
                .collect();
            assert!(!exprs.is_empty(), "{path}: panel {title:?} has no target");
            (title, exprs)
        })
        .collect()
}

/// `expr` with Grafana's variables as a dashboard showing `run_id` sets
/// them: the run's id, every other choice "All" (`.*`), intervals for
/// a 1 s scrape.
fn substitute(expr: &str, run_id: i64) -> String {
    expr.replace("$__rate_interval", "10s")
        .replace("$__interval", "1s")
        .replace("$__range", "60s")
        .replace("$run_id", &run_id.to_string())
        .replace("$workload", ".*")
        .replace("$server", ".*")
        .replace("$campaign", ".*")
        .replace("$variant", ".*")
}

/// Series a range query returns over [start, end] at a 1 s step.
fn range_series(prom: &Prometheus, q: &str, start: f64, end: f64) -> usize {
    let url = format!("{}/api/v1/query_range", prom.url);
    let body = ureq::get(&url)
        .query("query", q)
        .query("start", format!("{start:.3}"))
        .query("end", format!("{end:.3}"))
        .query("step", "1")
        .call()
        .unwrap_or_else(|e| panic!("prometheus query_range {q}: {e}"))
        .body_mut()
        .read_to_string()
        .expect("prometheus answer");
    let v: serde_json::Value = serde_json::from_str(&body).expect("prometheus JSON");
    assert_eq!(v["status"], "success", "{q}: {body}");
    v["data"]["result"].as_array().map_or(0, Vec::len)
}

#[test]
fn every_dashboard_panel_returns_data_from_a_scraped_run() {
    let dashboards: Vec<_> = DASHBOARDS.iter().map(|p| (*p, panel_exprs(p))).collect();
    let l = lab();
    let db = l.prepared_db("dashdb", 1000);
    let perf_schema_on = l.sql(&db, "SELECT @@performance_schema").trim() == "1";
    let s = Scratch(std::env::temp_dir().join(format!("qpslab-dash-store-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&s.0);
    std::fs::create_dir_all(&s.0).unwrap();
    let store = s.0.join("r.db").display().to_string();
    let target = format!("127.0.0.1:{}", free_port());
    let prom = Prometheus::start(std::slice::from_ref(&target));
    let start = now_s();
    let o = l.on_db(
        &db,
        &[
            "run",
            "oltp_read_write",
            "--table-size",
            "1000",
            "--time",
            "8",
            "--threads",
            "2",
            "--format",
            "json",
            "--store",
            &store,
            "--metrics-listen",
            &target,
            "--metrics-linger",
            "60",
        ],
    );
    assert!(o.status.success(), "{}", outcome(&o));
    let id = json(&o)["run_id"].as_i64().expect("run_id");
    // the final scrape's time (the target is stale a scrape after it:
    // "now" may already be past it)
    let ended = format!("qpslab_run_ended{{run_id=\"{id}\"}}");
    let mut last = None;
    common::await_cond(Duration::from_secs(30), "the final scrape", || {
        last = prom.last_time_of(&ended, 1.0);
        last.is_some()
    });
    // a step at or after the final scrape, which a rate needs
    let end = last.unwrap_or_else(now_s) + 1.0;
    let mut empty = Vec::new();
    for (path, panels) in &dashboards {
        for (title, exprs) in panels {
            if title.contains("performance_schema") && !perf_schema_on {
                // straight to stderr: the harness would swallow eprintln!
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIPPED {path} {title:?}: the sandbox runs with performance_schema=OFF, \
                     so qpslab polls no waits; its query is not checked for data"
                );
                continue;
            }
            // the errors-by-code target ends in `or on() vector(0)`, so a
            // clean run shows 0 rather than "No data": it always answers
            for e in exprs {
                let q = substitute(e, id);
                if range_series(&prom, &q, start, end) == 0 {
                    empty.push(format!("{path} {title:?}: {q}"));
                }
            }
        }
    }
    assert!(
        empty.is_empty(),
        "targets without data:\n{}",
        empty.join("\n")
    );
}
