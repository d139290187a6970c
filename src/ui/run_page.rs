//! A run's page: its figures, per-second throughput and latency, and every
//! metric group the monitor collected, grouped the way MySQL performance
//! engineers read them (dim_STAT / PMM style). The monitor's charts are a
//! table of specs (`MONITOR_CHARTS`): what each chart draws is data, read
//! by one function.

use super::page::{link, num, page, Mode};
use super::series::{thin, RunMetrics};
use crate::analyze::efficiency::{CpuSplit, READ_AHEAD};
use crate::analyze::run_figures::{MonitorFigures, PerInterval};
use crate::report::chart::Chart;
use crate::stats::document::{OperationFigures, TpccBlock};
use crate::store::{RunDetail, RunRow, SampleRow, Store};
use anyhow::Result;
use maud::{html, Markup};
use serde_json::Value;

const MB: f64 = 1.0 / 1048576.0;

type Points = Vec<(f64, f64)>;

/// Named lines of a chart.
type Lines = Vec<(String, Points)>;

/// A chart's lines found in a run's metrics and intervals.
type FindLines = fn(&RunMetrics, &[PerInterval]) -> Lines;

fn chart(title: &str, y: &str, series: Vec<(&str, Points)>) -> Chart {
    let mut c = Chart::timeline(title, y);
    for (name, pts) in series {
        c.add(name, pts);
    }
    c
}

/// Throughput, latency and errors from the run's own samples.
fn load_charts(s: &[SampleRow]) -> Vec<Chart> {
    let per = |f: &dyn Fn(&SampleRow) -> i64| -> Points {
        thin(
            s.iter()
                .filter_map(|x| Some((x.t, x.per_s(f(x))?)))
                .collect(),
        )
    };
    let lat = |f: &dyn Fn(&SampleRow) -> Option<f64>| -> Points {
        thin(s.iter().filter_map(|x| Some((x.t, f(x)?))).collect())
    };
    let errors = |x: &SampleRow| {
        x.errors
            .as_object()
            .map(|m| m.values().filter_map(Value::as_i64).sum())
            .unwrap_or(0)
    };
    vec![
        chart(
            "Throughput",
            "queries per second",
            vec![
                ("qps", per(&|x| x.queries())),
                ("reads/s", per(&|x| x.reads)),
                ("writes/s", per(&|x| x.writes)),
                ("other/s", per(&|x| x.others)),
            ],
        ),
        // Transactions apart: on the queries' axis a transaction of 18
        // statements is a flat line at the bottom.
        chart(
            "Transactions",
            "events (transactions) per second",
            vec![("tps", per(&|x| x.events))],
        ),
        chart(
            "Latency",
            "ms",
            vec![
                ("p50", lat(&|x| x.lat_p50_ms)),
                ("p95", lat(&|x| x.lat_p95_ms)),
                ("p99", lat(&|x| x.lat_p99_ms)),
                ("max", lat(&|x| x.lat_max_ms)),
            ],
        ),
        chart(
            "Errors and reconnects",
            "errors, reconnects per second",
            vec![
                ("errors/s", per(&errors)),
                ("reconnects/s", per(&|x| x.reconnects)),
            ],
        ),
    ]
}

/// How a line of a monitor chart reads the run's metrics.
#[derive(Clone, Copy)]
enum Read {
    /// A counter's rate per second.
    Rate,
    /// A gauge's value.
    Gauge,
    /// The summed rate of these counters (the line's key is unused).
    RateSum(&'static [&'static str]),
    /// A gauge, from the status variable if the server has it, else from
    /// this (source, key).
    GaugeOr(&'static str, &'static str),
}

/// One line of a monitor chart: its name on the legend, where it comes
/// from (source and key in the run's metrics), how it is read and scaled.
struct Line {
    name: &'static str,
    source: &'static str,
    key: &'static str,
    read: Read,
    scale: f64,
}

/// A status counter's rate, named as the counter.
const fn status_rate(key: &'static str) -> Line {
    named_rate(key, "status", key, 1.0)
}

