//! Repeats as the sample: the spread of a point's repeats and the interval
//! of a ratio between two points, by bootstrap over the repeats (not over
//! one run's seconds, which are correlated and leave run-to-run variance
//! out). Deterministic: the resampling generator is seeded from the data,
//! so the same runs always give the same interval.

use serde::Serialize;

/// Resamples per interval: enough for stable 2.5/97.5 percentiles.
const RESAMPLES: usize = 2000;

/// How far a ratio's interval must stay from 1.0 to count as a
/// difference: the same ±5% the tables used to colour on alone.
pub(crate) const RATIO_THRESHOLD: f64 = 0.05;

/// A ratio A/B of two points' median QPS, with its 95% bootstrap interval
/// over the repeats when both sides have at least two.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RatioCell {
    /// A's median QPS over B's.
    pub ratio: f64,
    /// None with a single repeat on either side: run-to-run variance unknown.
    pub lo: Option<f64>,
    /// Upper end of the interval (None likewise).
    pub hi: Option<f64>,
    /// Repeats on A's side.
    pub runs_a: usize,
    /// Repeats on B's side.
    pub runs_b: usize,
}

impl RatioCell {
    /// B/A from A/B: the ratio and its interval inverted.
    pub fn inverted(&self) -> RatioCell {
        RatioCell {
            ratio: 1.0 / self.ratio,
            lo: self.hi.map(|h| 1.0 / h),
            hi: self.lo.map(|l| 1.0 / l),
            runs_a: self.runs_b,
            runs_b: self.runs_a,
        }
    }

    /// Whether the interval excludes 1.0 by more than the threshold.
    pub fn significant(&self) -> bool {
        match (self.lo, self.hi) {
            (Some(lo), Some(hi)) => lo > 1.0 + RATIO_THRESHOLD || hi < 1.0 - RATIO_THRESHOLD,
            _ => false,
        }
    }

    /// `1.052 [0.981–1.120]`, `1.310 [1.200–1.402] *` when significant,
    /// `1.052 (1 run)` without an interval.
    pub fn text(&self) -> String {
        match (self.lo, self.hi) {
            (Some(lo), Some(hi)) => format!(
                "{:.3} [{lo:.3}–{hi:.3}]{}",
                self.ratio,
                if self.significant() { " *" } else { "" }
            ),
            _ => format!("{:.3} (1 run)", self.ratio),
        }
    }
}

/// The legend printed under tables with ratio cells.
pub const RATIO_LEGEND: &str = "ratios: median of repeats A / median of repeats B, [95% interval by bootstrap over repeats]; \
     * = the interval excludes 1.0 ± 5% (a difference); unmarked = within noise; (1 run) = one repeat, run-to-run variance unknown";

/// Median of a sample (NaN when empty).
pub fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The ratio of two samples' medians with its bootstrap interval.
pub fn ratio(a: &[f64], b: &[f64]) -> Option<RatioCell> {
    let (ma, mb) = (median(a), median(b));
    if a.is_empty() || b.is_empty() || mb <= 0.0 || !ma.is_finite() {
        return None;
    }
    let mut cell = RatioCell {
        ratio: ma / mb,
        lo: None,
        hi: None,
        runs_a: a.len(),
        runs_b: b.len(),
    };
    if a.len() >= 2 && b.len() >= 2 {
        let mut rng = Rng::seeded(a.iter().chain(b).fold(0x9E37_79B9_7F4A_7C15, |h, x| {
            (h ^ x.to_bits()).wrapping_mul(0x100_0000_01B3)
        }));
        let (mut ra, mut rb) = (Ranked::new(a), Ranked::new(b));
        let mut out: Vec<f64> = (0..RESAMPLES)
            .filter_map(|_| {
                ra.draw(&mut rng);
                rb.draw(&mut rng);
                let d = rb.median();
                (d > 0.0).then(|| ra.median() / d)
            })
            .collect();
        out.sort_by(|x, y| x.total_cmp(y));
        if !out.is_empty() {
            let at = |q: f64| out[((out.len() - 1) as f64 * q).round() as usize];
            cell.lo = Some(at(0.025));
            cell.hi = Some(at(0.975));
        }
    }
    Some(cell)
}

/// A sample resampled with replacement, each resample's median read
/// without sorting it: the sample is sorted once, a resample is the count
/// of draws of each rank, and its k-th smallest value is the rank where
/// the counts reach k. The same draws (`Rng::below` over the sample's
/// positions, in order) and the same medians as sorting each resample:
/// `best` computes two intervals a cell, 2,000 resamples each, and sorting
/// was most of its time at a year of runs (issue 37 item 5).
struct Ranked {
    /// The sample's values in `total_cmp` order.
    sorted: Vec<f64>,
    /// Each position's rank in `sorted`.
    rank: Vec<usize>,
    /// The current resample: how many draws of each rank.
    counts: Vec<u32>,
}

