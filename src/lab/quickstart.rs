//! The quickstart: every workload at every concurrency on fresh data, each
//! run recorded in one campaign. A failed or degraded step is recorded and
//! the next one runs (the server may have recovered); Ctrl-C ends it with
//! what was measured.

use super::data::{cleanup, prepare, ready};
use super::run::record_run;
use super::runtime::block_on;
use super::tags::RunTags;
use super::target::Target;
use crate::analyze::StepFigures;
use crate::exec::RunConfig;
use crate::monitor::MonitorConfig;
use crate::stats::RunStatus;
use crate::store::Store;
use crate::workload::{prepare::default_loaders, Family, PrepareReport, Workload};
use anyhow::Result;

/// What the quickstart runs.
pub struct QuickPlan<'a> {
    /// The server to run against.
    pub target: &'a Target,
    /// Where the campaign and its runs are recorded.
    pub store: &'a Store,
    /// Workloads run in order, each over every thread count.
    pub workloads: &'a [Workload],
    /// Client thread counts of the steps, in order.
    pub threads: &'a [u32],
    /// Recorded as the campaign's definition.
    pub definition: crate::campaign::SweepDefinition,
    /// The command line as it may be recorded (secrets removed).
    pub command_line: String,
}

/// One step as it ends.
pub struct QuickStep<'a> {
    pub workload: Workload,
    pub threads: u32,
    pub figures: StepFigures,
    pub status: &'a RunStatus,
}

pub struct QuickOutcome {
    pub campaign: i64,
    /// 0; 1 or 3 when a step failed or was degraded; 130 on Ctrl-C.
    pub code: i32,
}

/// Drops and loads `data` so that every step starts from the same tables.
pub fn fresh_data(t: &Target, data: &dyn Family) -> Result<PrepareReport> {
    cleanup(t, data, |_| {})?;
    prepare(t, data, default_loaders(), &mut |_| {})
}

/// Runs every workload at every concurrency; `config_for` gives a step's
/// run and monitor configuration, `on_start` and `on_step` see each step
/// begin and end.
pub fn quickstart(
    plan: &QuickPlan,
    config_for: impl Fn(Workload, u32) -> Result<(RunConfig, Option<MonitorConfig>)>,
    mut on_start: impl FnMut(Workload, u32),
    mut on_step: impl FnMut(&QuickStep),
) -> Result<QuickOutcome> {
    let _ctrl_c = crate::exec::Cooperative::enter();
    let campaign = plan.store.create_campaign(
        "quickstart",
        "sweep",
        &serde_json::to_string(&plan.definition)?,
    )?;
    let mut code = 0;
    for &w in plan.workloads {
        for &th in plan.threads {
            let (cfg, mon) = config_for(w, th)?;
            let env = block_on(ready(plan.target, cfg.workload.as_ref()))??;
            let tags = RunTags {
                label: Some("quickstart".into()),
                campaign_id: Some(campaign),
                point_hash: Some(format!("{}:{th}", w.name())),
                command_line: plan.command_line.clone(),
                ..Default::default()
            };
            on_start(w, th);
            let rec = record_run(plan.store, &cfg, mon, &env, &tags, None)?;
            let status = &rec.result.status;
            if matches!(status, RunStatus::Failed(_) | RunStatus::Degraded(_)) && code != 1 {
                code = status.exit_code();
            }
            on_step(&QuickStep {
                workload: w,
                threads: th,
                figures: rec.step_figures(),
                status,
            });
            if matches!(status, RunStatus::Aborted(_)) {
                return Ok(QuickOutcome {
                    campaign,
                    code: 130,
                });
            }
        }
    }
    Ok(QuickOutcome { campaign, code })
}