const fn named_rate(
    name: &'static str,
    source: &'static str,
    key: &'static str,
    scale: f64,
) -> Line {
    Line {
        name,
        source,
        key,
        read: Read::Rate,
        scale,
    }
}

const fn gauge(name: &'static str, key: &'static str, scale: f64) -> Line {
    Line {
        name,
        source: "status",
        key,
        read: Read::Gauge,
        scale,
    }
}

/// What a monitor chart draws.
enum Draw {
    /// These lines; with `nonzero`, a line that is zero throughout is left
    /// out.
    Lines {
        lines: &'static [Line],
        nonzero: bool,
    },
    /// Lines found in the data (devices, interfaces, top waits, the CPU
    /// split of the run's intervals).
    Found(FindLines),
}

/// One monitor chart: its group on the page, title, y axis, the metric
/// source the run must have for it (None: the drawing decides), and what
/// it draws.
struct ChartSpec {
    group: &'static str,
    title: &'static str,
    y: &'static str,
    needs: Option<&'static str>,
    draw: Draw,
}

/// Every monitor chart, in page order; consecutive charts of one group go
/// under its heading.
const MONITOR_CHARTS: &[ChartSpec] = &[
    ChartSpec {
        group: "MySQL",
        title: "Commands",
        y: "statements per second",
        needs: Some("status"),
        draw: Draw::Lines {
            nonzero: true,
            lines: &[
                status_rate("Questions"),
                status_rate("Com_select"),
                status_rate("Com_insert"),
                status_rate("Com_update"),
                status_rate("Com_delete"),
                status_rate("Com_commit"),
                status_rate("Com_rollback"),
                status_rate("Com_begin"),
            ],
        },
    },
    ChartSpec {
        group: "MySQL",
        title: "Handlers",
        y: "handler calls per second",
        needs: Some("status"),
        draw: Draw::Lines {
            nonzero: true,
            lines: &[
                status_rate("Handler_read_key"),
                status_rate("Handler_read_next"),
                status_rate("Handler_read_rnd_next"),
                status_rate("Handler_read_first"),
                status_rate("Handler_write"),
                status_rate("Handler_update"),
                status_rate("Handler_delete"),
                status_rate("Handler_commit"),
            ],
        },
    },
    ChartSpec {
        group: "MySQL",
        title: "Threads",
        y: "threads",
        needs: Some("status"),
        draw: Draw::Lines {
            nonzero: false,
            lines: &[
                gauge("Threads_running", "Threads_running", 1.0),
                gauge("Threads_connected", "Threads_connected", 1.0),
            ],
        },
    },
    ChartSpec {
        group: "InnoDB",
        title: "InnoDB rows",
        y: "rows per second",
        needs: Some("status"),
        draw: Draw::Lines {
            nonzero: true,
            lines: &[
                status_rate("Innodb_rows_read"),
                status_rate("Innodb_rows_inserted"),
                status_rate("Innodb_rows_updated"),
                status_rate("Innodb_rows_deleted"),
            ],
        },
    },
    ChartSpec {
        group: "InnoDB",
        title: "Buffer pool pages",
        y: "pages",
        needs: Some("status"),
        draw: Draw::Lines {
            nonzero: false,
            lines: &[
                gauge("pages_data", "Innodb_buffer_pool_pages_data", 1.0),
                gauge("pages_dirty", "Innodb_buffer_pool_pages_dirty", 1.0),
                gauge("pages_free", "Innodb_buffer_pool_pages_free", 1.0),
            ],
        },
    },
    ChartSpec {
        group: "InnoDB",
        title: "Buffer pool activity",
        y: "pages or requests per second",
        needs: Some("status"),
        draw: Draw::Lines {
            nonzero: true,
            lines: &[
                status_rate("Innodb_buffer_pool_read_requests"),
                status_rate("Innodb_buffer_pool_write_requests"),
                status_rate("Innodb_buffer_pool_reads"),
                status_rate("Innodb_buffer_pool_pages_flushed"),
            ],
        },
    },
    ChartSpec {
        group: "InnoDB",
        title: "IO classes (inniostat)",
        y: "IOs per second",
        needs: Some("status"),
        draw: Draw::Lines {
            nonzero: false,
            lines: &[
                named_rate("InnoDB r/s", "status", "Innodb_data_reads", 1.0),
                named_rate("InnoDB w/s", "status", "Innodb_data_writes", 1.0),
                named_rate("data", "status", "Innodb_buffer_pool_reads", 1.0),
                Line {
                    name: "pre",
                    source: "status",
                    key: "",
                    read: Read::RateSum(&READ_AHEAD),
                    scale: 1.0,
                },
                named_rate("log", "status", "Innodb_log_writes", 1.0),
                named_rate("dblbuf", "status", "Innodb_dblwr_writes", 1.0),
                named_rate("dflush", "status", "Innodb_buffer_pool_pages_flushed", 1.0),
                named_rate("fsync/s", "status", "Innodb_data_fsyncs", 1.0),
            ],
        },
    },
    ChartSpec {
        group: "InnoDB",
        title: "Redo and checkpoint",
        y: "MB, MB/s",
        needs: Some("status"),
        draw: Draw::Lines {
            nonzero: false,
            lines: &[
                named_rate("redo MB/s", "status", "Innodb_os_log_written", MB),
                gauge("checkpoint age MB", "Innodb_checkpoint_age", MB),
            ],
        },
    },
    ChartSpec {
        group: "InnoDB",
        title: "History list length",
        y: "undo log units",
        needs: Some("status"),
        draw: Draw::Lines {
            nonzero: false,
            lines: &[Line {
                name: "history",
                source: "status",
                key: "Innodb_history_list_length",
                read: Read::GaugeOr("innodb_status", "history_list_length"),
                scale: 1.0,
            }],
        },
    },
    ChartSpec {
        group: "Waits",
        title: "Top wait events (Performance Schema)",
        y: "ms waited per second",
        needs: Some("ps_waits"),
        draw: Draw::Found(top_waits),
    },
    ChartSpec {
        group: "OS",
        title: "CPU split",
        y: "% of host CPU",
        needs: None,
        draw: Draw::Found(cpu_split),
    },
    ChartSpec {
        group: "OS",
        title: "Disk",
        y: "IO per second",
        needs: Some("disk"),
        draw: Draw::Found(disks),
    },
    ChartSpec {
        group: "OS",
        title: "Network",
        y: "MB/s",
        needs: Some("net"),
        draw: Draw::Found(network),
    },
    ChartSpec {
        group: "OS",
        title: "Context switches",
        y: "switches per second",
        needs: Some("cpu"),
        draw: Draw::Lines {
            nonzero: false,
            lines: &[
                named_rate("host", "cpu", "ctxt", 1.0),
                named_rate("server threads", "server_tasks", "timeslices", 1.0),
                named_rate("client", "client_proc", "csw", 1.0),
            ],
        },
    },
];

