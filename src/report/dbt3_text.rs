//! DBT3's text: a run's per-query table (`qpslab show RUN`) and the
//! per-query comparison of two series (`qpslab compare A B` of two DBT3
//! runs, as text or JSON). Formats only: the figures come from the stored `dbt3` block and
//! analyze::dbt3_compare.

use crate::analyze::dbt3_compare::{query_number, QueryRatio};
use crate::stats::document::Dbt3Block;

/// The block's queries in the spec's order (Q2 before Q10).
pub fn ordered(b: &Dbt3Block) -> Vec<(&String, &crate::stats::document::QueryFigure)> {
    let mut qs: Vec<_> = b.queries.iter().collect();
    qs.sort_by_key(|(q, _)| query_number(q));
    qs
}

/// A run's DBT3 figures: the test, the geometric mean, the composite and
/// one line a query (seconds, status, rows, plan fingerprint), then each
/// query's innermost on-CPU functions when it was profiled.
pub fn run_text(b: &Dbt3Block) -> String {
    let mut o = format!(
        "  DBT3 {} test, scale {}, {} stream(s){}\n",
        b.test,
        b.scale,
        b.streams,
        if b.validation {
            ", validation parameters"
        } else {
            ""
        }
    );
    o.push_str(&format!(
        "  geometric mean: {} s   {}: {}\n\n",
        super::num(b.geomean_s, 4),
        b.composite_name,
        super::num(b.composite, 1)
    ));
    o.push_str(&format!(
        "  {:<6} {:>10} {:<10} {:>8}  {}\n",
        "query", "seconds", "status", "rows", "plan"
    ));
    for (q, f) in ordered(b) {
        o.push_str(&format!(
            "  {:<6} {:>10.4} {:<10} {:>8}  {}\n",
            q,
            f.seconds,
            f.status(),
            f.rows,
            f.fingerprint().unwrap_or_else(|| "-".into())
        ));
    }
    let profiled: Vec<_> = ordered(b)
        .into_iter()
        .filter_map(|(q, f)| Some((q, f.cpu.as_ref()?)))
        .collect();
    if !profiled.is_empty() {
        o.push_str("\n  on-CPU, each query's own window (innermost functions):\n");
        for (q, c) in profiled {
            o.push_str(&format!(
                "  {q:<6} {:>7} samples  {}   (flamegraph --kind {})\n",
                c.samples,
                c.top_text(),
                c.stacks
            ));
        }
    }
    for (rf, s) in &b.refresh {
        o.push_str(&format!("  {rf:<6} {s:>10.4}\n"));
    }
    o.push('\n');
    o
}

/// The per-query comparison of `other` against `reference` (each a series
/// name and its number of runs), a line a query, plan changes flagged.
pub fn comparison_text(
    reference: (&str, usize),
    other: (&str, usize),
    ratios: &[QueryRatio],
) -> String {
    let mut o = format!(
        "DBT3 per-query time ratio, {} ({} run(s)) over {} ({} run(s)): \
         min/median/max over the repeats\n",
        other.0, other.1, reference.0, reference.1
    );
    o.push_str(&format!(
        "  {:<6} {:>10} {:>10} {:>8} {:>8} {:>8}  plan\n",
        "query", "ref s", "other s", "min", "median", "max"
    ));
    for r in ratios {
        let plan = if r.plan_changed {
            format!(
                "PLAN CHANGED ({} -> {})",
                r.reference_plans.join(","),
                r.other_plans.join(",")
            )
        } else {
            "same".to_string()
        };
        o.push_str(&format!(
            "  {:<6} {:>10.4} {:>10.4} {:>8.3} {:>8.3} {:>8.3}  {plan}\n",
            r.query, r.reference_s, r.other_s, r.ratio_min, r.ratio_median, r.ratio_max
        ));
    }
    let changed = ratios.iter().filter(|r| r.plan_changed).count();
    o.push_str(&format!("  plans changed: {changed}\n"));
    o
}

/// The per-query comparison as one JSON document (`compare A B --format
/// json`): the two series (name, runs), each query's ratios and plans,
/// and how many plans changed.
pub fn comparison_json(
    reference: (&str, usize),
    other: (&str, usize),
    ratios: &[QueryRatio],
) -> String {
    serde_json::json!({
        "reference": {"series": reference.0, "runs": reference.1},
        "other": {"series": other.0, "runs": other.1},
        "queries": ratios,
        "plans_changed": ratios.iter().filter(|r| r.plan_changed).count(),
    })
    .to_string()
}
