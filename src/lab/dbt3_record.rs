//! Running and recording a DBT3 test (`qpslab run dbt3`): the tables
//! checked and the server's environment read (as for any run), the
//! family's own driver run, and the run stored like any other: a run row,
//! totals (each query an event, the queries' latency histogram) and the
//! document with its `dbt3` block (per-query seconds keyed Q1…Q22, plans,
//! the composite). With `--profile`, the server is profiled over the test
//! as any run is; a power test's on- and off-CPU stacks are recorded in
//! one window a query (and refresh function), kept as `cpu-Q9`,
//! `offcpu-Q9`… beside the run's own stacks (their sum).

use super::data::ready;
use super::profiling::ProfilePlan;
use super::profiling::Profiling;
use super::summary::document_of;
use super::tags::RunTags;
use super::target::Target;
use crate::analyze::limiter::Profiled;
use crate::profiler::{Data, Folded, Kind, Outcome};
use crate::stats::document::{Dbt3Block, OptionsDocument, QueryCpu, RunOptions};
use crate::stats::RunResult;
use crate::stats::{Hist, Interval, RunStatus};
use crate::workload::dbt3::{Dbt3, Event, Windows};
use anyhow::{Context, Result};
use std::path::Path;
use std::sync::mpsc::Sender;

/// What a DBT3 run gave: its block, its status and where it is stored.
pub struct Dbt3Run {
    /// The figures.
    pub block: Dbt3Block,
    /// How it ended.
    pub status: RunStatus,
    /// The stored run's id (None with --no-store).
    pub id: Option<i64>,
    /// `--profile`: the server's profile over the test.
    pub profile: Option<Dbt3Profile>,
}

/// A DBT3 run's profile: the whole test's (every kind asked for; a power
/// test's stacks are its windows' sum) and each window's stacks.
pub struct Dbt3Profile {
    /// As any run's profile: kept with the run, summed up after it.
    pub run: Profiled,
    /// Each query's or refresh function's stacks ("Q9", its kind, them).
    pub windows: Vec<(String, Kind, Folded)>,
}

/// The percentiles the document reports.
const PCTS: [f64; 3] = [50.0, 95.0, 99.0];

/// Runs `family`'s test on `t`, telling `events` each query, profiled
/// as `profile` asks, and records it in `store` unless `no_store`.
pub fn run_dbt3(
    t: &Target,
    family: &Dbt3,
    tags: &RunTags,
    store: Option<&Path>,
    no_store: bool,
    events: Sender<Event>,
    profile: Option<&ProfilePlan>,
) -> Result<Dbt3Run> {
    let _ctrl_c = crate::exec::Cooperative::enter();
    let (env, block, status, profile) = execute(t, family, events, profile)?;
    let id = if no_store {
        None
    } else {
        let store = super::record::open_store(store)?;
        let options = dbt3_options(family);
        let id = record(&store, &env, family, options, tags, &block, &status)?.0;
        if let Some(p) = &profile {
            keep_profile(&store, id, p)
                .with_context(|| format!("run {id} is stored, its profile could not be"))?;
        }
        Some(id)
    };
    Ok(Dbt3Run {
        block,
        status,
        id,
        profile,
    })
}

/// Keeps a DBT3 run's profile: the run's as any run's, and each window's
/// stacks under `KIND-WINDOW` (`cpu-Q9`).
fn keep_profile(store: &crate::store::Store, id: i64, p: &Dbt3Profile) -> Result<()> {
    super::profiling::keep(store, id, &p.run)?;
    for (what, kind, f) in &p.windows {
        store.add_profile(id, &format!("{}-{what}", kind.name()), &f.stacks)?;
    }
    Ok(())
}

/// What a DBT3 test gave: the server's environment, the block, the
/// status and the profile.
type Executed = (
    super::Environment,
    Dbt3Block,
    RunStatus,
    Option<Dbt3Profile>,
);

