//! A resumable load's progress table: rows of (part, value) in the
//! family's database, the data's shape under one key (what it was
//! prepared for), each part's key once its rows are in, `complete` last.
//! A prepare that finds the table without `complete` loads only the parts
//! not recorded (clearing each first: it may be half in). Owns the table's
//! SQL and reading it back; which parts there are is the family's.

use crate::protocol::{Conn, ProtoError};

/// The progress table's part key that marks the load complete.
pub(crate) const COMPLETE: &str = "complete";

/// `CREATE TABLE` of progress table `table`.
pub(crate) fn create_sql(table: &str) -> String {
    format!("CREATE TABLE {table} (part VARCHAR(40) NOT NULL PRIMARY KEY, value VARCHAR(100))")
}

/// Records the data's shape: part `key`, `value` (say the warehouses).
pub(crate) fn shape_sql(table: &str, key: &str, value: &str) -> String {
    format!("INSERT INTO {table} VALUES ('{key}', '{value}')")
}

/// Records part `part` as loaded.
pub(crate) fn part_done_sql(table: &str, part: &str) -> String {
    format!("INSERT INTO {table} VALUES ('{part}', NULL)")
}

/// Marks the load complete.
pub(crate) fn complete_sql(table: &str) -> String {
    format!("INSERT INTO {table} VALUES ('{COMPLETE}', NOW())")
}

/// What a progress table holds.
#[derive(Debug, Default)]
pub(crate) struct Recorded {
    /// The shape key's value (None: not recorded).
    pub shape: Option<String>,
    /// Whether the load completed.
    pub complete: bool,
    /// The parts loaded.
    pub done: Vec<String>,
}

/// Reads progress table `table`, the shape under `shape_key`.
pub(crate) async fn read(
    conn: &mut Conn,
    table: &str,
    shape_key: &str,
) -> Result<Recorded, ProtoError> {
    let mut rec = Recorded::default();
    for r in conn
        .query(&format!("SELECT part, value FROM {table}"))
        .await?
        .rows
    {
        let mut it = r.into_iter();
        let part = it.next().flatten().unwrap_or_default();
        let value = it.next().flatten().unwrap_or_default();
        if part == shape_key {
            rec.shape = Some(value);
        } else if part == COMPLETE {
            rec.complete = true;
        } else {
            rec.done.push(part);
        }
    }
    Ok(rec)
}
