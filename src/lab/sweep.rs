//! A sweep: one recorded run per concurrency and repeat, all in one
//! campaign, repeats in rounds (every concurrency once, then again), with
//! a cooldown between runs and a campaign's pre-flight check of the host
//! before each round (kept with the round's runs, so the sweep's page
//! shows its measurement conditions); then each concurrency's medians over
//! its repeats. Ctrl-C (during a run or a cooldown) ends it with what
//! was measured; a failed step ends it; a degraded one does not.

use super::environment_capture::Environment;
use super::run::{record_step, StepRun};
use super::tags::RunTags;
use crate::analyze::{median, StepFigures, StepMedians};
use crate::stats::RunStatus;
use crate::store::Store;
use anyhow::Result;
use std::time::Duration;

/// What a sweep runs.
pub struct SweepPlan<'a> {
    /// The server the sweep measures.
    pub env: &'a Environment,
    /// Where the sweep's runs are recorded.
    pub store: &'a Store,
    /// The sweep's campaign (see `Store::create_campaign`).
    pub campaign: i64,
    /// The workload's name.
    pub workload: &'a str,
    /// Client thread counts, one step each, in order.
    pub threads: &'a [u32],
    /// Runs per step (at least 1); the step's figures are their medians.
    pub repeat: u32,
    /// Seconds of idle between two runs.
    pub cooldown: f64,
    /// Label, variant and command line of every run.
    pub tags: RunTags,
}

/// Records a new sweep of `workload` (a campaign of kind "sweep") with its
/// definition; returns its id.
pub fn new_sweep(
    store: &Store,
    workload: &str,
    definition: &crate::campaign::SweepDefinition,
) -> Result<i64> {
    store.create_campaign(
        &format!("sweep {workload}"),
        "sweep",
        &serde_json::to_string(definition)?,
    )
}

/// A step as it ends.
pub struct Step<'a> {
    pub threads: u32,
    pub repeat: u32,
    pub run_id: i64,
    pub figures: &'a StepFigures,
    pub status: &'a RunStatus,
    /// On a round's first step: its pre-flight check, as a line to say
    /// before the step's (the check is kept with every run of the round).
    pub preflight: Option<&'a str>,
}

pub struct SweepOutcome {
    pub medians: Vec<StepMedians>,
    /// With `--profile`: the lock family limiting the sweep's scaling,
    /// with its share per step (analyze::limiter::of_sweep).
    pub limiter: Option<String>,
    /// 0 ok, 3 if a step was degraded, the failing step's code, or 130.
    pub code: i32,
}

/// Runs the plan; `config_for(threads)` gives each step's run and monitor
/// configuration (and its agents, greeted anew for each step), `on_step`
/// sees each step as it ends.
pub fn sweep(
    plan: &SweepPlan,
    config_for: impl Fn(u32) -> Result<StepRun>,
    mut on_step: impl FnMut(&Step),
) -> Result<SweepOutcome> {
    let mut steps: Vec<(u32, Vec<StepFigures>)> = Vec::new();
    let mut code = 0;
    // each concurrency's last profiled repeat: (threads, QPS, lock shares)
    let mut locks: Vec<(u32, f64, crate::analyze::limiter::LockShares)> = Vec::new();
    let _ctrl_c = crate::exec::Cooperative::enter();
    for &th in plan.threads {
        steps.push((th, Vec::new()));
    }
    // Repeats are rounds, as a campaign's: every concurrency once, then
    // again, so slow drift of the host lands on every step alike.
    let mut first = true;
    'steps: for rep in 1..=plan.repeat {
        // As a campaign's rounds: how quiet the host is, kept with each
        // run of the round and said before its first step.
        let noise = super::preflight::host_noise();
        let noise_line = super::preflight::describe(rep, &noise);
        for (i, &th) in plan.threads.iter().enumerate() {
            let cooled = first
                || plan.cooldown <= 0.0
                || crate::exec::sleep_unless_interrupted(Duration::from_secs_f64(plan.cooldown));
            first = false;
            if !cooled || crate::exec::interrupted() {
                code = 130;
                break 'steps;
            }
            let (cfg, mon, profile, agents) = config_for(th)?;
            let tags = RunTags {
                campaign_id: Some(plan.campaign),
                point_hash: Some(format!("{}:{th}:{rep}", plan.workload)),
                preflight: Some(noise.clone()),
                ..plan.tags.clone()
            };
            let step = (&cfg, mon, profile.as_ref(), agents.as_ref());
            let rec = record_step(plan.store, step, plan.env, &tags)?;
            if let Some(l) = &rec.locks {
                locks.retain(|(t, _, _)| *t != th);
                locks.push((th, rec.result.qps(), l.clone()));
            }
            let r = &rec.result;
            let fig = rec.step_figures();
            on_step(&Step {
                threads: th,
                repeat: rep,
                run_id: rec.run_id,
                figures: &fig,
                status: &r.status,
                preflight: (i == 0).then_some(noise_line.as_str()),
            });
            steps[i].1.push(fig);
            match r.status {
                RunStatus::Ok => {}
                // The server came back: the next steps can still measure.
                RunStatus::Degraded(_) => code = code.max(3),
                RunStatus::Failed(_) | RunStatus::Aborted(_) => {
                    code = r.status.exit_code();
                    break 'steps;
                }
            }
        }
    }
    let medians = steps
        .iter()
        .filter(|(_, figs)| !figs.is_empty())
        .map(|(th, figs)| {
            let m = |f: fn(&StepFigures) -> f64| median(&figs.iter().map(f).collect::<Vec<_>>());
            let srv = m(|f| f.server_us);
            StepMedians {
                threads: *th,
                qps: m(|f| f.qps),
                tps: m(|f| f.tps),
                p95_ms: m(|f| f.p95),
                p99_ms: m(|f| f.p99),
                load_us_per_query: m(|f| f.load_us),
                server_us_per_query: (!srv.is_nan()).then_some(srv),
                bottleneck: crate::analyze::verdict_of_repeats(
                    figs.iter().map(|f| f.hint.as_str()).collect(),
                ),
                runs: figs.len(),
                qps_spread: crate::analyze::spread::Spread::of(
                    &figs.iter().map(|f| f.qps).collect::<Vec<_>>(),
                ),
                nopm: Some(m(|f| f.nopm)).filter(|n| !n.is_nan()),
            }
        })
        .collect();
    Ok(SweepOutcome {
        medians,
        limiter: crate::analyze::limiter::of_sweep(&locks),
        code,
    })
}