/// `family`'s test on `t` (the server readied first), its events sent
/// to `events`, profiled as `profile` asks.
fn execute(
    t: &Target,
    family: &Dbt3,
    events: Sender<Event>,
    profile: Option<&ProfilePlan>,
) -> Result<Executed> {
    let env = super::runtime::block_on(ready(t, family))??;
    let o = family.opts();
    let power = o.test == crate::workload::dbt3::Test::Power;
    let threads = if power { 1 } else { o.streams };
    let stack_kind = |k: &Kind| matches!(k, Kind::Cpu | Kind::OffCpu);
    // a power test's stacks in windows, one a query; the rest over the test
    let mut windows = profile
        .filter(|p| power && p.kinds.iter().any(stack_kind))
        .map(|p| PerWindow {
            plan: ProfilePlan {
                kinds: p.kinds.iter().copied().filter(stack_kind).collect(),
                ..p.clone()
            },
            open: None,
            done: Vec::new(),
        });
    let whole = profile
        .map(|p| ProfilePlan {
            kinds: (p.kinds.iter().copied())
                .filter(|k| windows.is_none() || !stack_kind(k))
                .collect(),
            ..p.clone()
        })
        .filter(|p| !p.kinds.is_empty())
        .map(|p| super::profiling::begin(&p, Some(&t.opts), threads, PROFILE_LIMIT_S));
    let ran = crate::workload::dbt3::run(
        &t.opts,
        o,
        family.seed(),
        events,
        crate::exec::interrupted,
        windows.as_mut().map(|w| w as &mut dyn Windows),
    );
    let mut block = match ran {
        Ok(b) => b,
        Err(e) => {
            // the collectors put back what they changed (waits' setup)
            let _ = whole.map(Profiling::stop);
            return Err(e);
        }
    };
    let status = status_of(&block);
    let profile = profile.map(|p| {
        let mut outcomes = whole.map(Profiling::stop).unwrap_or_default();
        let mut kept = Vec::new();
        if let Some(w) = windows {
            for kind in &w.plan.kinds {
                outcomes.push(w.merged(*kind, &mut kept));
            }
        }
        outcomes.sort_by_key(|o| o.kind);
        for (what, kind, f) in &kept {
            if let (Kind::Cpu, Some(q)) = (kind, block.queries.get_mut(what)) {
                q.cpu = Some(QueryCpu {
                    samples: f.total(),
                    stacks: format!("cpu-{what}"),
                    top_self: f.top_self(5, false),
                });
            }
        }
        let queries: usize = if block.stream_queries.is_empty() {
            block.queries.len()
        } else {
            block.stream_queries.iter().map(|s| s.len()).sum()
        };
        Dbt3Profile {
            run: super::profiling::profiled(outcomes, p.hz, threads, Some(queries as u64)),
            windows: kept,
        }
    });
    Ok((env, block, status, profile))
}

/// The longest a recording on a server's host's agent is kept there if
/// never stopped (a DBT3 test has no planned end).
const PROFILE_LIMIT_S: f64 = 86_400.0;

/// A power test's windows: one stack recording a query or refresh
/// function, started and stopped by the driver.
struct PerWindow {
    /// The stack kinds only.
    plan: ProfilePlan,
    open: Option<(String, Profiling)>,
    /// Each window's outcomes, in the order they ran.
    done: Vec<(String, Vec<Outcome>)>,
}

impl Windows for PerWindow {
    fn begin(&mut self, what: &str) {
        let s = super::profiling::begin(&self.plan, None, 1, PROFILE_LIMIT_S);
        self.open = Some((what.to_string(), s));
    }

    fn end(&mut self, _what: &str) {
        if let Some((what, s)) = self.open.take() {
            self.done.push((what, s.stop()));
        }
    }
}

impl PerWindow {
    /// `kind`'s outcome over the whole test: the windows' stacks summed
    /// (each window's pushed to `kept`), their seconds and collector
    /// cost added; the first window's error when none recorded.
    fn merged(&self, kind: Kind, kept: &mut Vec<(String, Kind, Folded)>) -> Outcome {
        let mut sum = Folded::default();
        let (mut secs, mut cost, mut first_err) = (0.0, None::<f64>, None);
        let mut started = None;
        let mut any = false;
        for (what, outs) in &self.done {
            for o in outs.iter().filter(|o| o.kind == kind) {
                started.get_or_insert(o.started_unix);
                secs += o.secs;
                if let Some(c) = o.cost_cpu_s {
                    *cost.get_or_insert(0.0) += c;
                }
                match &o.result {
                    Ok(Data::Stacks(f)) => {
                        any = true;
                        for (stack, w) in &f.stacks {
                            *sum.stacks.entry(stack.clone()).or_default() += w;
                        }
                        kept.push((what.clone(), kind, f.clone()));
                    }
                    Ok(_) => {}
                    Err(e) => {
                        first_err.get_or_insert_with(|| e.clone());
                    }
                }
            }
        }
        Outcome {
            kind,
            secs,
            started_unix: started.unwrap_or_else(crate::stats::clock::now_unix),
            cost_cpu_s: cost,
            result: if any {
                Ok(Data::Stacks(sum))
            } else {
                Err(first_err.unwrap_or_else(|| "no query ran".into()))
            },
        }
    }
}

