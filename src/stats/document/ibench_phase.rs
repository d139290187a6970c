//! The insert benchmark's phase block of a run's document: what one
//! phase (l.i0, l.x, l.i1, qr100 …) did, in the figures the benchmark is
//! read for. Owns the types only; analyze computes them, lab fills in
//! what is read from the server after the phase (size, RSS).

use serde::{Deserialize, Serialize};

/// One phase's figures (the document's "ibench_phase"; absent for other
/// runs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct IbenchPhase {
    /// The phase as the benchmark names it ("qr100").
    pub phase: String,
    /// Its position in the sequence, from 1.
    pub order: u32,
    /// Measured seconds (l.x: the index build's time).
    pub seconds: f64,
    /// Rows inserted, and per second.
    pub rows_inserted: u64,
    /// (see rows_inserted)
    pub inserts_per_s: f64,
    /// Rows the deletes asked to remove, and per second.
    pub rows_deleted: u64,
    /// (see rows_deleted)
    pub deletes_per_s: f64,
    /// Queries run, and per second.
    pub queries: u64,
    /// (see queries)
    pub queries_per_s: f64,
    /// What the per-operation costs are per: "row" (an inserted row),
    /// "query", or "build" (l.x's one index build).
    pub per: String,
    /// Server process CPU µs per operation.
    pub server_cpu_us: Option<f64>,
    /// qpslab's load threads' CPU µs per operation (the benchmark's
    /// ccpupq).
    pub load_cpu_us: Option<f64>,
    /// Host-wide context switches per operation.
    pub context_switches: Option<f64>,
    /// KB the server read from / wrote to storage per operation.
    pub read_kb: Option<f64>,
    /// (see read_kb)
    pub write_kb: Option<f64>,
    /// The longest time without progress, in seconds: the longest run of
    /// intervals that completed nothing, or the slowest operation,
    /// whichever is longer.
    pub max_stall_s: f64,
    /// The table's size on disk at the phase's end, MB.
    pub db_size_mb: Option<f64>,
    /// The server's resident memory at the phase's end, MB.
    pub server_rss_mb: Option<f64>,
    /// Query phases: the insert rate asked of all inserters together
    /// (rows/s).
    pub target_inserts_per_s: Option<f64>,
    /// Query phases: the share of intervals (percent) whose insert rate
    /// reached 95% of the target.
    pub intervals_at_target_pct: Option<f64>,
    /// Query phases: whether the target insert rate was sustained (at
    /// least 95% of it in at least 95% of the intervals).
    pub sustained: Option<bool>,
    /// Paced phases: the p99 of how late inserters woke for their
    /// schedule, ms (the generator's own lag, apart from the server's).
    pub schedule_lag_p99_ms: Option<f64>,
    /// Each interval's inserted rows per second, in order.
    pub interval_inserts_per_s: Vec<f64>,
    /// Each interval's queries per second, in order.
    pub interval_queries_per_s: Vec<f64>,
}
