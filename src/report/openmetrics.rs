//! Stored runs as OpenMetrics text with their original timestamps
//! (`qpslab export`), for backfilling into Prometheus beside production
//! data (`promtool tsdb create-blocks-from openmetrics FILE DIR`):
//! the load's counters per interval (`qpslab_transactions_total`,
//! `qpslab_queries_total{kind}`, `qpslab_errors_total{code}`,
//! `qpslab_reconnects_total`), `qpslab_threads`, the event latency as a
//! histogram at the run's end (classic buckets for database latencies;
//! never percentile gauges), and the server's SHOW GLOBAL STATUS as the
//! monitor recorded it under mysqld_exporter's names and types
//! (`mysql_global_status_commands_total{command}`,
//! `…_innodb_row_ops_total{operation}`, `…_buffer_pool_pages{state}` …),
//! so dashboards built on mysqld_exporter read it unchanged. Every series
//! carries `run_id`, `workload`, `users`, and `campaign`, `variant`,
//! `label`, `server` where known. Renders only: lab reads the runs.

use super::metric_families::{escape, labels, metric_part, point, status_family, Families, Format};
use crate::stats::Hist;
use crate::store::{MetricTable, RunDetail};
use std::collections::BTreeMap;
use std::fmt::Write;

/// One stored run and what its export needs beside its detail.
pub struct ExportRun<'a> {
    /// The run, with its samples.
    pub detail: &'a RunDetail,
    /// When its last sample ended, seconds since the Unix epoch (its
    /// samples are placed back from there).
    pub end_unix: f64,
    /// The monitor's SHOW GLOBAL STATUS snapshots, when it ran.
    pub status: Option<&'a MetricTable>,
    /// All events' latency; None for a run that did not end normally.
    pub latency: Option<&'a Hist>,
}

fn run_labels(d: &RunDetail) -> String {
    let r = &d.run;
    let mut out = format!(
        "run_id=\"{}\",workload=\"{}\",users=\"{}\"",
        r.id,
        escape(&r.workload),
        r.threads
    );
    let server =
        crate::server::server_label(d.server_flavor.as_deref(), r.server_version.as_deref());
    let known = [
        ("campaign", r.campaign_id.map(|c| c.to_string())),
        ("variant", r.variant.clone()),
        ("label", r.label.clone()),
        ("server", (!server.is_empty()).then_some(server)),
    ];
    for (k, v) in known {
        if let Some(v) = v {
            let _ = write!(out, ",{k}=\"{}\"", escape(&v));
        }
    }
    out
}

/// The runs as one OpenMetrics text, `# EOF` at its end.
pub fn render(runs: &[ExportRun]) -> String {
    let mut f = Families::default();
    for r in runs {
        load_series(&mut f, r);
        if let Some(t) = r.status {
            status_series(&mut f, r, t);
        }
    }
    // each series' points together, in time order (they were added in
    // time order: a stable sort by series keeps it); a histogram's lines
    // stay as added (one point a run, buckets in `le` order)
    for fam in f.0.values_mut().filter(|fam| fam.kind != "histogram") {
        fam.samples
            .sort_by(|a, b| (&a.labels, a.suffix).cmp(&(&b.labels, b.suffix)));
    }
    f.render(Format::OpenMetrics)
}

/// A sample time `t` (seconds since measuring began) as Unix seconds.
fn unix(r: &ExportRun, t: f64) -> f64 {
    let last = r.detail.samples.last().map_or(0.0, |s| s.t);
    r.end_unix - (last - t)
}

