//! Stored results as standalone charts (`qpslab chart`): a run's series
//! over time, its statements' latency over time, a campaign's
//! scalability; latency spectra are `latency_overlay`'s.

use super::series::RunMetrics;
use crate::report::chart::Chart;
use crate::report::latency_charts::{statement_chart, StatementFigure};
use crate::store::Store;
use anyhow::Context;

/// One series of a stored run as a chart over time: qps, tps, p95, p99,
/// or a stored counter's rate as source:name; its latency spectrum
/// (`spectrum`); each statement's p95 or p99 over time (`statement-p95`,
/// `statement-p99`).
pub fn run_chart(store: &Store, id: i64, metric: &str) -> anyhow::Result<Chart> {
    if metric == "spectrum" {
        return super::latency_overlay::runs_spectrum_chart(store, &[id]);
    }
    let d = crate::lab::stored_run(store, id)?;
    if let Some(figure) = statement_figure(metric) {
        let rows = store.statement_samples(id)?;
        if rows.is_empty() {
            anyhow::bail!("run {id} has no per-interval statement latency (runs recorded before qpslab kept it have none; --metric spectrum draws its stored histograms)");
        }
        let title = format!(
            "run {id}: latency per statement over time, {}",
            figure.label()
        );
        let order: Vec<String> = d.statements.iter().map(|s| s.statement.clone()).collect();
        return Ok(statement_chart(&title, &rows, figure, &order));
    }
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
                .with_context(|| format!("--metric '{m}': use qps, tps, p95, p99, spectrum, statement-p95, statement-p99 or source:name (see `qpslab metrics {id}`)"))?;
            RunMetrics::load(store, id)?.rate(source, name, 1.0)
        }
    };
    c.add(metric, pts);
    Ok(c)
}

/// Which statement figure `--metric` names, if it names one.
fn statement_figure(metric: &str) -> Option<StatementFigure> {
    match metric {
        "statement-p95" => Some(StatementFigure::P95),
        "statement-p99" => Some(StatementFigure::P99),
        _ => None,
    }
}

/// A campaign's scalability chart of its finished runs: qps, p95 or nopm by
/// concurrency, a line per series; or (`spectrum`) the latency spectrum
/// per series at `threads` users (default: the highest).
pub fn campaign_chart(
    store: &Store,
    id: i64,
    metric: &str,
    threads: Option<i64>,
) -> anyhow::Result<Chart> {
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
        "spectrum" => super::latency_overlay::campaign_spectrum(store, &runs, threads)?
            .with_context(|| match threads {
                Some(n) => format!(
                    "campaign {id} has no finished run with {n} users and a stored histogram"
                ),
                None => format!("campaign {id} has no finished run with a stored histogram"),
            }),
        m => anyhow::bail!("--metric '{m}' for a campaign: use qps, p95, nopm (TPC-C) or spectrum"),
    }
}
