//! analyze: what the measurements mean.
//!
//! Owns grouping runs into series (workload × label × variant) per
//! concurrency, with medians over repeats, the scalability table and the
//! ratio matrix (each variant's QPS relative to a reference variant, per
//! concurrency, with min / median / max), best-to-best, run-to-run
//! comparisons (Welch), latency spectra and percentile tables of
//! histograms, the monitor's per-run figures (efficiency per
//! query, IO classes, bottleneck hints) and live rates between snapshots.
//! It takes rows and snapshots and returns typed results; its only store
//! access is keeping and reading back the monitor's figures of a run
//! (`MonitorFigures::store`/`load`, one versioned serde struct); callers
//! pass everything else they read. report renders what it returns (text,
//! markdown, CSV, JSON, HTML).

pub mod agents_verdict;
pub mod bottleneck;
pub mod class_figures;
pub mod compare;
pub mod counter_diff;
pub mod counters;
pub mod dbt3_compare;
pub mod efficiency;
pub mod headline;
pub mod latency_spectrum;
pub mod limiter;
pub mod live_rates;
pub mod phase_figures;
pub mod run_figures;
pub mod spread;
pub use spread::median;
pub mod stability;
pub mod tpcc_figures;
pub mod usl;
pub mod variants;

pub use crate::store::RunRow;
use std::collections::BTreeMap;

/// One step's figures (a run of a sweep or the quickstart).
#[derive(Debug, Clone)]
pub struct StepFigures {
    /// Queries per second.
    pub qps: f64,
    /// Events (transactions) per second.
    pub tps: f64,
    /// 95th percentile event latency, ms.
    pub p95: f64,
    /// 99th percentile event latency, ms.
    pub p99: f64,
    /// Load threads' CPU µs per query.
    pub load_us: f64,
    /// NaN without the monitor.
    pub server_us: f64,
    /// The bottleneck verdict ("" without the monitor).
    pub hint: String,
    /// TPC-C's New-Orders per minute (NaN for other workloads).
    pub nopm: f64,
}

/// A series' figures at one concurrency: medians over its runs.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Cell {
    /// The median of the repeats' QPS.
    pub qps: f64,
    /// The repeats' QPS (median, min, max, count).
    pub qps_spread: spread::Spread,
    /// Each repeat's QPS, for intervals over repeats.
    #[serde(skip)]
    pub qps_runs: Vec<f64>,
    /// The median of the repeats' TPS.
    pub tps: f64,
    /// The median of the repeats' p95 latency, ms.
    pub p95_ms: f64,
    /// The repeats' p95 (for error bars).
    pub p95_spread: spread::Spread,
    /// The median of the repeats' p99 latency, ms.
    pub p99_ms: f64,
    /// How many runs (repeats) it pools.
    pub runs: usize,
    /// Medians of the monitor's figures (NaN without the monitor).
    pub server_us: f64,
    /// Load threads' CPU µs per query.
    pub load_us: f64,
    /// Host context switches per query.
    pub csw: f64,
    /// The most frequent bottleneck verdict among the runs.
    pub hint: String,
    /// Whether any of its runs was measured on a shared host (its verdict
    /// says "host shared": other processes took CPU).
    pub host_shared: bool,
    /// TPC-C's New-Orders per minute (NaN for other workloads).
    pub nopm: f64,
    /// The repeats' NOPM (median, min, max, count).
    pub nopm_spread: spread::Spread,
}

/// The verdict a point's repeats show in every table (sweep, scalability,
/// campaign page): the most frequent of their verdicts, the earliest
/// repeat's among equally frequent ones. `verdicts` in repeat order.
pub fn verdict_of_repeats(verdicts: Vec<&str>) -> String {
    mode(verdicts)
}

/// The legend line of the rule above, for the tables that show it.
pub const VERDICT_RULE: &str =
    "bottleneck: the most frequent verdict among the repeats (the earliest repeat's when they all differ)";

/// The most frequent value (the first among equals).
fn mode(v: Vec<&str>) -> String {
    let mut best = ("", 0);
    for x in &v {
        let n = v.iter().filter(|y| *y == x).count();
        if n > best.1 {
            best = (x, n);
        }
    }
    best.0.to_string()
}

pub(crate) type SeriesKey = (String, String, String);
/// (workload, threads, label): one point of a label's series.
pub type PointKey = (String, i64, String);
/// A series' cells by concurrency.
pub(crate) type Cells = BTreeMap<i64, Cell>;
/// workload → threads → label → (best QPS, variant that won).
pub type Best = BTreeMap<String, BTreeMap<i64, BTreeMap<String, (f64, String)>>>;

