//! What exporting stored runs needs (`qpslab export`): each run's detail
//! with its samples, the monitor's SHOW GLOBAL STATUS snapshots, its
//! latency histogram and when its last sample ended. Reads only; the
//! rendering is report::openmetrics'.

use crate::stats::Hist;
use crate::store::{MetricTable, RunDetail, RunFilter, Store};
use anyhow::{Context, Result};

/// One run's exportable data.
pub struct ExportData {
    /// The run with its samples.
    pub detail: RunDetail,
    /// SHOW GLOBAL STATUS as the monitor recorded it; None without one.
    pub status: Option<MetricTable>,
    /// All events' latency; None for a run that did not end normally.
    pub latency: Option<Hist>,
    /// When it ended (its last sample), seconds since the Unix epoch.
    pub end_unix: f64,
}

/// The runs `ids`, or every finished run of `campaign` (its host tests
/// included), oldest first.
pub fn export_data(store: &Store, ids: &[i64], campaign: Option<i64>) -> Result<Vec<ExportData>> {
    let ids: Vec<i64> = match campaign {
        Some(c) => store
            .list_runs(&RunFilter {
                campaign: Some(c),
                host_tests: true,
                ..RunFilter::default()
            })?
            .into_iter()
            .filter(|r| r.status != "running")
            .map(|r| r.id)
            .collect(),
        None => ids.to_vec(),
    };
    if ids.is_empty() {
        anyhow::bail!("no finished run to export (see `qpslab runs`)");
    }
    ids.iter().map(|id| one(store, *id)).collect()
}

fn one(store: &Store, id: i64) -> Result<ExportData> {
    let detail = super::record::stored_run(store, id)?;
    let ended = detail
        .ended_at
        .clone()
        .with_context(|| format!("run {id} has not ended: export it once it has"))?;
    let end_unix = ended
        .parse::<jiff::Timestamp>()
        .map(|t| t.as_microsecond() as f64 / 1e6)
        .with_context(|| format!("run {id}'s end time '{ended}' is not a time"))?;
    let has_status = store
        .metric_sources(id)?
        .iter()
        .any(|(s, n)| s == "status" && *n > 0);
    let status = if has_status {
        Some(store.metric_table(id, "status")?)
    } else {
        None
    };
    Ok(ExportData {
        latency: store.run_histograms(id)?.all,
        detail,
        status,
        end_unix,
    })
}
