//! Where a series stops scaling: its peak, the knee (the first step whose
//! efficiency against 1 user falls below `KNEE_EFFICIENCY`), speed-up and
//! efficiency per step, and a Universal Scalability Law fit
//! X(N) = λN / (1 + σ(N−1) + κN(N−1)) — σ the contention (serialised
//! share), κ the coherency cost (crosstalk) — by least squares on the
//! linearised form N/C(N) − 1 = σ(N−1) + κN(N−1), C(N) = X(N)/X(1), with
//! R² of the fitted throughput against the measured one. A fit of two
//! parameters is made only from at least [`MIN_USL_LEVELS`] user levels
//! (fewer fit any curve: three points gave "R² 0.994" with σ at 0), and
//! its parameters carry their standard errors.

use serde::Serialize;

/// Efficiency (speed-up / users) below which scaling has bent.
pub(crate) const KNEE_EFFICIENCY: f64 = 0.8;

/// User levels (1 included) a USL fit needs: two parameters from the
/// levels above 1 leave at least two degrees of freedom for the error.
pub const MIN_USL_LEVELS: usize = 5;

/// How a series' throughput grew with users (concurrency).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scaling {
    /// The concurrency with the highest QPS.
    pub peak_users: i64,
    /// That QPS.
    pub peak_qps: f64,
    /// The first step below `KNEE_EFFICIENCY`, when one is.
    pub knee_users: Option<i64>,
    /// (users, speed-up, efficiency) per step, against 1 user.
    pub steps: Vec<(i64, f64, f64)>,
    /// The Universal Scalability Law fitted to the steps, when it fits.
    pub usl: Option<Usl>,
    /// Why there is no fit, when there is none ("3 user levels: …").
    pub usl_skipped: Option<String>,
}

/// Gunther's Universal Scalability Law, X(n) = λn / (1 + σ(n−1) + κn(n−1)).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Usl {
    /// σ: contention (the serial share).
    pub sigma: f64,
    /// κ: coherency (cross-talk) cost.
    pub kappa: f64,
    /// Throughput at 1 user (the measured one).
    pub lambda: f64,
    /// Standard error of σ (from the linearised fit's residuals).
    pub sigma_se: f64,
    /// Standard error of κ.
    pub kappa_se: f64,
    /// Of the fitted throughput against the measured one.
    pub r2: f64,
    /// Users where the fitted curve peaks, √((1−σ)/κ) (None when κ ≤ 0).
    pub peak_users: Option<f64>,
}

impl Usl {
    /// The fitted throughput at `n` users.
    pub fn throughput(&self, n: f64) -> f64 {
        self.lambda * n / (1.0 + self.sigma * (n - 1.0) + self.kappa * n * (n - 1.0))
    }
}

/// The scaling of (users, QPS) points; None without a 1-user point or
/// with fewer than 2 points.
pub fn of_points(points: &[(i64, f64)]) -> Option<Scaling> {
    let x1 = points.iter().find(|(n, _)| *n == 1)?.1;
    if points.len() < 2 || x1 <= 0.0 {
        return None;
    }
    let (peak_users, peak_qps) = points.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let steps: Vec<(i64, f64, f64)> = points
        .iter()
        .map(|(n, x)| (*n, x / x1, x / x1 / *n as f64))
        .collect();
    let knee_users = steps
        .iter()
        .find(|(_, _, e)| *e < KNEE_EFFICIENCY)
        .map(|(n, _, _)| *n);
    let levels = {
        let mut n: Vec<i64> = points.iter().map(|p| p.0).collect();
        n.sort_unstable();
        n.dedup();
        n.len()
    };
    let (usl, usl_skipped) = if levels < MIN_USL_LEVELS {
        (
            None,
            Some(format!(
                "no USL fit: {} (a fit of 2 parameters needs at least {MIN_USL_LEVELS}; sweep more --threads levels)",
                crate::out::counted(levels, "user level")
            )),
        )
    } else {
        match fit(points, x1) {
            Some(u) => (Some(u), None),
            None => (
                None,
                Some("no USL fit: the points do not determine one".to_string()),
            ),
        }
    };
    Some(Scaling {
        peak_users,
        peak_qps,
        knee_users,
        steps,
        usl,
        usl_skipped,
    })
}