/// (workload, label, variant) → threads → cell.
pub fn series(runs: &[RunRow]) -> BTreeMap<SeriesKey, BTreeMap<i64, Cell>> {
    let mut groups: BTreeMap<SeriesKey, BTreeMap<i64, Vec<&RunRow>>> = BTreeMap::new();
    for r in runs
        .iter()
        .filter(|r| r.status == "ok" && r.workload != "monitor")
    {
        let key = (
            r.workload.clone(),
            r.label.clone().unwrap_or_default(),
            r.variant.clone().unwrap_or_default(),
        );
        groups
            .entry(key)
            .or_default()
            .entry(r.threads)
            .or_default()
            .push(r);
    }
    groups
        .into_iter()
        .map(|(k, by_threads)| {
            let cells = by_threads
                .into_iter()
                .map(|(t, rs)| {
                    let m = |f: fn(&RunRow) -> Option<f64>| {
                        median(&rs.iter().filter_map(|r| f(r)).collect::<Vec<_>>())
                    };
                    let qps_runs: Vec<f64> = rs.iter().filter_map(|r| r.qps).collect();
                    let p95s: Vec<f64> = rs.iter().filter_map(|r| r.lat_p95_ms).collect();
                    let nopms: Vec<f64> = rs.iter().filter_map(|r| r.nopm).collect();
                    let cell = Cell {
                        qps: m(|r| r.qps),
                        qps_spread: spread::Spread::of(&qps_runs),
                        qps_runs,
                        tps: m(|r| r.tps),
                        p95_ms: m(|r| r.lat_p95_ms),
                        p95_spread: spread::Spread::of(&p95s),
                        p99_ms: m(|r| r.lat_p99_ms),
                        runs: rs.len(),
                        server_us: m(|r| r.server_us_per_q),
                        load_us: m(|r| {
                            Some(crate::stats::us_per_query(r.load_cpu_s?, r.queries? as f64))
                        }),
                        csw: m(|r| r.csw_per_q),
                        hint: mode(rs.iter().filter_map(|r| r.hint.as_deref()).collect()),
                        host_shared: rs
                            .iter()
                            .any(|r| r.hint.as_deref().is_some_and(|h| h.contains("host shared"))),
                        nopm: m(|r| r.nopm),
                        nopm_spread: spread::Spread::of(&nopms),
                    };
                    (t, cell)
                })
                .collect();
            (k, cells)
        })
        .collect()
}

/// Runs from several campaigns or ad hoc runs are only pooled when they
/// ran the same workload options (data size included): where one series
/// (workload, label, variant) holds runs of different options, each
/// options set becomes its own series, its workload named with what
/// differs ("oltp_point_select [table_size=10000]"). Returns a line saying
/// what was pooled (None when the runs come from one campaign).
pub fn keep_apart(runs: &mut [RunRow]) -> Option<String> {
    let campaigns: std::collections::BTreeSet<Option<i64>> =
        runs.iter().map(|r| r.campaign_id).collect();
    let mut keys: BTreeMap<SeriesKey, Vec<Option<String>>> = BTreeMap::new();
    for r in runs.iter() {
        let k = (
            r.workload.clone(),
            r.label.clone().unwrap_or_default(),
            r.variant.clone().unwrap_or_default(),
        );
        let e = keys.entry(k).or_default();
        if !e.contains(&r.options_key) {
            e.push(r.options_key.clone());
        }
    }
    let mut split = 0;
    // What differs, worked out once per series and options set (it parses
    // the series' options: once per run was most of `best`'s list work at
    // a year of runs).
    let mut named: BTreeMap<(SeriesKey, Option<String>), String> = BTreeMap::new();
    for r in runs.iter_mut() {
        let k = (
            r.workload.clone(),
            r.label.clone().unwrap_or_default(),
            r.variant.clone().unwrap_or_default(),
        );
        let opts = &keys[&k];
        if opts.len() > 1 {
            split += 1;
            let diff = named
                .entry((k, r.options_key.clone()))
                .or_insert_with_key(|(_, mine)| options_difference(opts, mine));
            r.workload = format!("{} [{diff}]", r.workload);
        }
    }
    if campaigns.len() <= 1 {
        return None;
    }
    let names: Vec<String> = campaigns
        .iter()
        .map(|c| c.map_or("runs outside campaigns".into(), |c| format!("campaign {c}")))
        .collect();
    Some(format!(
        "pooled {} runs from {} (give --campaign ID for one){}",
        runs.len(),
        names.join(", "),
        if split > 0 {
            "; runs with other workload options are kept apart, named with what differs"
        } else {
            ""
        }
    ))
}

