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

/// The latency histogram's bucket bounds, seconds (100 µs to 10 s).
const BUCKETS_S: [f64; 16] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

/// A metric family being gathered: its type, help and samples (labels
/// text, value, timestamp).
struct Family {
    kind: &'static str,
    help: &'static str,
    samples: Vec<(String, String, f64, f64)>,
}

/// The families by name, in name order (OpenMetrics wants each family's
/// samples together).
#[derive(Default)]
struct Families(BTreeMap<String, Family>);

impl Families {
    /// Adds sample `suffix` (`_total`, `_bucket` … or "") of family
    /// `name` with `labels` (already rendered) at `ts`.
    fn add(
        &mut self,
        name: &str,
        kind: &'static str,
        help: &'static str,
        sample: (&str, String, f64, f64),
    ) {
        let f = self.0.entry(name.to_string()).or_insert_with(|| Family {
            kind,
            help,
            samples: Vec::new(),
        });
        f.samples
            .push((sample.0.to_string(), sample.1, sample.2, sample.3));
    }
}

/// A label value escaped as OpenMetrics wants it.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// `name` made a valid metric name part (lower case, `[a-z0-9_]`).
fn metric_part(name: &str) -> String {
    name.to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The run's own labels, rendered (`run_id="3",workload="…"`), with
/// `extra` appended.
fn labels(base: &str, extra: &[(&str, &str)]) -> String {
    let mut out = base.to_string();
    for (k, v) in extra {
        let _ = write!(out, ",{k}=\"{}\"", escape(v));
    }
    out
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
        fam.samples.sort_by(|a, b| (&a.1, &a.0).cmp(&(&b.1, &b.0)));
    }
    let mut out = String::new();
    for (name, fam) in &f.0 {
        let _ = writeln!(out, "# TYPE {name} {}", fam.kind);
        let _ = writeln!(out, "# HELP {name} {}", fam.help);
        for (suffix, labels, value, ts) in &fam.samples {
            let _ = writeln!(out, "{name}{suffix}{{{labels}}} {value} {ts:.3}");
        }
    }
    out.push_str("# EOF\n");
    out
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
            f.add(name, "counter", help, ("_total", l, v as f64, *ts));
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
            ("", base.clone(), threads, *ts),
        );
    }
    if let Some(h) = r.latency {
        latency_series(f, &base, h, points.last().map_or(t0, |p| p.0));
    }
}

/// The run's event latency as one histogram sample at `ts`.
fn latency_series(f: &mut Families, base: &str, h: &Hist, ts: f64) {
    const NAME: &str = "qpslab_event_latency_seconds";
    const HELP: &str = "Event latency over the run (from its HDR histogram).";
    let recorded = h.recorded();
    for le in BUCKETS_S {
        let n: u64 = recorded
            .iter()
            .filter(|(us, _)| (*us as f64) <= le * 1e6)
            .map(|(_, n)| n)
            .sum();
        let l = labels(base, &[("le", &le.to_string())]);
        f.add(NAME, "histogram", HELP, ("_bucket", l, n as f64, ts));
    }
    let count = h.count();
    let inf = labels(base, &[("le", "+Inf")]);
    f.add(NAME, "histogram", HELP, ("_bucket", inf, count as f64, ts));
    f.add(
        NAME,
        "histogram",
        HELP,
        ("_count", base.to_string(), count as f64, ts),
    );
    let sum = h.mean_ms() / 1000.0 * count as f64;
    f.add(NAME, "histogram", HELP, ("_sum", base.to_string(), sum, ts));
}

/// mysqld_exporter's name, type, help and label for a SHOW GLOBAL STATUS
/// variable (lower-cased): its grouped families, else the generic one.
fn status_family(
    key: &str,
) -> (
    String,
    &'static str,
    &'static str,
    Option<(&'static str, String)>,
) {
    const GROUPS: [(&str, &str, &str, &str); 6] = [
        ("com_", "commands", "command", "Total number of executed MySQL commands."),
        ("handler_", "handlers", "handler", "Total number of executed MySQL handlers."),
        ("connection_errors_", "connection_errors", "error", "Total number of MySQL connection errors."),
        ("innodb_rows_", "innodb_row_ops", "operation", "Total number of MySQL InnoDB row operations."),
        (
            "performance_schema_",
            "performance_schema_lost",
            "instrumentation",
            "Total number of MySQL instrumentations that could not be loaded or created due to memory constraints.",
        ),
        ("innodb_buffer_pool_pages_", "", "", ""),
    ];
    for (prefix, family, label, help) in GROUPS {
        let Some(rest) = key.strip_prefix(prefix) else {
            continue;
        };
        if family.is_empty() {
            return if ["data", "dirty", "free", "misc"].contains(&rest) {
                (
                    "mysql_global_status_buffer_pool_pages".into(),
                    "gauge",
                    "Innodb buffer pool pages by state.",
                    Some(("state", rest.to_string())),
                )
            } else {
                (
                    "mysql_global_status_buffer_pool_page_changes".into(),
                    "counter",
                    "Innodb buffer pool page state changes.",
                    Some(("operation", rest.to_string())),
                )
            };
        }
        return (
            format!("mysql_global_status_{family}"),
            "counter",
            help,
            Some((label, rest.to_string())),
        );
    }
    (
        format!("mysql_global_status_{key}"),
        "unknown",
        "Generic metric from SHOW GLOBAL STATUS.",
        None,
    )
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
            f.add(name, kind, help, (suffix, l, *v, ts));
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
