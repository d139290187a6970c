//! The store's handle: the SQLite connection and how it is opened, to
//! record (created, migrated, checked) or to read (never written).

use anyhow::{Context, Result};
use rusqlite::Connection;
use std::path::{Path, PathBuf};

use super::{integrity, read_open, schema};

/// Whether the process with this pid (on this boot) is still running: the
/// caller's knowledge of processes, given to the store.
pub type IsAlive = fn(i64) -> bool;

/// An open results store (see the module doc of `store`).
pub struct Store {
    pub(super) conn: Connection,
    pub(super) path: PathBuf,
    /// Opened for reading only: nothing is written, not even the marking
    /// of dead runs (they are shown as failed without touching the file).
    pub(super) read_only: bool,
    /// A read-only open's warning (see `note`).
    note: Option<String>,
    /// The server store this one is the spool of: its finished runs are
    /// copied there when it closes (see `push_on_close`).
    pub(super) upstream: Option<Upstream>,
}

/// How a spool reaches its server store: a new session each time (a
/// recording may outlast any one connection's idle timeout).
pub type Connect = Box<dyn Fn() -> Result<Box<dyn super::ServerSql + Send>> + Send>;

/// A server store a spool pushes into, and how to name it in messages.
pub(super) struct Upstream {
    pub(super) connect: Connect,
    pub(super) shown: String,
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
        super::location::refuse_url(path)?;
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
        // A recording touches a few pages a second (the tables' last
        // leaves): a small page cache serves it, and a long run's memory
        // stops growing as soon as it is full (SQLite's 2 MB default took
        // a monitored run 7 minutes to fill). The check's pages go too.
        conn.pragma_update(None, "cache_size", -WRITER_CACHE_KIB)
            .and_then(|_| conn.execute_batch("PRAGMA shrink_memory"))
            .with_context(|| format!("cannot open {}", at()))?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            read_only: false,
            note: None,
            upstream: None,
        })
    }

    /// Opens the store at `path` for reading: never creates, migrates or
    /// writes it, nor any file beside it (see `read_open`). A missing
    /// store is a one-line error naming it; a store whose WAL could not be
    /// read carries a `note` saying so.
    pub fn open_read_only(path: &Path, alive: IsAlive) -> Result<Store> {
        super::location::refuse_url(path)?;
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
        let added = schema::read_compat(&opened.conn)
            .with_context(|| format!("cannot read the results store {}", path.display()))?;
        let store = Store {
            conn: opened.conn,
            path: path.to_path_buf(),
            read_only: true,
            note: opened.note,
            upstream: None,
        };
        store
            .overlay_dead_runs(alive, &added)
            .with_context(|| format!("cannot read the results store {}", path.display()))?;
        Ok(store)
    }

    /// Makes this store the spool of a server store: when it closes, its
    /// finished runs the server lacks are copied there (a run still being
    /// recorded by another process goes with a later close or open). A
    /// failed push is a warning: the runs stay here, and the next qpslab
    /// that opens this server store pushes them.
    pub fn push_on_close(&mut self, connect: Connect, shown: String) {
        self.upstream = Some(Upstream { connect, shown });
    }

    /// What a reader should be told about this store (runs it may not
    /// show), if anything.
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }
}

/// A damaged store's one-line error, or `e` with `context`.
pub(super) fn damaged_or(
    e: rusqlite::Error,
    path: &Path,
    context: impl FnOnce() -> String,
) -> anyhow::Error {
    if integrity::is_corruption(&e) {
        integrity::damaged(path, &e.to_string())
    } else {
        anyhow::Error::new(e).context(context())
    }
}

/// Runs `f` again while SQLite says the store is busy or locked by another
/// process, with backoff, for at most `BUSY_TIMEOUT`.
pub(super) fn retry_busy<T>(mut f: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
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

/// A writer's page cache, in KiB (readers keep SQLite's default).
const WRITER_CACHE_KIB: i64 = 512;

/// How long a writer waits for another process holding the store's lock.
pub(super) const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

#[cfg(test)]
mod tests {
    use super::*;

    /// A recording's memory is bounded by the writer's small page cache,
    /// full within a minute or two (a long run's RSS then stays flat).
    #[test]
    fn a_writer_keeps_a_small_page_cache() {
        let dir = std::env::temp_dir().join(format!("qpslab-cache-{}", std::process::id()));
        let store = Store::open(&dir.join("s.db")).unwrap();
        let kib: i64 = store
            .conn
            .pragma_query_value(None, "cache_size", |r| r.get(0))
            .unwrap();
        assert_eq!(kib, -WRITER_CACHE_KIB);
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
