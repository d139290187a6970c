//! `qpslab check linkbench`: counttable's count equals the visible links
//! of each (id1, link_type), both ways (a count row without its links, a
//! link group without its count row), and visibility is 0 or 1; and the
//! row counts add up with the load and the operations the runs since
//! made (the run ledger, ledger.rs): nodes, links, visible links. Run on
//! a quiet database; each condition is one query returning its offenders.

use super::ledger::{total_sql, Entry};
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

/// What the load wrote: nodes and links.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Loaded {
    pub nodes: u64,
    pub links: u64,
}

fn conditions(l: Loaded) -> [(&'static str, String); 6] {
    use Entry::*;
    let [added, deleted, links_added, shown, hidden] =
        [NodeAdded, NodeDeleted, LinkAdded, LinkShown, LinkHidden].map(total_sql);
    // `rows` of `table` (the SELECT's FROM and WHERE) against `expected`,
    // whose `terms` the offender spells out.
    let tie = |rows: &str, from: &str, expected: String, terms: String| {
        format!(
            "SELECT CONCAT('{rows}: ', t.n, ', the load and the runs make ', e.n, ' ({terms})')
             FROM (SELECT COUNT(*) n FROM {from}) t, (SELECT {expected} n) e WHERE t.n <> e.n"
        )
    };
    [
        (
            "counttable.count = visible links of its (id1, link_type)",
            "SELECT c.id, c.link_type, c.count, COALESCE(l.n, 0) FROM counttable c
             LEFT JOIN (SELECT id1, link_type, COUNT(*) n FROM linktable WHERE visibility = 1 GROUP BY id1, link_type) l
             ON l.id1 = c.id AND l.link_type = c.link_type
             WHERE c.count <> COALESCE(l.n, 0) LIMIT 5".into(),
        ),
        (
            "every (id1, link_type) with visible links has its counttable row",
            "SELECT l.id1, l.link_type, COUNT(*) FROM linktable l
             LEFT JOIN counttable c ON c.id = l.id1 AND c.link_type = l.link_type
             WHERE l.visibility = 1 AND c.id IS NULL GROUP BY l.id1, l.link_type LIMIT 5".into(),
        ),
        (
            "links are visible (1) or hidden (0)",
            "SELECT id1, id2, link_type, visibility FROM linktable WHERE visibility NOT IN (0, 1) LIMIT 5".into(),
        ),
        (
            "nodes = loaded + added by ADD_NODE - deleted by DELETE_NODE (the run ledger)",
            tie(
                "nodetable rows",
                "nodetable",
                format!("{} + {added} - {deleted}", l.nodes),
                format!("{} loaded + ', {added}, ' added - ', {deleted}, ' deleted", l.nodes),
            ),
        ),
        (
            "links = loaded + inserted by ADD_LINK/UPDATE_LINK (the run ledger)",
            tie(
                "linktable rows",
                "linktable",
                format!("{} + {links_added}", l.links),
                format!("{} loaded + ', {links_added}, ' inserted", l.links),
            ),
        ),
        (
            "visible links = loaded + inserted + shown again - hidden by DELETE_LINK (the run ledger)",
            tie(
                "visible links",
                "linktable WHERE visibility = 1",
                format!("{} + {links_added} + {shown} - {hidden}", l.links),
                format!(
                    "{} loaded + ', {links_added}, ' inserted + ', {shown}, ' shown - ', {hidden}, ' hidden",
                    l.links
                ),
            ),
        ),
    ]
}

/// Runs every condition on a graph that loaded `l`.
pub(crate) async fn check(conn: &mut Conn, l: Loaded) -> Result<Vec<Condition>> {
    let mut out = Vec::new();
    for (what, sql) in conditions(l) {
        let violations = offenders(conn, &sql, &format!("that {what}")).await?;
        out.push(Condition { what, violations });
    }
    Ok(out)
}
