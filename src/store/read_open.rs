//! How a read-only open reaches the store's file without writing beside
//! it. SQLite's WAL readers normally create the `-wal` and `-shm` files
//! (and, reading only, cannot remove them again), so:
//!
//! - no WAL with anything in it: the file holds every run; it is opened
//!   `immutable=1`, which creates nothing (a writer that checkpoints while
//!   such a read runs can make that read fail; it never damages the file);
//! - a WAL beside a store we may write (another process is recording, or
//!   one died before it checkpointed): a plain read-only open, which reads
//!   the WAL through the existing `-shm`;
//! - a WAL on media we cannot write: the `-shm` is used read-only
//!   (`readonly_shm=1`); where that fails (no `-shm`, or it needs a
//!   recovery only a writer can do) the file is opened immutable without
//!   the WAL, and the store carries a note saying runs may be missing.
//!
//! `QPSLAB_STORE_READ_ONLY_MEDIA=1` makes the store be treated as on
//! read-only media whatever its permissions say (root writes anywhere):
//! the way to exercise the last case.

use anyhow::{Context, Result};
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};

/// The environment variable that forces the read-only-media path.
pub(crate) const READ_ONLY_MEDIA_ENV: &str = "QPSLAB_STORE_READ_ONLY_MEDIA";

/// A connection opened for reading, and what the reader should be told.
pub(crate) struct ReadOpen {
    pub conn: Connection,
    /// Set when the WAL could not be read: runs in it are not seen.
    pub note: Option<String>,
}

fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Whether this process may write `p` (a file or directory).
fn writable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| !m.permissions().readonly())
        && rustix::fs::access(p, rustix::fs::Access::WRITE_OK).is_ok()
}

/// Whether the store and its directory may be written here.
fn media_writable(path: &Path) -> bool {
    if std::env::var_os(READ_ONLY_MEDIA_ENV).is_some_and(|v| v == "1") {
        return false;
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    writable(path) && dir.is_none_or(writable)
}

/// Opens `path` with URI parameters `query` (empty: none), read-only.
fn open_uri(path: &Path, query: &str) -> Result<Connection> {
    let mut uri = url::Url::from_file_path(std::path::absolute(path)?)
        .map_err(|_| anyhow::anyhow!("cannot name {} as a URI", path.display()))?;
    uri.set_query(Some(&format!("mode=ro{query}")));
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    Ok(Connection::open_with_flags(uri.as_str(), flags)?)
}

/// Opens the store at `path` for reading (see the module doc); `check`
/// is the first read (it makes SQLite open the WAL, where there is one).
pub fn open(path: &Path, check: impl Fn(&Connection) -> Result<()>) -> Result<ReadOpen> {
    let wal = sidecar(path, "-wal");
    let wal_bytes = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
    if wal_bytes == 0 {
        let conn = open_uri(path, "&immutable=1")?;
        check(&conn)?;
        return Ok(ReadOpen { conn, note: None });
    }
    if media_writable(path) {
        let conn = open_uri(path, "")?;
        check(&conn)?;
        return Ok(ReadOpen { conn, note: None });
    }
    let shm_read = open_uri(path, "&readonly_shm=1").and_then(|c| check(&c).map(|()| c));
    if let Ok(conn) = shm_read {
        return Ok(ReadOpen { conn, note: None });
    }
    let conn = open_uri(path, "&immutable=1")?;
    check(&conn)?;
    let last: Option<i64> = conn
        .query_row("SELECT MAX(id) FROM main.runs", [], |r| r.get(0))
        .context("cannot read the runs")?;
    let after = last.map_or(String::new(), |id| format!(" after run {id}"));
    let note = format!(
        "runs recorded{after} may be missing: the store's WAL ({} KiB in {}) could not be read (read-only); open it where it is writable (copy {} and its -wal file to a writable directory)",
        wal_bytes.div_ceil(1024),
        wal.display(),
        path.display()
    );
    Ok(ReadOpen {
        conn,
        note: Some(note),
    })
}
