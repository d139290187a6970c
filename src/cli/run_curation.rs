//! The commands that curate stored runs: `tag`, `note`, `exclude`,
//! `delete`, `baseline` and `diff`. Each opens the store to record (so
//! dead runs are marked first), checks every run named before changing
//! any, and says what it did in one line per run.

use super::args::{all_ids, BaselineArgs, DeleteArgs, DiffArgs, ExcludeArgs, NoteArgs, TagArgs};
use crate::lab::{self, open_store_to_edit as open_store, read_store};
use crate::report;
use anyhow::{bail, Result};
use std::io::IsTerminal;

pub(super) fn tag(a: &TagArgs) -> Result<()> {
    for t in &a.tags {
        lab::check_tag(t)?;
    }
    let store = open_store(a.store.path())?;
    lab::check_runs(&store, &a.runs.0)?;
    let tags = a.tags.join(", ");
    for &id in &a.runs.0 {
        if a.remove {
            let n = store.remove_tags(id, &a.tags)?;
            outln!("run {id}: {} removed", crate::out::counted(n, "tag"));
        } else {
            store.add_tags(id, &a.tags)?;
            outln!("run {id}: tagged {tags}");
        }
    }
    Ok(())
}

pub(super) fn note(a: &NoteArgs) -> Result<()> {
    let text = a.text.as_deref().map(str::trim).filter(|t| !t.is_empty());
    if text.is_none() && !a.clear {
        bail!("the note is empty: give its text, or --clear to remove the note");
    }
    let store = open_store(a.store.path())?;
    lab::check_runs(&store, &a.runs.0)?;
    for &id in &a.runs.0 {
        store.set_note(id, text)?;
        match text {
            Some(_) => outln!("run {id}: note set"),
            None => outln!("run {id}: note cleared"),
        }
    }
    Ok(())
}

pub(super) fn exclude(a: &ExcludeArgs) -> Result<()> {
    let ids = all_ids(&a.runs);
    let store = open_store(a.store.path())?;
    lab::check_runs(&store, &ids)?;
    for &id in &ids {
        store.set_excluded(id, !a.undo)?;
        if a.undo {
            outln!("run {id}: back in analyses");
        } else {
            outln!("run {id}: excluded from analyses (kept; `qpslab exclude {id} --undo` takes it back)");
        }
    }
    Ok(())
}

pub(super) fn delete(a: &DeleteArgs) -> Result<()> {
    let ids = all_ids(&a.runs);
    let store = open_store(a.store.path())?;
    let plan = lab::deletion_plan(&store, &ids)?;
    for (r, f) in &plan {
        outln!(
            "run {}: {} × {}, {}, {}: {}, {}, {}",
            r.id,
            r.workload,
            crate::out::counted(r.threads, "user"),
            r.status,
            r.started_at
                .get(..19)
                .unwrap_or(&r.started_at)
                .replace('T', " "),
            crate::out::counted(f.samples, "sample"),
            crate::out::counted(f.snapshots, "counter snapshot"),
            crate::out::counted(f.stacks, "profile stack"),
        );
    }
    if !a.yes {
        let what = crate::out::counted(plan.len(), "run");
        if !std::io::stdin().is_terminal() {
            bail!(
                "not deleting {what} without --yes (stdin is not a terminal to ask on): add --yes"
            );
        }
        errout!("Delete {what} and everything above? [y/N] ");
        let mut answer = String::new();
        std::io::stdin().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            outln!("nothing deleted");
            return Ok(());
        }
    }
    let n = lab::delete_runs(&store, &plan)?;
    outln!("deleted {}", crate::out::counted(n, "run"));
    Ok(())
}

pub(super) fn baseline(a: &BaselineArgs) -> Result<()> {
    if let Some(id) = a.run {
        let store = open_store(a.store.path())?;
        let r = lab::run_row(&store, id)?;
        if r.status != "ok" {
            bail!(
                "run {id} ended {}: pin a run that ended ok as a baseline",
                r.status
            );
        }
        store.pin_baseline(&r.workload, r.label.as_deref(), id)?;
        let label = r.label.map(|l| format!(" (label {l})")).unwrap_or_default();
        outln!("run {id}: baseline of {}{label}", r.workload);
        return Ok(());
    }
    if let Some(w) = &a.clear {
        let store = open_store(a.store.path())?;
        if !store.clear_baseline(w, a.label.as_deref())? {
            bail!(
                "no baseline pinned for {w}{}: see `qpslab baseline --list`",
                a.label
                    .as_deref()
                    .map(|l| format!(" (label {l})"))
                    .unwrap_or_default()
            );
        }
        outln!("baseline of {w} unpinned");
        return Ok(());
    }
    let store = read_store(a.store.path())?;
    let pins = store.baselines()?;
    if pins.is_empty() {
        outln!("no baselines pinned (pin one: qpslab baseline RUN)");
    }
    for b in pins {
        let label = b.label.as_deref().unwrap_or("any label");
        outln!(
            "{}\t{label}\trun {}\tpinned {}",
            b.workload,
            b.run_id,
            b.pinned_at
        );
    }
    Ok(())
}

pub(super) fn diff(a: &DiffArgs) -> Result<()> {
    let store = read_store(a.store.path())?;
    let d = lab::run_diff(&store, a.run_a, a.run_b, a.all)?;
    let f = report::table::Format::from(a.format.format);
    out!("{}", report::counter_diff::diff_text(&d, f));
    Ok(())
}
