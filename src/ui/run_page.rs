//! A run's page: its figures, per-second throughput and latency, and every
//! metric group the monitor collected, grouped the way MySQL performance
//! engineers read them (dim_STAT / PMM style).

use super::page::{esc, link, num, page, Mode};
use super::series::{thin, RunMetrics};
use crate::analyze::efficiency::{CpuSplit, READ_AHEAD};
use crate::analyze::run_figures::{MonitorFigures, PerInterval};
use crate::report::chart::Chart;
use crate::store::{RunDetail, Store};
use anyhow::Result;
use serde_json::Value;
use std::fmt::Write;

const MB: f64 = 1.0 / 1048576.0;

fn chart(title: &str, y: &str, series: Vec<(&str, Vec<(f64, f64)>)>) -> Chart {
    let mut c = Chart::timeline(title, y);
    for (name, pts) in series {
        c.add(name, pts);
    }
    c
}

/// Throughput, latency and errors from the run's own samples.
fn load_charts(d: &RunDetail) -> Vec<Chart> {
    let s = &d.samples;
    let per = |f: &dyn Fn(&crate::store::SampleRow) -> i64| -> Vec<(f64, f64)> {
        thin(
            s.iter()
                .filter_map(|x| Some((x.t, x.per_s(f(x))?)))
                .collect(),
        )
    };
    let lat = |f: &dyn Fn(&crate::store::SampleRow) -> Option<f64>| -> Vec<(f64, f64)> {
        thin(s.iter().filter_map(|x| Some((x.t, f(x)?))).collect())
    };
    let errors = |x: &crate::store::SampleRow| {
        x.errors
            .as_object()
            .map(|m| m.values().filter_map(Value::as_i64).sum())
            .unwrap_or(0)
    };
    vec![
        chart(
            "Throughput",
            "events or queries per second",
            vec![
                ("qps", per(&|x| x.queries())),
                ("tps", per(&|x| x.events)),
                ("reads/s", per(&|x| x.reads)),
                ("writes/s", per(&|x| x.writes)),
                ("other/s", per(&|x| x.others)),
            ],
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

/// The monitor's groups; empty when the run had no monitor.
fn monitor_charts(m: &RunMetrics, per_interval: &[PerInterval]) -> Vec<(&'static str, Vec<Chart>)> {
    let st = "status";
    let rates = |names: &[&str]| -> Vec<(String, Vec<(f64, f64)>)> {
        names
            .iter()
            .map(|n| (n.to_string(), m.rate(st, n, 1.0)))
            .filter(|(_, p)| p.iter().any(|x| x.1 > 0.0))
            .collect()
    };
    let named = |title: &str, y: &str, v: Vec<(String, Vec<(f64, f64)>)>| {
        let mut c = Chart::timeline(title, y);
        for (n, p) in v {
            c.add(&n, p);
        }
        c
    };
    let mut groups: Vec<(&'static str, Vec<Chart>)> = Vec::new();
    if m.has(st) {
        let com = rates(&[
            "Questions",
            "Com_select",
            "Com_insert",
            "Com_update",
            "Com_delete",
            "Com_commit",
            "Com_rollback",
            "Com_begin",
        ]);
        let handlers = rates(&[
            "Handler_read_key",
            "Handler_read_next",
            "Handler_read_rnd_next",
            "Handler_read_first",
            "Handler_write",
            "Handler_update",
            "Handler_delete",
            "Handler_commit",
        ]);
        let threads = vec![
            (
                "Threads_running".to_string(),
                m.gauge(st, "Threads_running", 1.0),
            ),
            (
                "Threads_connected".to_string(),
                m.gauge(st, "Threads_connected", 1.0),
            ),
        ];
        groups.push((
            "MySQL",
            vec![
                named("Commands", "statements per second", com),
                named("Handlers", "handler calls per second", handlers),
                named("Threads", "threads", threads),
            ],
        ));
        let mut innodb = Vec::new();
        let rows = rates(&[
            "Innodb_rows_read",
            "Innodb_rows_inserted",
            "Innodb_rows_updated",
            "Innodb_rows_deleted",
        ]);
        if !rows.is_empty() {
            innodb.push(named("InnoDB rows", "rows per second", rows));
        }
        innodb.push(named(
            "Buffer pool pages",
            "pages",
            [
                "Innodb_buffer_pool_pages_data",
                "Innodb_buffer_pool_pages_dirty",
                "Innodb_buffer_pool_pages_free",
            ]
            .iter()
            .map(|n| {
                (
                    n.trim_start_matches("Innodb_buffer_pool_").to_string(),
                    m.gauge(st, n, 1.0),
                )
            })
            .collect(),
        ));
        innodb.push(named(
            "Buffer pool activity",
            "pages or requests per second",
            rates(&[
                "Innodb_buffer_pool_read_requests",
                "Innodb_buffer_pool_write_requests",
                "Innodb_buffer_pool_reads",
                "Innodb_buffer_pool_pages_flushed",
            ]),
        ));
        let io = vec![
            (
                "InnoDB r/s".to_string(),
                m.rate(st, "Innodb_data_reads", 1.0),
            ),
            (
                "InnoDB w/s".to_string(),
                m.rate(st, "Innodb_data_writes", 1.0),
            ),
            (
                "data".to_string(),
                m.rate(st, "Innodb_buffer_pool_reads", 1.0),
            ),
            ("pre".to_string(), m.rate_sum(st, &READ_AHEAD, 1.0)),
            ("log".to_string(), m.rate(st, "Innodb_log_writes", 1.0)),
            ("dblbuf".to_string(), m.rate(st, "Innodb_dblwr_writes", 1.0)),
            (
                "dflush".to_string(),
                m.rate(st, "Innodb_buffer_pool_pages_flushed", 1.0),
            ),
            ("fsync/s".to_string(), m.rate(st, "Innodb_data_fsyncs", 1.0)),
        ];
        innodb.push(named("IO classes (inniostat)", "IOs per second", io));
        innodb.push(named(
            "Redo and checkpoint",
            "MB, MB/s",
            vec![
                ("redo MB/s".into(), m.rate(st, "Innodb_os_log_written", MB)),
                (
                    "checkpoint age MB".into(),
                    m.gauge(st, "Innodb_checkpoint_age", MB),
                ),
            ],
        ));
        let hist = if m.names(st).contains(&"Innodb_history_list_length") {
            m.gauge(st, "Innodb_history_list_length", 1.0)
        } else {
            m.gauge("innodb_status", "history_list_length", 1.0)
        };
        innodb.push(named(
            "History list length",
            "undo log units",
            vec![("history".into(), hist)],
        ));
        groups.push(("InnoDB", innodb));
    }
    if m.has("ps_waits") {
        let top = m.top_growth(
            "ps_waits",
            ".wait_ps",
            &crate::analyze::bottleneck::NOT_WAITING,
            8,
        );
        let v = top
            .iter()
            .map(|(n, _)| {
                (
                    n.trim_end_matches(".wait_ps").to_string(),
                    m.rate("ps_waits", n, 1e-9),
                )
            })
            .collect();
        groups.push((
            "Waits",
            vec![named(
                "Top wait events (Performance Schema)",
                "ms waited per second",
                v,
            )],
        ));
    }
    let mut os = Vec::new();
    // The split per interval of the run, or per CPU poll (running runs and
    // monitor sessions).
    let split: Vec<(f64, CpuSplit)> = if !per_interval.is_empty() {
        per_interval
            .iter()
            .filter_map(|p| Some((p.t, p.cpu?)))
            .collect()
    } else if m.has("cpu") {
        m.cpu_split()
    } else {
        Vec::new()
    };
    if !split.is_empty() {
        let share = |f: fn(&CpuSplit) -> f64| -> Vec<(f64, f64)> {
            thin(split.iter().map(|(t, c)| (*t, f(c) * 100.0)).collect())
        };
        os.push(named(
            "CPU split",
            "% of host CPU",
            vec![
                ("server".into(), share(|c| c.server)),
                ("client".into(), share(|c| c.client)),
                ("other".into(), share(|c| c.other)),
                ("idle".into(), share(|c| c.idle)),
                ("iowait".into(), share(|c| c.iowait)),
                ("steal".into(), share(|c| c.steal)),
            ],
        ));
    }
    if m.has("disk") {
        let devs: Vec<String> = m
            .names("disk")
            .iter()
            .filter_map(|n| n.strip_suffix(".reads"))
            .map(str::to_string)
            .collect();
        let mut v = Vec::new();
        for d in devs.iter().take(4) {
            v.push((
                format!("{d} r/s"),
                m.rate("disk", &format!("{d}.reads"), 1.0),
            ));
            v.push((
                format!("{d} w/s"),
                m.rate("disk", &format!("{d}.writes"), 1.0),
            ));
        }
        os.push(named("Disk", "IO per second", v));
    }
    if m.has("net") {
        let ifs: Vec<String> = m
            .names("net")
            .iter()
            .filter_map(|n| n.strip_suffix(".recv_bytes"))
            .map(str::to_string)
            .collect();
        let v = ifs
            .iter()
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
            .filter(|(_, p)| p.iter().any(|x| x.1 > 0.0))
            .collect();
        os.push(named("Network", "MB/s", v));
    }
    if m.has("cpu") {
        os.push(named(
            "Context switches",
            "switches per second",
            vec![
                ("host".into(), m.rate("cpu", "ctxt", 1.0)),
                (
                    "server threads".into(),
                    m.rate("server_tasks", "timeslices", 1.0),
                ),
                ("client".into(), m.rate("client_proc", "csw", 1.0)),
            ],
        ));
    }
    if !os.is_empty() {
        groups.push(("OS", os));
    }
    groups
}

/// A run's main per-second charts (throughput, latency, CPU split), for
/// the runs section of a campaign report.
pub fn run_summary_svgs(store: &Store, id: i64) -> Result<String> {
    let Some(d) = store.run_detail(id)? else {
        return Ok(String::new());
    };
    let mon = MonitorFigures::load(store, id)?.unwrap_or_default();
    let mut o = String::new();
    let mut charts: Vec<Chart> = load_charts(&d).into_iter().take(2).collect();
    let per_interval = &mon.per_interval;
    if !per_interval.is_empty() {
        let metrics = RunMetrics::load(store, id)?;
        if let Some((_, cpu)) = monitor_charts(&metrics, per_interval)
            .into_iter()
            .find(|(g, _)| *g == "OS")
        {
            charts.extend(cpu.into_iter().next());
        }
    }
    align(charts.iter_mut());
    for c in &charts {
        o.push_str(&c.html());
    }
    Ok(o)
}

/// Puts charts on one x range: the union of what they cover.
fn align<'a>(charts: impl IntoIterator<Item = &'a mut Chart>) {
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
}

fn figures_table(m: &MonitorFigures) -> String {
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
    let mut o = String::from("<table><tr><th class=\"l\">efficiency</th><th>value</th></tr>");
    for (label, v, d) in rows {
        let _ = write!(
            o,
            "<tr><td class=\"l\">{label}</td><td>{}</td></tr>",
            num(v, d)
        );
    }
    o.push_str("</table>");
    o
}

pub fn run_page(store: &Store, id: i64, mode: Mode) -> Result<Option<String>> {
    let Some(d) = store.run_detail(id)? else {
        return Ok(None);
    };
    let r = &d.run;
    let mon = MonitorFigures::load(store, id)?.unwrap_or_default();
    let metrics = RunMetrics::load(store, id)?;
    let mut b = String::new();
    let title = if r.workload == "monitor" {
        format!("Run {id}: monitor session")
    } else {
        format!("Run {id}: {} × {} users", r.workload, r.threads)
    };
    let _ = write!(b, "<h1>{}</h1>", esc(&title));
    let _ = write!(
        b,
        "<p class=\"meta\">status <span class=\"status-{}\">{}</span>{} · label {} · variant {} · {} · started {} · {} s{}</p>",
        esc(&r.status),
        esc(&r.status),
        r.reason.as_deref().map(|x| format!(" ({})", esc(x))).unwrap_or_default(),
        esc(r.label.as_deref().unwrap_or("-")),
        esc(r.variant.as_deref().unwrap_or("-")),
        esc(&crate::server::server_label(r.server_flavor.as_deref(), r.server_version.as_deref())),
        esc(&r.started_at),
        num(r.seconds, 1),
        r.campaign_id.map(|c| format!(" · campaign {}", link(mode, &format!("/campaign/{c}"), &c.to_string()))).unwrap_or_default()
    );
    // While it runs, the live line stands in for the totals (not known yet).
    if r.status == "running" && r.workload != "monitor" {
        b.push_str(&super::progress::run_live(store, &d)?);
    } else if r.workload != "monitor" {
        let _ = write!(
            b,
            "<table><tr><th>qps</th><th>tps</th><th>p95 ms</th><th>p99 ms</th><th>load CPU µs/q</th><th>tool overhead CPU-ms/s</th></tr><tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr></table>",
            num(r.qps, 1),
            num(r.tps, 1),
            num(r.lat_p95_ms, 3),
            num(r.lat_p99_ms, 3),
            num(r.load_cpu_s.zip(r.queries).map(|(c, q)| crate::stats::us_per_query(c, q as f64)), 2),
            num(
                r.client_cpu_s
                    .zip(r.load_cpu_s)
                    .zip(r.seconds)
                    .map(|((all, load), secs)| (all - load).max(0.0) * 1e3 / secs.max(1e-9)),
                1
            )
        );
    }
    if let Some(hint) = &mon.bottleneck {
        let _ = write!(
            b,
            "<p>Bottleneck: <span class=\"verdict\">{}</span></p><ul>",
            esc(&hint.verdict)
        );
        for ev in &hint.evidence {
            let _ = write!(b, "<li>{}</li>", esc(ev));
        }
        b.push_str("</ul>");
        b.push_str(&figures_table(&mon));
    }
    // Every panel on one time axis: the run's whole span, warm-up included.
    let mut groups: Vec<(&str, Vec<Chart>)> = Vec::new();
    if r.workload != "monitor" {
        groups.push(("Load", load_charts(&d)));
    }
    groups.extend(monitor_charts(&metrics, &mon.per_interval));
    // A source with nothing to show (e.g. no network traffic over a
    // socket) is left out rather than drawn empty.
    for (_, charts) in groups.iter_mut() {
        charts.retain(|c| !c.is_empty());
    }
    align(groups.iter_mut().flat_map(|(_, c)| c.iter_mut()));
    for (group, charts) in &groups {
        let _ = write!(b, "<h2>{group}</h2><div class=\"charts\">");
        for c in charts {
            b.push_str(&c.html());
        }
        b.push_str("</div>");
    }
    if let Some(types) = d.tpcc["transactions"].as_array() {
        let f = |k: &str| d.tpcc[k].as_f64();
        let _ = write!(
            b,
            "<h2>TPC-C</h2><p>NOPM {} · TPM {} · New-Orders rolled back on purpose {}%</p>",
            num(f("nopm"), 1),
            num(f("tpm"), 1),
            num(f("new_order_rollback_pct"), 2)
        );
        b.push_str("<table><tr><th class=\"l\">transaction</th><th>count</th><th>per min</th><th>avg ms</th><th>p95 ms</th><th>p99 ms</th><th>max ms</th></tr>");
        for t in types {
            let lat = |k: &str| t["latency_ms"][k].as_f64();
            let _ = write!(
                b,
                "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(t["type"].as_str().unwrap_or("")),
                t["count"],
                num(t["per_minute"].as_f64(), 1),
                num(lat("avg"), 3),
                num(lat("p95"), 3),
                num(lat("p99"), 3),
                num(lat("max"), 3)
            );
        }
        b.push_str("</table>");
    }
    b.push_str(&super::profile_section::section(store, &d, mode)?);
    if !d.statements.is_empty() {
        b.push_str("<h2>Statements</h2><table><tr><th class=\"l\">statement</th><th>count</th><th>avg ms</th><th>p95 ms</th><th>p99 ms</th><th>max ms</th></tr>");
        for s in &d.statements {
            let _ = write!(
                b,
                "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&s.statement),
                s.count,
                num(s.lat_avg_ms, 3),
                num(s.lat_p95_ms, 3),
                num(s.lat_p99_ms, 3),
                num(s.lat_max_ms, 3)
            );
        }
        b.push_str("</table>");
    }
    let notes: Vec<_> = mon.shown_notes().collect();
    if !notes.is_empty() {
        b.push_str("<h2>Monitor notes</h2><ul class=\"notes\">");
        for n in notes {
            let _ = write!(
                b,
                "<li>[{:.1} s] {}: {}</li>",
                n.t,
                esc(&n.kind),
                esc(&n.text)
            );
        }
        b.push_str("</ul>");
    }
    b.push_str("<h2>Environment</h2>");
    b.push_str(&super::environment::section(&d, &format!("Run {id}")));
    Ok(Some(page(&title, &b, mode, r.status == "running")))
}