/// The points of one spec'd line.
fn line_points(m: &RunMetrics, l: &Line) -> Points {
    match l.read {
        Read::Rate => m.rate(l.source, l.key, l.scale),
        Read::Gauge => m.gauge(l.source, l.key, l.scale),
        Read::RateSum(keys) => m.rate_sum(l.source, keys, l.scale),
        Read::GaugeOr(source, key) => {
            if m.names(l.source).contains(&l.key) {
                m.gauge(l.source, l.key, l.scale)
            } else {
                m.gauge(source, key, l.scale)
            }
        }
    }
}

fn nonzero(p: &Points) -> bool {
    p.iter().any(|x| x.1 > 0.0)
}

/// The top Performance Schema wait events by growth, ms per second.
fn top_waits(m: &RunMetrics, _: &[PerInterval]) -> Lines {
    let top = m.top_growth(
        "ps_waits",
        ".wait_ps",
        &crate::analyze::bottleneck::NOT_WAITING,
        8,
    );
    top.iter()
        .map(|(n, _)| {
            (
                n.trim_end_matches(".wait_ps").to_string(),
                m.rate("ps_waits", n, 1e-9),
            )
        })
        .collect()
}

/// The CPU split per interval of the run, or per CPU poll (running runs
/// and monitor sessions).
fn cpu_split(m: &RunMetrics, per_interval: &[PerInterval]) -> Lines {
    let split: Vec<(f64, CpuSplit)> = if !per_interval.is_empty() {
        per_interval
            .iter()
            .filter_map(|p| Some((p.t, p.cpu?)))
            .collect()
    } else if m.has("cpu") {
        m.cpu_split()
    } else {
        return Vec::new();
    };
    type Part = fn(&CpuSplit) -> f64;
    let parts: [(&str, Part); 6] = [
        ("server", |c| c.server),
        ("client", |c| c.client),
        ("other", |c| c.other),
        ("idle", |c| c.idle),
        ("iowait", |c| c.iowait),
        ("steal", |c| c.steal),
    ];
    parts
        .iter()
        .map(|(name, f)| {
            let pts = thin(split.iter().map(|(t, c)| (*t, f(c) * 100.0)).collect());
            (name.to_string(), pts)
        })
        .collect()
}

