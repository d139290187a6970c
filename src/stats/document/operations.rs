//! The operations block of a run's document for a family whose events
//! are classes other than TPC-C's (LinkBench's ten operations): each
//! operation's count, share, rate and latency. Owns the types;
//! analyze::class_figures computes them.

use super::latency::LatencyMs;
use serde::{Deserialize, Serialize};

/// One operation's figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OperationFigures {
    /// The operation ("get_links_list").
    pub op: String,
    /// Operations completed.
    pub count: u64,
    /// Its share of all operations, in percent.
    pub share_pct: f64,
    /// Per second over the measured time.
    pub per_s: f64,
    /// Its latency.
    pub latency_ms: LatencyMs,
}
