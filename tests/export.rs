//! `qpslab export`: a stored, monitored run as OpenMetrics, backfilled
//! into a real Prometheus TSDB by Debian's promtool (`tsdb
//! create-blocks-from openmetrics`) and read back (`tsdb dump`): the
//! counters' last values equal the run's own totals, the latency
//! histogram's count its events, and the server's counters carry
//! mysqld_exporter's names. Without promtool (Debian's `prometheus`
//! package) the test fails with the reason.

mod common;
use common::{json, lab, outcome};
use std::path::PathBuf;
use std::process::Command;

/// A scratch directory, removed on drop (also when a test fails).
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn promtool(args: &[&str]) -> std::process::Output {
    Command::new("promtool")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run promtool (apt-get install prometheus): {e}"))
}

/// The last value `promtool tsdb dump` gives for the series whose line
/// contains every one of `parts`.
fn last_value(dump: &str, parts: &[&str]) -> f64 {
    dump.lines()
        .rev()
        .find(|l| parts.iter().all(|p| l.contains(p)))
        .and_then(|l| l.rsplit(' ').nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no series with {parts:?} in the dump"))
}

#[test]
fn an_exported_run_backfills_into_prometheus_with_its_own_totals() {
    let l = lab();
    let db = l.prepared_db("exportdb", 1000);
    let s = Scratch(std::env::temp_dir().join(format!("qpslab-export-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&s.0);
    std::fs::create_dir_all(&s.0).unwrap();
    let store = s.0.join("r.db").display().to_string();
    let o = l.on_sandbox(&[
        "run",
        "oltp_point_select",
        "--db",
        &db,
        "--table-size",
        "1000",
        "--time",
        "2",
        "--threads",
        "2",
        "--format",
        "json",
        "--store",
        &store,
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let id = json(&o)["run_id"].as_i64().expect("run_id");
    let shown = l.shown(id, &store);
    let sum = |key: &str| -> f64 {
        shown["samples"]
            .as_array()
            .expect("samples")
            .iter()
            .map(|x| x[key].as_f64().unwrap_or(0.0))
            .sum()
    };
    let (events, queries) = (sum("events"), sum("reads"));
    assert!(events > 0.0, "{shown}");
    let file = s.0.join("run.om");
    let o = l.qpslab(&[
        "export",
        &id.to_string(),
        "--store",
        &store,
        "-o",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.ends_with("# EOF\n"), "OpenMetrics ends with # EOF");
    assert!(!text.contains("_p99"), "no percentile gauges");
    let tsdb = s.0.join("tsdb");
    let o = promtool(&[
        "tsdb",
        "create-blocks-from",
        "openmetrics",
        file.to_str().unwrap(),
        tsdb.to_str().unwrap(),
    ]);
    assert!(
        o.status.success(),
        "promtool refused the export: {}",
        outcome(&o)
    );
    std::fs::create_dir_all(tsdb.join("wal")).unwrap();
    let o = promtool(&["tsdb", "dump", tsdb.to_str().unwrap()]);
    assert!(o.status.success(), "{}", outcome(&o));
    let dump = String::from_utf8_lossy(&o.stdout).into_owned();
    let run = format!("run_id=\"{id}\"");
    assert_eq!(
        last_value(&dump, &["qpslab_queries_total", "kind=\"read\"", &run]),
        queries,
        "reads"
    );
    let count = last_value(&dump, &["qpslab_event_latency_seconds_count", &run]);
    assert_eq!(
        count,
        last_value(&dump, &["qpslab_transactions_total", &run])
    );
    assert_eq!(count, events, "point select: one query an event");
    assert_eq!(
        last_value(
            &dump,
            &["qpslab_event_latency_seconds_bucket", "le=\"+Inf\"", &run]
        ),
        count
    );
    // the server's counters under mysqld_exporter's names
    assert!(
        last_value(
            &dump,
            &["mysql_global_status_commands_total", "command=\"select\""]
        ) >= queries
    );
    assert!(
        last_value(
            &dump,
            &["mysql_global_status_handlers_total", "handler=\"read_key\""]
        ) >= queries
    );
    last_value(
        &dump,
        &["mysql_global_status_buffer_pool_pages", "state=\"data\""],
    );
    last_value(&dump, &["mysql_global_status_threads_connected", &run]);
    // a bad request says what to give
    let o = l.qpslab(&["export", "999", "--store", &store]);
    assert!(
        !o.status.success() && outcome(&o).contains("no run 999"),
        "{}",
        outcome(&o)
    );
}
