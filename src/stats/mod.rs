//! stats: what a run measured.
//!
//! Owns latency histograms (HDR, microseconds, 3 significant digits),
//! per-interval counters (events, reads/writes/other, errors by code,
//! reconnects), their merging across shards, CPU accounting of the load
//! generator and the host, and the result types of a run (`RunResult`, `Sample`, statuses, latency
//! per statement class named by the family). It does not time queries
//! itself (exec records into it) and does not print (report formats it).

mod counters;
mod cpu;
mod hist;
mod result;

pub use counters::Interval;
pub use cpu::{cpu_list_text, thread_cpu_seconds, CpuSnapshot};
pub use hist::Hist;
pub use result::{us_per_query, Headline, KindStats, RunResult, RunStatus, Sample, Tally};

/// A percentile's label: 95 → "95", 99.9 → "99.9".
pub fn pct_label(p: f64) -> String {
    let s = format!("{p:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