/// Reads and writes per second of the first four disks.
fn disks(m: &RunMetrics, _: &[PerInterval]) -> Lines {
    let devs: Vec<&str> = m
        .names("disk")
        .into_iter()
        .filter_map(|n| n.strip_suffix(".reads"))
        .collect();
    devs.iter()
        .take(4)
        .flat_map(|d| {
            [
                (
                    format!("{d} r/s"),
                    m.rate("disk", &format!("{d}.reads"), 1.0),
                ),
                (
                    format!("{d} w/s"),
                    m.rate("disk", &format!("{d}.writes"), 1.0),
                ),
            ]
        })
        .collect()
}

/// MB/s in and out of each interface that had traffic.
fn network(m: &RunMetrics, _: &[PerInterval]) -> Lines {
    let ifs: Vec<&str> = m
        .names("net")
        .into_iter()
        .filter_map(|n| n.strip_suffix(".recv_bytes"))
        .collect();
    ifs.iter()
        .flat_map(|i| {
            [
                (
                    format!("{i} in"),
                    m.rate("net", &format!("{i}.recv_bytes"), MB),
                ),
                (
                    format!("{i} out"),
                    m.rate("net", &format!("{i}.sent_bytes"), MB),
                ),
            ]
        })
        .filter(|(_, p)| nonzero(p))
        .collect()
}

/// The chart of one spec; None when the run lacks its source.
fn spec_chart(spec: &ChartSpec, m: &RunMetrics, per_interval: &[PerInterval]) -> Option<Chart> {
    if spec.needs.is_some_and(|s| !m.has(s)) {
        return None;
    }
    let lines: Lines = match &spec.draw {
        Draw::Lines { lines, nonzero: nz } => lines
            .iter()
            .map(|l| (l.name.to_string(), line_points(m, l)))
            .filter(|(_, p)| !nz || nonzero(p))
            .collect(),
        Draw::Found(f) => f(m, per_interval),
    };
    let mut c = Chart::timeline(spec.title, spec.y);
    for (n, p) in lines {
        c.add(&n, p);
    }
    Some(c)
}

