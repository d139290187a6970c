//! An insert benchmark phase's figures from its run: rates of inserted
//! rows, deleted rows and queries, costs per operation (an inserted row,
//! a query, or l.x's index build) from the monitor's efficiency, the
//! longest stall, and for query phases whether the target insert rate was
//! sustained: at least [`TARGET_SHARE`] of it in at least [`TARGET_SHARE`]
//! of the intervals. Reads nothing: the caller passes the run.

use super::run_figures::MonitorFigures;
use crate::stats::document::IbenchPhase;
use crate::stats::RunResult;

/// The share of the target rate an interval must reach, and the share of
/// intervals that must reach it, for a phase to have sustained its rate
/// (the insert benchmark's 95%).
pub const TARGET_SHARE: f64 = 0.95;

/// What the phase asked for, beside what its run measured.
pub struct PhaseShape<'a> {
    /// The phase's name ("qr100").
    pub name: &'a str,
    /// Its position in the sequence, from 1.
    pub order: u32,
    /// Rows per INSERT.
    pub rows_per_commit: u32,
    /// Each INSERT is followed by a DELETE of as many rows.
    pub deletes: bool,
    /// Query phases: all inserters' rows/s together.
    pub target_rows_per_s: Option<f64>,
    /// l.x: the run is one index build.
    pub index_build: bool,
}

/// The phase's figures (size and RSS are the caller's to fill in).
pub fn phase_figures(
    shape: &PhaseShape,
    r: &RunResult,
    mon: Option<&MonitorFigures>,
) -> IbenchPhase {
    let rows = |events: u64| events * u64::from(shape.rows_per_commit);
    let class = |i: usize| r.classes.get(i).map(|k| k.count).unwrap_or(0);
    let secs = r.elapsed.max(1e-9);
    let (inserts, queries) = if shape.index_build {
        (0, 0)
    } else {
        (class(0), class(1))
    };
    let rows_inserted = rows(inserts);
    let rows_deleted = if shape.deletes { rows_inserted } else { 0 };
    let (ops, per) = if shape.index_build {
        (1.0, "build")
    } else if queries > 0 || shape.target_rows_per_s.is_some() {
        (queries as f64, "query")
    } else {
        (rows_inserted as f64, "row")
    };
    // per query (the monitor's unit) → per operation
    let scale = r.total.queries() as f64 / ops.max(1.0);
    let eff = mon.map(|m| &m.efficiency);
    let per_op = |v: Option<f64>| v.map(|v| v * scale);
    let kb = |v: Option<f64>| v.map(|v| v * scale / 1024.0);
    let measured: Vec<_> = r
        .samples
        .iter()
        .filter(|s| !s.warmup && !s.sliver)
        .collect();
    let rate_of = |events: u64, dur: f64| events as f64 / dur.max(1e-9);
    let interval_inserts: Vec<f64> = measured
        .iter()
        .map(|s| rate_of(rows(s.iv.classes[0]), s.dur))
        .collect();
    let interval_queries: Vec<f64> = measured
        .iter()
        .map(|s| rate_of(s.iv.classes[1], s.dur))
        .collect();
    let at_target = shape
        .target_rows_per_s
        .map(|t| intervals_at_target_pct(&interval_inserts, t));
    IbenchPhase {
        phase: shape.name.to_string(),
        order: shape.order,
        seconds: r.elapsed,
        rows_inserted,
        inserts_per_s: rows_inserted as f64 / secs,
        rows_deleted,
        deletes_per_s: rows_deleted as f64 / secs,
        queries,
        queries_per_s: queries as f64 / secs,
        per: per.to_string(),
        server_cpu_us: per_op(eff.and_then(|e| e.server_cpu_us_per_query)),
        load_cpu_us: (r.total.queries() > 0).then(|| r.load_us_per_query() * scale),
        context_switches: per_op(eff.and_then(|e| e.context_switches_per_query)),
        read_kb: kb(eff.and_then(|e| e.read_bytes_per_query)),
        write_kb: kb(eff.and_then(|e| e.write_bytes_per_query)),
        max_stall_s: max_stall(shape, r, &measured),
        db_size_mb: None,
        server_rss_mb: None,
        target_inserts_per_s: shape.target_rows_per_s,
        intervals_at_target_pct: at_target,
        sustained: at_target.map(|p| sustained(p, measured.len())),
        schedule_lag_p99_ms: r
            .total
            .lag_p99_ms()
            .filter(|_| shape.target_rows_per_s.is_some()),
        interval_inserts_per_s: interval_inserts,
        interval_queries_per_s: interval_queries,
    }
}

