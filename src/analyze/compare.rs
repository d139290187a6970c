//! Comparing two runs from their per-second throughput.
//!
//! Successive seconds of a run are correlated (buffer pool warm-up, flushing
//! waves), so the plain standard error underestimates the noise. The
//! effective sample size is n·(1−ρ₁)/(1+ρ₁) with ρ₁ the lag-1
//! autocorrelation (clamped to [0, 1)), the standard error is s/√n_eff, and
//! the difference of means is tested with Welch's t on those effective
//! sizes. A difference whose 95% interval contains zero is within noise.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Summary of one run's per-interval throughput.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SeriesStats {
    /// Intervals.
    pub n: usize,
    /// Mean per-interval rate.
    pub mean: f64,
    /// Sample standard deviation.
    pub sd: f64,
    /// Lag-1 autocorrelation, clamped to [0, 1).
    pub lag1: f64,
    /// Effective sample size n·(1−ρ₁)/(1+ρ₁).
    pub n_eff: f64,
    /// Standard error of the mean, sd/√n_eff.
    pub se: f64,
}

pub(crate) fn series_stats(x: &[f64]) -> SeriesStats {
    let n = x.len();
    if n == 0 {
        return SeriesStats {
            n,
            mean: f64::NAN,
            sd: f64::NAN,
            lag1: 0.0,
            n_eff: 0.0,
            se: f64::NAN,
        };
    }
    let mean = x.iter().sum::<f64>() / n as f64;
    let ss: f64 = x.iter().map(|v| (v - mean).powi(2)).sum();
    let sd = if n > 1 {
        (ss / (n - 1) as f64).sqrt()
    } else {
        0.0
    };
    let lag1 = if n > 2 && ss > 0.0 {
        (x.windows(2)
            .map(|w| (w[0] - mean) * (w[1] - mean))
            .sum::<f64>()
            / ss)
            .clamp(0.0, 0.99)
    } else {
        0.0
    };
    let n_eff = (n as f64 * (1.0 - lag1) / (1.0 + lag1)).clamp(1.0, n as f64);
    SeriesStats {
        n,
        mean,
        sd,
        lag1,
        n_eff,
        se: sd / n_eff.sqrt(),
    }
}

/// The comparison of B against A.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Comparison {
    /// A's summary.
    pub a: SeriesStats,
    /// B's summary.
    pub b: SeriesStats,
    /// B − A and relative to A.
    pub diff: f64,
    /// B − A as a percentage of A (NaN when A's mean is 0).
    pub diff_pct: f64,
    /// 95% interval of the difference.
    pub ci_low: f64,
    /// Upper end of that interval.
    pub ci_high: f64,
    /// Welch's t statistic.
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value.
    pub p: f64,
    /// Whether p < 0.05 (the interval excludes 0).
    pub significant: bool,
}

/// Compares per-interval rates `b` against `a` (see the module doc).
pub fn compare(a: &[f64], b: &[f64]) -> Comparison {
    let (sa, sb) = (series_stats(a), series_stats(b));
    let diff = sb.mean - sa.mean;
    let var = sa.se.powi(2) + sb.se.powi(2);
    let se = var.sqrt();
    let df = if var > 0.0 {
        var.powi(2)
            / (sa.se.powi(4) / (sa.n_eff - 1.0).max(1.0)
                + sb.se.powi(4) / (sb.n_eff - 1.0).max(1.0))
    } else {
        1.0
    };
    let t = if se > 0.0 {
        diff / se
    } else if diff == 0.0 {
        0.0
    } else {
        f64::INFINITY
    };
    let p = if t.is_finite() {
        2.0 * student_t_upper(t.abs(), df)
    } else {
        0.0
    };
    let q = student_t_quantile_975(df);
    Comparison {
        a: sa,
        b: sb,
        diff,
        diff_pct: if sa.mean != 0.0 {
            diff / sa.mean * 100.0
        } else {
            f64::NAN
        },
        ci_low: diff - q * se,
        ci_high: diff + q * se,
        t,
        df,
        p,
        significant: p < 0.05,
    }
}

