//! `qpslab check dbt3`: each table's row count is the scale factor's
//! (from the generator, so exact), and the orders and their line items
//! match both ways (what a refresh pair must leave as it found). Run on a
//! quiet database; each condition is one query.

use super::datagen;
use super::tpch_schema::{self as tables, Table};
use crate::protocol::Conn;
use crate::workload::offenders::offenders;
use anyhow::{Context, Result};

/// One condition's outcome.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Condition {
    /// What it requires, in words.
    pub what: String,
    /// What breaks it (at most `offenders::SHOWN`), as text.
    pub violations: Vec<String>,
}

/// Runs every condition for scale `sf`.
pub async fn check(conn: &mut Conn, sf: f64) -> Result<Vec<Condition>> {
    let mut out = Vec::new();
    for t in tables::ALL {
        let want = datagen::rows(t, sf);
        let r = conn
            .query(&format!("SELECT COUNT(*) FROM {}", t.name()))
            .await
            .with_context(|| format!("counting {}", t.name()))?;
        let have: u64 = r
            .rows
            .first()
            .and_then(|row| row.first().cloned().flatten())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        out.push(Condition {
            what: format!("{} holds {want} rows", t.name()),
            violations: if have == want {
                Vec::new()
            } else {
                vec![format!("{have} rows")]
            },
        });
    }
    let li = Table::LineItem.name();
    for (what, sql) in [
        (
            "every line item has its order",
            format!("SELECT l.l_orderkey, l.l_linenumber FROM {li} l LEFT JOIN orders o ON o.o_orderkey = l.l_orderkey WHERE o.o_orderkey IS NULL LIMIT 5"),
        ),
        (
            "every order has line items",
            format!("SELECT o.o_orderkey FROM orders o LEFT JOIN {li} l ON l.l_orderkey = o.o_orderkey WHERE l.l_orderkey IS NULL LIMIT 5"),
        ),
    ] {
        let violations = offenders(conn, &sql, &format!("that {what}")).await?;
        out.push(Condition {
            what: what.to_string(),
            violations,
        });
    }
    Ok(out)
}
