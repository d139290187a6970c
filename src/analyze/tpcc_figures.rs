//! The figures of a run whose family sorts its events into classes
//! (TPC-C's transaction types): NOPM and TPM, the on-purpose rollbacks
//! apart from errors, deadlocks and lock-wait timeouts, and the run's
//! TPC-C block of the stored document. Rendered as text by report::tpcc_text.

use crate::stats::document::{LatencyMs, TpccBlock, TpccTransaction};
use crate::stats::{Interval, RunResult};
use crate::workload::tpcc::{NEW_ORDER, ROLLED_BACK};

/// New orders per minute over `secs` seconds of `iv` (class 0 is TPC-C's
/// New-Order).
pub fn nopm(iv: &Interval, secs: f64) -> f64 {
    iv.classes[0] as f64 * 60.0 / secs.max(1e-9)
}

/// The run-level TPC-C figures.
pub struct Figures {
    /// New-Order transactions per minute.
    pub nopm: f64,
    /// All transactions per minute (every type, rolled-back included).
    pub tpm: f64,
    /// New-Orders rolled back on purpose (TPC-C's 1%), in % of New-Orders.
    pub rollback_pct: f64,
    /// Deadlocks (error 1213) the run met.
    pub deadlocks: u64,
    /// Lock-wait timeouts (error 1205) the run met.
    pub lock_waits: u64,
}

/// A run's TPC-C figures from its classes and error counts.
pub fn figures(r: &RunResult) -> Figures {
    let minutes = r.elapsed.max(1e-9) / 60.0;
    let count = |n: &str| r.class_count(n).unwrap_or(0) as f64;
    let all: f64 = r.classes.iter().map(|k| k.count as f64).sum();
    let rb = count(ROLLED_BACK);
    let code = |c: u16| {
        r.total
            .errors
            .0
            .iter()
            .find(|e| e.0 == c)
            .map_or(0, |e| e.1)
    };
    Figures {
        nopm: r.class_per_minute(NEW_ORDER).unwrap_or(0.0),
        tpm: all / minutes,
        rollback_pct: 100.0 * rb / (rb + count(NEW_ORDER)).max(1.0),
        deadlocks: code(1213),
        lock_waits: code(1205),
    }
}

/// The run's TPC-C block of its document (None for families without classes).
pub fn document(r: &RunResult, pcts: &[f64]) -> Option<TpccBlock> {
    if !super::class_figures::is_tpcc(r) {
        return None;
    }
    let f = figures(r);
    let minutes = r.elapsed.max(1e-9) / 60.0;
    Some(TpccBlock {
        nopm: f.nopm,
        tpm: f.tpm,
        new_order_rollback_pct: f.rollback_pct,
        deadlocks: f.deadlocks,
        lock_wait_timeouts: f.lock_waits,
        server_tally: r.server_tally.clone(),
        headline: r.headline.clone(),
        transactions: r
            .classes
            .iter()
            .map(|k| TpccTransaction {
                kind: k.name.clone(),
                count: k.count,
                per_minute: k.count as f64 / minutes,
                latency_ms: LatencyMs::of(&k.hist, pcts, false),
            })
            .collect(),
    })
}
