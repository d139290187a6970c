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
            .chain(vals.iter().map(|x| x.map(figure).unwrap_or_default()))
            .collect::<Vec<_>>()
    });
    super::table::csv_text(std::iter::once(header).chain(rows))
}

/// A value as CSV shows it: a whole number as one, else at most six
/// decimals without trailing zeros (a rate, not 15 digits of noise).
fn figure(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{x:.0}");
    }
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0');
    s.trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn figures_are_short() {
        assert_eq!(super::figure(1234.5666666666666), "1234.566667");
        assert_eq!(super::figure(42.0), "42");
        assert_eq!(super::figure(0.5), "0.5");
        assert_eq!(super::figure(0.0000001), "0");
    }
}