/// The monitor's groups of charts, in `MONITOR_CHARTS`' order; a chart
/// with nothing to draw is left out, and so is a group left empty.
fn monitor_charts(m: &RunMetrics, per_interval: &[PerInterval]) -> Vec<(&'static str, Vec<Chart>)> {
    let mut groups: Vec<(&'static str, Vec<Chart>)> = Vec::new();
    for spec in MONITOR_CHARTS {
        let Some(c) = spec_chart(spec, m, per_interval).filter(|c| !c.is_empty()) else {
            continue;
        };
        match groups.last_mut() {
            Some((g, charts)) if *g == spec.group => charts.push(c),
            _ => groups.push((spec.group, vec![c])),
        }
    }
    groups
}

/// A run's main per-second charts (throughput, latency, CPU split), for
/// the runs section of a campaign report.
pub(crate) fn run_summary_svgs(store: &Store, id: i64) -> Result<Markup> {
    // the samples alone: the run's row and documents are not needed here
    let samples = store.run_samples(id)?;
    let mon = MonitorFigures::load(store, id)?.unwrap_or_default();
    let mut charts: Vec<Chart> = load_charts(&samples).into_iter().take(2).collect();
    let per_interval = &mon.per_interval;
    if !per_interval.is_empty() {
        // The CPU split is drawn from the per-interval figures alone: the
        // run's snapshots are not decoded (a campaign report of 500
        // points decoded each point's every snapshot for nothing).
        let cpu = MONITOR_CHARTS
            .iter()
            .filter(|s| s.title == "CPU split")
            .filter_map(|s| spec_chart(s, &RunMetrics::default(), per_interval))
            .filter(|c| !c.is_empty());
        charts.extend(cpu);
    }
    align(charts.iter_mut());
    Ok(html! { @for c in &charts { (c.html()) } })
}

/// Puts charts on one x range: the union of what they cover, returned.
fn align<'a>(charts: impl IntoIterator<Item = &'a mut Chart>) -> Option<(f64, f64)> {
    let mut charts: Vec<&mut Chart> = charts.into_iter().collect();
    let (lo, hi) = charts
        .iter()
        .flat_map(|c| c.series.iter().flat_map(|s| s.points.iter().map(|p| p.0)))
        .fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    if lo < hi {
        for c in charts.iter_mut() {
            c.x_range = Some((lo, hi));
        }
    }
    (lo < hi).then_some((lo, hi))
}

fn figures_table(m: &MonitorFigures) -> Markup {
    let e = &m.efficiency;
    let rows = [
        ("server CPU µs/query", e.server_cpu_us_per_query, 2),
        ("qpslab process CPU µs/query", e.client_cpu_us_per_query, 2),
        (
            "context switches/query (host)",
            e.context_switches_per_query,
            2,
        ),
        (
            "context switches/query (server)",
            e.server_context_switches_per_query,
            2,
        ),
        (
            "server wait for CPU µs/query",
            e.server_runq_wait_us_per_query,
            2,
        ),
        ("bytes read/query (server)", e.read_bytes_per_query, 1),
        ("bytes written/query (server)", e.write_bytes_per_query, 1),
        ("redo bytes/transaction", e.redo_bytes_per_transaction, 1),
    ];
    html! {
        table {
            tr { th.l { "efficiency" } th { "value" } }
            @for (label, v, d) in rows { tr { td.l { (label) } td { (num(v, d)) } } }
        }
    }
}

/// The line under a run's title: status, label, variant, server, start,
/// length and campaign.
fn meta_line(r: &RunRow, mode: Mode) -> Markup {
    let server =
        crate::server::server_label(r.server_flavor.as_deref(), r.server_version.as_deref());
    html! {
        p.meta {
            "status " span class={ "status-" (r.status) } { (r.status) }
            @if let Some(x) = &r.reason { " (" (x) ")" }
            " · label " (r.label.as_deref().unwrap_or("-"))
            " · variant " (r.variant.as_deref().unwrap_or("-"))
            " · " (server)
            " · started " (r.started_at)
            " · " (num(r.seconds, 1)) " s"
            @if let Some(c) = r.campaign_id {
                " · campaign " (link(mode, &format!("/campaign/{c}"), &c.to_string()))
            }
        }
    }
}

