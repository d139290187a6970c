//! `qpslab runs` and `qpslab show`: stored runs as tables and JSON.

use super::num;
use super::table::{Format, Table};
use crate::stats::document::PercentileTable;
use crate::store::{RunDetail, RunRow};

/// `show --format json`: the run's detail and its latency percentile
/// tables (all events, then each statement).
#[derive(serde::Serialize)]
struct Shown<'a> {
    #[serde(flatten)]
    detail: &'a RunDetail,
    latency_percentiles: &'a [PercentileTable],
}

/// The run list of `qpslab runs`, one line per run.
pub fn runs_table(rows: &[RunRow], f: Format) -> String {
    if f == Format::Json {
        return serde_json::to_string_pretty(rows).unwrap_or_default() + "\n";
    }
    let mut t = Table::new(&[
        "id",
        "started",
        "workload",
        "threads",
        "label",
        "variant",
        "status",
        "tps",
        "qps",
        "p95 ms",
        "p99 ms",
        "load us/q",
        "server",
        "tags",
        "note",
    ]);
    for r in rows {
        let cpu = match (r.load_cpu_s, r.queries) {
            (Some(c), Some(q)) if q > 0 => Some(crate::stats::us_per_query(c, q as f64)),
            _ => None,
        };
        t.push(vec![
            r.id.to_string(),
            r.started_at
                .get(..19)
                .unwrap_or(&r.started_at)
                .replace('T', " "),
            r.workload.clone(),
            r.threads.to_string(),
            r.label.clone().unwrap_or_default(),
            r.variant.clone().unwrap_or_default(),
            status_word(r),
            num(r.tps, 2),
            num(r.qps, 2),
            num(r.lat_p95_ms, 2),
            num(r.lat_p99_ms, 2),
            num(cpu, 2),
            crate::server::server_label(r.server_flavor.as_deref(), r.server_version.as_deref()),
            r.tags.join(","),
            note_cell(r.note.as_deref(), f),
        ]);
    }
    t.render(f)
}

/// A run's status with its excluded mark ("ok, excluded").
pub fn status_word(r: &RunRow) -> String {
    if r.excluded {
        format!("{}, excluded", r.status)
    } else {
        r.status.clone()
    }
}

/// The longest note a terminal table shows (whole in CSV and JSON).
const NOTE_CELL: usize = 40;

/// A note on one line; in a terminal table cut to `NOTE_CELL` characters.
fn note_cell(note: Option<&str>, f: Format) -> String {
    let one_line = note.unwrap_or_default().replace(['\n', '\r', '\t'], " ");
    if f == Format::Csv || one_line.chars().count() <= NOTE_CELL {
        return one_line;
    }
    let cut: String = one_line.chars().take(NOTE_CELL - 1).collect();
    format!("{cut}…")
}

