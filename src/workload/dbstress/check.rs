//! `qpslab check dbstress`: the conditions the data keeps under any
//! number of write transactions, read on a quiet database. The scale is
//! read from `dbs_meta` (what prepare loaded), not from the options. Each
//! condition is one query per history table returning the rows that
//! break it.

use super::tables::{self, META, OBJECTS};
use crate::protocol::Conn;
use crate::workload::offenders::{offenders, SHOWN};
use anyhow::{bail, Context, Result};

/// One condition's outcome on one history table.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Condition {
    /// The history table.
    pub table: String,
    /// What it requires, in words.
    pub what: String,
    /// Rows that break it (at most `SHOWN`), as text.
    pub violations: Vec<String>,
}

/// What a check found: its conditions and the writes the objects count.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CheckReport {
    /// Objects, as loaded.
    pub objects: u64,
    /// History rows per object, as loaded.
    pub history_per_object: u64,
    /// History tables, as loaded.
    pub history_tables: u64,
    /// Write transactions completed on the data so far (sum of writes).
    pub writes: u64,
    /// Each condition on each table.
    pub conditions: Vec<Condition>,
}

async fn number(conn: &mut Conn, sql: &str) -> Result<Option<u64>> {
    Ok(conn
        .query(sql)
        .await
        .with_context(|| format!("`{sql}`"))?
        .rows
        .into_iter()
        .next()
        .and_then(|r| r.into_iter().next().flatten())
        .and_then(|v| v.parse().ok()))
}

fn conditions(t: u64, tables: u64, objects: u64, h: u64) -> Vec<(String, String)> {
    let ht = tables::history(t as u32);
    let n = tables::objects_in(t as u32, tables as u32, objects as u32);
    vec![
        (format!("{ht} holds {h} rows for each of its {n} objects"), format!(
            "SELECT 'total', COUNT(*), COUNT(DISTINCT object_id) FROM {ht} HAVING COUNT(*) <> {} OR COUNT(DISTINCT object_id) <> {n}
             UNION ALL (SELECT object_id, COUNT(*), '' FROM {ht} GROUP BY object_id HAVING COUNT(*) <> {h} LIMIT {SHOWN})", n * h)),
        (format!("{ht} holds only its own objects' history"), format!(
            "SELECT object_id, seq FROM {ht} WHERE object_id > {objects} OR (object_id - 1) % {tables} <> {} LIMIT {SHOWN}", t - 1)),
        ("each object's history rows written by runs = its writes (at most H)".to_string(), format!(
            "SELECT o.id, o.writes, COALESCE(n.c, 0) FROM {OBJECTS} o LEFT JOIN (SELECT object_id, COUNT(*) c FROM {ht} WHERE seq > {h} GROUP BY object_id) n ON n.object_id = o.id
             WHERE (o.id - 1) % {tables} = {} AND COALESCE(n.c, 0) <> LEAST(o.writes, {h}) LIMIT {SHOWN}", t - 1)),
    ]
}

/// Runs every condition.
pub async fn check(conn: &mut Conn) -> Result<CheckReport> {
    let meta = |part: &str| format!("SELECT value FROM {META} WHERE part = '{part}'");
    if number(conn, &meta("complete")).await?.is_none() {
        bail!("the dbSTRESS tables are not a complete prepare: run `qpslab cleanup dbstress` and `qpslab prepare dbstress` again");
    }
    let objects = number(conn, &meta("objects")).await?.unwrap_or(0);
    let h = number(conn, &meta("history_per_object"))
        .await?
        .unwrap_or(0);
    let tables = number(conn, &meta("history_tables"))
        .await?
        .unwrap_or(1)
        .max(1);
    let mut out = vec![Condition {
        table: OBJECTS.to_string(),
        what: format!("{OBJECTS} holds {objects} objects"),
        violations: number(conn, &format!("SELECT COUNT(*) FROM {OBJECTS}"))
            .await?
            .filter(|&c| c != objects)
            .map(|c| vec![format!("{c} rows")])
            .unwrap_or_default(),
    }];
    for t in 1..=tables {
        for (what, sql) in conditions(t, tables, objects, h) {
            let violations = offenders(conn, &sql, &what).await?;
            out.push(Condition {
                table: tables::history(t as u32),
                what,
                violations,
            });
        }
    }
    let writes = number(
        conn,
        &format!("SELECT COALESCE(SUM(writes), 0) FROM {OBJECTS}"),
    )
    .await?
    .unwrap_or(0);
    Ok(CheckReport {
        objects,
        history_per_object: h,
        history_tables: tables,
        writes,
        conditions: out,
    })
}
