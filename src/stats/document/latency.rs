//! Latency figures in milliseconds as the stored documents carry them: the
//! percentiles a run was asked for ("p95", "p99.9", …: data, not schema)
//! and the known figures (min, avg, max) as fields. Owns their JSON form
//! (one flat object) only; computing them from a histogram is `of`'s.

use crate::stats::{pct_label, Hist};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A latency summary, ms. In JSON one flat object, `{"p95": …, "min": …,
/// "avg": …, "max": …}`; a null (a NaN when it was written) reads as NaN.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(
    into = "BTreeMap<String, Option<f64>>",
    from = "BTreeMap<String, Option<f64>>"
)]
pub struct LatencyMs {
    /// The chosen percentiles by label ("p95", "p99.9").
    pub percentiles: BTreeMap<String, f64>,
    /// The smallest latency; None where the document has none (TPC-C's
    /// per-transaction blocks).
    pub min: Option<f64>,
    /// The mean.
    pub avg: f64,
    /// The largest latency.
    pub max: f64,
}

impl LatencyMs {
    /// The figures of `h` at percentiles `pcts` (95.0, 99.9), with the
    /// minimum when `with_min`.
    pub fn of(h: &Hist, pcts: &[f64], with_min: bool) -> LatencyMs {
        LatencyMs {
            percentiles: pcts
                .iter()
                .map(|p| (format!("p{}", pct_label(*p)), h.quantile_ms(p / 100.0)))
                .collect(),
            min: with_min.then(|| h.min_ms()),
            avg: h.mean_ms(),
            max: h.max_ms(),
        }
    }

    /// The percentile labelled `label` ("p95"); NaN when not recorded.
    pub fn percentile(&self, label: &str) -> f64 {
        self.percentiles.get(label).copied().unwrap_or(f64::NAN)
    }
}

impl From<LatencyMs> for BTreeMap<String, Option<f64>> {
    fn from(l: LatencyMs) -> Self {
        let mut m: BTreeMap<String, Option<f64>> = l
            .percentiles
            .into_iter()
            .map(|(k, v)| (k, Some(v)))
            .collect();
        if let Some(min) = l.min {
            m.insert("min".into(), Some(min));
        }
        m.insert("avg".into(), Some(l.avg));
        m.insert("max".into(), Some(l.max));
        m
    }
}

impl From<BTreeMap<String, Option<f64>>> for LatencyMs {
    fn from(mut m: BTreeMap<String, Option<f64>>) -> Self {
        let nan = |v: Option<f64>| v.unwrap_or(f64::NAN);
        LatencyMs {
            min: m.remove("min").map(nan),
            avg: m.remove("avg").map_or(f64::NAN, nan),
            max: m.remove("max").map_or(f64::NAN, nan),
            percentiles: m.into_iter().map(|(k, v)| (k, nan(v))).collect(),
        }
    }
}

/// One row of a percentile table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PercentileRow {
    /// The percentile, 0 to 100 (99.9).
    pub percentile: f64,
    /// The latency at it, ms.
    pub ms: f64,
}

/// A histogram's percentile table (p50 … p99.999, as far as its count
/// supports): the whole run's or one statement class's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PercentileTable {
    /// What it measures: "all events" or the class's name.
    pub name: String,
    /// Values recorded.
    pub count: u64,
    /// The smallest value, ms.
    pub min_ms: f64,
    /// The percentiles its count supports, rising.
    pub rows: Vec<PercentileRow>,
    /// The largest value, ms.
    pub max_ms: f64,
}
