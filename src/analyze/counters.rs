//! Cumulative counters over time, for the figures derived from the
//! monitor: values at any instant by linear interpolation between polls, and
//! differences over a window that refuse to span a counter reset (a server
//! restart during a gap).

use std::collections::HashMap;

/// How much of a key's history to keep.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Keep {
    /// Every point (keys that per-second figures need).
    All,
    /// The points around the start of measurement and the latest two: enough
    /// for whole-run differences of keys too many to keep in full.
    Ends,
}

/// The most points a fully kept key holds: a long run's memory stays
/// bounded (at one poll a second, a 2-hour run would otherwise keep 7,200
/// points a key). Past it, the older half is thinned (see `thin`).
const MAX_POINTS: usize = 256;

/// More drops than a counter makes in the older half of its points (a
/// counter goes down only when its server restarts): past it, the key is a
/// gauge (Threads_running, a checkpoint age), whose drops need no keeping.
const MAX_RESETS: usize = 8;

/// Drops every other point of the older half of `pts`, keeping what
/// differences over a window need: the points around the start of
/// measurement (t = 0), every reset (a value below the one before) and the
/// point before it, and the newer half whole. A gauge's drops are not
/// resets: kept, they would keep nearly every point, and the key would grow
/// for the run's length.
fn thin(pts: &mut Vec<(f64, f64)>) {
    let half = pts.len() / 2;
    let start = pts.partition_point(|(t, _)| *t <= 0.0);
    let drop_at = |i: usize| i > 0 && i < pts.len() && pts[i].1 < pts[i - 1].1;
    let counter = (1..half).filter(|&i| drop_at(i)).count() <= MAX_RESETS;
    let reset = |i: usize| counter && drop_at(i);
    let keep: Vec<bool> = (0..pts.len())
        .map(|i| {
            i >= half || i % 2 == 0 || i == start || i + 1 == start || reset(i) || reset(i + 1)
        })
        .collect();
    let mut k = keep.iter();
    pts.retain(|_| *k.next().unwrap_or(&true));
}

/// The monitor's values over a run, by key ("status.Com_commit"): (t, value)
/// points in time order, thinned as `Keep` says, for deltas and rates over
/// any window.
#[derive(Default, Debug)]
pub struct Counters {
    map: HashMap<String, (Keep, Vec<(f64, f64)>)>,
}

impl Counters {
    /// Adds the value `v` of `key` at `t` seconds since measuring began;
    /// a point not after the key's last is dropped.
    pub fn push(&mut self, key: String, keep: Keep, t: f64, v: f64) {
        let (_, pts) = self.map.entry(key).or_insert_with(|| (keep, Vec::new()));
        if pts.last().is_some_and(|(lt, _)| *lt >= t) {
            return;
        }
        if keep == Keep::All && pts.len() >= MAX_POINTS {
            thin(pts);
        }
        if keep == Keep::Ends && pts.len() >= 4 {
            // [last before start, first after start, previous, latest]
            if pts[1].0 <= 0.0 {
                pts.remove(0);
            } else {
                pts.remove(2);
            }
        }
        pts.push((t, v));
    }

    /// Whether any point of `key` was kept.
    #[cfg(test)]
    pub fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    pub(crate) fn keys_with_prefix<'a>(
        &'a self,
        prefix: &'a str,
    ) -> impl Iterator<Item = &'a str> + 'a {
        self.map
            .keys()
            .filter(move |k| k.starts_with(prefix))
            .map(String::as_str)
    }

    /// The value at `t`, interpolated between the polls around it.
    pub fn at(&self, key: &str, t: f64) -> Option<f64> {
        let (_, pts) = self.map.get(key)?;
        let i = pts.partition_point(|(pt, _)| *pt < t);
        if i < pts.len() && (pts[i].0 - t).abs() < 1e-9 {
            return Some(pts[i].1);
        }
        if i == 0 || i == pts.len() {
            return None;
        }
        let ((t0, v0), (t1, v1)) = (pts[i - 1], pts[i]);
        Some(v0 + (v1 - v0) * (t - t0) / (t1 - t0))
    }

    /// How much a cumulative counter grew over [a, b]; None when it is not
    /// known at both ends or went down in between (a restart).
    pub fn delta(&self, key: &str, a: f64, b: f64) -> Option<f64> {
        let (va, vb) = (self.at(key, a)?, self.at(key, b)?);
        let (_, pts) = self.map.get(key)?;
        let lo = pts.partition_point(|(pt, _)| *pt <= a).saturating_sub(1);
        let hi = pts.partition_point(|(pt, _)| *pt < b).min(pts.len() - 1);
        let monotonic = pts[lo..=hi].windows(2).all(|w| w[1].1 >= w[0].1);
        (monotonic && vb >= va).then_some(vb - va)
    }

    /// The sum of deltas of several keys; None if any is unknown.
    pub(crate) fn delta_sum(&self, keys: &[&str], a: f64, b: f64) -> Option<f64> {
        keys.iter().map(|k| self.delta(k, a, b)).sum()
    }
}

