//! store: every run, kept in an embedded SQLite database (WAL).
//!
//! Owns the schema and its migrations, and reading and writing runs, their
//! per-interval samples, latency per statement, full-resolution latency
//! histograms and environments. Samples are written as they arrive, so a
//! run that is killed keeps what it measured; such a run (still "running"
//! in the store while its process is gone) is marked failed by an explicit
//! step (`mark_dead_runs`, run by whoever opens the store to record) and
//! reads back as failed from a read-only open without any write. Reads
//! never write. The store is given its path; it knows nothing about
//! servers or workloads beyond the values it is given.

mod integrity;
mod metrics;
mod profiles;
mod read;
mod read_open;
mod schema;
mod write;

pub use metrics::{MetricTable, MetricWriter, MonitorColumns};
pub use read::{IsAlive, RunDetail, RunFilter, RunRow, SampleRow};
pub use write::NewRun;

/// The current time as RFC 3339 UTC (what the store writes).
pub fn now_utc() -> String {
    write::now()
}

use anyhow::{Context, Result};
use rusqlite::Connection;
use std::path::{Path, PathBuf};

/// The results store: one SQLite file of runs, their intervals,
/// statements, monitor snapshots and profiles, campaigns and sweeps.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// Opened for reading only: nothing is written, not even the marking
    /// of dead runs (they are shown as failed without touching the file).
    read_only: bool,
    /// A read-only open's warning (see `note`).
    note: Option<String>,
}

impl Store {
    /// The file this store lives in (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Opens (creating if needed) and migrates the store at `path`, for
    /// commands that record. Safe with other processes opening it at the
    /// same time: the busy timeout is set before anything else, and the
    /// migration runs in one IMMEDIATE transaction. A damaged file (see
    /// `integrity`) is refused with one line saying how to recover it.
    pub fn open(path: &Path) -> Result<Store> {
        let at = || format!("the results store {}", path.display());
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let conn = Connection::open(path).with_context(|| format!("cannot open {}", at()))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .with_context(|| format!("cannot open {}", at()))?;
        // Switching a new file to WAL takes an exclusive lock and may be
        // refused without the busy handler being asked: retried here.
        retry_busy(|| {
            let mode: String = conn.pragma_query_value(None, "journal_mode", |r| r.get(0))?;
            if !mode.eq_ignore_ascii_case("wal") {
                conn.pragma_update(None, "journal_mode", "WAL")?;
            }
            conn.pragma_update(None, "synchronous", "NORMAL")?;
            conn.pragma_update(None, "foreign_keys", "ON")
        })
        .map_err(|e| damaged_or(e, path, || format!("cannot open {} for writing", at())))?;
        integrity::quick_check(&conn, path)?;
        schema::check_newer(&conn).with_context(|| format!("cannot use {}", at()))?;
        retry_busy(|| schema::migrate(&conn))
            .map_err(|e| damaged_or(e, path, || format!("cannot migrate {}", at())))?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            read_only: false,
            note: None,
        })
    }

    /// Opens the store at `path` for reading: never creates, migrates or
    /// writes it, nor any file beside it (see `read_open`). A missing
    /// store is a one-line error naming it; a store whose WAL could not be
    /// read carries a `note` saying so.
    pub fn open_read_only(path: &Path, alive: IsAlive) -> Result<Store> {
        if !path.exists() {
            anyhow::bail!(
                "no results store at {}: record a run first (qpslab run ...), or pass --store FILE",
                path.display()
            );
        }
        let opened = read_open::open(path, |conn| {
            conn.busy_timeout(BUSY_TIMEOUT)?;
            schema::check_readable(conn)
        })
        .with_context(|| format!("cannot read the results store {}", path.display()))?;
        let store = Store {
            conn: opened.conn,
            path: path.to_path_buf(),
            read_only: true,
            note: opened.note,
        };
        store
            .overlay_dead_runs(alive)
            .with_context(|| format!("cannot read the results store {}", path.display()))?;
        Ok(store)
    }

    /// What a reader should be told about this store (runs it may not
    /// show), if anything.
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }
}

/// A damaged store's one-line error, or `e` with `context`.
fn damaged_or(e: rusqlite::Error, path: &Path, context: impl FnOnce() -> String) -> anyhow::Error {
    if integrity::is_corruption(&e) {
        integrity::damaged(path, &e.to_string())
    } else {
        anyhow::Error::new(e).context(context())
    }
}

/// Runs `f` again while SQLite says the store is busy or locked by another
/// process, with backoff, for at most `BUSY_TIMEOUT`.
fn retry_busy<T>(mut f: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    use rusqlite::ErrorCode::{DatabaseBusy, DatabaseLocked};
    let end = std::time::Instant::now() + BUSY_TIMEOUT;
    let mut pause = std::time::Duration::from_millis(5);
    loop {
        match f() {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(e.code, DatabaseBusy | DatabaseLocked)
                    && std::time::Instant::now() < end =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(std::time::Duration::from_millis(200));
            }
            r => return r,
        }
    }
}

/// How long a writer waits for another process holding the store's lock.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);
