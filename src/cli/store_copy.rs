//! `qpslab store copy FROM TO [--runs …|--campaign N]`: moves runs
//! between a SQLite store and a server store (either way) or two SQLite
//! stores, through the lab, and says what it copied and skipped; the
//! other `store` commands are in `store_retention`.

use super::args::{StoreCmd, StoreCopyArgs};
use crate::store::{masked_url, CopySelection};
use anyhow::Result;

pub(super) fn store(cmd: &StoreCmd) -> Result<()> {
    match cmd {
        StoreCmd::Copy(a) => copy(a),
        StoreCmd::Prune(a) => super::store_retention::prune(a),
        StoreCmd::Vacuum(a) => super::store_retention::vacuum(a),
    }
}

fn copy(a: &StoreCopyArgs) -> Result<()> {
    let sel = match (&a.runs, a.campaign) {
        (Some(ids), _) => CopySelection::Runs(ids.0.clone()),
        (None, Some(c)) => CopySelection::Campaign(c),
        (None, None) => CopySelection::All,
    };
    let r = crate::lab::server_store::copy_between(&a.from, &a.to, &sel)?;
    let (from, to) = (masked_url(&a.from), masked_url(&a.to));
    for (old, new) in &r.copied {
        outln!("run {old} of {from} copied into {to} as run {new}");
    }
    outln!(
        "copied {} run(s) ({} rows){}; skipped {} already in {to}, {} still running",
        r.copied.len(),
        r.rows,
        match r.campaigns {
            0 => String::new(),
            n => format!(", {n} new campaign(s)"),
        },
        r.present,
        r.running
    );
    Ok(())
}