fn fit(points: &[(i64, f64)], x1: f64) -> Option<Usl> {
    // y = σ·a + κ·b with a = N−1, b = N(N−1), over N > 1.
    let (mut saa, mut sab, mut sbb, mut say, mut sby) = (0.0, 0.0, 0.0, 0.0, 0.0);
    let mut used = 0;
    for &(n, x) in points.iter().filter(|(n, x)| *n > 1 && *x > 0.0) {
        let n = n as f64;
        let (a, b) = (n - 1.0, n * (n - 1.0));
        let y = n / (x / x1) - 1.0;
        saa += a * a;
        sab += a * b;
        sbb += b * b;
        say += a * y;
        sby += b * y;
        used += 1;
    }
    if used < 2 {
        return None;
    }
    let det = saa * sbb - sab * sab;
    if det.abs() < 1e-12 {
        return None;
    }
    let sigma_ls = (say * sbb - sby * sab) / det;
    let kappa_ls = (sby * saa - say * sab) / det;
    // Residual variance of the linearised fit, with used − 2 degrees of
    // freedom; the parameters' covariance is s²·(XᵀX)⁻¹.
    let rss: f64 = points
        .iter()
        .filter(|(n, x)| *n > 1 && *x > 0.0)
        .map(|&(n, x)| {
            let n = n as f64;
            let y = n / (x / x1) - 1.0;
            (y - sigma_ls * (n - 1.0) - kappa_ls * n * (n - 1.0)).powi(2)
        })
        .sum();
    let s2 = if used > 2 {
        rss / (used - 2) as f64
    } else {
        f64::NAN
    };
    let sigma = sigma_ls.clamp(0.0, 1.0);
    let kappa = kappa_ls.max(0.0);
    let mut u = Usl {
        sigma,
        kappa,
        sigma_se: (s2 * sbb / det).sqrt(),
        kappa_se: (s2 * saa / det).sqrt(),
        lambda: x1,
        r2: 0.0,
        peak_users: (kappa > 0.0).then(|| ((1.0 - sigma) / kappa).sqrt()),
    };
    let mean = points.iter().map(|p| p.1).sum::<f64>() / points.len() as f64;
    let ss_tot: f64 = points.iter().map(|p| (p.1 - mean).powi(2)).sum();
    let ss_res: f64 = points
        .iter()
        .map(|(n, x)| (x - u.throughput(*n as f64)).powi(2))
        .sum();
    u.r2 = if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        1.0
    };
    Some(u)
}

/// Two lines saying where the series stops scaling.
pub fn describe(s: &Scaling) -> String {
    let mut o = format!(
        "peak {:.0} QPS at {}",
        s.peak_qps,
        crate::out::counted(s.peak_users, "user")
    );
    if let Some((n, c, e)) = s.steps.iter().find(|st| st.0 == s.peak_users) {
        o.push_str(&format!(
            " (speed-up x{c:.2} over 1 user, efficiency {:.0}% at {n})",
            e * 100.0
        ));
    }
    match s.knee_users {
        Some(k) => o.push_str(&format!(
            "; knee at {} (efficiency below {:.0}%)",
            crate::out::counted(k, "user"),
            KNEE_EFFICIENCY * 100.0
        )),
        None => o.push_str("; no knee: scaling stayed above 80% efficiency"),
    }
    if let Some(why) = &s.usl_skipped {
        o.push_str(&format!("\n    {why}"));
    }
    if let Some(u) = &s.usl {
        o.push_str(&format!(
            "\n    USL fit: sigma (contention) {:.4} ± {:.4}, kappa (coherency) {:.5} ± {:.5}, R^2 {:.3}{}",
            u.sigma,
            u.sigma_se,
            u.kappa,
            u.kappa_se,
            u.r2,
            u.peak_users
                .map(|p| format!(", fitted peak at {p:.0} users"))
                .unwrap_or_else(|| ", no fitted peak (kappa 0)".into())
        ));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_a_known_curve() {
        let truth = Usl {
            sigma: 0.05,
            kappa: 0.002,
            sigma_se: 0.0,
            kappa_se: 0.0,
            lambda: 1000.0,
            r2: 1.0,
            peak_users: None,
        };
        let points: Vec<(i64, f64)> = [1, 2, 4, 8, 16, 32, 64]
            .iter()
            .map(|n| (*n, truth.throughput(*n as f64)))
            .collect();
        let s = of_points(&points).unwrap();
        let u = s.usl.unwrap();
        assert!(
            (u.sigma - 0.05).abs() < 1e-6 && (u.kappa - 0.002).abs() < 1e-7,
            "{u:?}"
        );
        assert!(u.r2 > 0.9999);
        assert!((u.peak_users.unwrap() - (0.95f64 / 0.002).sqrt()).abs() < 0.01);
        assert_eq!(s.peak_users, 16);
        assert_eq!(s.knee_users, Some(8));
        let text = describe(&s);
        assert!(
            text.contains("peak") && text.contains("knee at 8 users") && text.contains("USL fit"),
            "{text}"
        );
    }

    #[test]
    fn needs_one_user() {
        assert!(of_points(&[(2, 10.0), (4, 20.0)]).is_none());
        let linear = of_points(&[(1, 10.0), (2, 20.0), (4, 40.0)]).unwrap();
        assert_eq!(linear.knee_users, None);
    }

    #[test]
    fn three_levels_get_no_fit_and_say_why() {
        let s = of_points(&[(1, 21804.0), (4, 46967.0), (16, 42961.0)]).unwrap();
        assert!(s.usl.is_none());
        let text = describe(&s);
        assert!(
            text.contains("no USL fit: 3 user levels") && text.contains("at least 5"),
            "{text}"
        );
    }

    #[test]
    fn a_noisy_curve_has_wide_errors() {
        let truth = |n: f64| 1000.0 * n / (1.0 + 0.05 * (n - 1.0) + 0.002 * n * (n - 1.0));
        let noisy: Vec<(i64, f64)> = [1, 2, 4, 8, 16, 32]
            .iter()
            .zip([1.0, 1.2, 0.8, 1.15, 0.85, 1.1])
            .map(|(n, k)| (*n, truth(*n as f64) * if *n == 1 { 1.0 } else { k }))
            .collect();
        let u = of_points(&noisy).unwrap().usl.unwrap();
        assert!(u.sigma_se > 0.01, "{u:?}");
    }
}
