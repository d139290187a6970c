//! One run: the load with the monitor beside it, recorded in the store
//! when one is given (`run_once`, as `qpslab run` does it: a store that
//! fails never loses the measurement, its error comes back beside the
//! result), or recorded as a step of a sweep, campaign or the quickstart
//! (`record_run`: a store failure stops them, saying what was measured).

use super::environment_capture::Environment;
use super::profiling::ProfilePlan;
use super::record::Recorder;
use super::runtime::query_number;
use super::tags::RunTags;
use super::watch::run_watched;
use crate::analyze::limiter::Profiled;
use crate::analyze::run_figures::MonitorFigures;
use crate::analyze::StepFigures;
use crate::exec::RunConfig;
use crate::monitor::MonitorConfig;
use crate::stats::document::{ProfileSummary, RunDocument};
use crate::stats::{RunResult, Sample};
use crate::store::Store;
use anyhow::Result;
use serde_json::Value;

/// What one run needs besides its configuration.
pub struct RunPlan<'a> {
    /// The server the run measures, stored with it.
    pub env: &'a Environment,
    /// Monitor the server during the run; None: no monitor.
    pub mon: Option<MonitorConfig>,
    /// Record here; None: measure only.
    pub store: Option<&'a Store>,
    /// Label, variant, campaign and command line the run is recorded with.
    pub tags: RunTags,
    /// Percentiles stored in the run's summary.
    pub pcts: &'a [f64],
    /// Profile the server during the run.
    pub profile: Option<&'a ProfilePlan>,
    /// Drive the load from these agents; None: from this process.
    pub agents: Option<&'a super::agent::Fleet>,
}

/// What one run gave: its result, what the monitor and profiler drew
/// from it, and whether it is in the store.
pub struct SingleRun {
    pub result: RunResult,
    /// `--profile`: what each kind gathered (kept in the store with the
    /// run) and the lock shares drawn from it.
    pub profile: Option<Profiled>,
    pub figures: Option<MonitorFigures>,
    /// The run's id, only when it is wholly in the store.
    pub run_id: Option<i64>,
    /// What could not be stored (the run was measured all the same).
    pub store_error: Option<String>,
}

/// The longest a recording on the server's host's agent is kept there
/// if the controller never stops it: the run's planned length and a
/// minute, a day without one.
fn profile_limit(cfg: &RunConfig) -> f64 {
    if cfg.time > 0.0 {
        cfg.warmup + cfg.time + 60.0
    } else {
        86_400.0
    }
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
    // The profile beside the load, from before its connections open to
    // after its end.
    let session = plan
        .profile
        .map(|p| super::profiling::begin(p, Some(&cfg.conn), cfg.threads, profile_limit(cfg)));
    let tally_sql = cfg.workload.server_tally();
    let before = tally_sql.as_ref().and_then(|(sql, _)| read_tally(cfg, sql));
    super::live_feed::begin_run(cfg, plan.env, &plan.tags, rec.as_ref().map(|r| r.run_id));
    let (mut result, figures, monitor_store_error) =
        run_watched(cfg, plan.mon, sink, plan.agents, |s| {
            if let Some(rec) = rec.as_mut() {
                rec.sample(s);
            }
            super::live_feed::sample(s);
            on_sample(s);
        });
    super::live_feed::end_run();
    if let (Some((sql, class)), Some(before)) = (&tally_sql, before) {
        if let Some(after) = read_tally(cfg, sql) {
            let client = result
                .samples
                .iter()
                .map(|s| s.iv.classes.get(*class).copied().unwrap_or(0))
                .sum();
            result.server_tally = Some(crate::stats::Tally {
                class: cfg
                    .workload
                    .event_classes()
                    .get(*class)
                    .cloned()
                    .unwrap_or_default(),
                server: after - before,
                client,
            });
        }
    }
    let profile = session.zip(plan.profile).map(|(s, p)| {
        // every interval's queries, warm-up too: the profile spans them all
        let queries = result.samples.iter().map(|s| s.iv.queries()).sum();
        super::profiling::end(s, p.hz, cfg.threads, Some(queries))
    });
    let mut figures = figures;
    if let (Some(f), Some(locks)) = (
        figures.as_mut(),
        profile.as_ref().and_then(|p| p.locks.as_ref()),
    ) {
        if let Some(hint) = f.bottleneck.as_mut() {
            crate::analyze::bottleneck::name_limiter(hint, locks);
        }
    }
    let mut profile_store_error = None;
    if let (Some(store), Some(rec), Some(p)) = (plan.store, rec.as_ref(), profile.as_ref()) {
        if let Err(e) = super::profiling::keep(store, rec.run_id, p) {
            profile_store_error = Some(format!("storing the profile: {e:#}"));
        }
    }
    if let Some(rules) = cfg.workload.class_rules() {
        result.headline = Some(crate::analyze::headline::headline(
            &result,
            cfg.threads,
            &rules,
        ));
    }
    let store_error = rec
        .as_ref()
        .and_then(|rec| rec.finish(cfg, &result, plan.pcts, figures.as_ref()).err())
        .or(profile_store_error)
        .or(monitor_store_error);
    let run_id = rec
        .as_ref()
        .map(|r| r.run_id)
        .filter(|_| store_error.is_none());
    Ok(SingleRun {
        result,
        profile,
        figures,
        run_id,
        store_error,
    })
}

