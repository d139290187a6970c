//! A stored run's series as a standalone chart (`qpslab chart RUN`).

use super::series::RunMetrics;
use crate::report::chart::Chart;
use crate::store::Store;

/// One series of a stored run as a chart over time: qps, tps, p95, p99,
/// or a stored counter's rate as source:name.
pub fn run_chart(store: &Store, id: i64, metric: &str) -> anyhow::Result<Chart> {
    use anyhow::Context;
    let d = store
        .run_detail(id)?
        .with_context(|| format!("no run {id} in the store (see `qpslab runs`)"))?;
    let title = format!(
        "run {id}: {} × {} users, {metric}",
        d.run.workload, d.run.threads
    );
    let mut c = Chart::new(&title, "seconds", metric);
    let s = &d.samples;
    let pts: Vec<(f64, f64)> = match metric {
        "qps" => s.iter().filter_map(|x| Some((x.t, x.qps()?))).collect(),
        "tps" => s.iter().filter_map(|x| Some((x.t, x.tps()?))).collect(),
        "p95" => s
            .iter()
            .filter_map(|x| Some((x.t, x.lat_p95_ms?)))
            .collect(),
        "p99" => s
            .iter()
            .filter_map(|x| Some((x.t, x.lat_p99_ms?)))
            .collect(),
        m => {
            let (source, name) = m
                .split_once(':')
                .with_context(|| format!("--metric '{m}': use qps, tps, p95, p99 or source:name (see `qpslab metrics {id}`)"))?;
            RunMetrics::load(store, id)?.rate(source, name, 1.0)
        }
    };
    c.add(metric, pts);
    Ok(c)
}
