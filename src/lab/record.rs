//! Recording a run in the results store: a row at the start with its
//! environment, each sample as it arrives, totals at the end. A store
//! failure during the run is reported once and never stops the measurement.

use super::environment_capture::Environment;
use super::tags::RunTags;
use crate::analyze::run_figures::MonitorFigures;
use crate::exec::RunConfig;
use crate::stats::{RunResult, Sample};
use crate::store::Store;
use anyhow::{Context, Result};
use std::path::Path;

pub(crate) struct Recorder<'a> {
    store: &'a Store,
    pub run_id: i64,
    seq: usize,
    /// The workload's statement kinds, as each sample's `kinds` starts.
    stat_names: Vec<String>,
    /// The first store write that failed (the run goes on regardless).
    error: Option<String>,
    command_line: String,
}

/// Exit code of a run that was measured but not (wholly) stored.
pub const EXIT_NOT_STORED: i32 = 4;

/// The store at `path` (default: the state directory's), opened to record;
/// runs left "running" by processes that died are marked failed first.
/// A server store (`mysql://…`) is recorded into through its local spool
/// (see `server_store`).
pub fn open_store(path: Option<&Path>) -> Result<Store> {
    if let Some(url) = path.filter(|p| super::server_store::is_server_store(p)) {
        return super::server_store::open_spool(&url.to_string_lossy());
    }
    let store = Store::open(&store_path(path))?;
    store
        .mark_dead_runs(crate::server::process_alive)
        .with_context(|| format!("cannot update {}", store.path().display()))?;
    Ok(store)
}

/// The store at `path`, opened to read: never created, migrated or written.
/// A server store is read through its local mirror, brought up to date
/// first (see `server_store`).
pub fn read_store(path: Option<&Path>) -> Result<Store> {
    let path = match path.filter(|p| super::server_store::is_server_store(p)) {
        Some(url) => super::server_store::sync_mirror(&url.to_string_lossy())?,
        None => store_path(path),
    };
    let store = Store::open_read_only(&path, crate::server::process_alive)?;
    if let Some(note) = store.note() {
        log::info!("{note}");
    }
    Ok(store)
}

/// The store at `path` opened to change its runs (tag, note, exclude,
/// delete, baseline): a SQLite store only: a server store's runs are
/// changed nowhere yet (its readers' mirrors would not see it).
pub fn open_store_to_edit(path: Option<&Path>) -> Result<Store> {
    if let Some(url) = path.filter(|p| super::server_store::is_server_store(p)) {
        anyhow::bail!(
            "--store {}: runs in a server store cannot be changed yet; copy them into a SQLite file (qpslab store copy) and change them there",
            crate::store::masked_url(&url.to_string_lossy())
        );
    }
    open_store(path)
}

/// Run `id` with its samples, or an error saying how to list the runs.
pub fn stored_run(store: &Store, id: i64) -> Result<crate::store::RunDetail> {
    store
        .run_detail(id)?
        .with_context(|| format!("no run {id} in the store (see `qpslab runs`)"))
}

/// `--store`, or `<state dir>/results.db`.
pub fn store_path(path: Option<&Path>) -> std::path::PathBuf {
    path.map(Path::to_path_buf)
        .unwrap_or_else(|| crate::server::state_dir().join("results.db"))
}

impl<'a> Recorder<'a> {
    pub fn begin(
        store: &'a Store,
        cfg: &RunConfig,
        env: &Environment,
        tags: &RunTags,
    ) -> Result<Recorder<'a>> {
        let run_id = store
            .begin_run(&env.new_run(
                tags,
                cfg.workload.name(),
                cfg.threads,
                crate::stats::document::OptionsDocument::Load(cfg.options_document()),
            ))
            .with_context(|| format!("cannot record the run in {}", store.path().display()))?;
        Ok(Recorder {
            store,
            run_id,
            seq: 0,
            stat_names: cfg.workload.stat_names(),
            error: None,
            command_line: tags.command_line.clone(),
        })
    }

    pub fn sample(&mut self, s: &Sample) {
        if let Err(e) = self
            .store
            .add_sample(self.run_id, self.seq, s, &self.stat_names)
        {
            if self.error.is_none() {
                let msg = format!(
                    "cannot store the samples of run {} in {} from second {:.0} on: {e:#}",
                    self.run_id,
                    self.store.path().display(),
                    s.t
                );
                log::warn!("{msg} (the run goes on)");
                self.error = Some(msg);
            }
        }
        self.seq += 1;
    }

    /// Stores the end of the run; `figures` are the monitor's, if it ran
    /// (kept once, in their own column, not again inside the summary).
    /// Err says what could not be stored (during the run or now).
    pub fn finish(
        &self,
        cfg: &RunConfig,
        r: &RunResult,
        pcts: &[f64],
        figures: Option<&MonitorFigures>,
    ) -> Result<(), String> {
        let doc = super::summary::document(cfg, r, pcts, &self.command_line);
        let res = self
            .store
            .finish_run(self.run_id, r, &doc)
            .and_then(|_| match figures {
                Some(f) => f.store(self.store, self.run_id),
                None => Ok(()),
            });
        match (res, &self.error) {
            (Err(e), _) => Err(format!(
                "cannot store the end of run {} in {}: {e:#}",
                self.run_id,
                self.store.path().display()
            )),
            (Ok(()), Some(m)) => Err(m.clone()),
            (Ok(()), None) => Ok(()),
        }
    }
}
