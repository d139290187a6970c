//! One run, as `qpslab run` does it: the load with the monitor beside it,
//! recorded in the store when one is given. A store that fails during or
//! after the run never loses the measurement: the result comes back with
//! the store's error beside it.

use super::record::{Recorder, RunTags};
use super::watch::run_watched;
use super::Environment;
use crate::analyze::run_figures::MonitorFigures;
use crate::exec::RunConfig;
use crate::monitor::MonitorConfig;
use crate::stats::{RunResult, Sample};
use crate::store::Store;
use anyhow::Result;

/// What one run needs besides its configuration.
pub struct RunPlan<'a> {
    pub env: &'a Environment,
    pub mon: Option<MonitorConfig>,
    /// Record here; None: measure only.
    pub store: Option<&'a Store>,
    pub tags: RunTags,
    /// Percentiles stored in the run's summary.
    pub pcts: &'a [f64],
}

pub struct SingleRun {
    pub result: RunResult,
    pub figures: Option<MonitorFigures>,
    /// The run's id, only when it is wholly in the store.
    pub run_id: Option<i64>,
    /// What could not be stored (the run was measured all the same).
    pub store_error: Option<String>,
}

/// Runs `cfg` under `plan`; `on_sample` sees each interval as it ends.
pub fn run_once(
    cfg: &RunConfig,
    plan: RunPlan,
    mut on_sample: impl FnMut(&Sample),
) -> Result<SingleRun> {
    let mut rec = plan
        .store
        .map(|s| Recorder::begin(s, cfg, plan.env, &plan.tags))
        .transpose()?;
    let sink = plan.store.zip(rec.as_ref().map(|r| r.run_id));
    let (result, figures) = run_watched(cfg, plan.mon, sink, |s| {
        if let Some(rec) = rec.as_mut() {
            rec.sample(s);
        }
        on_sample(s);
    });
    let store_error = rec
        .as_ref()
        .and_then(|rec| rec.finish(cfg, &result, plan.pcts, figures.as_ref()).err());
    let run_id = rec
        .as_ref()
        .map(|r| r.run_id)
        .filter(|_| store_error.is_none());
    Ok(SingleRun {
        result,
        figures,
        run_id,
        store_error,
    })
}
