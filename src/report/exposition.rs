//! The live `/metrics` page (`--metrics-listen`): the run going on, or
//! the last one, and the monitor's latest polls, as Prometheus metric
//! families. The load under `qpslab_*` — counters, a gauge of users, and
//! latency as histograms (event, statement, operation; never percentile
//! gauges) — and the server under mysqld_exporter's names and types
//! (`mysql_global_status_*`, `mysql_info_schema_innodb_metrics_*`,
//! `mysql_perf_schema_events_waits_*`), so dashboards built on it read
//! these unchanged; the server's process CPU, memory and IO from /proc.
//! Renders a snapshot of `stats::live` only; serving it is ui's job.

use super::metric_families::{
    labels, metric_part, point, render_labels, status_family, Families, Format,
};
use crate::stats::live::{LiveLoad, LiveState};

/// The state as a scrape's page in `format`.
pub fn render(s: &LiveState, format: Format) -> String {
    families(s).render(format)
}

/// The state as metric families (the page's, and remote write's series).
pub fn families(s: &LiveState) -> Families {
    let mut f = Families::default();
    let base = match &s.load {
        Some(l) => render_labels(&l.labels),
        None => render_labels(&s.monitor_labels),
    };
    if let Some(l) = &s.load {
        load_families(&mut f, l, &base);
    }
    server_families(&mut f, s, &base);
    if let Some((source, shares)) = &s.lock_shares {
        for (family, share) in shares {
            f.gauge(
                "qpslab_profile_lock_share",
                "A lock family's share of the server's connection threads' time in the run's profile (--profile).",
                labels(&base, &[("family", family), ("source", source)]),
                *share,
            );
        }
    }
    f
}

fn load_families(f: &mut Families, l: &LiveLoad, base: &str) {
    f.counter(
        "qpslab_transactions",
        "Events (transactions) qpslab completed, past the warm-up.",
        base.to_string(),
        l.events as f64,
    );
    for (kind, n) in [("read", l.reads), ("write", l.writes), ("other", l.others)] {
        f.counter(
            "qpslab_queries",
            "Statements qpslab completed, by kind.",
            labels(base, &[("kind", kind)]),
            n as f64,
        );
    }
    f.counter(
        "qpslab_events_failed",
        "Events that could not complete (connection lost or cut).",
        base.to_string(),
        l.failed as f64,
    );
    f.counter(
        "qpslab_reconnects",
        "Connections qpslab re-opened after a loss.",
        base.to_string(),
        l.reconnects as f64,
    );
    for (code, n) in &l.errors {
        f.counter(
            "qpslab_errors",
            "Errors by server or client error code.",
            labels(base, &[("code", &code.to_string())]),
            *n as f64,
        );
    }
    f.counter(
        "qpslab_load_cpu_seconds",
        "CPU seconds of qpslab's load threads (the load's own cost).",
        base.to_string(),
        l.load_cpu_s,
    );
    f.counter(
        "qpslab_client_cpu_seconds",
        "CPU seconds of the whole qpslab process (load, monitor, store).",
        base.to_string(),
        l.client_cpu_s,
    );
    f.gauge(
        "qpslab_threads",
        "Connections (users) of the run.",
        base.to_string(),
        l.threads as f64,
    );
    f.gauge(
        "qpslab_run_ended",
        "1 once the run has ended and its figures are final.",
        base.to_string(),
        if l.ended { 1.0 } else { 0.0 },
    );
    f.histogram(
        "qpslab_event_latency_seconds",
        "Event (transaction) latency, from qpslab's HDR histogram.",
        base,
        &l.latency,
        None,
    );
    if let Some(lag) = &l.lag {
        f.histogram(
            "qpslab_schedule_lag_seconds",
            "Rate mode: how late the generator started events (kept out of their latency).",
            base,
            lag,
            None,
        );
    }
    for (name, h) in l.statements.iter().filter(|(_, h)| h.count() > 0) {
        f.histogram(
            "qpslab_statement_latency_seconds",
            "Latency of each statement kind the workload names.",
            &labels(base, &[("statement", name)]),
            h,
            None,
        );
    }
    for (name, n, h) in &l.classes {
        let l = labels(base, &[("operation", name)]);
        f.counter(
            "qpslab_operations",
            "Completed events of each of the family's operations (TPC-C's transactions, LinkBench's operations).",
            l.clone(),
            *n as f64,
        );
        f.histogram(
            "qpslab_operation_latency_seconds",
            "Latency of each of the family's operations.",
            &l,
            h,
            None,
        );
    }
}

