//! A family's `check`: one consistency condition is one query returning
//! the rows that break it. This runs such a query and gives its first
//! offenders as text, for every family's check alike.

use crate::protocol::Conn;
use anyhow::{Context, Result};

/// Offending rows kept per condition.
pub const SHOWN: usize = 5;

/// Runs `sql` and returns its first `SHOWN` rows, each as its values
/// joined by spaces (NULL spelled out); `what` names the condition in
/// the error when the query fails.
pub async fn offenders(conn: &mut Conn, sql: &str, what: &str) -> Result<Vec<String>> {
    let r = conn
        .query(sql)
        .await
        .with_context(|| format!("checking {what}"))?;
    Ok(r.rows
        .iter()
        .take(SHOWN)
        .map(|row| {
            row.iter()
                .map(|v| v.as_deref().unwrap_or("NULL"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect())
}
