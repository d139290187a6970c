//! `qpslab store prune --before DATE [--keep-campaigns] [--keep-tagged]
//! [--dry-run]` and `qpslab store vacuum`: retention of a SQLite store.
//! Prune prints what it deletes (runs, samples, snapshots, MB, what it
//! keeps) and deletes only when asked (a terminal's yes, or --yes);
//! vacuum says how much the file shrank. A server store is refused in
//! one line, as the other editing commands refuse it.

use super::args::{StorePruneArgs, StoreVacuumArgs};
use crate::lab::open_store_to_edit;
use crate::out::counted;
use crate::store::{PruneKeep, PrunePlan};
use anyhow::{bail, Result};
use std::io::IsTerminal;

/// Bytes as MB with one decimal (1 MB = 10^6 bytes, as `du --si`).
fn mb(bytes: i64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

/// What the plan keeps, as "kept: …" (empty when it keeps nothing).
fn kept(p: &PrunePlan) -> String {
    let parts: Vec<String> = [
        (p.kept_baselines, "pinned baseline"),
        (p.kept_in_campaigns, "run in a campaign"),
        (p.kept_tagged, "tagged run"),
        (p.kept_running, "running run"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| counted(n, what))
    .collect();
    match parts.is_empty() {
        true => String::new(),
        false => format!("; kept from before that: {}", parts.join(", ")),
    }
}

pub(super) fn prune(a: &StorePruneArgs) -> Result<()> {
    let store = open_store_to_edit(a.store.path())?;
    let keep = PruneKeep {
        campaigns: a.keep_campaigns,
        tagged: a.keep_tagged,
    };
    let plan = store.prune_plan(&a.before, &keep)?;
    if plan.runs.is_empty() {
        outln!(
            "no run started before {} to delete{}",
            a.before,
            kept(&plan)
        );
        return Ok(());
    }
    let what = counted(plan.runs.len(), "run");
    let campaigns = match plan.campaigns.len() {
        0 => String::new(),
        n => format!(", {} left empty", counted(n, "campaign")),
    };
    outln!(
        "{} {what} started before {} ({}): {}, {}, about {} of data{campaigns}{}",
        if a.dry_run {
            "would delete"
        } else {
            "will delete"
        },
        a.before,
        span(&plan.runs),
        counted(plan.samples, "sample"),
        counted(plan.snapshots, "counter snapshot"),
        mb(plan.bytes),
        kept(&plan)
    );
    if a.dry_run {
        outln!("dry run: nothing deleted");
        return Ok(());
    }
    if !a.yes {
        if !std::io::stdin().is_terminal() {
            bail!("not deleting {what} without --yes (stdin is not a terminal to ask on): add --yes, or --dry-run to see them");
        }
        errout!("Delete {what} and everything they hold? [y/N] ");
        let mut answer = String::new();
        std::io::stdin().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            outln!("nothing deleted");
            return Ok(());
        }
    }
    let n = store.prune(&plan)?;
    let same = match a.store.path() {
        Some(_) => " with the same --store",
        None => "",
    };
    outln!(
        "deleted {}; the file keeps its size until `qpslab store vacuum`{same}",
        counted(n, "run"),
    );
    Ok(())
}

/// The ids as "ids A-B" or "id A" (empty: "none").
fn span(ids: &[i64]) -> String {
    match (ids.first(), ids.last()) {
        (Some(a), Some(b)) if a == b => format!("id {a}"),
        (Some(a), Some(b)) => format!("ids {a}-{b}"),
        _ => "none".into(),
    }
}

pub(super) fn vacuum(a: &StoreVacuumArgs) -> Result<()> {
    let store = open_store_to_edit(a.store.path())?;
    let v = store.vacuum()?;
    outln!(
        "vacuumed {}: {} → {} ({} given back)",
        store.path().display(),
        mb(v.before),
        mb(v.after),
        mb(v.before - v.after)
    );
    Ok(())
}