/// The run options a DBT3 run is stored with: its streams (1 for a
/// power test), its seed and its options.
pub fn dbt3_options(family: &Dbt3) -> RunOptions {
    let o = family.opts();
    RunOptions {
        threads: if o.test == crate::workload::dbt3::Test::Power {
            1
        } else {
            o.streams
        },
        rand_seed: family.seed(),
        oltp: crate::workload::Family::options(family),
        ..Default::default()
    }
}

/// A campaign point's DBT3 run: `family`'s test on `t`, recorded in
/// `store` under `tags` (the campaign, variant and point), its events
/// dropped.
pub(super) fn dbt3_point(
    store: &crate::store::Store,
    t: &Target,
    family: &Dbt3,
    tags: &RunTags,
) -> Result<super::run::Recorded> {
    let (events, _) = std::sync::mpsc::channel();
    let (env, block, status, _) = execute(t, family, events, None)?;
    let options = dbt3_options(family);
    let (run_id, result) = record(store, &env, family, options, tags, &block, &status)?;
    Ok(super::run::Recorded {
        result,
        run_id,
        figures: None,
        locks: None,
    })
}

/// Failed when a query failed, degraded when one timed out, aborted
/// when Ctrl-C cut it short.
fn status_of(b: &Dbt3Block) -> RunStatus {
    let all = b.stream_queries.iter().chain(std::iter::once(&b.queries));
    let figs: Vec<_> = all.flat_map(|m| m.iter()).collect();
    if let Some((q, f)) = figs.iter().find(|(_, f)| f.error.is_some()) {
        return RunStatus::Failed(format!("{q}: {}", f.error.as_deref().unwrap_or("")));
    }
    if crate::exec::interrupted() {
        return RunStatus::Aborted("interrupted".into());
    }
    let late: Vec<&str> = figs
        .iter()
        .filter(|(_, f)| f.timed_out)
        .map(|(q, _)| q.as_str())
        .collect();
    if !late.is_empty() {
        return RunStatus::Degraded(format!("timed out and killed: {}", late.join(", ")));
    }
    RunStatus::Ok
}

fn record(
    store: &crate::store::Store,
    env: &super::Environment,
    family: &Dbt3,
    options: RunOptions,
    tags: &RunTags,
    block: &Dbt3Block,
    status: &RunStatus,
) -> Result<(i64, RunResult)> {
    use crate::workload::Family;
    let new = env.new_run(
        tags,
        family.name(),
        block.streams,
        OptionsDocument::Load(options.clone()),
    );
    let id = store
        .begin_run(&new)
        .with_context(|| format!("cannot record the run in {}", store.path().display()))?;
    let mut hist = Hist::new();
    let mut events = 0;
    for m in block
        .stream_queries
        .iter()
        .chain(std::iter::once(&block.queries))
        .take(if block.stream_queries.is_empty() {
            1
        } else {
            block.stream_queries.len()
        })
    {
        for f in m.values() {
            hist.record_n((f.seconds * 1e6).round() as u64, 1);
            events += 1;
        }
    }
    let mut result = RunResult::empty(status.clone());
    result.total = Interval {
        events,
        reads: events,
        hist,
        ..Interval::default()
    };
    result.elapsed = block.elapsed_s;
    let mut doc = document_of(family.name(), options, &result, &PCTS, &tags.command_line);
    doc.dbt3 = Some(block.clone());
    store.finish_run(id, &result, &doc).with_context(|| {
        format!(
            "cannot store the end of run {id} in {}",
            store.path().display()
        )
    })?;
    Ok((id, result))
}
