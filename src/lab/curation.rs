//! Curating stored runs, as use cases: what a tag may be, which runs may
//! be deleted (never one a live process still records), the baseline a
//! run is compared with, and the counter diff of two runs composed from
//! the store's rows and snapshots (analyze computes it). Never prints or
//! renders.

use crate::analyze::counter_diff::{self, RunCounters, RunDiff};
use crate::store::{RunFootprint, RunRow, Store};
use anyhow::{bail, Context, Result};

/// The longest tag.
const MAX_TAG: usize = 64;

/// A tag is a word: 1 to 64 characters, no spaces, commas or control
/// characters (so `--tag T` and a shell loop can name it).
pub fn check_tag(tag: &str) -> Result<()> {
    let bad = |c: char| c.is_whitespace() || c.is_control() || c == ',';
    if tag.is_empty() || tag.chars().count() > MAX_TAG || tag.chars().any(bad) {
        bail!("'{tag}' is not a tag: use 1 to {MAX_TAG} characters without spaces or commas (e.g. before-fix)");
    }
    Ok(())
}

/// The row of run `id`, or an error saying how to list the runs.
pub fn run_row(store: &Store, id: i64) -> Result<RunRow> {
    Ok(crate::lab::stored_run(store, id)?.run)
}

/// Checks that every run of `ids` exists (one error naming the first that
/// does not).
pub fn check_runs(store: &Store, ids: &[i64]) -> Result<()> {
    for &id in ids {
        run_row(store, id)?;
    }
    Ok(())
}

/// What deleting `ids` removes, run by run; refuses a run still being
/// recorded by a live process (the store open for recording has already
/// marked the dead ones failed).
pub fn deletion_plan(store: &Store, ids: &[i64]) -> Result<Vec<(RunRow, RunFootprint)>> {
    let mut plan = Vec::new();
    for &id in ids {
        let row = run_row(store, id)?;
        if row.status == "running" {
            bail!("run {id} is still running (a live qpslab records it): stop it first (Ctrl-C), then delete it");
        }
        let foot = store
            .run_footprint(id)?
            .with_context(|| format!("no run {id} in the store (see `qpslab runs`)"))?;
        plan.push((row, foot));
    }
    Ok(plan)
}

/// Deletes the runs of a `deletion_plan`; returns how many went.
pub fn delete_runs(store: &Store, plan: &[(RunRow, RunFootprint)]) -> Result<usize> {
    let mut n = 0;
    for (row, _) in plan {
        n += usize::from(store.delete_run(row.id)?);
    }
    Ok(n)
}

/// The baseline pinned for `run`'s workload and label, unless it is `run`
/// itself.
pub fn baseline_of(store: &Store, run: &RunRow) -> Result<Option<i64>> {
    Ok(store
        .baseline_for(&run.workload, run.label.as_deref())?
        .filter(|&b| b != run.id))
}

/// Run `id`'s row and counters per unit, or why there are none.
fn counters_of(store: &Store, id: i64) -> Result<(RunRow, RunCounters)> {
    let d = crate::lab::stored_run(store, id)?;
    let tab = store.metric_table(id, counter_diff::SOURCE)?;
    if tab.rows.is_empty() {
        bail!("run {id} has no server counters: it was recorded without the monitor (rerun it without --no-monitor)");
    }
    let c = counter_diff::run_counters(&tab, &d.samples).with_context(|| {
        format!("run {id} has no events in the window its counters cover: diff runs that measured for a few seconds at least")
    })?;
    Ok((d.run, c))
}

/// The counter diff of runs `a` and `b`; with `b` None, of run `a`
/// against its workload's pinned baseline (an error says how to pin one).
pub fn run_diff(store: &Store, a: i64, b: Option<i64>, all: bool) -> Result<RunDiff> {
    let (base, run, pinned) = match b {
        Some(b) => (a, b, false),
        None => {
            let row = run_row(store, a)?;
            let Some(base) = baseline_of(store, &row)? else {
                bail!(
                    "no baseline pinned for {} other than run {a}: give two runs (qpslab diff A B) or pin one (qpslab baseline RUN)",
                    row.workload
                );
            };
            (base, a, true)
        }
    };
    Ok(counter_diff::run_diff(
        counters_of(store, base)?,
        counters_of(store, run)?,
        pinned,
        all,
    ))
}

/// Run `id`'s baseline and the diff against it, for its page: None when
/// no baseline is pinned for it (or it is the baseline); the diff is Err
/// with the reason, in words, when either run lacks counters.
pub fn baseline_diff(store: &Store, id: i64) -> Result<Option<(i64, Result<RunDiff, String>)>> {
    let row = run_row(store, id)?;
    let Some(base) = baseline_of(store, &row)? else {
        return Ok(None);
    };
    let diff = counters_of(store, base)
        .and_then(|a| Ok((a, counters_of(store, id)?)))
        .map(|(a, b)| counter_diff::run_diff(a, b, true, false))
        .map_err(|e| format!("{e:#}"));
    Ok(Some((base, diff)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_words() {
        assert!(check_tag("before-fix").is_ok());
        assert!(check_tag("ünïcode_1.2").is_ok());
        for bad in ["", "two words", "a,b", "tab\t", &"x".repeat(65)] {
            assert!(check_tag(bad).is_err(), "{bad:?}");
        }
    }
}
