//! DBT3 comparisons: each query's time ratio of one series of runs (the
//! repeats of a variant) against a reference series, with min/median/max
//! over the repeats, and whether the query's plan fingerprint differs
//! between the series. Pure figures from the runs' `dbt3` blocks; owns no
//! store access and no printing.

use crate::stats::document::Dbt3Block;
use std::collections::BTreeSet;

/// One query compared across two series.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct QueryRatio {
    /// "Q1" … "Q22".
    pub query: String,
    /// The reference series' median seconds.
    pub reference_s: f64,
    /// The other series' median seconds.
    pub other_s: f64,
    /// Each other repeat's seconds over the reference median: the least.
    pub ratio_min: f64,
    /// … the median.
    pub ratio_median: f64,
    /// … the greatest.
    pub ratio_max: f64,
    /// The plan fingerprints seen in the reference series.
    pub reference_plans: Vec<String>,
    /// The plan fingerprints seen in the other series.
    pub other_plans: Vec<String>,
    /// The other series ran a plan the reference never did (or the
    /// reverse).
    pub plan_changed: bool,
}

/// A query name's number, for the spec's order (Q2 before Q10).
pub fn query_number(q: &str) -> u32 {
    q.trim_start_matches('Q').parse().unwrap_or(u32::MAX)
}

/// The median of `v` (None for none).
fn median(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| super::spread::median(v))
}

/// Each query both series ran to completion, in the spec's order:
/// `other`'s times against `reference`'s (timed-out or failed runs of a
/// query left out of its figures).
pub fn compare(reference: &[&Dbt3Block], other: &[&Dbt3Block]) -> Vec<QueryRatio> {
    let queries: BTreeSet<&String> = reference.iter().flat_map(|b| b.queries.keys()).collect();
    let mut out: Vec<QueryRatio> = queries
        .into_iter()
        .filter_map(|q| query_ratio(q, reference, other))
        .collect();
    out.sort_by_key(|r| query_number(&r.query));
    out
}

fn query_ratio(q: &str, reference: &[&Dbt3Block], other: &[&Dbt3Block]) -> Option<QueryRatio> {
    let secs = |s: &[&Dbt3Block]| -> Vec<f64> {
        s.iter()
            .filter_map(|b| b.queries.get(q))
            .filter(|f| f.status() == "ok")
            .map(|f| f.seconds.max(0.001))
            .collect()
    };
    let plans = |s: &[&Dbt3Block]| -> BTreeSet<String> {
        s.iter()
            .filter_map(|b| b.queries.get(q))
            .filter_map(|f| f.fingerprint())
            .collect()
    };
    let reference_s = median(&secs(reference))?;
    let mut ratios: Vec<f64> = secs(other).iter().map(|s| s / reference_s).collect();
    ratios.sort_by(f64::total_cmp); // min and max are its ends
    let ratio_median = median(&ratios)?;
    let (rp, op) = (plans(reference), plans(other));
    Some(QueryRatio {
        query: q.to_string(),
        reference_s,
        other_s: median(&secs(other))?,
        ratio_min: ratios[0],
        ratio_median,
        ratio_max: ratios[ratios.len() - 1],
        plan_changed: !rp.is_empty() && !op.is_empty() && rp != op,
        reference_plans: rp.into_iter().collect(),
        other_plans: op.into_iter().collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::document::QueryFigure;

    fn block(q6: f64, fp: &str) -> Dbt3Block {
        let mut b = Dbt3Block::default();
        for (q, s) in [("Q6", q6), ("Q14", 1.0)] {
            let f = QueryFigure {
                seconds: s,
                plan_fingerprint: Some(if q == "Q6" { fp } else { "same" }.into()),
                ..QueryFigure::default()
            };
            b.queries.insert(q.into(), f);
        }
        b
    }

    #[test]
    fn ratios_over_repeats_and_a_changed_plan_is_flagged() {
        let (a1, a2) = (block(1.0, "x"), block(3.0, "x"));
        let (b1, b2, b3) = (block(4.0, "y"), block(2.0, "y"), block(6.0, "y"));
        let r = compare(&[&a1, &a2], &[&b1, &b2, &b3]);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].query, "Q6");
        assert_eq!(
            (r[0].ratio_min, r[0].ratio_median, r[0].ratio_max),
            (1.0, 2.0, 3.0)
        );
        assert!(r[0].plan_changed);
        assert_eq!(r[1].query, "Q14");
        assert!(!r[1].plan_changed);
    }
}