fn server_families(f: &mut Families, s: &LiveState, base: &str) {
    if let Some(values) = s.sources.get("status") {
        f.gauge(
            "mysql_up",
            "Whether the last poll of the server succeeded.",
            base.to_string(),
            1.0,
        );
        for (name, v) in values {
            let (family, kind, help, label) = status_family(&metric_part(name));
            let l = match &label {
                Some((k, val)) => labels(base, &[(k, val)]),
                None => base.to_string(),
            };
            let suffix = if kind == "counter" { "_total" } else { "" };
            f.add(&family, kind, help, point(suffix, l, *v, None));
        }
    }
    if let Some(values) = s.sources.get("innodb_metrics") {
        innodb_metrics(f, values, &s.innodb_metric_kinds, base);
    }
    if let Some(values) = s.sources.get("ps_waits") {
        for (key, v) in values {
            let Some((event, col)) = key.rsplit_once('.') else {
                continue;
            };
            let l = labels(base, &[("event_name", event)]);
            match col {
                "count" => f.counter(
                    "mysql_perf_schema_events_waits",
                    "The total events waits by event name.",
                    l,
                    *v,
                ),
                "wait_ps" => f.counter(
                    "mysql_perf_schema_events_waits_seconds",
                    "The total seconds of events waits by event name.",
                    l,
                    *v / 1e12,
                ),
                _ => {}
            }
        }
    }
    for (name, v) in &s.variables {
        f.gauge(
            &format!("mysql_global_variables_{}", metric_part(name)),
            "Generic gauge metric from SHOW GLOBAL VARIABLES.",
            base.to_string(),
            *v,
        );
    }
    if let Some(values) = s.sources.get("server_proc") {
        server_process(f, values, base);
    }
}

/// INNODB_METRICS rows as mysqld_exporter names them: by subsystem and
/// name, `_total` counters for its counter types, gauges otherwise, the
/// buffer pool's pages by state.
fn innodb_metrics(
    f: &mut Families,
    values: &[(String, f64)],
    kinds: &std::collections::BTreeMap<String, (String, bool)>,
    base: &str,
) {
    const HELP: &str = "InnoDB metric from information_schema.innodb_metrics.";
    for (name, v) in values {
        let Some((subsystem, counter)) = kinds.get(name) else {
            continue;
        };
        if let Some(state) = name.strip_prefix("buffer_pool_pages_") {
            match state {
                "total" => {}
                "dirty" => f.gauge(
                    "mysql_info_schema_innodb_metrics_buffer_pool_dirty_pages",
                    "Total number of dirty pages in the buffer pool.",
                    base.to_string(),
                    *v,
                ),
                _ => f.gauge(
                    "mysql_info_schema_innodb_metrics_buffer_pool_pages",
                    "Total number of buffer pool pages by state.",
                    labels(base, &[("state", state)]),
                    *v,
                ),
            }
            continue;
        }
        if subsystem == "buffer_page_io" {
            for (dir, family) in [("read", "read"), ("written", "written")] {
                if let Some(kind) = name.strip_prefix(&format!("buffer_page_{dir}_")) {
                    f.counter(
                        &format!("mysql_info_schema_innodb_metrics_buffer_page_{family}"),
                        "Total number of buffer pages by type.",
                        labels(base, &[("type", kind)]),
                        *v,
                    );
                }
            }
            continue;
        }
        let family = format!(
            "mysql_info_schema_innodb_metrics_{}_{}",
            metric_part(subsystem),
            metric_part(name)
        );
        if *counter && *v >= 0.0 {
            f.counter(&family, HELP, base.to_string(), *v);
        } else {
            f.gauge(&family, HELP, base.to_string(), *v);
        }
    }
}

