//! Stored monitor snapshots out as CSV or JSON (`qpslab metrics`).

use crate::analyze::counters::MetricView;
use serde_json::{json, Value};

pub fn json(run: i64, source: &str, rate: bool, v: &MetricView) -> Value {
    json!({"run": run, "source": source, "rate": rate, "names": v.names,
        "rows": v.rows.iter().map(|(t, took, vals)| json!({"t": t, "took_us": took, "values": vals})).collect::<Vec<_>>()})
}

pub fn csv(v: &MetricView) -> String {
    let quote = |s: &str| {
        if s.contains(',') || s.contains('"') {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let mut out = String::from("t,took_us");
    for n in &v.names {
        out.push(',');
        out.push_str(&quote(n));
    }
    out.push('\n');
    for (t, took, vals) in &v.rows {
        out.push_str(&format!("{t:.3},{took}"));
        for x in vals {
            out.push(',');
            if let Some(x) = x {
                out.push_str(&format!("{x}"));
            }
        }
        out.push('\n');
    }
    out
}
