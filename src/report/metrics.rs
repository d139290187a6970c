//! Stored monitor snapshots out as CSV or JSON (`qpslab metrics`).

use crate::analyze::counters::MetricView;
use crate::stats::clock::utc_text;
use serde::Serialize;

/// `qpslab metrics RUN --source SOURCE --format json`: the snapshots of one
/// source.
#[derive(Debug, Serialize)]
pub struct MetricsDocument<'a> {
    /// The run's id.
    pub run: i64,
    /// The monitor source (status, innodb_metrics, cpu, …).
    pub source: &'a str,
    /// Whether the values are per-second rates between snapshots rather
    /// than the counters' values.
    pub rate: bool,
    /// The wall clock of t = 0, seconds since the epoch (None: the run
    /// was stored before it was kept).
    pub t0_unix: Option<f64>,
    /// The columns, in the order of each row's values.
    pub names: &'a [String],
    /// One per snapshot.
    pub rows: Vec<MetricRow<'a>>,
}

/// One snapshot: when it was taken and its values.
#[derive(Debug, Serialize)]
pub struct MetricRow<'a> {
    /// Seconds since the run's t = 0 (negative in warm-up).
    pub t: f64,
    /// The wall clock, RFC 3339 UTC with milliseconds (None: t0 unknown).
    pub time: Option<String>,
    /// The wall clock in seconds since the epoch (None: t0 unknown).
    pub epoch: Option<f64>,
    /// The poll's own duration, µs.
    pub took_us: u64,
    /// The values, None where the counter was absent.
    pub values: &'a [Option<f64>],
}

/// The snapshots of run `run` as one JSON document; `t0_unix` is the wall
/// clock of t = 0 (see `MonitorFigures::t0_unix`).
pub fn json<'a>(
    run: i64,
    source: &'a str,
    rate: bool,
    t0_unix: Option<f64>,
    v: &'a MetricView,
) -> MetricsDocument<'a> {
    let rows = v
        .rows
        .iter()
        .map(|(t, took, vals)| {
            let epoch = t0_unix.map(|z| ((z + t) * 1000.0).round() / 1000.0);
            MetricRow {
                t: *t,
                time: epoch.map(utc_text),
                epoch,
                took_us: *took,
                values: vals,
            }
        })
        .collect();
    MetricsDocument {
        run,
        source,
        rate,
        t0_unix,
        names: &v.names,
        rows,
    }
}

/// The snapshots as CSV: `t` (s since t = 0), `time` (RFC 3339 UTC) and
/// `epoch` (s since 1970; both empty for runs stored before the wall clock
/// was kept), `took_us` (µs), then one column per counter.
pub fn csv(v: &MetricView, t0_unix: Option<f64>) -> String {
    let header = ["t", "time", "epoch", "took_us"]
        .into_iter()
        .map(String::from)
        .chain(v.names.iter().cloned())
        .collect::<Vec<_>>();
    let rows = v.rows.iter().map(|(t, took, vals)| {
        let epoch = t0_unix.map(|z| z + t);
        [
            format!("{t:.3}"),
            epoch.map(utc_text).unwrap_or_default(),
            epoch.map(|e| format!("{e:.3}")).unwrap_or_default(),
            took.to_string(),
        ]
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

    #[test]
    fn rows_carry_the_wall_clock_when_t0_is_known() {
        let v = crate::analyze::counters::MetricView {
            names: vec!["Questions".into()],
            rows: vec![(1.5, 120, vec![Some(10.0)])],
        };
        let z = 1_795_696_200.0;
        assert_eq!(
            super::csv(&v, Some(z)),
            "t,time,epoch,took_us,Questions\n1.500,2026-11-26T12:30:01.500Z,1795696201.500,120,10\n"
        );
        assert_eq!(
            super::csv(&v, None),
            "t,time,epoch,took_us,Questions\n1.500,,,120,10\n"
        );
        let j = serde_json::to_value(super::json(3, "status", false, Some(z), &v)).unwrap();
        assert_eq!(j["rows"][0]["time"], "2026-11-26T12:30:01.500Z");
        assert_eq!(j["rows"][0]["epoch"], 1_795_696_201.5);
    }
}