/// The server's process from /proc: CPU by mode, resident memory,
/// threads, bytes read and written.
fn server_process(f: &mut Families, values: &[(String, f64)], base: &str) {
    for (key, v) in values {
        match key.as_str() {
            "utime_s" | "stime_s" => f.counter(
                "qpslab_server_process_cpu_seconds",
                "CPU seconds of the server's process, by mode (/proc).",
                labels(
                    base,
                    &[("mode", if key == "utime_s" { "user" } else { "system" })],
                ),
                *v,
            ),
            "rss_bytes" => f.gauge(
                "qpslab_server_process_resident_memory_bytes",
                "Resident memory of the server's process (/proc).",
                base.to_string(),
                *v,
            ),
            "threads" => f.gauge(
                "qpslab_server_process_threads",
                "Threads of the server's process (/proc).",
                base.to_string(),
                *v,
            ),
            "io.read_bytes" | "io.write_bytes" => f.counter(
                "qpslab_server_process_io_bytes",
                "Bytes the server's process read from and wrote to storage (/proc).",
                labels(
                    base,
                    &[(
                        "direction",
                        if key == "io.read_bytes" {
                            "read"
                        } else {
                            "write"
                        },
                    )],
                ),
                *v,
            ),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_s_sources_take_mysqld_exporter_s_names() {
        let mut s = LiveState {
            monitor_labels: vec![("server".into(), "MariaDB 11.4.5".into())],
            ..LiveState::default()
        };
        s.innodb_metric_kinds
            .insert("buffer_pool_reads".into(), ("buffer".into(), true));
        s.innodb_metric_kinds
            .insert("buffer_pool_pages_dirty".into(), ("buffer".into(), false));
        s.innodb_metric_kinds.insert(
            "buffer_page_read_index_leaf".into(),
            ("buffer_page_io".into(), true),
        );
        s.sources.insert(
            "innodb_metrics".into(),
            vec![
                ("buffer_pool_reads".into(), 5.0),
                ("buffer_pool_pages_dirty".into(), 7.0),
                ("buffer_page_read_index_leaf".into(), 9.0),
            ],
        );
        s.sources.insert(
            "ps_waits".into(),
            vec![
                ("wait/io/file/innodb/innodb_data_file.count".into(), 3.0),
                ("wait/io/file/innodb/innodb_data_file.wait_ps".into(), 2e12),
            ],
        );
        s.variables = vec![("max_connections".into(), 151.0)];
        let page = render(&s, Format::Text);
        let l = "server=\"MariaDB 11.4.5\"";
        for line in [
            format!("mysql_info_schema_innodb_metrics_buffer_buffer_pool_reads_total{{{l}}} 5"),
            format!("mysql_info_schema_innodb_metrics_buffer_pool_dirty_pages{{{l}}} 7"),
            format!("mysql_info_schema_innodb_metrics_buffer_page_read_total{{{l},type=\"index_leaf\"}} 9"),
            format!("mysql_perf_schema_events_waits_total{{{l},event_name=\"wait/io/file/innodb/innodb_data_file\"}} 3"),
            format!("mysql_perf_schema_events_waits_seconds_total{{{l},event_name=\"wait/io/file/innodb/innodb_data_file\"}} 2"),
            format!("mysql_global_variables_max_connections{{{l}}} 151"),
        ] {
            assert!(page.contains(&format!("{line}\n")), "{line} not in:\n{page}");
        }
        assert!(page.contains(
            "# TYPE mysql_info_schema_innodb_metrics_buffer_buffer_pool_reads_total counter"
        ));
        let om = render(&s, Format::OpenMetrics);
        assert!(om.contains("# TYPE mysql_perf_schema_events_waits counter"));
        assert!(om.ends_with("# EOF\n"));
    }
}