impl Ranked {
    fn new(v: &[f64]) -> Ranked {
        let mut order: Vec<usize> = (0..v.len()).collect();
        order.sort_by(|&i, &j| v[i].total_cmp(&v[j]));
        let mut rank = vec![0; v.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r;
        }
        Ranked {
            sorted: order.iter().map(|&i| v[i]).collect(),
            rank,
            counts: vec![0; v.len()],
        }
    }

    /// A new resample of as many draws as the sample has values.
    fn draw(&mut self, rng: &mut Rng) {
        let n = self.rank.len();
        self.counts.fill(0);
        for _ in 0..n {
            self.counts[self.rank[rng.below(n)]] += 1;
        }
    }

    /// The resample's median (as `median` of its values).
    fn median(&self) -> f64 {
        let n = self.rank.len();
        let (lo, hi) = ((n - 1) / 2, n / 2);
        let (mut lo_v, mut seen) = (None, 0usize);
        for (v, c) in self.sorted.iter().zip(&self.counts) {
            seen += *c as usize;
            if seen > lo && lo_v.is_none() {
                lo_v = Some(*v);
            }
            if seen > hi {
                return match lo_v {
                    Some(l) if lo != hi => (l + v) / 2.0,
                    _ => *v,
                };
            }
        }
        f64::NAN
    }
}

/// Points whose repeats drift: three or more repeats (in the order they
/// ran) whose QPS rises or falls at every step, by more than 5% first to
/// last. A line each: "oltp_point_select m/off 32 users: 70707 → 58012 →
/// 56900 (−20%), falling at every repeat".
pub fn drifting(runs: &[crate::store::RunRow]) -> Vec<String> {
    use std::collections::BTreeMap;
    // (workload, label, variant, threads) → (run id, QPS) of each repeat.
    type Point = (String, String, String, i64);
    let mut points: BTreeMap<Point, Vec<(i64, f64)>> = BTreeMap::new();
    for r in runs.iter().filter(|r| r.status == "ok") {
        if let Some(q) = r.qps {
            points
                .entry((
                    r.workload.clone(),
                    r.label.clone().unwrap_or_default(),
                    r.variant.clone().unwrap_or_default(),
                    r.threads,
                ))
                .or_default()
                .push((r.id, q));
        }
    }
    let mut out = Vec::new();
    for ((w, l, v, th), mut reps) in points {
        if reps.len() < 3 {
            continue;
        }
        reps.sort_by_key(|(id, _)| *id);
        let q: Vec<f64> = reps.iter().map(|(_, q)| *q).collect();
        let rising = q.windows(2).all(|x| x[1] > x[0]);
        let falling = q.windows(2).all(|x| x[1] < x[0]);
        let change = q[q.len() - 1] / q[0] - 1.0;
        if (rising || falling) && change.abs() > RATIO_THRESHOLD {
            let path: Vec<String> = q.iter().map(|x| format!("{x:.0}")).collect();
            out.push(format!(
                "{w} {l}/{v} {th} users: {} ({:+.0}%), {} at every repeat",
                path.join(" -> "),
                change * 100.0,
                if rising { "rising" } else { "falling" }
            ));
        }
    }
    out
}

/// xorshift64*: small, fast, and reproducible from its seed.
struct Rng(u64);

impl Rng {
    fn seeded(s: u64) -> Rng {
        Rng(s | 1)
    }
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) % n as u64) as usize
    }
}

/// A point's repeats: median, min and max.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Spread {
    /// Median of the finite values.
    pub median: f64,
    /// Smallest.
    pub min: f64,
    /// Largest.
    pub max: f64,
    /// How many finite values there were.
    pub n: usize,
}

impl Spread {
    /// The spread of `v`'s finite values (NaN figures and n = 0 for none).
    pub fn of(v: &[f64]) -> Spread {
        let v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
        Spread {
            median: median(&v),
            min: v.iter().copied().fold(f64::NAN, f64::min),
            max: v.iter().copied().fold(f64::NAN, f64::max),
            n: v.len(),
        }
    }