/// What `mine` sets differently from the other option sets of its
/// series: `table_size=10000,tables=4`, or `options 2` when nothing is
/// readable.
fn options_difference(all: &[Option<String>], mine: &Option<String>) -> String {
    let parse = |o: &Option<String>| -> serde_json::Map<String, serde_json::Value> {
        o.as_deref()
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or_default()
    };
    let me = parse(mine);
    let others: Vec<_> = all.iter().filter(|o| *o != mine).map(parse).collect();
    let diff: Vec<String> = me
        .iter()
        .filter(|(k, v)| others.iter().any(|o| o.get(*k) != Some(*v)))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if diff.is_empty() {
        let i = all.iter().position(|o| o == mine).unwrap_or(0) + 1;
        format!("options {i}")
    } else {
        diff.join(",")
    }
}

/// Best-to-best: for each workload, concurrency and series label, the best
/// median QPS over the label's variants and the variant that won; labels
/// in the order first seen (the first is the base of the ratios).
#[derive(Debug, Clone, Default)]
pub struct BestToBest {
    /// Series labels, in the order first seen.
    pub labels: Vec<String>,
    /// workload → threads → label → (best QPS, variant that won).
    pub best: Best,
    /// The winners' repeats: (workload, threads, label) → QPS of each.
    pub samples: BTreeMap<(String, i64, String), Vec<f64>>,
    /// Each label's every variant's repeats at each point, for the
    /// winner's margin: (workload, threads, label) → (variant, QPS of each).
    pub contenders: BTreeMap<PointKey, Vec<(String, Vec<f64>)>>,
    /// Points any of whose runs were measured on a shared host (other
    /// processes took CPU): (workload, threads, label).
    pub shared: std::collections::BTreeSet<(String, i64, String)>,
}

/// A winner's margin over the runner-up variant of its label.
#[derive(Debug, Clone)]
pub struct Margin {
    /// The runner-up variant.
    pub runner_up: String,
    /// The winner's median QPS over the runner-up's, with its interval.
    pub ratio: spread::RatioCell,
}

impl Margin {
    /// "vs off: 2.154 [1.902–2.401] *", "vs off: 2.154 (1 run)", or the
    /// interval with "within noise: no winner".
    pub fn text(&self) -> String {
        // "(1 run)" already says the spread is unknown; a measured one
        // that does not exclude 1 ± 5% names no winner.
        let verdict = if self.ratio.lo.is_some() && !self.ratio.significant() {
            " — within noise: no winner"
        } else {
            ""
        };
        format!("vs {}: {}{verdict}", self.runner_up, self.ratio.text())
    }
}

impl BestToBest {
    /// Label `l`'s best over the first label's at one point, with its
    /// interval over the two winners' repeats.
    pub fn ratio(&self, w: &str, th: i64, l: &str) -> Option<spread::RatioCell> {
        let base = self.labels.first()?;
        let get = |label: &str| self.samples.get(&(w.to_string(), th, label.to_string()));
        spread::ratio(get(l)?, get(base)?)
    }

    /// Label `l`'s winner at one point against its runner-up variant
    /// (None when the label has one variant there).
    pub fn margin(&self, w: &str, th: i64, l: &str) -> Option<Margin> {
        let key = (w.to_string(), th, l.to_string());
        let mut all: Vec<&(String, Vec<f64>)> = self.contenders.get(&key)?.iter().collect();
        if all.len() < 2 {
            return None;
        }
        all.sort_by(|a, b| spread::median(&b.1).total_cmp(&spread::median(&a.1)));
        Some(Margin {
            runner_up: all[1].0.clone(),
            ratio: spread::ratio(&all[0].1, &all[1].1)?,
        })
    }

    /// Whether any run of label `l`'s point was measured on a shared host.
    pub fn host_shared(&self, w: &str, th: i64, l: &str) -> bool {
        self.shared.contains(&(w.to_string(), th, l.to_string()))
    }
}

