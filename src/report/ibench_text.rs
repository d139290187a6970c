//! The insert benchmark's phase lines and per-phase tables: what each
//! phase did as the benchmark reports it (rates, costs per operation,
//! max stall, size and RSS, sustained or not), and for a campaign with
//! several series (servers, configurations) each phase's main rate as a
//! ratio to the first series', in the benchmark's phase order. Renders
//! only what it is given.

use super::table::{Format, Table};
use crate::stats::document::IbenchPhase;

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map(|v| format!("{v:.digits$}"))
        .unwrap_or_else(|| "-".into())
}

/// The word for a phase's sustained judgement: "yes", "NO", or "-" where
/// the phase had no target rate.
pub fn sustained_word(p: &IbenchPhase) -> &'static str {
    match p.sustained {
        Some(true) => "yes",
        Some(false) => "NO",
        None => "-",
    }
}

/// One line as a phase ends.
pub fn phase_line(p: &IbenchPhase, run_id: i64) -> String {
    let mut s = format!(
        "phase {} (run {run_id}): {:.1} s, {:.0} inserts/s, {:.0} deletes/s, {:.1} queries/s, max stall {:.2} s",
        p.phase, p.seconds, p.inserts_per_s, p.deletes_per_s, p.queries_per_s, p.max_stall_s
    );
    if let (Some(t), Some(pct)) = (p.target_inserts_per_s, p.intervals_at_target_pct) {
        s.push_str(&format!(
            ", target {t:.0} rows/s held in {pct:.0}% of intervals: sustained {}",
            sustained_word(p)
        ));
    }
    if let Some(l) = p.schedule_lag_p99_ms {
        s.push_str(&format!(", schedule lag p99 {l:.3} ms"));
    }
    s
}

/// The settle step's line.
pub fn settle_line(
    secs: f64,
    history: Option<f64>,
    dirty: Option<f64>,
    last: bool,
    calm: bool,
) -> String {
    let what = match (last, calm) {
        (false, _) => "settling",
        (true, true) => "settled",
        (true, false) => "settle ended at its bound (--settle)",
    };
    format!(
        "{what}: {secs:.0} s, history list {}, dirty pages {}",
        opt(history, 0),
        opt(dirty, 0)
    )
}

/// The per-phase table of one sequence (or a campaign's phases, each row
/// labelled with its series).
pub fn phase_table(rows: &[(String, &IbenchPhase)], f: Format) -> String {
    let mut t = Table::new(&[
        "phase",
        "series",
        "secs",
        "ins/s",
        "del/s",
        "q/s",
        "per",
        "srv µs",
        "load µs",
        "cs",
        "rKB",
        "wKB",
        "stall s",
        "size MB",
        "rss MB",
        "sustained",
    ]);
    for (series, p) in rows {
        t.push(vec![
            p.phase.clone(),
            series.clone(),
            format!("{:.1}", p.seconds),
            format!("{:.0}", p.inserts_per_s),
            format!("{:.0}", p.deletes_per_s),
            format!("{:.1}", p.queries_per_s),
            p.per.clone(),
            opt(p.server_cpu_us, 1),
            opt(p.load_cpu_us, 2),
            opt(p.context_switches, 2),
            opt(p.read_kb, 2),
            opt(p.write_kb, 2),
            format!("{:.2}", p.max_stall_s),
            opt(p.db_size_mb, 1),
            opt(p.server_rss_mb, 0),
            sustained_word(p).into(),
        ]);
    }
    t.render(f)
}

/// Each phase's main rate per series as a ratio to the first series'
/// (phases in the order given; a series missing a phase shows "-").
pub fn ratio_table(
    series: &[String],
    phases: &[crate::analyze::phase_figures::PhaseRates],
    f: Format,
) -> String {
    let mut head = vec!["phase"];
    head.extend(series.iter().map(String::as_str));
    let mut t = Table::new(&head);
    for (phase, rates) in phases {
        let base = rates.first().copied().flatten();
        let mut row = vec![phase.clone()];
        for r in rates {
            row.push(match (r, base) {
                (Some(r), Some(b)) if b > 0.0 => format!("{:.2}", r / b),
                _ => "-".into(),
            });
        }
        t.push(row);
    }
    t.render(f)
}
