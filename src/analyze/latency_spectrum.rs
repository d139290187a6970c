//! Latency as a distribution: a histogram's percentile spectrum (the
//! latency at each percentile on HDR's axis, log10 of 1/(1 - p), as far as
//! its count supports) and its percentile table (p50 … p99.999). Pure:
//! takes histograms, returns figures; drawing them is report's, reading
//! them from the store the caller's.

use crate::stats::document::{PercentileRow, PercentileTable};
use crate::stats::{pct_label, Hist};
use crate::store::RunHistograms;

/// The name of a run's whole-run series.
pub const ALL_EVENTS: &str = "all events";

/// The most nines the axis shows: 99.999.
pub const MAX_NINES: u32 = 5;

/// The percentiles of the table, as far as the count supports them.
pub const TABLE_PERCENTILES: [f64; 7] = [50.0, 90.0, 95.0, 99.0, 99.9, 99.99, 99.999];

/// Points per decade of the axis (90 → 99 is one decade).
const STEPS_PER_NINE: u32 = 6;

/// The x of percentile `p` (0 to 100) on the spectrum's axis:
/// log10(1 / (1 - p/100)); 0 → 0, 90 → 1, 99 → 2, 99.9 → 3.
pub fn spectrum_x(p: f64) -> f64 {
    let tail = (1.0 - p / 100.0).max(1e-12);
    -tail.log10()
}

/// The percentile at `x` on the spectrum's axis (the inverse of
/// `spectrum_x`).
pub fn percentile_at(x: f64) -> f64 {
    100.0 * (1.0 - 10f64.powf(-x))
}

/// The nines `count` values support: the largest n (at most `MAX_NINES`)
/// with at least one value above the percentile of n nines, i.e.
/// count ≥ 10^n. 0 for fewer than 10 values.
pub fn supported_nines(count: u64) -> u32 {
    let mut n = 0;
    while n < MAX_NINES && count >= 10u64.pow(n + 1) {
        n += 1;
    }
    n
}

/// A percentile's name on the axis and in tables: 0 → "0", 99.9 → "99.9".
pub fn percentile_label(p: f64) -> String {
    pct_label(p)
}

/// The axis ticks for `nines`: (x, label) at 0, 90, 99, … 100·(1 - 10^-nines).
pub fn axis_ticks(nines: u32) -> Vec<(f64, String)> {
    (0..=nines.min(MAX_NINES))
        .map(|n| {
            let x = f64::from(n);
            (x, percentile_label(percentile_at(x)))
        })
        .collect()
}

/// One histogram's spectrum: its name, its count, and (percentile, ms)
/// from p0 up to the nines its count supports.
#[derive(Debug, Clone, PartialEq)]
pub struct Spectrum {
    /// The series' name (a statement class, a run, a variant).
    pub name: String,
    /// Values recorded.
    pub count: u64,
    /// The nines its count supports (`supported_nines`).
    pub nines: u32,
    /// (percentile 0–100, latency ms), percentiles rising.
    pub points: Vec<(f64, f64)>,
    /// The median, ms.
    pub p50_ms: f64,
    /// The 99th percentile, ms.
    pub p99_ms: f64,
    /// The largest value, ms.
    pub max_ms: f64,
}

/// The spectrum of `h`, named `name`; None when it recorded nothing.
pub fn spectrum(name: &str, h: &Hist) -> Option<Spectrum> {
    let count = h.count();
    if count == 0 {
        return None;
    }
    let nines = supported_nines(count).max(1);
    let steps = nines * STEPS_PER_NINE;
    let points = (0..=steps)
        .map(|i| {
            let p = percentile_at(f64::from(i) / f64::from(STEPS_PER_NINE));
            (p, h.quantile_ms(p / 100.0))
        })
        .collect();
    Some(Spectrum {
        name: name.to_string(),
        count,
        nines,
        points,
        p50_ms: h.quantile_ms(0.5),
        p99_ms: h.quantile_ms(0.99),
        max_ms: h.max_ms(),
    })
}

