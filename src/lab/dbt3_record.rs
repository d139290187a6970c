//! Running and recording a DBT3 test (`qpslab run dbt3`): the tables
//! checked and the server's environment read (as for any run), the
//! family's own driver run, and the run stored like any other: a run row,
//! totals (each query an event, the queries' latency histogram) and the
//! document with its `dbt3` block (per-query seconds keyed Q1…Q22, plans,
//! the composite).

use super::data::ready;
use super::summary::document_of;
use super::tags::RunTags;
use super::target::Target;
use crate::stats::document::{Dbt3Block, OptionsDocument, RunOptions};
use crate::stats::{Hist, Interval, RunStatus};
use crate::workload::dbt3::{Dbt3, Event};
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
}

/// The percentiles the document reports.
const PCTS: [f64; 3] = [50.0, 95.0, 99.0];

/// Runs `family`'s test on `t`, telling `events` each query, and records
/// it in `store` unless `no_store`.
pub fn run_dbt3(
    t: &Target,
    family: &Dbt3,
    options: RunOptions,
    tags: &RunTags,
    store: Option<&Path>,
    no_store: bool,
    events: Sender<Event>,
) -> Result<Dbt3Run> {
    let _ctrl_c = crate::exec::Cooperative::enter();
    let (env, block, status) = execute(t, family, events)?;
    let id = if no_store {
        None
    } else {
        let store = super::record::open_store(store)?;
        Some(record(&store, &env, family, options, tags, &block, &status)?.0)
    };
    Ok(Dbt3Run { block, status, id })
}

/// `family`'s test on `t` (the server readied first), its events sent
/// to `events`: the server's environment, the run's block and status.
fn execute(
    t: &Target,
    family: &Dbt3,
    events: Sender<Event>,
) -> Result<(super::Environment, Dbt3Block, RunStatus)> {
    let env = super::runtime::block_on(ready(t, family))??;
    let block = crate::workload::dbt3::run(
        &t.opts,
        family.opts(),
        family.seed(),
        events,
        crate::exec::interrupted,
    )?;
    let status = status_of(&block);
    Ok((env, block, status))
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
    let (env, block, status) = execute(t, family, events)?;
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
) -> Result<(i64, crate::stats::RunResult)> {
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
    let mut result = super::host_record::empty_result(status.clone());
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
