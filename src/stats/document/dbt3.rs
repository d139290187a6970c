//! The DBT3 block of a run's document: each query's elapsed time keyed
//! `Q1`…`Q22` (the power stream's, or each throughput stream's), its
//! EXPLAIN FORMAT=JSON plan and parameters, the refresh functions'
//! times, the geometric mean and a QphH-like composite computed as TPC-H
//! clause 5.4 does, named "not a TPC result". Owns the types only; the
//! DBT3 driver fills them.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The name the composite is reported under, everywhere.
pub const COMPOSITE_NAME: &str = "QphH-like (not a TPC result)";

/// A DBT3 run's figures (the document's "dbt3"; absent for other runs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Dbt3Block {
    /// "power" or "throughput".
    pub test: String,
    /// The scale factor.
    pub scale: f64,
    /// Query streams (1 for the power test).
    pub streams: u32,
    /// The spec's validation parameters were used.
    pub validation: bool,
    /// The power stream's queries (or, in a throughput test, the mean
    /// over the streams), keyed Q1…Q22.
    pub queries: BTreeMap<String, QueryFigure>,
    /// Each throughput stream's queries, keyed Q1…Q22 (empty for power).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stream_queries: Vec<BTreeMap<String, QueryFigure>>,
    /// Seconds of each refresh function run, keyed RF1 and RF2 (summed
    /// over the refresh stream's pairs).
    pub refresh: BTreeMap<String, f64>,
    /// The geometric mean of the timed queries' seconds (refresh
    /// functions excluded); None when a query timed out or failed.
    pub geomean_s: Option<f64>,
    /// Wall-clock seconds of the whole test.
    pub elapsed_s: f64,
    /// TPC-H's Power@Size computed on these times (3600 × SF over the
    /// geometric mean of the 22 queries and 2 refresh functions); None
    /// unless all 22 ran to completion with the refresh functions.
    pub power: Option<f64>,
    /// TPC-H's Throughput@Size on these times (S × 22 × 3600 / Ts × SF);
    /// None for a power test or a partial one.
    pub throughput: Option<f64>,
    /// √(power × throughput) when both exist, else the one that exists:
    /// named by `composite_name`.
    pub composite: Option<f64>,
    /// Always [`COMPOSITE_NAME`].
    pub composite_name: String,
}

/// One query's figures in one stream.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct QueryFigure {
    /// Elapsed seconds (to the kill, for one that timed out).
    pub seconds: f64,
    /// Rows of its answer.
    pub rows: u64,
    /// Killed at `--query-timeout`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    /// The server's error, when it failed otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its substitution parameters.
    pub params: Vec<String>,
    /// EXPLAIN FORMAT=JSON of its answering statement, before it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<serde_json::Value>,
}

/// The geometric mean of `secs` (each floored at 1 ms, so that an
/// instant query does not zero it); None for none.
pub fn geomean(secs: &[f64]) -> Option<f64> {
    if secs.is_empty() {
        return None;
    }
    let logs: f64 = secs.iter().map(|s| s.max(0.001).ln()).sum();
    Some((logs / secs.len() as f64).exp())
}
