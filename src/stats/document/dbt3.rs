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
    /// [`plan_fingerprint`] of `plan`: its shape's short stable hash.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan_fingerprint: Option<String>,
    /// Its own on-CPU profile, when a power test ran with `--profile
    /// cpu` (one recording a query).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<QueryCpu>,
}

/// A query's on-CPU profile: the server's samples while it ran.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct QueryCpu {
    /// The server's on-CPU samples in its window.
    pub samples: u64,
    /// The name its stacks are kept under with the run (`cpu-Q9`: `qpslab
    /// flamegraph RUN --kind cpu-Q9` draws them).
    pub stacks: String,
    /// The innermost functions' shares of its samples, largest first.
    pub top_self: Vec<super::profile::Share>,
}

impl QueryCpu {
    /// Its three innermost functions with their shares, or "-".
    pub fn top_text(&self) -> String {
        if self.top_self.is_empty() {
            return "-".into();
        }
        self.top_self
            .iter()
            .take(3)
            .map(|s| format!("{} {:.1}%", s.name, s.pct))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl QueryFigure {
    /// The stored fingerprint, or one computed from the stored plan (runs
    /// recorded before fingerprints were); None without a plan.
    pub fn fingerprint(&self) -> Option<String> {
        self.plan_fingerprint
            .clone()
            .or_else(|| self.plan.as_ref().map(plan_fingerprint))
    }

    /// "timed out", "failed" or "ok".
    pub fn status(&self) -> &'static str {
        if self.timed_out {
            "timed out"
        } else if self.error.is_some() {
            "failed"
        } else {
            "ok"
        }
    }
}

/// The leaves of an EXPLAIN FORMAT=JSON plan that make its shape: access
/// types, tables, the keys used. Every other leaf (the possible keys,
/// rows, costs, filtered, the conditions with their constants, ANALYZE's
/// r_ figures) is left out; the nesting (join order, subqueries, sorts)
/// stays.
const SHAPE_LEAVES: [&str; 4] = ["table_name", "access_type", "key", "used_key_parts"];

/// A short stable hash (12 hex digits, FNV-1a 64) of `plan`'s shape: the
/// same for two plans that differ only in their numbers.
pub fn plan_fingerprint(plan: &serde_json::Value) -> String {
    let shape = shape_of(plan).to_string();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in shape.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:012x}", h >> 16)
}

/// `v` with only its shape's leaves kept (serde_json's maps are sorted,
/// so the text is canonical).
fn shape_of(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, v)| SHAPE_LEAVES.contains(&k.as_str()) || nests(v))
                .map(|(k, v)| {
                    let kept = if SHAPE_LEAVES.contains(&k.as_str()) {
                        v.clone()
                    } else {
                        shape_of(v)
                    };
                    (k.clone(), kept)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().filter(|v| nests(v)).map(shape_of).collect()),
        _ => Value::Null,
    }
}

/// `v` holds objects (a plan's nesting), not only leaves (a list of
/// possible keys is a leaf).
fn nests(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Object(_) => true,
        serde_json::Value::Array(a) => a.iter().any(nests),
        _ => false,
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_plan_s_numbers_do_not_change_its_fingerprint_its_shape_does() {
        let plan = |rows: u64, cost: f64, access: &str| {
            json!({"query_block": {"select_id": 1, "cost": cost, "nested_loop": [
                {"table": {"table_name": "orders", "access_type": access, "rows": rows,
                           "filtered": 100, "possible_keys": [format!("k{rows}")], "attached_condition": format!("o_x < {rows}")}},
                {"table": {"table_name": "lineitem", "access_type": "ref", "key": "PRIMARY",
                           "used_key_parts": ["l_orderkey"], "rows": 4}}]}})
        };
        let a = plan_fingerprint(&plan(10, 1.5, "ALL"));
        assert_eq!(a.len(), 12);
        assert_eq!(a, plan_fingerprint(&plan(99, 7.0, "ALL")));
        assert_ne!(a, plan_fingerprint(&plan(10, 1.5, "range")));
    }
}