/// P(T > t) for Student's t with `df` degrees of freedom (Welch's `df`
/// need not be whole); NaN when `df` is not above 0.
pub(crate) fn student_t_upper(t: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df).map_or(f64::NAN, |d| d.sf(t))
}

/// The 97.5% quantile: the half-width, in standard errors, of a two-sided
/// 95% interval. NaN when `df` is not above 0.
fn student_t_quantile_975(df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df).map_or(f64::NAN, |d| d.inverse_cdf(0.975))
}

/// Per-interval QPS and TPS of a stored run: measured, whole intervals only.
pub(crate) fn interval_rates(d: &crate::store::RunDetail) -> (Vec<f64>, Vec<f64>) {
    let full = d.samples.iter().map(|s| s.dur).fold(0.0, f64::max);
    let whole = d
        .samples
        .iter()
        .filter(|s| !s.warmup && s.dur >= 0.5 * full && s.dur > 0.0);
    whole.filter_map(|s| Some((s.qps()?, s.tps()?))).unzip()
}

/// Two stored runs compared interval by interval: (QPS, TPS) comparisons
/// of their whole measured intervals; Err when either has fewer than two.
pub fn compare_runs(
    a: &crate::store::RunDetail,
    b: &crate::store::RunDetail,
) -> Result<(Comparison, Comparison), String> {
    let (qa, ta) = interval_rates(a);
    let (qb, tb) = interval_rates(b);
    if qa.len() < 2 || qb.len() < 2 {
        return Err(format!(
            "each run needs at least 2 whole measured intervals to compare (run {} has {}, run {} has {})",
            a.run.id,
            qa.len(),
            b.run.id,
            qb.len()
        ));
    }
    Ok((compare(&qa, &qb), compare(&ta, &tb)))
}

/// What differs between two runs beyond what a comparison means to vary
/// (label, variant, server, settings): workload, threads and the run's
/// options (data size, tables, distribution, …; seeds and durations
/// left out). Each item is `what: a vs b`.
pub fn differences(a: &crate::store::RunDetail, b: &crate::store::RunDetail) -> Vec<String> {
    let mut out = Vec::new();
    if a.run.workload != b.run.workload {
        out.push(format!(
            "workload: {} vs {}",
            a.run.workload, b.run.workload
        ));
    }
    if a.run.threads != b.run.threads {
        out.push(format!("threads: {} vs {}", a.run.threads, b.run.threads));
    }
    let mut flat_a = Vec::new();
    let mut flat_b = Vec::new();
    // Every option, compared as a whole (a generic diff of the two documents).
    let value = |o| serde_json::to_value(o).unwrap_or_default();
    flatten("", &value(&a.options), &mut flat_a);
    flatten("", &value(&b.options), &mut flat_b);
    const IGNORED: [&str; 6] = [
        "rand_seed",
        "time",
        "events",
        "report_interval",
        "warmup_time",
        "threads",
    ];
    let keys: std::collections::BTreeSet<&String> =
        flat_a.iter().chain(&flat_b).map(|(k, _)| k).collect();
    for k in keys {
        if IGNORED.contains(&k.rsplit('.').next().unwrap_or(k)) {
            continue;
        }
        let get = |f: &[(String, String)]| f.iter().find(|(x, _)| x == k).map(|(_, v)| v.clone());
        let (va, vb) = (get(&flat_a), get(&flat_b));
        if va != vb {
            out.push(format!(
                "{k}: {} vs {}",
                va.as_deref().unwrap_or("-"),
                vb.as_deref().unwrap_or("-")
            ));
        }
    }
    out
}

