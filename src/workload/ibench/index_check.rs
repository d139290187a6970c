//! `qpslab check insert-benchmark`: what purchases_index keeps under any
//! inserts and deletes, read on a quiet database: every secondary index
//! holds one entry per row (its count equals the primary key's), and the
//! server's CHECK TABLE finds nothing wrong. Reads only.

use super::purchases::{INDEXES, TABLE};
use crate::protocol::Conn;
use crate::workload::offenders::{offenders, SHOWN};
use anyhow::{Context, Result};

/// One condition and the rows that break it (at most `SHOWN`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct IndexCondition {
    /// What it requires, in words.
    pub what: String,
    /// What breaks it, as text.
    pub violations: Vec<String>,
}

/// What a check found.
#[derive(Debug, Clone, serde::Serialize)]
pub struct IndexReport {
    /// Rows in the table (by its primary key).
    pub rows: u64,
    /// The secondary indexes it has.
    pub indexes: Vec<String>,
    /// Each condition.
    pub conditions: Vec<IndexCondition>,
}

/// Runs every condition.
pub async fn check(conn: &mut Conn) -> Result<IndexReport> {
    let have = conn
        .query(&format!(
            "SELECT DISTINCT index_name FROM information_schema.STATISTICS WHERE table_schema = DATABASE() AND table_name = '{TABLE}' AND index_name <> 'PRIMARY'"
        ))
        .await
        .context("listing the table's indexes")?;
    let indexes: Vec<String> = have
        .rows
        .into_iter()
        .filter_map(|r| r.into_iter().next().flatten())
        .collect();
    let rows = conn
        .query(&format!(
            "SELECT COUNT(*) FROM {TABLE} FORCE INDEX (PRIMARY)"
        ))
        .await
        .with_context(|| {
            format!(
                "counting {TABLE}: run `qpslab prepare insert-benchmark` first if it is missing"
            )
        })?
        .rows
        .first()
        .and_then(|r| r.first().cloned().flatten())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0u64);
    let mut conditions = Vec::new();
    for (name, _) in INDEXES {
        let index = format!("{TABLE}_{name}");
        if !indexes.contains(&index) {
            continue;
        }
        let what = format!("{index} holds one entry per row ({rows})");
        let sql = format!(
            "SELECT '{index}', n FROM (SELECT COUNT(*) n FROM {TABLE} FORCE INDEX ({index})) c WHERE n <> {rows}"
        );
        let violations = offenders(conn, &sql, &what).await?;
        conditions.push(IndexCondition { what, violations });
    }
    let checked = conn
        .query(&format!("CHECK TABLE {TABLE}"))
        .await
        .context("CHECK TABLE")?;
    let violations = checked
        .rows
        .iter()
        .filter_map(|r| {
            let kind = r.get(2).cloned().flatten().unwrap_or_default();
            let text = r.get(3).cloned().flatten().unwrap_or_default();
            (kind.eq_ignore_ascii_case("error")
                || (kind.eq_ignore_ascii_case("status") && text != "OK"))
                .then(|| format!("{kind}: {text}"))
        })
        .take(SHOWN)
        .collect();
    conditions.push(IndexCondition {
        what: "CHECK TABLE finds nothing wrong".into(),
        violations,
    });
    Ok(IndexReport {
        rows,
        indexes,
        conditions,
    })
}