/// Each label's best variant per workload and concurrency, from the
/// stored runs (medians over repeats).
pub fn best_to_best(runs: &[RunRow]) -> BestToBest {
    let mut out = BestToBest::default();
    for ((w, l, v), cells) in &series(runs) {
        if !out.labels.contains(l) {
            out.labels.push(l.clone());
        }
        for (th, c) in cells {
            let slot = out
                .best
                .entry(w.clone())
                .or_default()
                .entry(*th)
                .or_default();
            if slot.get(l).is_none_or(|(q, _)| c.qps > *q) {
                slot.insert(l.clone(), (c.qps, v.clone()));
                out.samples
                    .insert((w.clone(), *th, l.clone()), c.qps_runs.clone());
            }
            let key = (w.clone(), *th, l.clone());
            if c.host_shared {
                out.shared.insert(key.clone());
            }
            out.contenders
                .entry(key)
                .or_default()
                .push((v.clone(), c.qps_runs.clone()));
        }
    }
    out
}

impl RatioMatrix {
    /// The slowdown form: the reference over each variant.
    pub fn inverted(mut self) -> RatioMatrix {
        for r in &mut self.rows {
            for c in r.ratios.iter_mut().flatten() {
                *c = c.inverted();
            }
        }
        for s in &mut self.summary {
            *s = (1.0 / s.2, 1.0 / s.1, 1.0 / s.0);
        }
        self
    }
}

/// One ratio matrix (a workload and label): per concurrency, each other
/// variant's median QPS over the reference variant's.
#[derive(Debug, Clone)]
pub struct RatioMatrix {
    /// The workload.
    pub workload: String,
    /// The series label.
    pub label: String,
    /// The variant the others are divided by.
    pub reference: String,
    /// The other variants, in the order they first ran.
    pub variants: Vec<String>,
    /// One row per concurrency, ascending.
    pub rows: Vec<RatioRow>,
    /// Per variant: (min, median, max) of its ratios.
    pub summary: Vec<(f64, f64, f64)>,
}

/// One concurrency of a ratio matrix.
#[derive(Debug, Clone)]
pub struct RatioRow {
    /// Concurrency.
    pub threads: i64,
    /// The reference variant's median QPS.
    pub reference_qps: f64,
    /// Per variant (as `RatioMatrix::variants`), with its interval over
    /// repeats; None where it did not run.
    pub ratios: Vec<Option<spread::RatioCell>>,
    /// Whether a run of the row (reference or variant) was measured on a
    /// shared host.
    pub host_shared: bool,
}

/// The widest ratio interval of a campaign's ratios to `reference`, as a
/// share of its ratio ((hi − lo) / ratio; infinite for a ratio with one
/// run on a side), with where it is; None when there is no ratio. What
/// `campaign run --until-interval` compares with its goal.
pub fn widest_ratio_interval(runs: &[RunRow], reference: &str) -> Option<(f64, String)> {
    let mut widest: Option<(f64, String)> = None;
    for m in ratio_matrices(runs, reference) {
        for row in &m.rows {
            for (v, cell) in m.variants.iter().zip(&row.ratios) {
                let Some(c) = cell else { continue };
                let width = match (c.lo, c.hi) {
                    (Some(lo), Some(hi)) if c.ratio > 0.0 => (hi - lo) / c.ratio,
                    _ => f64::INFINITY,
                };
                if widest.as_ref().is_none_or(|(w, _)| width > *w) {
                    let label = if m.label.is_empty() {
                        String::new()
                    } else {
                        format!(" on {}", m.label)
                    };
                    widest = Some((
                        width,
                        format!(
                            "{v} / {reference}, {}{label} at {}: {}",
                            m.workload,
                            crate::out::counted(row.threads, "user"),
                            c.text()
                        ),
                    ));
                }
            }
        }
    }
    widest
}

/// The ratio matrices of every workload and label that has `reference`.
pub fn ratio_matrices(runs: &[RunRow], reference: &str) -> Vec<RatioMatrix> {
    let s = series(runs);
    let mut groups: BTreeMap<(String, String), Vec<(&String, &Cells)>> = BTreeMap::new();
    for ((w, l, v), cells) in &s {
        groups
            .entry((w.clone(), l.clone()))
            .or_default()
            .push((v, cells));
    }
    let first_run = |v: &str| {
        runs.iter()
            .filter(|r| r.variant.as_deref() == Some(v))
            .map(|r| r.id)
            .min()
            .unwrap_or(i64::MAX)
    };
    let mut out = Vec::new();
    for ((w, l), variants) in groups {
        let Some(reference_cells) = variants
            .iter()
            .find(|(v, _)| v.as_str() == reference)
            .map(|(_, c)| *c)
        else {
            continue;
        };
        let mut others: Vec<_> = variants
            .iter()
            .filter(|(v, _)| v.as_str() != reference)
            .collect();
        others.sort_by_key(|(v, _)| first_run(v));
        let rows: Vec<RatioRow> = reference_cells
            .iter()
            .map(|(th, rc)| RatioRow {
                threads: *th,
                reference_qps: rc.qps,
                ratios: others
                    .iter()
                    .map(|(_, cells)| {
                        cells
                            .get(th)
                            .and_then(|c| spread::ratio(&c.qps_runs, &rc.qps_runs))
                    })
                    .collect(),
                host_shared: rc.host_shared
                    || others
                        .iter()
                        .any(|(_, cells)| cells.get(th).is_some_and(|c| c.host_shared)),
            })
            .collect();
        let summary = (0..others.len())
            .map(|i| {
                let col: Vec<f64> = rows
                    .iter()
                    .filter_map(|r| r.ratios[i].map(|c| c.ratio))
                    .collect();
                (
                    col.iter().cloned().fold(f64::NAN, f64::min),
                    median(&col),
                    col.iter().cloned().fold(f64::NAN, f64::max),
                )
            })
            .collect();
        out.push(RatioMatrix {
            workload: w,
            label: l,
            reference: reference.to_string(),
            variants: others.iter().map(|(v, _)| (*v).clone()).collect(),
            rows,
            summary,
        });
    }
    out
}