/// The percentile table of `h` (p50 … p99.999, as far as its count
/// supports), named `name`; None when it recorded nothing.
pub fn percentile_table(name: &str, h: &Hist) -> Option<PercentileTable> {
    let count = h.count();
    if count == 0 {
        return None;
    }
    let nines = supported_nines(count);
    let rows = TABLE_PERCENTILES
        .iter()
        .filter(|p| spectrum_x(**p) <= f64::from(nines) + 1e-9 || **p <= 50.0)
        .map(|p| PercentileRow {
            percentile: *p,
            ms: h.quantile_ms(p / 100.0),
        })
        .collect();
    Some(PercentileTable {
        name: name.to_string(),
        count,
        min_ms: h.min_ms(),
        rows,
        max_ms: h.max_ms(),
    })
}

/// A run's percentile tables: all events first, then each statement
/// kind in the stored order.
pub fn run_percentile_tables(h: &RunHistograms) -> Vec<PercentileTable> {
    let all = h.all.as_ref().and_then(|a| percentile_table(ALL_EVENTS, a));
    all.into_iter()
        .chain(
            h.statements
                .iter()
                .filter_map(|(n, s)| percentile_table(n, s)),
        )
        .collect()
}

/// The sum of histograms (a variant's repeats merged by adding their
/// counts); None when there are none.
pub fn merged<'a>(hists: impl IntoIterator<Item = &'a Hist>) -> Option<Hist> {
    let mut it = hists.into_iter();
    let mut sum = it.next()?.clone();
    for h in it {
        sum.merge(h);
    }
    Some(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_axis_is_log_of_one_over_the_tail() {
        assert!((spectrum_x(0.0) - 0.0).abs() < 1e-12);
        assert!((spectrum_x(90.0) - 1.0).abs() < 1e-9);
        assert!((spectrum_x(99.0) - 2.0).abs() < 1e-9);
        assert!((spectrum_x(99.99) - 4.0).abs() < 1e-9);
        for p in [0.0, 50.0, 90.0, 99.9, 99.999] {
            assert!((percentile_at(spectrum_x(p)) - p).abs() < 1e-6, "p {p}");
        }
        assert!(spectrum_x(100.0).is_finite());
        let labels: Vec<String> = axis_ticks(3).into_iter().map(|t| t.1).collect();
        assert_eq!(labels, ["0", "90", "99", "99.9"]);
        assert_eq!(axis_ticks(9).len(), 6);
    }

    #[test]
    fn the_count_bounds_the_nines() {
        assert_eq!(supported_nines(0), 0);
        assert_eq!(supported_nines(9), 0);
        assert_eq!(supported_nines(10), 1);
        assert_eq!(supported_nines(999), 2);
        assert_eq!(supported_nines(1000), 3);
        assert_eq!(supported_nines(10_000_000), 5);
    }

    fn uniform(n: u64) -> Hist {
        let mut h = Hist::new();
        for v in 1..=n {
            h.record(v);
        }
        h
    }

    #[test]
    fn a_spectrum_rises_to_what_its_count_supports() {
        assert_eq!(spectrum("x", &Hist::new()), None);
        let s = spectrum("all", &uniform(10_000)).unwrap();
        assert_eq!((s.count, s.nines), (10_000, 4));
        assert_eq!(s.points.len(), 4 * 6 + 1);
        assert_eq!(s.points[0].0, 0.0);
        assert!((s.points.last().unwrap().0 - 99.99).abs() < 1e-9);
        assert!(s.points.windows(2).all(|w| w[0].1 <= w[1].1));
        assert!((s.p50_ms - 5.0).abs() < 0.01);
        assert!((s.max_ms - 10.0).abs() < 0.01);
    }

    #[test]
    fn the_table_stops_where_the_count_does() {
        assert_eq!(percentile_table("x", &Hist::new()), None);
        let t = percentile_table("q", &uniform(1000)).unwrap();
        let ps: Vec<f64> = t.rows.iter().map(|r| r.percentile).collect();
        assert_eq!(ps, [50.0, 90.0, 95.0, 99.0, 99.9]);
        assert!((t.rows[3].ms - 0.99).abs() < 0.001);
        assert_eq!(t.count, 1000);
        let small = percentile_table("s", &uniform(3)).unwrap();
        assert_eq!(small.rows.len(), 1);
    }

    #[test]
    fn repeats_merge_by_adding_counts() {
        let m = merged([&uniform(100), &uniform(100)]).unwrap();
        assert_eq!(m.count(), 200);
        assert!(merged(std::iter::empty()).is_none());
    }
}
