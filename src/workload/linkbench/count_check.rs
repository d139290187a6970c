//! `qpslab check linkbench`: counttable's count equals the visible links
//! of each (id1, link_type), both ways (a count row without its links, a
//! link group without its count row), and visibility is 0 or 1. Run on a
//! quiet database; each condition is one query returning its offenders.

use crate::protocol::Conn;
use crate::workload::offenders::offenders;
use anyhow::Result;

/// One condition's outcome.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Condition {
    /// What it requires, in words.
    pub what: &'static str,
    /// Rows that break it (at most `offenders::SHOWN`), as text.
    pub violations: Vec<String>,
}

fn conditions() -> [(&'static str, &'static str); 3] {
    [
        (
            "counttable.count = visible links of its (id1, link_type)",
            "SELECT c.id, c.link_type, c.count, COALESCE(l.n, 0) FROM counttable c
             LEFT JOIN (SELECT id1, link_type, COUNT(*) n FROM linktable WHERE visibility = 1 GROUP BY id1, link_type) l
             ON l.id1 = c.id AND l.link_type = c.link_type
             WHERE c.count <> COALESCE(l.n, 0) LIMIT 5",
        ),
        (
            "every (id1, link_type) with visible links has its counttable row",
            "SELECT l.id1, l.link_type, COUNT(*) FROM linktable l
             LEFT JOIN counttable c ON c.id = l.id1 AND c.link_type = l.link_type
             WHERE l.visibility = 1 AND c.id IS NULL GROUP BY l.id1, l.link_type LIMIT 5",
        ),
        (
            "links are visible (1) or hidden (0)",
            "SELECT id1, id2, link_type, visibility FROM linktable WHERE visibility NOT IN (0, 1) LIMIT 5",
        ),
    ]
}

/// Runs every condition.
pub async fn check(conn: &mut Conn) -> Result<Vec<Condition>> {
    let mut out = Vec::new();
    for (what, sql) in conditions() {
        let violations = offenders(conn, sql, &format!("that {what}")).await?;
        out.push(Condition { what, violations });
    }
    Ok(out)
}
