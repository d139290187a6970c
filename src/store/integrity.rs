//! The writer's integrity check at open: garbage in the store's file (a
//! bad disk, a copy cut short, another program writing into it) is found
//! before a run is recorded on top of it, and reported in one line that
//! names the file and says how to recover.

use anyhow::{bail, Result};
use rusqlite::Connection;
use std::path::Path;

/// Stores up to this size get SQLite's whole `quick_check` (about 0.45 s
/// for 100 MB on a 2-core host with the file cached); larger ones check
/// the schema and the small tables only, so opening never gets slow.
const FULL_CHECK_BYTES: u64 = 256 << 20;

/// The tables checked in a store too large for a whole check: one row per
/// run or campaign, small however many samples there are.
const SMALL_TABLES: [&str; 2] = ["campaigns", "runs"];

/// What to do about a damaged store, after its path.
fn advice(path: &Path) -> String {
    let p = path.display();
    format!(
        "move it aside and recover what it holds (sqlite3 {p} .recover | sqlite3 {p}.recovered, then pass --store {p}.recovered), or restore a backup"
    )
}

/// Whether a SQLite error says the file is damaged or not a database.
pub(crate) fn is_corruption(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode::{DatabaseCorrupt, NotADatabase};
    matches!(e, rusqlite::Error::SqliteFailure(f, _) if matches!(f.code, DatabaseCorrupt | NotADatabase))
}

/// The one-line error for a damaged store.
pub fn damaged(path: &Path, what: &str) -> anyhow::Error {
    let what = what.split_whitespace().collect::<Vec<_>>().join(" ");
    anyhow::anyhow!(
        "the results store {} is damaged ({what}): {}",
        path.display(),
        advice(path)
    )
}

/// Runs `PRAGMA quick_check` (bounded as `FULL_CHECK_BYTES` says) and
/// fails with one line naming the file when it finds anything wrong.
pub(crate) fn quick_check(conn: &Connection, path: &Path) -> Result<()> {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let checks: Vec<String> = if size <= FULL_CHECK_BYTES {
        vec!["PRAGMA quick_check(1)".into()]
    } else {
        std::iter::once("PRAGMA quick_check('sqlite_schema')".to_string())
            .chain(
                SMALL_TABLES
                    .iter()
                    .map(|t| format!("PRAGMA quick_check('{t}')")),
            )
            .collect()
    };
    for sql in checks {
        let first: String = match conn.query_row(&sql, [], |r| r.get(0)) {
            Ok(v) => v,
            Err(e) if is_corruption(&e) => return Err(damaged(path, &e.to_string())),
            Err(e) => return Err(e.into()),
        };
        if first != "ok" {
            bail!(damaged(path, &format!("quick_check: {first}")));
        }
    }
    Ok(())
}
