//! Stored monitor snapshots out as CSV or JSON (`qpslab metrics`).

use crate::analyze::counters::MetricView;
use serde_json::{json, Value};

/// The snapshots of run `run` as one JSON document; `rate` records that the
/// values are per-second rates between snapshots rather than the counters'
/// values.
pub fn json(run: i64, source: &str, rate: bool, v: &MetricView) -> Value {
    json!({"run": run, "source": source, "rate": rate, "names": v.names,
        "rows": v.rows.iter().map(|(t, took, vals)| json!({"t": t, "took_us": took, "values": vals})).collect::<Vec<_>>()})
}

/// The snapshots as CSV: `t` (s), `took_us` (µs), then one column per counter.
pub fn csv(v: &MetricView) -> String {
    let header = ["t".to_string(), "took_us".to_string()]
        .into_iter()
        .chain(v.names.iter().cloned())
        .collect::<Vec<_>>();
    let rows = v.rows.iter().map(|(t, took, vals)| {
        [format!("{t:.3}"), took.to_string()]
            .into_iter()
            .chain(
                vals.iter()
                    .map(|x| x.map(|x| x.to_string()).unwrap_or_default()),
            )
            .collect::<Vec<_>>()
    });
    super::table::csv_text(std::iter::once(header).chain(rows))
}
