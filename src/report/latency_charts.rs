//! The latency charts as chart specs: the percentile spectrum (latency on a
//! log axis against the percentile on HDR's log(1/(1 - p)) axis, one line
//! per histogram) and each statement kind's latency over a run's time.
//! Takes figures (analyze's spectra, the store's per-interval rows) and
//! returns `Chart`s; drawing them is `chart`'s.

use super::chart::{fmt_num, Chart};
use crate::analyze::latency_spectrum::{axis_ticks, spectrum_x, Spectrum};
use crate::store::StatementSample;
use std::collections::BTreeMap;

/// The spectrum's x label.
pub const SPECTRUM_X: &str = "percentile (log scale: 90, 99, 99.9 … equally spaced)";

/// Which per-interval figure the statement chart draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatementFigure {
    /// The interval's 95th percentile (the default).
    P95,
    /// Its 99th percentile.
    P99,
}

impl StatementFigure {
    /// "p95" or "p99".
    pub fn label(self) -> &'static str {
        match self {
            StatementFigure::P95 => "p95",
            StatementFigure::P99 => "p99",
        }
    }

    fn of(self, s: &StatementSample) -> Option<f64> {
        match self {
            StatementFigure::P95 => s.lat_p95_ms,
            StatementFigure::P99 => s.lat_p99_ms,
        }
    }
}

/// A spectrum's legend entry: its name, count and p50/p99/max.
pub fn spectrum_legend(s: &Spectrum) -> String {
    format!(
        "{}: p50 {} · p99 {} · max {} ms ({} values)",
        s.name,
        ms_text(s.p50_ms),
        ms_text(s.p99_ms),
        ms_text(s.max_ms),
        s.count
    )
}

/// A latency in ms, 3 significant digits at most.
fn ms_text(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{ms:.0}")
    } else if ms >= 10.0 {
        format!("{ms:.1}")
    } else if ms >= 1.0 {
        format!("{ms:.2}")
    } else {
        format!("{ms:.3}")
    }
}

/// log10 of a latency in ms (HDR's smallest value is 1 µs).
fn log_ms(ms: f64) -> f64 {
    ms.max(0.001).log10()
}

/// A tick's label: `v` is m·10^`e`; below 1 ms with the decimals it
/// needs (0.001, not 0).
fn ms_label(v: f64, e: i32) -> String {
    if e < 0 {
        format!("{v:.*}", e.unsigned_abs() as usize)
    } else {
        fmt_num(v)
    }
}

/// Ticks of a log ms axis covering [lo, hi] ms: 1, 2, 5 per decade over
/// up to three decades, decades only beyond.
fn ms_ticks(lo: f64, hi: f64) -> Vec<(f64, String)> {
    let (a, b) = (log_ms(lo).floor() as i32, log_ms(hi).ceil() as i32);
    let b = b.max(a + 1);
    let steps: &[f64] = if b - a <= 3 { &[1.0, 2.0, 5.0] } else { &[1.0] };
    let mut out = Vec::new();
    for e in a..=b {
        for m in steps {
            let v = m * 10f64.powi(e);
            if e == b && *m > 1.0 {
                break;
            }
            out.push((v.log10(), ms_label(v, e)));
        }
    }
    out
}

/// The spectrum of each of `spectra`, overlaid: one line per histogram,
/// its own colour and line style (coinciding lines stay visible), a
/// marker at each point, x ticks up to the nines the largest count
/// supports.
pub fn spectrum_chart(title: &str, spectra: &[Spectrum]) -> Chart {
    let mut c = Chart::new(title, SPECTRUM_X, "latency, ms (log scale)");
    c.dash_each = true;
    c.scale = Some("spectrum");
    let nines = spectra.iter().map(|s| s.nines).max().unwrap_or(1);
    c.x_ticks = Some(axis_ticks(nines));
    let values = spectra.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let (lo, hi) = values.fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    if lo <= hi {
        c.y_ticks = Some(ms_ticks(lo, hi));
    }
    c.x_range = Some((0.0, f64::from(nines)));
    for s in spectra {
        let points = s
            .points
            .iter()
            .map(|(p, ms)| (spectrum_x(*p), log_ms(*ms)))
            .collect();
        c.add(&spectrum_legend(s), points);
    }
    c
}

/// Each statement kind's `figure` per interval, a line per kind: the
/// kinds of `order` first, in its order (the run's statements, as its
/// spectrum lists them, so that a kind has the same colour in both),
/// then any other by name.
pub fn statement_chart(
    title: &str,
    rows: &[StatementSample],
    figure: StatementFigure,
    order: &[String],
) -> Chart {
    let mut c = Chart::timeline(title, &format!("{} latency, ms", figure.label()));
    let mut by_kind: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows {
        if let Some(v) = figure.of(r) {
            by_kind.entry(&r.statement).or_default().push((r.t, v));
        }
    }
    for name in order {
        if let Some(points) = by_kind.remove(name.as_str()) {
            c.add(name, points);
        }
    }
    for (name, points) in by_kind {
        c.add(name, points);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::latency_spectrum::spectrum;
    use crate::stats::Hist;

    #[test]
    fn spectra_overlay_with_percentile_ticks() {
        let mut a = Hist::new();
        let mut b = Hist::new();
        for v in 1..=5000 {
            a.record(v * 10);
            b.record(v * 10);
        }
        let s = [spectrum("a", &a).unwrap(), spectrum("b", &b).unwrap()];
        let c = spectrum_chart("t", &s);
        assert_eq!(c.series.len(), 2);
        let svg = c.svg_file();
        for label in [">90<", ">99<", ">99.9<"] {
            assert!(svg.contains(label), "{label} missing");
        }
        assert!(!svg.contains(">99.99<"), "5000 values do not support 99.99");
        assert!(svg.contains("(5000 values)"));
        // two coinciding series: different line styles
        assert!(svg.contains("stroke-dasharray=\"7 3\""));
    }

    #[test]
    fn log_ticks_cover_the_values() {
        let t = ms_ticks(0.3, 40.0);
        let labels: Vec<&str> = t.iter().map(|x| x.1.as_str()).collect();
        assert_eq!(labels.first(), Some(&"0.1"));
        assert_eq!(labels.last(), Some(&"100"));
        assert!(labels.contains(&"2"));
        assert_eq!(ms_ticks(0.01, 5000.0).len(), 7);
        let small: Vec<String> = ms_ticks(0.008, 0.3).into_iter().map(|t| t.1).collect();
        assert_eq!(small[..3], ["0.001", "0.002", "0.005"]);
        assert_eq!(small.last().map(String::as_str), Some("1"));
    }

    #[test]
    fn statement_lines_by_name() {
        let row = |s: &str, t: f64, v: f64| StatementSample {
            statement: s.into(),
            t,
            count: 1,
            lat_p50_ms: Some(v / 2.0),
            lat_p95_ms: Some(v),
            lat_p99_ms: Some(v * 2.0),
            lat_max_ms: Some(v * 3.0),
        };
        let rows = [
            row("z", 1.0, 1.0),
            row("a", 1.0, 2.0),
            row("a", 2.0, 3.0),
            row("m", 1.0, 1.0),
        ];
        let c = statement_chart("s", &rows, StatementFigure::P99, &["m".into()]);
        let names: Vec<&str> = c.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["m", "a", "z"]);
        assert_eq!(c.series[1].points, vec![(1.0, 4.0), (2.0, 6.0)]);
    }
}
