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
pub use cpu::CpuSnapshot;
pub use hist::Hist;
pub use result::{us_per_query, KindStats, RunResult, RunStatus, Sample};