/// The share of intervals (percent) whose rate reached [`TARGET_SHARE`]
/// of `target`.
pub fn intervals_at_target_pct(rates: &[f64], target: f64) -> f64 {
    let ok = rates
        .iter()
        .filter(|v| **v >= TARGET_SHARE * target)
        .count();
    100.0 * ok as f64 / rates.len().max(1) as f64
}

/// Whether a phase of `intervals` intervals, `pct` percent of them at
/// target, sustained its rate.
pub fn sustained(pct: f64, intervals: usize) -> bool {
    intervals > 0 && pct >= TARGET_SHARE * 100.0
}

/// The longest time without progress of the inserts: the longest run of
/// intervals that inserted nothing, or the slowest insert, whichever is
/// longer (l.x: its build).
fn max_stall(shape: &PhaseShape, r: &RunResult, measured: &[&crate::stats::Sample]) -> f64 {
    let slowest = if shape.index_build {
        r.total.hist.max_ms() / 1e3
    } else {
        r.classes
            .first()
            .filter(|k| k.count > 0)
            .map(|k| k.hist.max_ms() / 1e3)
            .unwrap_or(0.0)
    };
    let (mut run, mut longest) = (0.0, 0.0f64);
    for s in measured {
        if s.iv.classes[0] == 0 && !shape.index_build {
            run += s.dur;
            longest = longest.max(run);
        } else {
            run = 0.0;
        }
    }
    longest.max(slowest)
}

/// A phase's main rate: rows/s for loads and inserts, queries/s for query
/// phases, builds per hour for l.x (higher is better in every case).
pub fn main_rate(p: &IbenchPhase) -> f64 {
    match p.per.as_str() {
        "build" => 3600.0 / p.seconds.max(1e-9),
        "query" => p.queries_per_s,
        _ => p.inserts_per_s,
    }
}

pub use crate::store::KeptPhase;

/// A phase and its main rate in each series (None: the series has no run
/// of it).
pub type PhaseRates = (String, Vec<Option<f64>>);

/// The series (label/variant) of a campaign's phases in the order first
/// seen, and each phase (in the benchmark's order) with its main rate per
/// series, from the series' latest run of it (None where it has none).
pub fn series_rates(kept: &[KeptPhase]) -> (Vec<String>, Vec<PhaseRates>) {
    let series_of = |l: &Option<String>, v: &Option<String>| match (l, v) {
        (Some(l), Some(v)) => format!("{l}/{v}"),
        (Some(l), None) => l.clone(),
        (None, Some(v)) => format!("/{v}"),
        (None, None) => "(unlabelled)".into(),
    };
    let mut series: Vec<String> = Vec::new();
    let mut phases: Vec<(String, u32)> = Vec::new();
    for (_, l, v, f) in kept {
        let s = series_of(l, v);
        if !series.contains(&s) {
            series.push(s);
        }
        if !phases.iter().any(|(n, _)| n == &f.phase) {
            phases.push((f.phase.clone(), f.order));
        }
    }
    phases.sort_by_key(|(_, order)| *order);
    let table = phases
        .iter()
        .map(|(ph, _)| {
            let rates = series
                .iter()
                .map(|s| {
                    kept.iter()
                        .rev()
                        .find(|(_, l, v, f)| &f.phase == ph && &series_of(l, v) == s)
                        .map(|(_, _, _, f)| main_rate(f))
                })
                .collect();
            (ph.clone(), rates)
        })
        .collect();
    (series, table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_is_sustained_at_95_percent_of_target_in_95_percent_of_intervals() {
        let judge = |rates: &[f64]| {
            let pct = intervals_at_target_pct(rates, 100.0);
            (pct, sustained(pct, rates.len()))
        };
        assert_eq!(judge(&[100.0; 20]), (100.0, true));
        // 95 rows/s is at target; one interval short in 20 is allowed
        let mut r = vec![95.0; 20];
        r[7] = 94.9;
        assert_eq!(judge(&r), (95.0, true));
        // two short in 20, or one in 10, is not
        r[8] = 10.0;
        assert_eq!(judge(&r), (90.0, false));
        let mut r = vec![100.0; 10];
        r[0] = 50.0;
        assert_eq!(judge(&r), (90.0, false));
        // no interval measured: nothing sustained
        assert_eq!(judge(&[]), (0.0, false));
    }
}
