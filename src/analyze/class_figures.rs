//! The per-operation figures of a run whose family sorts its events into
//! classes that are not TPC-C's (LinkBench's operations): count, share,
//! rate and latency of each, for the document and the text report.

use crate::stats::document::{LatencyMs, OperationFigures};
use crate::stats::RunResult;

/// Whether the run's classes are TPC-C's transaction types.
pub fn is_tpcc(r: &RunResult) -> bool {
    r.classes
        .first()
        .is_some_and(|k| k.name == crate::workload::tpcc::NEW_ORDER)
}

/// Each operation's figures (None for families without classes, and for
/// TPC-C, whose block says more).
pub fn operations(r: &RunResult, pcts: &[f64]) -> Option<Vec<OperationFigures>> {
    if r.classes.is_empty() || is_tpcc(r) {
        return None;
    }
    let all: u64 = r.classes.iter().map(|k| k.count).sum();
    let secs = r.elapsed.max(1e-9);
    Some(
        r.classes
            .iter()
            .map(|k| OperationFigures {
                op: k.name.clone(),
                count: k.count,
                share_pct: 100.0 * k.count as f64 / (all.max(1)) as f64,
                per_s: k.count as f64 / secs,
                latency_ms: LatencyMs::of(&k.hist, pcts, false),
            })
            .collect(),
    )
}
