//! Stability within a run, from its per-interval throughput: how much the
//! seconds vary (coefficient of variation), whether throughput drifts
//! across the run (a least-squares trend: warm-up not over, purge lag,
//! checkpoint age growing), outlier seconds, and whether the first part of
//! the run differs from the rest (the warm-up was too short). A run that
//! is unstable is flagged, so tables say so instead of averaging it
//! silently.

pub use crate::stats::document::Stability;

/// Above this coefficient of variation of per-second QPS, a run is unstable.
pub(crate) const COV_LIMIT: f64 = 0.10;
/// Above this drift across the run (trend × duration / mean), unstable.
pub(crate) const TREND_LIMIT: f64 = 0.10;
/// The first fifth of the run differing from the rest by more than this
/// means the warm-up was too short.
pub(crate) const WARMUP_GAP: f64 = 0.10;
/// Fewer whole intervals than this say nothing about stability.
pub(crate) const MIN_INTERVALS: usize = 5;

/// The stability of `qps` per interval (measured, whole intervals, in
/// order) over a run of `seconds`; None with too few intervals.
pub(crate) fn of_intervals(qps: &[f64], seconds: f64) -> Option<Stability> {
    let n = qps.len();
    if n < MIN_INTERVALS {
        return None;
    }
    let mean = qps.iter().sum::<f64>() / n as f64;
    if mean <= 0.0 {
        return None;
    }
    let var = qps.iter().map(|q| (q - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let cov = var.sqrt() / mean;
    // Least-squares slope against the interval index.
    let xm = (n - 1) as f64 / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, q) in qps.iter().enumerate() {
        let dx = i as f64 - xm;
        sxy += dx * (q - mean);
        sxx += dx * dx;
    }
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    // The fitted line's change from its first interval to its last, as a
    // share of where it started (a fall is at most −100%); of the mean
    // when the line starts at or below zero.
    let start = mean - slope * xm;
    let change = slope * (n - 1) as f64;
    let trend = if start > 0.0 {
        (change / start).max(-1.0)
    } else {
        change / mean
    };
    let med = super::median(qps);
    let mad = super::median(&qps.iter().map(|q| (q - med).abs()).collect::<Vec<_>>());
    let outliers = if mad > 0.0 {
        qps.iter()
            .filter(|q| 0.6745 * (*q - med).abs() / mad > 3.5)
            .count()
    } else {
        // Most seconds equal: any other one stands out.
        qps.iter().filter(|q| (*q - med).abs() > 0.0).count()
    };
    let head = (n / 5).max(1);
    let first = qps[..head].iter().sum::<f64>() / head as f64;
    let rest = qps[head..].iter().sum::<f64>() / (n - head) as f64;
    let first_part_gap = if rest > 0.0 { first / rest - 1.0 } else { 0.0 };
    let mut why = Vec::new();
    if cov > COV_LIMIT {
        why.push(format!("CoV {:.0}%", cov * 100.0));
    }
    if trend.abs() > TREND_LIMIT {
        why.push(format!("trending {:+.0}%", trend * 100.0));
    }
    let flag = (!why.is_empty()).then(|| format!("unstable: {}", why.join(", ")));
    let advice = (first_part_gap.abs() > WARMUP_GAP).then(|| {
        // At least that first fifth, which the run spent warming up.
        let warm = (seconds / 5.0).ceil().max(1.0);
        format!(
            "the first fifth of the run differs from the rest by {:+.0}%: warm up longer (--warmup-time {warm:.0} or more)",
            first_part_gap * 100.0
        )
    });
    Some(Stability {
        intervals: n,
        cov,
        trend,
        outliers,
        first_part_gap,
        flag,
        advice,
    })
}

/// A run's stability over its measured whole intervals.
pub fn of_run(r: &crate::stats::RunResult) -> Option<Stability> {
    let qps: Vec<f64> = r
        .samples
        .iter()
        .filter(|s| !s.warmup && !s.sliver)
        .map(|s| s.qps())
        .collect();
    of_intervals(&qps, r.elapsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steady_runs_are_not_flagged() {
        let q: Vec<f64> = (0..30)
            .map(|i| 1000.0 + if i % 2 == 0 { 20.0 } else { -20.0 })
            .collect();
        let s = of_intervals(&q, 30.0).unwrap();
        assert!(s.flag.is_none() && s.advice.is_none(), "{s:?}");
        assert!(s.cov < 0.03 && s.trend.abs() < 0.01);
        assert!(of_intervals(&q[..3], 3.0).is_none());
    }

    #[test]
    fn drift_and_noise_are_flagged() {
        // Falling 20% across the run.
        let q: Vec<f64> = (0..20).map(|i| 1000.0 - 10.0 * i as f64).collect();
        let s = of_intervals(&q, 20.0).unwrap();
        assert!(
            s.flag.as_deref().unwrap().contains("trending -19%"),
            "{s:?}"
        );
        // One stall second among steady ones: an outlier, and noisy.
        let mut q = vec![1000.0; 20];
        q[7] = 100.0;
        let s = of_intervals(&q, 20.0).unwrap();
        assert_eq!(s.outliers, 1);
        assert!(s.flag.as_deref().unwrap().contains("CoV"), "{s:?}");
        // A collapse to nothing is a fall of 100% at most.
        let q: Vec<f64> = (0..20)
            .map(|i| (1000.0 - 100.0 * i as f64).max(0.0))
            .collect();
        let s = of_intervals(&q, 20.0).unwrap();
        assert!(s.trend >= -1.0, "{s:?}");
    }

    #[test]
    fn a_cold_start_asks_for_a_longer_warmup() {
        let mut q = vec![1000.0; 25];
        for x in q.iter_mut().take(5) {
            *x = 600.0;
        }
        let s = of_intervals(&q, 25.0).unwrap();
        assert!(
            s.advice
                .as_deref()
                .unwrap()
                .contains("--warmup-time 5 or more"),
            "{s:?}"
        );
    }
}