/// Whether two runs measured one configuration: nothing differs but
/// their seeds, durations and what changes on its own (the same workload,
/// threads, options, label, variant, server build and settings) — repeats,
/// whose difference is run-to-run noise, not an effect.
pub fn same_configuration(a: &crate::store::RunDetail, b: &crate::store::RunDetail) -> bool {
    let (ra, rb) = (&a.run, &b.run);
    differences(a, b).is_empty()
        && ra.label == rb.label
        && ra.variant == rb.variant
        && ra.server_flavor == rb.server_flavor
        && ra.server_version == rb.server_version
        && variable_diff(&a.server_variables, &b.server_variables).is_empty()
}

/// Global variables that change on their own (GTID positions, clocks,
/// seeds, identifiers): never a difference between configurations.
const VOLATILE: [&str; 6] = [
    "gtid_",
    "timestamp",
    "rand_seed",
    "pseudo_",
    "server_uuid",
    "last_insert_id",
];

/// The server variables whose values differ between two runs' captured
/// SHOW GLOBAL VARIABLES (name, value in a, value in b), by name.
pub fn variable_diff(
    a: &serde_json::Value,
    b: &serde_json::Value,
) -> Vec<(String, String, String)> {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return Vec::new();
    };
    let text = |v: Option<&serde_json::Value>| {
        v.map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .unwrap_or_else(|| "-".into())
    };
    let names: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    names
        .into_iter()
        .filter(|n| !VOLATILE.iter().any(|p| n.starts_with(p)))
        .filter_map(|n| {
            let (x, y) = (text(a.get(n)), text(b.get(n)));
            (x != y).then(|| (n.clone(), x, y))
        })
        .collect()
}

fn flatten(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, x, out);
            }
        }
        other => out.push((prefix.to_string(), other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variable_diffs_leave_volatile_ones_out() {
        let a = serde_json::json!({"innodb_spin_wait_delay": "6", "max_connections": "500", "gtid_current_pos": "0-1-5", "x": "1"});
        let b = serde_json::json!({"innodb_spin_wait_delay": "96", "max_connections": "500", "gtid_current_pos": "0-1-9", "y": "2"});
        let d = variable_diff(&a, &b);
        assert_eq!(
            d,
            vec![
                ("innodb_spin_wait_delay".into(), "6".into(), "96".into()),
                ("x".into(), "1".into(), "-".into()),
                ("y".into(), "-".into(), "2".into())
            ]
        );
    }

    #[test]
    fn t_distribution_matches_tables() {
        // two-sided 5% critical values: df 1 → 12.706, 10 → 2.228, 30 → 2.042
        for (df, q) in [(1.0, 12.706), (10.0, 2.228), (30.0, 2.042)] {
            assert!((student_t_quantile_975(df) - q).abs() < 0.002, "df {df}");
            assert!((2.0 * student_t_upper(q, df) - 0.05).abs() < 1e-3);
        }
    }

    #[test]
    fn stats_by_hand() {
        // mean 3, sd sqrt(2.5); lag-1: sum (x_t - m)(x_t+1 - m) / ss = (2+0+0+2)/10 = 0.4
        let s = series_stats(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(s.mean, 3.0);
        assert!((s.sd - 2.5f64.sqrt()).abs() < 1e-12);
        assert!((s.lag1 - 0.4).abs() < 1e-12);
        assert!((s.n_eff - 5.0 * 0.6 / 1.4).abs() < 1e-12);
        // alternating series: negative autocorrelation is clamped, n_eff = n
        assert_eq!(series_stats(&[1.0, 3.0, 1.0, 3.0]).n_eff, 4.0);
    }

    #[test]
    fn noise_and_real_differences() {
        let a = [
            100.0, 104.0, 98.0, 101.0, 103.0, 97.0, 102.0, 99.0, 100.0, 101.0,
        ];
        let same = [
            101.0, 99.0, 103.0, 98.0, 100.0, 102.0, 97.0, 104.0, 100.0, 99.0,
        ];
        assert!(!compare(&a, &same).significant);
        let better: Vec<f64> = a.iter().map(|v| v * 1.2).collect();
        let c = compare(&a, &better);
        assert!(
            c.significant && c.p < 1e-6 && (c.diff_pct - 20.0).abs() < 1e-9,
            "{c:?}"
        );
    }
}
