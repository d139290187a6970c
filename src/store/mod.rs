//! store: every run, kept in an embedded SQLite database (WAL).
//!
//! Owns the schema and its migrations, and reading and writing runs, their
//! per-interval samples, latency per statement (whole run and per
//! interval), full-resolution latency histograms and environments. Samples are written as they arrive, so a
//! run that is killed keeps what it measured; such a run (still "running"
//! in the store while its process is gone) is marked failed by an explicit
//! step (`mark_dead_runs`, run by whoever opens the store to record) and
//! reads back as failed from a read-only open without any write. Reads
//! never write. The store is given its path; it knows nothing about
//! servers or workloads beyond the values it is given.
//!
//! Retention is asked for, never automatic: `retention` deletes the runs
//! a prune plan names and vacuums the file.
//!
//! A shared store on a MySQL/MariaDB server (issue 36 item 6) is reached
//! by copying, not by a second dialect of every statement: the server has
//! the same schema (`dialect`, `server_schema`), and `copy` moves whole
//! runs, known by their uid, between a SQLite store and a server one
//! (`ServerSql`, a connection the lab hands in) or two SQLite stores. The
//! lab records into a local spool that pushes its finished runs when it
//! closes (`push_on_close`), and reads through a local mirror (see
//! `lab::server_store`); this SQLite code stays the one writer and reader.

mod copy;
mod curation;
mod db;
mod dialect;
mod integrity;
mod latency_read;
mod location;
mod metrics;
mod profile_read;
mod read;
mod read_open;
mod recover;
mod retention;
mod run_parts;
mod schema;
mod server_schema;
mod server_url;
mod write;

pub use copy::{CopyReport, CopySelection};
pub use curation::{Baseline, RunFootprint};
pub use db::{Connect, IsAlive, Store};
pub use latency_read::{RunHistograms, StatementSample};
pub use location::{masked as masked_url, url_scheme};
pub use metrics::{MetricTable, MetricWriter, MonitorColumns};
pub use read::{RunDetail, RunFilter, RunRow, SampleRow, HOST_TESTS};
pub use retention::{PruneKeep, PrunePlan, Vacuumed};
pub use run_parts::RunParts;
pub use server_schema::{migrate as migrate_server, server_migrations, DuplicateKey, ServerSql};
pub use server_url::{ServerUrl, UrlError};
pub use write::{KeptPhase, NewRun};

/// The current time as RFC 3339 UTC (what the store writes).
pub fn now_utc() -> String {
    write::now()
}