    /// `50100-54200` over several repeats, `(1 run)` for one.
    pub fn range_text(&self, decimals: usize) -> String {
        if self.n <= 1 {
            return "(1 run)".into();
        }
        format!("{:.*}-{:.*}", decimals, self.min, decimals, self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_configuration_is_within_noise() {
        // Two sets of repeats of one configuration, 5% apart at most.
        let c = ratio(&[100.0, 104.0, 97.0], &[101.0, 98.0, 103.0]).unwrap();
        assert!(!c.significant(), "{c:?}");
        assert!(c.lo.unwrap() < 1.0 && c.hi.unwrap() > 1.0, "{c:?}");
        assert!(!c.text().contains('*'));
    }

    #[test]
    fn a_real_difference_is_significant() {
        let c = ratio(&[130.0, 128.0, 133.0], &[100.0, 101.0, 99.0]).unwrap();
        assert!(c.significant(), "{c:?}");
        assert!(c.text().ends_with(" *"), "{}", c.text());
        let slower = ratio(&[80.0, 82.0, 79.0], &[100.0, 101.0, 99.0]).unwrap();
        assert!(slower.significant());
    }

    #[test]
    fn one_run_is_never_significant() {
        let c = ratio(&[150.0], &[100.0, 100.0]).unwrap();
        assert_eq!(c.lo, None);
        assert!(!c.significant());
        assert_eq!(c.text(), "1.500 (1 run)");
        assert!(ratio(&[], &[1.0]).is_none());
    }

    #[test]
    fn resampled_medians_are_those_of_sorting_each_resample() {
        // The bootstrap as it was written first: each resample copied and
        // sorted. The counted ranks must give the same interval bit for bit.
        fn sorted_ratio(a: &[f64], b: &[f64]) -> (f64, f64) {
            let mut rng = Rng::seeded(a.iter().chain(b).fold(0x9E37_79B9_7F4A_7C15, |h, x| {
                (h ^ x.to_bits()).wrapping_mul(0x100_0000_01B3)
            }));
            let (mut ra, mut rb) = (vec![0.0; a.len()], vec![0.0; b.len()]);
            let mut out: Vec<f64> = (0..RESAMPLES)
                .filter_map(|_| {
                    for x in ra.iter_mut() {
                        *x = a[rng.below(a.len())];
                    }
                    for x in rb.iter_mut() {
                        *x = b[rng.below(b.len())];
                    }
                    let d = median(&rb);
                    (d > 0.0).then(|| median(&ra) / d)
                })
                .collect();
            out.sort_by(|x, y| x.total_cmp(y));
            let at = |q: f64| out[((out.len() - 1) as f64 * q).round() as usize];
            (at(0.025), at(0.975))
        }
        let mut rng = Rng::seeded(7);
        for n in 2..40 {
            // ties and zeros included: values from a small set
            let a: Vec<f64> = (0..n).map(|_| (rng.below(9) * 100) as f64).collect();
            let b: Vec<f64> = (0..n + rng.below(5))
                .map(|_| (1 + rng.below(50)) as f64 * 3.5)
                .collect();
            let c = ratio(&a, &b).unwrap();
            let (lo, hi) = sorted_ratio(&a, &b);
            assert_eq!(
                (c.lo.unwrap().to_bits(), c.hi.unwrap().to_bits()),
                (lo.to_bits(), hi.to_bits()),
                "{a:?} / {b:?}"
            );
        }
    }

    #[test]
    fn reproducible() {
        let a = [10.0, 11.0, 12.0, 9.0];
        let b = [10.5, 10.0, 9.5];
        assert_eq!(ratio(&a, &b), ratio(&a, &b));
    }

    #[test]
    fn drift_over_repeats_is_named() {
        let row = |id: i64, v: &str, qps: f64| crate::store::RunRow {
            id,
            workload: "oltp_point_select".into(),
            threads: 32,
            label: Some("m".into()),
            variant: Some(v.into()),
            status: "ok".into(),
            qps: Some(qps),
            ..Default::default()
        };
        let runs = vec![
            row(1, "off", 70707.0),
            row(2, "on", 83700.0),
            row(3, "off", 58012.0),
            row(4, "on", 78600.0),
            row(5, "off", 56900.0),
            row(6, "on", 83900.0),
        ];
        let d = drifting(&runs);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(
            d[0].contains("m/off 32 users: 70707 -> 58012 -> 56900 (-20%), falling"),
            "{d:?}"
        );
    }

    #[test]
    fn spreads() {
        let s = Spread::of(&[3.0, 1.0, 2.0]);
        assert_eq!((s.median, s.min, s.max, s.n), (2.0, 1.0, 3.0, 3));
        assert_eq!(s.range_text(0), "1-3");
        assert_eq!(Spread::of(&[5.0]).range_text(1), "(1 run)");
    }
}