/// One concurrency's medians over its repeats.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StepMedians {
    /// Concurrency.
    pub threads: u32,
    /// Queries per second.
    pub qps: f64,
    /// Events (transactions) per second.
    pub tps: f64,
    /// 95th percentile event latency, ms.
    pub p95_ms: f64,
    /// 99th percentile event latency, ms.
    pub p99_ms: f64,
    /// Load threads' CPU µs per query.
    pub load_us_per_query: f64,
    /// Server CPU µs per query (None without the monitor).
    pub server_us_per_query: Option<f64>,
    /// The repeats' verdict (see `verdict_of_repeats`).
    pub bottleneck: String,
    /// How many repeats it pools.
    pub runs: usize,
    /// The repeats' QPS (median, min, max, count).
    pub qps_spread: spread::Spread,
    /// TPC-C's New-Orders per minute (None for other workloads).
    pub nopm: Option<f64>,
}

/// The runs and reference of a ratio: `ratio A B` (A relative to B, A and
/// B naming variants or labels) keeps those two series with B as the
/// reference; otherwise `reference` is the reference variant of a matrix.
pub fn ratio_runs(
    runs: &mut Vec<RunRow>,
    pair: (Option<&str>, Option<&str>),
    reference: Option<String>,
) -> Result<String, String> {
    match (pair, reference) {
        ((Some(a), Some(b)), _) => {
            keep_pair(runs, a, b);
            Ok(b.to_string())
        }
        (_, Some(r)) => Ok(r),
        _ => Err("give two series (`qpslab ratio A B`) or --reference VARIANT".into()),
    }
}

/// Keeps the runs of two series named `a` and `b` for a ratio: variants,
/// or labels when `b` names a label and no variant (then each run's label
/// becomes its series' variant).
pub(crate) fn keep_pair(runs: &mut Vec<RunRow>, a: &str, b: &str) {
    let by_label = runs.iter().any(|r| r.label.as_deref() == Some(b))
        && !runs.iter().any(|r| r.variant.as_deref() == Some(b));
    if by_label {
        for r in runs.iter_mut() {
            r.variant = r.label.take();
        }
    }
    runs.retain(|r| r.variant.as_deref() == Some(a) || r.variant.as_deref() == Some(b));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn different_options_are_kept_apart_and_pooling_is_said() {
        let row = |id, campaign, size: u32| RunRow {
            id,
            campaign_id: Some(campaign),
            workload: "oltp_point_select".into(),
            threads: 4,
            status: "ok".into(),
            qps: Some(1000.0),
            options_key: Some(format!("{{\"table_size\":{size},\"tables\":4}}")),
            ..Default::default()
        };
        let mut runs = vec![row(1, 1, 10000), row(2, 2, 10000), row(3, 3, 1000000)];
        let said = keep_apart(&mut runs).unwrap();
        assert!(
            said.contains("pooled 3 runs from campaign 1, campaign 2, campaign 3"),
            "{said}"
        );
        assert_eq!(runs[0].workload, "oltp_point_select [table_size=10000]");
        assert_eq!(runs[2].workload, "oltp_point_select [table_size=1000000]");
        assert_eq!(series(&runs).len(), 2);
        // One campaign, one options set: nothing to say, nothing renamed.
        let mut one = vec![row(1, 1, 10), row(2, 1, 10)];
        assert!(keep_apart(&mut one).is_none());
        assert_eq!(one[0].workload, "oltp_point_select");
    }
}