fn load_series(f: &mut Families, r: &ExportRun) {
    let base = run_labels(r.detail);
    let samples = &r.detail.samples;
    let Some(first) = samples.first() else {
        return;
    };
    // counters start at 0 when the first interval starts, so that an
    // increase over the run counts its first interval
    let t0 = unix(r, first.t - first.dur);
    let (mut events, mut reads, mut writes, mut others, mut reconnects) =
        (0i64, 0i64, 0i64, 0i64, 0i64);
    let mut errors: BTreeMap<String, i64> = BTreeMap::new();
    let mut points = vec![(t0, 0, 0, 0, 0, 0, BTreeMap::new())];
    for s in samples {
        events += s.events;
        reads += s.reads;
        writes += s.writes;
        others += s.others;
        reconnects += s.reconnects;
        if let Some(m) = s.errors.as_object() {
            for (code, n) in m {
                *errors.entry(code.clone()).or_default() += n.as_i64().unwrap_or(0);
            }
        }
        points.push((
            unix(r, s.t),
            events,
            reads,
            writes,
            others,
            reconnects,
            errors.clone(),
        ));
    }
    let threads = r.detail.run.threads as f64;
    for (ts, events, reads, writes, others, reconnects, errors) in &points {
        let c = |f: &mut Families, name: &str, help: &'static str, l: String, v: i64| {
            f.add(
                name,
                "counter",
                help,
                point("_total", l, v as f64, Some(*ts)),
            );
        };
        c(
            f,
            "qpslab_transactions",
            "Events (transactions) qpslab completed.",
            base.clone(),
            *events,
        );
        for (kind, v) in [("read", reads), ("write", writes), ("other", others)] {
            c(
                f,
                "qpslab_queries",
                "Statements qpslab completed, by kind.",
                labels(&base, &[("kind", kind)]),
                *v,
            );
        }
        c(
            f,
            "qpslab_reconnects",
            "Connections qpslab re-opened after a loss.",
            base.clone(),
            *reconnects,
        );
        for (code, n) in errors {
            c(
                f,
                "qpslab_errors",
                "Errors by server or client error code.",
                labels(&base, &[("code", code)]),
                *n,
            );
        }
        f.add(
            "qpslab_threads",
            "gauge",
            "Connections (users) of the run.",
            point("", base.clone(), threads, Some(*ts)),
        );
    }
    if let Some(h) = r.latency {
        latency_series(f, &base, h, points.last().map_or(t0, |p| p.0));
    }
}

/// The run's event latency as one histogram sample at `ts`.
fn latency_series(f: &mut Families, base: &str, h: &Hist, ts: f64) {
    f.histogram(
        "qpslab_event_latency_seconds",
        "Event latency over the run (from its HDR histogram).",
        base,
        h,
        Some(ts),
    );
}

fn status_series(f: &mut Families, r: &ExportRun, t: &MetricTable) {
    let base = run_labels(r.detail);
    let keys: Vec<_> = t
        .names
        .iter()
        .map(|n| status_family(&metric_part(n)))
        .collect();
    for (at, _, values) in &t.rows {
        let ts = unix(r, *at);
        for ((name, kind, help, label), v) in keys.iter().zip(values) {
            let Some(v) = v else { continue };
            let l = match label {
                Some((k, val)) => labels(&base, &[(k, val)]),
                None => base.clone(),
            };
            let suffix = if *kind == "counter" { "_total" } else { "" };
            f.add(name, kind, help, point(suffix, l, *v, Some(ts)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_variables_take_mysqld_exporter_s_names_and_types() {
        let (n, k, _, l) = status_family("com_select");
        assert_eq!(
            (n.as_str(), k, l),
            (
                "mysql_global_status_commands",
                "counter",
                Some(("command", "select".into()))
            )
        );
        let (n, k, _, l) = status_family("innodb_buffer_pool_pages_dirty");
        assert_eq!(
            (n.as_str(), k, l),
            (
                "mysql_global_status_buffer_pool_pages",
                "gauge",
                Some(("state", "dirty".into()))
            )
        );
        let (n, k, _, _) = status_family("innodb_buffer_pool_pages_flushed");
        assert_eq!(
            (n.as_str(), k),
            ("mysql_global_status_buffer_pool_page_changes", "counter")
        );
        let (n, k, _, l) = status_family("innodb_rows_read");
        assert_eq!(
            (n.as_str(), k, l),
            (
                "mysql_global_status_innodb_row_ops",
                "counter",
                Some(("operation", "read".into()))
            )
        );
        let (n, k, _, l) = status_family("threads_running");
        assert_eq!(
            (n.as_str(), k, l),
            ("mysql_global_status_threads_running", "unknown", None)
        );
        assert_eq!(
            metric_part("Innodb_buffer_pool_pages_free"),
            "innodb_buffer_pool_pages_free"
        );
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