/// One run in full for `qpslab show`: options, figures, environment; JSON is
/// the stored detail as is, with the latency percentile tables.
pub fn show(d: &RunDetail, percentiles: &[PercentileTable], f: Format) -> String {
    if f == Format::Json {
        let shown = Shown {
            detail: d,
            latency_percentiles: percentiles,
        };
        return serde_json::to_string_pretty(&shown).unwrap_or_default() + "\n";
    }
    let r = &d.run;
    let mut o = String::new();
    o.push_str(&format!(
        "run {}  {}  {}  status {}\n",
        r.id,
        r.workload,
        crate::out::counted(r.threads, "thread"),
        r.status
    ));
    if let Some(reason) = &r.reason {
        o.push_str(&format!("  reason:   {reason}\n"));
    }
    if !r.tags.is_empty() || r.excluded {
        let mark = if r.excluded {
            "   excluded from analyses"
        } else {
            ""
        };
        o.push_str(&format!("  tags:     {}{mark}\n", r.tags.join(", ")));
    }
    if let Some(note) = &r.note {
        o.push_str(&format!("  note:     {note}\n"));
    }
    o.push_str(&format!(
        "  started:  {}   ended: {}\n",
        r.started_at,
        d.ended_at.clone().unwrap_or_else(|| "-".into())
    ));
    if r.label.is_some() || r.variant.is_some() {
        o.push_str(&format!(
            "  label:    {}   variant: {}\n",
            r.label.clone().unwrap_or_default(),
            r.variant.clone().unwrap_or_default()
        ));
    }
    if d.host_test.is_some() {
        o.push_str("  server:   none (a host test: it measures the host alone)\n");
    } else {
        o.push_str(&format!(
            "  server:   {} ({})\n",
            crate::server::server_label(r.server_flavor.as_deref(), r.server_version.as_deref()),
            r.server_version.clone().unwrap_or_default()
        ));
    }
    if let Some(sb) = &d.sandbox {
        o.push_str(&format!("  sandbox:  {}\n", super::sandbox_text(sb)));
    }
    o.push_str(&format!("  host:     {}\n", super::host_text(&d.host)));
    o.push_str(&format!(
        "  qpslab:   {} ({})\n  command:  {}\n",
        d.qpslab_version, d.git_hash, d.command_line
    ));
    o.push_str(&format!(
        "  totals:   {} s, tps {}, qps {}, p95 {} ms, p99 {} ms\n\n",
        num(r.seconds, 2),
        num(r.tps, 2),
        num(r.qps, 2),
        num(r.lat_p95_ms, 2),
        num(r.lat_p99_ms, 2)
    ));
    if let Some(t) = &d.tpcc {
        o.push_str(&tpcc_text(t));
    }
    if let Some(h) = &d.host_test {
        o.push_str(&host_test_text(h));
    }
    if let Some(b) = &d.dbt3 {
        o.push_str(&super::dbt3_text::run_text(b));
    }
    if let Some(ops) = &d.operations {
        o.push_str(&operations_text(ops));
    }
    if let Some(p) = &d.ibench_phase {
        o.push_str(&format!(
            "  {}\n\n",
            super::ibench_text::phase_line(p, d.run.id)
        ));
    }
    if let Some(h) = d
        .histogram
        .as_deref()
        .and_then(crate::stats::Hist::from_v2_bytes)
    {
        o.push_str(&format!(
            "  latency:  p50 {:.3}  p95 {:.3}  p99 {:.3}  p99.9 {:.3}  max {:.3} ms ({} events, full histogram)\n\n",
            h.quantile_ms(0.5),
            h.quantile_ms(0.95),
            h.quantile_ms(0.99),
            h.quantile_ms(0.999),
            h.max_ms(),
            h.count()
        ));
    }
    let mut t = Table::new(&[
        "t", "tps", "qps", "reads/s", "writes/s", "other/s", "p95 ms", "p99 ms", "err/s",
        "reconn/s",
    ]);
    for s in &d.samples {
        let per = |v: i64| format!("{:.2}", s.per_s(v).unwrap_or(0.0));
        let errs: i64 = s
            .errors
            .as_object()
            .map(|m| m.values().filter_map(|v| v.as_i64()).sum())
            .unwrap_or(0);
        t.push(vec![
            format!("{:.1}{}", s.t, if s.warmup { " w" } else { "" }),
            per(s.events),
            per(s.queries()),
            per(s.reads),
            per(s.writes),
            per(s.others),
            num(s.lat_p95_ms, 2),
            num(s.lat_p99_ms, 2),
            per(errs),
            per(s.reconnects),
        ]);
    }
    o.push_str(&t.render(f));
    if !d.statements.is_empty() {
        o.push('\n');
        let mut t = Table::new(&["statement", "count", "avg ms", "p95 ms", "p99 ms", "max ms"]);
        for s in &d.statements {
            t.push(vec![
                s.statement.clone(),
                s.count.to_string(),
                num(s.lat_avg_ms, 3),
                num(s.lat_p95_ms, 3),
                num(s.lat_p99_ms, 3),
                num(s.lat_max_ms, 3),
            ]);
        }
        o.push_str(&t.render(f));
    }
    o
}

/// A stored LinkBench run's operations.
fn operations_text(ops: &[crate::stats::document::OperationFigures]) -> String {
    let mut o = String::from("  operations:\n");
    for x in ops {
        o.push_str(&format!(
            "            {:<16} {:>9} ({:>5.2}%, {:.1}/s)  p50 {:.3} ms  p99 {:.3} ms  max {:.3} ms\n",
            x.op,
            x.count,
            x.share_pct,
            x.per_s,
            x.latency_ms.percentile("p50"),
            x.latency_ms.percentile("p99"),
            x.latency_ms.max
        ));
    }
    o.push('\n');
    o
}

/// A host test's figures, in sysbench's units (`qpslab run cpu` …).
fn host_test_text(h: &crate::stats::document::HostTestBlock) -> String {
    let mut o = format!(
        "  {}:{}events/s {:.2}, latency avg {:.3} ms\n",
        h.test,
        " ".repeat(9usize.saturating_sub(h.test.len() + 1)),
        h.events_per_s,
        h.latency_avg_ms
    );
    for f in &h.figures {
        o.push_str(&format!("            {:<19} {:.2}\n", f.name, f.value));
    }
    o.push('\n');
    o
}

/// A stored TPC-C run's figures.
fn tpcc_text(t: &crate::stats::document::TpccBlock) -> String {
    let mut o = format!(
        "  TPC-C:    NOPM {:.1}, TPM {:.1}, New-Orders rolled back on purpose {:.2}%, deadlocks {}, lock-wait timeouts {}\n",
        t.nopm, t.tpm, t.new_order_rollback_pct, t.deadlocks, t.lock_wait_timeouts
    );
    for x in &t.transactions {
        o.push_str(&format!(
            "            {:<19} {:>9} ({:.1}/min)  p95 {:.3} ms  p99 {:.3} ms\n",
            x.kind,
            x.count,
            x.per_minute,
            x.latency_ms.percentile("p95"),
            x.latency_ms.percentile("p99")
        ));
    }
    o.push('\n');
    o
}