/// The family's server-side tally now.
fn read_tally(cfg: &RunConfig, sql: &str) -> Option<i64> {
    query_number(&cfg.conn, sql).map(|v| v as i64)
}

/// How one sweep step or campaign point runs: its configuration, its
/// monitor, its profile, and the agents that drive it (None: this
/// process).
pub type StepRun = (
    RunConfig,
    Option<MonitorConfig>,
    Option<ProfilePlan>,
    Option<super::agent::Fleet>,
);

/// Runs `cfg` and records it: the usual path of sweeps, campaigns and the
/// quickstart.
pub(crate) fn record_run(
    store: &Store,
    cfg: &RunConfig,
    mon: Option<MonitorConfig>,
    env: &Environment,
    tags: &RunTags,
    profile: Option<&ProfilePlan>,
) -> Result<Recorded> {
    record_step(store, (cfg, mon, profile, None), env, tags)
}

/// As `record_run`, the load from `agents` when given (a sweep's step, a
/// campaign's point).
pub(crate) fn record_step(
    store: &Store,
    (cfg, mon, profile, agents): (
        &RunConfig,
        Option<MonitorConfig>,
        Option<&ProfilePlan>,
        Option<&super::agent::Fleet>,
    ),
    env: &Environment,
    tags: &RunTags,
) -> Result<Recorded> {
    let plan = RunPlan {
        env,
        mon,
        store: Some(store),
        tags: tags.clone(),
        pcts: &[50.0, 95.0, 99.0, 99.9],
        profile,
        agents,
    };
    let SingleRun {
        result,
        profile,
        figures,
        run_id,
        store_error,
    } = run_once(cfg, plan, |_| {})?;
    match (run_id, store_error) {
        (Some(run_id), None) => Ok(Recorded {
            result,
            run_id,
            figures,
            locks: profile.and_then(|p| p.locks),
        }),
        // Sweeps and campaigns stop here: the next points could not be kept
        // either. What this one measured is said before stopping.
        (_, e) => anyhow::bail!(
            "{}; the run measured {:.2} tps, {:.2} qps, p95 {:.2} ms, status {}; free space (or pass --store elsewhere) and rerun",
            e.unwrap_or_default(),
            result.tps(),
            result.qps(),
            result.total.hist.quantile_ms(0.95),
            result.status.word()
        ),
    }
}

/// A recorded run: its result, id, and the monitor's figures (if it ran).
pub struct Recorded {
    pub result: RunResult,
    pub run_id: i64,
    pub figures: Option<MonitorFigures>,
    /// Lock shares, when the run was profiled.
    pub locks: Option<crate::analyze::limiter::LockShares>,
}

impl Recorded {
    /// The run's figures as a step of a sweep or the quickstart (server
    /// µs/query NaN and no bottleneck verdict without the monitor).
    pub(crate) fn step_figures(&self) -> StepFigures {
        let (server_us, hint) = match &self.figures {
            Some(f) => (
                f.efficiency.server_cpu_us_per_query.unwrap_or(f64::NAN),
                f.verdict().to_string(),
            ),
            None => (f64::NAN, String::new()),
        };
        let r = &self.result;
        StepFigures {
            qps: r.qps(),
            tps: r.tps(),
            p95: r.total.hist.quantile_ms(0.95),
            p99: r.total.hist.quantile_ms(0.99),
            load_us: r.load_us_per_query(),
            server_us,
            hint,
            nopm: r
                .class_per_minute(crate::workload::tpcc::NEW_ORDER)
                .unwrap_or(f64::NAN),
        }
    }
}

/// The document `run --format json` prints: the summary, the run's id in
/// the store (null when not stored), the store's error if any, the
/// monitor's figures and the profile's summary.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RunOutput {
    /// The run's summary (its keys at the top level).
    #[serde(flatten)]
    pub summary: RunDocument,
    /// The run's id in the store; None when not stored.
    pub run_id: Option<i64>,
    /// What could not be stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_error: Option<String>,
    /// The monitor's figures, when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub monitor: Option<MonitorFigures>,
    /// The profile's summary, when the run was profiled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<ProfileSummary>,
}

impl RunOutput {
    /// As JSON with its keys sorted (as the summary is stored).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// `run --format json`'s document of `run`.
pub fn run_document(
    cfg: &RunConfig,
    run: &SingleRun,
    pcts: &[f64],
    command_line: &str,
) -> RunOutput {
    RunOutput {
        summary: super::summary::document(cfg, &run.result, pcts, command_line),
        run_id: run.run_id,
        store_error: run.store_error.clone(),
        monitor: run.figures.clone(),
        profile: run.profile.as_ref().map(super::profiling::summary),
    }
}
