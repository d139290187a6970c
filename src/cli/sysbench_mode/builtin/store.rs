//! Keeping a built-in test's run in qpslab's results store: asked with
//! `--qpslab-store` (the default store; `--qpslab-store=FILE` another) or
//! QPSLAB_STORE=1, as for database tests — `qpslab run cpu …` asks for it
//! by default. sysbench's output is unchanged; one line on stderr names
//! the stored run. Owns the options and the glue to lab's recorder.

use super::drive::Ran;
use crate::cli::sysbench_mode::argv::{General, SbArgs};
use crate::hostbench::outcome;
use crate::lab::{record_host_test, HostRecord, RunTags};
use crate::stats::document::RunOptions;
use crate::stats::RunStatus;
use std::path::PathBuf;

/// qpslab's options a built-in test takes beside sysbench's: the store,
/// the run's label, and (for a campaign's host characterisation) the
/// campaign and point it belongs to.
pub(super) const OPTIONS: [&str; 4] = [
    "qpslab-store",
    "qpslab-label",
    "qpslab-campaign",
    "qpslab-point",
];

/// A test that ran, with what its figures need: the bytes one event or
/// request moves (memory, fileio) and whether memory moved any.
pub(in crate::cli::sysbench_mode) struct Done {
    pub(super) ran: Ran,
    pub(super) block: u64,
    pub(super) moves_data: bool,
}

/// Where the run is to be stored: None, not at all; Some(None), the
/// default store; Some(Some(file)), that store.
pub(super) fn wanted(args: &SbArgs) -> Option<Option<PathBuf>> {
    if args.given("qpslab-store") {
        return match args.flag("qpslab-store") {
            Some(true) => Some(None),
            Some(false) => None,
            None => Some(Some(PathBuf::from(args.text("qpslab-store", "")))),
        };
    }
    std::env::var("QPSLAB_STORE")
        .is_ok_and(|v| v == "1" || v == "on")
        .then_some(None)
}

/// Stores the run when asked (`own`: the test's own option names);
/// returns the test's exit code (4 when it ran but could not be stored,
/// as for `qpslab run`).
pub(super) fn finish(
    test: &str,
    done: Done,
    keep: Option<&Option<PathBuf>>,
    g: &General,
    args: &SbArgs,
    own: &[&str],
) -> i32 {
    let Some(store) = keep else {
        return done.ran.code;
    };
    let figures = done
        .ran
        .measured
        .as_ref()
        .map(|m| outcome::figures(test, m, done.block, done.moves_data))
        .unwrap_or_default();
    let status = match &done.ran.error {
        Some(e) => RunStatus::Failed(e.clone()),
        None if done.ran.code != 0 => {
            RunStatus::Failed(format!("{test} exited with {}", done.ran.code))
        }
        None => RunStatus::Ok,
    };
    let record = HostRecord {
        test,
        options: options(g, args, own),
        measured: done.ran.measured.as_ref(),
        figures,
        status,
        tags: RunTags {
            label: args.last("qpslab-label").flatten().map(str::to_string),
            campaign_id: args
                .last("qpslab-campaign")
                .flatten()
                .and_then(|v| v.parse().ok()),
            point_hash: args.last("qpslab-point").flatten().map(str::to_string),
            command_line: crate::secret::redacted_command_line(),
            ..RunTags::default()
        },
    };
    match record_host_test(store.as_deref(), &record) {
        Ok(id) => {
            let at = store
                .as_ref()
                .map(|p| format!(" --store {}", p.display()))
                .unwrap_or_default();
            errln!("qpslab: stored as run {id} (qpslab show {id}{at})");
            done.ran.code
        }
        Err(e) => {
            errln!("qpslab: the run was measured but not stored: {e:#}");
            crate::lab::EXIT_NOT_STORED
        }
    }
}

/// The run's options as its document keeps them: the general ones, and
/// the test's own (named in `own`) as given (`oltp`, the document's key
/// for a workload's options).
fn options(g: &General, args: &SbArgs, own: &[&str]) -> RunOptions {
    let own: serde_json::Map<String, serde_json::Value> = args
        .opts
        .iter()
        .filter(|(n, _, _)| own.contains(&n.as_str()))
        .map(|(n, v, _)| {
            (
                n.clone(),
                serde_json::Value::from(v.clone().unwrap_or_default()),
            )
        })
        .collect();
    RunOptions {
        threads: g.threads,
        time: g.time as f64,
        events: g.events,
        rate: g.rate as f64,
        report_interval: g.report_interval as f64,
        rand_seed: g.rand_seed,
        oltp: serde_json::Value::Object(own),
        ..RunOptions::default()
    }
}