/// Stored snapshots of one source as a table to export: the columns whose
/// name contains `filter` (case-insensitive), as values or, with `rate`,
/// per-second rates between consecutive snapshots (the first row dropped).
pub struct MetricView {
    /// The columns kept, in order.
    pub names: Vec<String>,
    /// (t, took_us, value per column)
    pub rows: Vec<(f64, u64, Vec<Option<f64>>)>,
}

/// The view of `tab` described above.
pub fn metric_view(
    tab: &crate::store::MetricTable,
    filter: Option<&str>,
    rate: bool,
) -> MetricView {
    let filter = filter.map(str::to_lowercase);
    let cols: Vec<usize> = (0..tab.names.len())
        .filter(|i| {
            filter
                .as_ref()
                .is_none_or(|f| tab.names[*i].to_lowercase().contains(f))
        })
        .collect();
    let mut rows = Vec::new();
    for (k, (t, took, vals)) in tab.rows.iter().enumerate() {
        if rate && k == 0 {
            continue;
        }
        let v: Vec<Option<f64>> = cols
            .iter()
            .map(|&i| {
                if !rate {
                    return vals[i];
                }
                let (tp, _, pv) = tab.rows.get(k.checked_sub(1)?)?;
                Some((vals[i]? - pv[i]?) / (t - tp))
            })
            .collect();
        rows.push((*t, *took, v));
    }
    MetricView {
        names: cols.iter().map(|&i| tab.names[i].clone()).collect(),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_series_is_thinned_but_keeps_its_start_ends_and_resets() {
        let mut c = Counters::default();
        // a counter from t = -3 to 2,000 s, reset (a restart) at t = 100
        for i in -3..2000 {
            let t = i as f64;
            let v = if i < 100 {
                1000.0 + 10.0 * t
            } else {
                10.0 * (t - 100.0)
            };
            c.push("k".into(), Keep::All, t, v);
        }
        let (_, pts) = &c.map["k"];
        assert!(pts.len() <= MAX_POINTS, "{}", pts.len());
        assert_eq!(c.at("k", 0.0), Some(1000.0));
        assert_eq!(c.delta("k", 0.0, 50.0), Some(500.0));
        assert_eq!(c.delta("k", 0.0, 1999.0), None, "spans the reset");
        assert_eq!(c.delta("k", 1990.0, 1999.0), Some(90.0));
    }

    #[test]
    fn a_gauge_stays_bounded_too() {
        let mut c = Counters::default();
        // Threads_running: up and down every second for 2 hours
        for i in 0..7200 {
            c.push("g".into(), Keep::All, i as f64, f64::from(i % 7));
        }
        let (_, pts) = &c.map["g"];
        assert!(pts.len() <= MAX_POINTS, "{}", pts.len());
        assert_eq!(c.at("g", 7199.0), Some(f64::from(7199 % 7)));
        assert_eq!(c.at("g", 0.0), Some(0.0), "the start is kept");
    }

    #[test]
    fn interpolates_and_refuses_resets() {
        let mut c = Counters::default();
        for (t, v) in [
            (0.0, 100.0),
            (1.0, 200.0),
            (2.0, 300.0),
            (3.0, 10.0),
            (4.0, 60.0),
        ] {
            c.push("q".into(), Keep::All, t, v);
        }
        assert_eq!(c.at("q", 0.5), Some(150.0));
        assert_eq!(c.delta("q", 0.5, 1.5), Some(100.0));
        assert_eq!(c.delta("q", 1.0, 3.5), None, "spans the reset");
        assert_eq!(c.delta("q", 3.0, 4.0), Some(50.0));
        assert_eq!(c.at("q", 5.0), None);
    }

    #[test]
    fn ends_keeps_the_start_and_the_latest() {
        let mut c = Counters::default();
        for t in -3..=10 {
            c.push("w".into(), Keep::Ends, t as f64, (t + 3) as f64 * 10.0);
        }
        assert_eq!(c.map["w"].1.len(), 4);
        assert_eq!(c.delta("w", 0.0, 10.0), Some(100.0));
    }
}
