//! Time series for charts from the monitor's stored snapshots: per-second
//! rates of counters (gaps and counter resets left out), gauges as they
//! are, thinned to a number of points a page can draw quickly.

use crate::analyze::counters::{Counters, Keep};
use crate::analyze::efficiency::{self, CpuSplit};
use crate::store::{MetricTable, Store};
use std::collections::HashMap;

/// Most points drawn per series; longer series are averaged in buckets.
pub const MAX_POINTS: usize = 1200;

/// Averages consecutive points into at most `MAX_POINTS` buckets.
pub fn thin(p: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    if p.len() <= MAX_POINTS {
        return p;
    }
    let per = p.len().div_ceil(MAX_POINTS);
    p.chunks(per)
        .map(|c| {
            let n = c.len() as f64;
            (
                c.iter().map(|x| x.0).sum::<f64>() / n,
                c.iter().map(|x| x.1).sum::<f64>() / n,
            )
        })
        .collect()
}

/// A run's snapshots, decoded once per source (`default()`: none).
#[derive(Default)]
pub(crate) struct RunMetrics {
    tables: HashMap<String, MetricTable>,
}

impl RunMetrics {
    pub fn load(store: &Store, run: i64) -> anyhow::Result<RunMetrics> {
        let mut tables = HashMap::new();
        for (source, _) in store.metric_sources(run)? {
            let t = store.metric_table(run, &source)?;
            tables.insert(source, t);
        }
        Ok(RunMetrics { tables })
    }

    pub fn has(&self, source: &str) -> bool {
        self.tables.contains_key(source)
    }

    pub fn names(&self, source: &str) -> Vec<&str> {
        self.tables
            .get(source)
            .map(|t| t.names.iter().map(String::as_str).collect())
            .unwrap_or_default()
    }

    fn col(&self, source: &str, name: &str) -> Option<(&MetricTable, usize)> {
        let t = self.tables.get(source)?;
        Some((t, t.names.iter().position(|n| n == name)?))
    }

    /// A gauge: (t, value) as polled, times `scale`.
    pub fn gauge(&self, source: &str, name: &str, scale: f64) -> Vec<(f64, f64)> {
        let Some((t, i)) = self.col(source, name) else {
            return vec![];
        };
        thin(
            t.rows
                .iter()
                .filter_map(|(ts, _, v)| Some((*ts, v[i]? * scale)))
                .collect(),
        )
    }

    /// A counter's rate per second between polls, times `scale`.
    /// The sum of several counters' rates (those the source has), point by
    /// point: they come from the same snapshots, so their times match.
    pub fn rate_sum(&self, source: &str, names: &[&str], scale: f64) -> Vec<(f64, f64)> {
        let mut parts = names
            .iter()
            .map(|n| self.rate(source, n, scale))
            .filter(|r| !r.is_empty());
        let mut total = parts.next().unwrap_or_default();
        for p in parts {
            for ((t, v), (tp, vp)) in total.iter_mut().zip(p) {
                if *t == tp {
                    *v += vp;
                }
            }
        }
        total
    }

    pub fn rate(&self, source: &str, name: &str, scale: f64) -> Vec<(f64, f64)> {
        let Some((t, i)) = self.col(source, name) else {
            return vec![];
        };
        let mut out = Vec::with_capacity(t.rows.len());
        let mut prev: Option<(f64, f64)> = None;
        for (ts, _, v) in &t.rows {
            let Some(x) = v[i] else {
                prev = None;
                continue;
            };
            if let Some((pt, pv)) = prev {
                if *ts > pt && x >= pv {
                    out.push((*ts, (x - pv) / (ts - pt) * scale));
                }
            }
            prev = Some((*ts, x));
        }
        thin(out)
    }

    /// The host CPU split (server, client, other, idle, iowait, steal) per
    /// interval between CPU polls, from the raw snapshots: for runs still
    /// going and monitor sessions, which have no derived figures stored.
    pub fn cpu_split(&self) -> Vec<(f64, CpuSplit)> {
        let mut c = Counters::default();
        for (source, table) in &self.tables {
            if !matches!(source.as_str(), "cpu" | "server_proc" | "client_proc") {
                continue;
            }
            for (i, name) in table.names.iter().enumerate() {
                if efficiency::keep(source, name).is_none() {
                    continue;
                }
                for (t, _, v) in &table.rows {
                    if let Some(v) = v[i] {
                        c.push(format!("{source}.{name}"), Keep::All, *t, v);
                    }
                }
            }
        }
        let times: Vec<f64> = self
            .tables
            .get("cpu")
            .map(|t| t.rows.iter().map(|r| r.0).collect())
            .unwrap_or_default();
        times
            .windows(2)
            .filter_map(|w| Some((w[1], CpuSplit::over(&c, w[0], w[1])?)))
            .collect()
    }

    /// Names of `source` whose counter grew the most over the run
    /// (for top-N charts), with their growth.
    pub(crate) fn top_growth(
        &self,
        source: &str,
        suffix: &str,
        skip: &[&str],
        n: usize,
    ) -> Vec<(String, f64)> {
        let Some(t) = self.tables.get(source) else {
            return vec![];
        };
        let (Some(first), Some(last)) = (t.rows.first(), t.rows.last()) else {
            return vec![];
        };
        let mut g: Vec<(String, f64)> = t
            .names
            .iter()
            .enumerate()
            .filter(|(_, name)| name.ends_with(suffix) && !skip.iter().any(|s| name.starts_with(s)))
            .filter_map(|(i, name)| Some((name.clone(), last.2[i]? - first.2[i].unwrap_or(0.0))))
            .filter(|(_, d)| *d > 0.0)
            .collect();
        g.sort_by(|a, b| b.1.total_cmp(&a.1));
        g.truncate(n);
        g
    }
}

#[cfg(test)]
mod tests {
    use super::thin;

    #[test]
    fn thinning_keeps_the_shape() {
        let p: Vec<(f64, f64)> = (0..3600).map(|i| (i as f64, 5.0)).collect();
        let t = thin(p);
        assert!(t.len() <= super::MAX_POINTS);
        assert!(t.iter().all(|(_, v)| *v == 5.0));
    }
}
