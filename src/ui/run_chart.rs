//! Stored results as standalone charts (`qpslab chart`): a run's series
//! over time, a campaign's scalability.

use super::series::RunMetrics;
use crate::report::chart::Chart;
use crate::store::Store;
use anyhow::Context;

/// One series of a stored run as a chart over time: qps, tps, p95, p99,
/// or a stored counter's rate as source:name.
pub fn run_chart(store: &Store, id: i64, metric: &str) -> anyhow::Result<Chart> {
    let d = crate::lab::stored_run(store, id)?;
    let title = format!(
        "run {id}: {} × {}, {metric}",
        d.run.workload,
        crate::out::counted(d.run.threads, "user")
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

/// A campaign's scalability chart of its finished runs: qps, p95 or nopm by
/// concurrency, a line per series.
pub fn campaign_chart(store: &Store, id: i64, metric: &str) -> anyhow::Result<Chart> {
    let runs = store.list_runs(&crate::store::RunFilter {
        campaign: Some(id),
        status: Some("ok".into()),
        ..Default::default()
    })?;
    if runs.is_empty() {
        anyhow::bail!("campaign {id} has no finished runs (see `qpslab runs --campaign {id}`)");
    }
    match metric {
        "qps" => Ok(super::scalability_chart(&runs, super::Metric::Qps)),
        "p95" => Ok(super::scalability_chart(&runs, super::Metric::P95)),
        "nopm" => Ok(super::scalability_chart(&runs, super::Metric::Nopm)),
        m => anyhow::bail!("--metric '{m}' for a campaign: use qps, p95 or nopm (TPC-C)"),
    }
}
