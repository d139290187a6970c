//! The schema of a server store (MySQL/MariaDB): the SQLite store's own
//! migrations, translated by `dialect`, applied in order; the version kept
//! in a one-row table (`qpslab_schema`, SQLite's `user_version` here); the
//! whole migration guarded by a server-side lock (GET_LOCK, named after
//! the database) so that many hosts opening one store at once migrate it
//! once. It runs SQL through `ServerSql` and owns no connection.
//!
//! The connection is the project's own client (`protocol::Conn`: text
//! queries, rows as raw bytes, so blobs survive), owned by lab
//! (`lab::server_store`) and handed to the store as a `ServerSql`: the
//! `mysql` crate cannot be fetched in this build environment, and
//! `protocol` already speaks every auth plugin and TLS mode qpslab
//! supports; the store stays below protocol.

use anyhow::{bail, Result};

/// What the store needs of a server connection: one session (the
/// migration's lock and a copy's transaction are the session's),
/// statements run one at a time. A statement refused for a duplicate key
/// fails with a `DuplicateKey` error (the copy tells "already there" by
/// it).
pub trait ServerSql {
    /// Runs one statement that returns no rows.
    fn execute(&mut self, sql: &str) -> Result<()>;
    /// Runs a query; its rows, each value as the server's text (bytes:
    /// blobs stay whole), None for NULL.
    fn query_rows(&mut self, sql: &str) -> Result<Vec<Vec<Option<Vec<u8>>>>>;
    /// The first column of the first row as an integer (None: no row, or
    /// NULL).
    fn query_i64(&mut self, sql: &str) -> Result<Option<i64>> {
        let rows = self.query_rows(sql)?;
        let first = rows.into_iter().next().and_then(|r| r.into_iter().next());
        Ok(first
            .flatten()
            .and_then(|v| String::from_utf8(v).ok())
            .and_then(|v| v.parse().ok()))
    }
}

/// A server statement refused because a unique key already holds the
/// value (error 1062): another writer stored that row first.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct DuplicateKey(pub String);

/// How long an opening waits for another host's migration.
const LOCK_WAIT_S: u32 = 60;

/// The lock's name: one per database on the server.
const LOCK_NAME: &str = "CONCAT('qpslab_schema:', DATABASE())";

/// The server statements of every migration (entry i: version i to i+1).
pub fn server_migrations() -> Result<Vec<Vec<String>>> {
    Ok(super::dialect::mysql_migrations(super::schema::MIGRATIONS)?)
}

/// Brings the server store's schema to the latest version under the
/// server-side lock; returns the version it is at. A store newer than
/// this qpslab is refused, as a SQLite one is.
pub fn migrate(db: &mut dyn ServerSql) -> Result<i64> {
    let steps = server_migrations()?;
    let got = db.query_i64(&format!("SELECT GET_LOCK({LOCK_NAME}, {LOCK_WAIT_S})"))?;
    if got != Some(1) {
        bail!("another qpslab has been migrating this store for {LOCK_WAIT_S} s; try again");
    }
    let migrated = migrate_locked(db, &steps);
    let released = db.query_i64(&format!("SELECT RELEASE_LOCK({LOCK_NAME})"));
    let version = migrated?;
    released?;
    Ok(version)
}

/// `migrate`'s work, with the lock held.
fn migrate_locked(db: &mut dyn ServerSql, steps: &[Vec<String>]) -> Result<i64> {
    db.execute(
        "CREATE TABLE IF NOT EXISTS qpslab_schema (id TINYINT NOT NULL PRIMARY KEY, \
         version BIGINT NOT NULL) ENGINE=InnoDB",
    )?;
    db.execute("INSERT IGNORE INTO qpslab_schema (id, version) VALUES (1, 0)")?;
    let current = db
        .query_i64("SELECT version FROM qpslab_schema WHERE id = 1")?
        .unwrap_or(0);
    super::schema::refuse_newer(current)?;
    let latest = steps.len() as i64;
    for (i, step) in steps.iter().enumerate().skip(current.max(0) as usize) {
        for sql in step {
            db.execute(sql)?;
        }
        db.execute(&format!(
            "UPDATE qpslab_schema SET version = {} WHERE id = 1",
            i + 1
        ))?;
    }
    Ok(latest.max(current))
}