/// A finished run's totals.
fn totals_table(r: &RunRow) -> Markup {
    let load_us = r
        .load_cpu_s
        .zip(r.queries)
        .map(|(c, q)| crate::stats::us_per_query(c, q as f64));
    let overhead = r
        .client_cpu_s
        .zip(r.load_cpu_s)
        .zip(r.seconds)
        .map(|((all, load), secs)| (all - load).max(0.0) * 1e3 / secs.max(1e-9));
    html! {
        table {
            tr {
                th { "qps" } th { "tps" } th { "p95 ms" } th { "p99 ms" } th { "load CPU µs/q" }
                th { "tool overhead CPU-ms/s" }
            }
            tr {
                td { (num(r.qps, 1)) } td { (num(r.tps, 1)) } td { (num(r.lat_p95_ms, 3)) }
                td { (num(r.lat_p99_ms, 3)) } td { (num(load_us, 2)) } td { (num(overhead, 1)) }
            }
        }
    }
}

/// The bottleneck verdict with its evidence and the efficiency figures.
fn bottleneck(mon: &MonitorFigures) -> Markup {
    let Some(hint) = &mon.bottleneck else {
        return html! {};
    };
    html! {
        p { "Bottleneck: " span.verdict { (hint.verdict) } }
        ul { @for ev in &hint.evidence { li { (ev) } } }
        (figures_table(mon))
    }
}

/// Every panel on one time axis (the run's whole span, warm-up included),
/// under its group's heading; and that axis's range, for the page's
/// other time charts.
fn chart_groups(
    d: &RunDetail,
    metrics: &RunMetrics,
    mon: &MonitorFigures,
) -> (Markup, Option<(f64, f64)>) {
    let mut groups: Vec<(&str, Vec<Chart>)> = Vec::new();
    if d.run.workload != "monitor" {
        groups.push(("Load", load_charts(&d.samples)));
    }
    groups.extend(monitor_charts(metrics, &mon.per_interval));
    // A source with nothing to show (e.g. no network traffic over a
    // socket) is left out rather than drawn empty.
    for (_, charts) in groups.iter_mut() {
        charts.retain(|c| !c.is_empty());
    }
    let range = align(groups.iter_mut().flat_map(|(_, c)| c.iter_mut()));
    let markup = html! {
        @for (group, charts) in &groups {
            h2 { (group) }
            div.charts { @for c in charts { (c.html()) } }
        }
    };
    (markup, range)
}

/// A LinkBench run's operations: count, share, rate, latency; empty for
/// other workloads.
fn operations_section(ops: Option<&Vec<OperationFigures>>) -> Markup {
    let Some(ops) = ops else {
        return html! {};
    };
    html! {
        h2 { "Operations" }
        table {
            tr {
                th.l { "operation" } th { "count" } th { "share %" } th { "ops/s" } th { "p50 ms" }
                th { "p99 ms" } th { "p99.9 ms" } th { "max ms" }
            }
            @for x in ops {
                @let lat = |v: f64| num(Some(v), 3);
                tr {
                    td.l { (x.op) }
                    td { (x.count) }
                    td { (num(Some(x.share_pct), 2)) }
                    td { (num(Some(x.per_s), 1)) }
                    td { (lat(x.latency_ms.percentile("p50"))) } td { (lat(x.latency_ms.percentile("p99"))) }
                    td { (lat(x.latency_ms.percentile("p99.9"))) } td { (lat(x.latency_ms.max)) }
                }
            }
        }
    }
}

/// A TPC-C run's figures and its transaction types; empty for other
/// workloads.
fn tpcc_section(tpcc: Option<&TpccBlock>) -> Markup {
    let Some(t) = tpcc else {
        return html! {};
    };
    html! {
        h2 { "TPC-C" }
        p {
            "NOPM " (num(Some(t.nopm), 1)) " · TPM " (num(Some(t.tpm), 1))
            " · New-Orders rolled back on purpose " (num(Some(t.new_order_rollback_pct), 2)) "%"
        }
        table {
            tr {
                th.l { "transaction" } th { "count" } th { "per min" } th { "avg ms" }
                th { "p95 ms" } th { "p99 ms" } th { "max ms" }
            }
            @for x in &t.transactions {
                @let lat = |v: f64| num(Some(v), 3);
                tr {
                    td.l { (x.kind) }
                    td { (x.count) }
                    td { (num(Some(x.per_minute), 1)) }
                    td { (lat(x.latency_ms.avg)) } td { (lat(x.latency_ms.percentile("p95"))) }
                    td { (lat(x.latency_ms.percentile("p99"))) } td { (lat(x.latency_ms.max)) }
                }
            }
        }
    }
}

