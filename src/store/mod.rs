//! store: every run, kept in an embedded SQLite database (WAL).
//!
//! Owns the schema and its migrations, and reading and writing runs, their
//! per-interval samples, latency per statement, full-resolution latency
//! histograms and environments. Samples are written as they arrive, so a
//! run that is killed keeps what it measured; such a run (still "running"
//! in the store while its process is gone) reads back as failed. The store
//! knows nothing about servers or workloads beyond the values it is given.

mod metrics;
mod read;
mod schema;
mod write;

pub use metrics::{MetricTable, MetricWriter};
pub use read::{RunDetail, RunFilter, RunRow, SampleRow};
pub use write::NewRun;

/// The current time as RFC 3339 UTC (what the store writes).
pub fn now_utc() -> String {
    write::now()
}

use anyhow::{Context, Result};
use rusqlite::Connection;
use std::path::{Path, PathBuf};

pub struct Store {
    conn: Connection,
}

impl Store {
    /// `<state dir>/results.db`.
    pub fn default_path() -> PathBuf {
        crate::server::state_dir().join("results.db")
    }

    /// Opens (creating if needed) and migrates the store at `path`.
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let conn = Connection::open(path)
            .with_context(|| format!("cannot open the results store {}", path.display()))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        schema::migrate(&conn)
            .with_context(|| format!("cannot migrate the results store {}", path.display()))?;
        Ok(Store { conn })
    }
}
