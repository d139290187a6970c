//! Rows to the server: `LOAD DATA LOCAL INFILE` streams (rows generated
//! into each packet as it goes, no file read or written; or the same
//! statement through the loader's named pipe, pipe.rs), the statement
//! and packet sizes, the check that the server took every row, and the tables a database already
//! holds. Owns no family's rows: a family hands each row's text in.

use super::pool::LoadCtx;
use super::stream_error::StreamError;
use crate::protocol::{Conn, ProtoError};

/// How a stream is cut: rows per statement (each its own transaction) and
/// rows per packet (generated just before it is sent).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Batching {
    /// Rows per LOAD DATA statement.
    pub statement_rows: u64,
    /// Rows per packet of a statement's stream.
    pub packet_rows: u64,
}

/// Streams rows `0..count` into `table` with LOAD DATA `sql` (its
/// `FIELDS TERMINATED BY` matching what `row` writes; sent by `ctx`'s
/// route: over the connection or through a named pipe), `row(i, buf)`
/// writing row i without its newline; counts the rows into `ctx` per
/// packet and stops between packets when `ctx` says so.
pub(crate) async fn stream_rows(
    conn: &mut Conn,
    sql: &str,
    table: &str,
    count: u64,
    batching: Batching,
    mut row: impl FnMut(u64, &mut Vec<u8>),
    ctx: &LoadCtx<'_>,
) -> Result<(), StreamError> {
    let mut at = 0;
    while at < count {
        let end = at.saturating_add(batching.statement_rows).min(count);
        let mut i = at;
        let fill = |buf: &mut Vec<u8>| {
            if ctx.stopped() {
                return false;
            }
            let last = (i + batching.packet_rows).min(end);
            for k in i..last {
                row(k, buf);
                buf.push(b'\n');
            }
            ctx.add_rows(last - i);
            i = last;
            i < end
        };
        let loaded = ctx.load_data(conn, sql, fill).await?;
        if ctx.stopped() {
            return Err(StreamError::Interrupted(table.to_string()));
        }
        if loaded != end - at {
            return Err(StreamError::Short {
                table: table.to_string(),
                loaded,
                sent: end - at,
            });
        }
        at = end;
    }
    Ok(())
}

/// The tables of the connection's database, lower-cased.
pub(crate) async fn existing_tables(conn: &mut Conn) -> Result<Vec<String>, ProtoError> {
    Ok(conn
        .query("SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()")
        .await?
        .rows
        .into_iter()
        .filter_map(|r| r.into_iter().next().flatten())
        .map(|t| t.to_lowercase())
        .collect())
}