/// A host test's figures (`qpslab run cpu` …) in sysbench's units;
/// empty for database runs.
fn host_test_section(h: Option<&crate::stats::document::HostTestBlock>) -> Markup {
    let Some(h) = h else {
        return html! {};
    };
    html! {
        h2 { "Host test: " (h.test) }
        p {
            "A built-in host test (sysbench's " (h.test) "): it measured the host alone, no server. "
            "Events/s " (num(Some(h.events_per_s), 2)) " · latency avg "
            (num(Some(h.latency_avg_ms), 3)) " ms"
        }
        table {
            tr { th.l { "figure" } th { "value" } }
            @for f in &h.figures {
                tr { td.l { (f.name) } td { (num(Some(f.value), 2)) } }
            }
        }
    }
}

/// Latency per statement.
fn statements(d: &RunDetail) -> Markup {
    if d.statements.is_empty() {
        return html! {};
    }
    html! {
        h2 { "Statements" }
        table {
            tr {
                th.l { "statement" } th { "count" } th { "avg ms" } th { "p95 ms" } th { "p99 ms" }
                th { "max ms" }
            }
            @for s in &d.statements {
                tr {
                    td.l { (s.statement) } td { (s.count) } td { (num(s.lat_avg_ms, 3)) }
                    td { (num(s.lat_p95_ms, 3)) } td { (num(s.lat_p99_ms, 3)) }
                    td { (num(s.lat_max_ms, 3)) }
                }
            }
        }
    }
}

/// The monitor's notes shown on the page.
fn notes(mon: &MonitorFigures) -> Markup {
    let notes: Vec<_> = mon.shown_notes().collect();
    if notes.is_empty() {
        return html! {};
    }
    html! {
        h2 { "Monitor notes" }
        ul.notes {
            @for n in notes { li { (format!("[{:.1} s] ", n.t)) (n.kind) ": " (n.text) } }
        }
    }
}

/// The page of run `id`: its figures, charts, environment and profile; None
/// when there is no such run.
pub fn run_page(store: &Store, id: i64, mode: Mode) -> Result<Option<String>> {
    let Some(d) = store.run_detail(id)? else {
        return Ok(None);
    };
    let r = &d.run;
    let mon = MonitorFigures::load(store, id)?.unwrap_or_default();
    let metrics = RunMetrics::load(store, id)?;
    let monitor_only = r.workload == "monitor";
    let title = if monitor_only {
        format!("Run {id}: monitor session")
    } else {
        format!(
            "Run {id}: {} × {}",
            r.workload,
            crate::out::counted(r.threads, "user")
        )
    };
    // While it runs, the live line stands in for the totals (not known yet).
    let figures = if monitor_only {
        html! {}
    } else if r.status == "running" {
        super::run_progress::run_live(store, &d)?
    } else {
        totals_table(r)
    };
    let (charts, time_range) = chart_groups(&d, &metrics, &mon);
    let body = html! {
        h1 { (title) }
        (meta_line(r, mode))
        (super::run_curation::marks(r))
        (figures)
        (bottleneck(&mon))
        (super::run_curation::baseline_section(store, id, mode)?)
        (charts)
        (tpcc_section(d.tpcc.as_ref()))
        (host_test_section(d.host_test.as_ref()))
        (super::dbt3_section::run_section(d.dbt3.as_ref(), (mode == Mode::Ui).then_some(id)))
        (super::phase_section::run_section(d.ibench_phase.as_ref()))
        (operations_section(d.operations.as_ref()))
        (super::profile_section::section(store, &d, mode)?)
        (statements(&d))
        (super::latency_section::section(store, &d, time_range)?)
        (notes(&mon))
        h2 { "Environment" }
        (super::environment_section::section(&d, &format!("Run {id}")))
    };
    Ok(Some(page(&title, body, mode, r.status == "running")))
}
