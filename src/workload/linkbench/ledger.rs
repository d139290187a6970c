//! The run ledger: what the operations did to the graph's row counts,
//! kept in the progress table (`qpslab_linkbench`, parts `run.*`) so
//! that `check linkbench` can tie nodetable's and linktable's counts to
//! the load plus every run since (stored or not). Each requester tallies
//! the outcomes of its committed operations and adds them to the ledger
//! once, in its tear-down; this file owns the tally, the names and the
//! SQL that writes and reads them. It does not run statements itself.

use super::tables::PROGRESS;
use std::fmt::Write;

/// What an operation's outcome adds to the ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    /// ADD_NODE inserted a node.
    NodeAdded = 0,
    /// DELETE_NODE deleted one (a node already gone deletes none).
    NodeDeleted = 1,
    /// ADD_LINK/UPDATE_LINK inserted a link row.
    LinkAdded = 2,
    /// ADD_LINK/UPDATE_LINK made a hidden link visible again.
    LinkShown = 3,
    /// DELETE_LINK hid a visible link.
    LinkHidden = 4,
    /// DELETE_LINK read the link visible, then its hide changed nothing
    /// (another requester hid it first): no row count changes, but it
    /// ran an UPDATE without a count adjustment.
    HideRaced = 5,
}

/// The ledger's part names, by `Entry`.
pub(crate) const PARTS: [&str; 6] = [
    "run.nodes_added",
    "run.nodes_deleted",
    "run.links_added",
    "run.links_shown",
    "run.links_hidden",
    "run.hides_raced",
];

/// One requester's tally: the event in progress (`pending`) and the
/// events completed (`done`), which alone reach the ledger.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pending: [u64; 6],
    done: [u64; 6],
}

impl Tally {
    /// The event in progress did `e`, `n` times.
    pub fn note(&mut self, e: Entry, n: u64) {
        self.pending[e as usize] += n;
    }

    /// An event begins (again, after a rollback): what an earlier attempt
    /// noted is forgotten.
    pub fn begin(&mut self) {
        self.pending = [0; 6];
    }

    /// The event completed (committed).
    pub fn complete(&mut self) {
        for (d, p) in self.done.iter_mut().zip(&mut self.pending) {
            *d += std::mem::take(p);
        }
    }

    /// The statement that adds the completed events to the ledger (one
    /// autocommitted UPDATE of rows `create_sql` made: every requester
    /// locks them in the same order, so tear-downs wait, never deadlock),
    /// None when there is nothing to add; the tally starts over.
    pub fn flush_sql(&mut self) -> Option<String> {
        if self.done.iter().all(|&n| n == 0) {
            return None;
        }
        let mut sql = format!("UPDATE {PROGRESS} SET value = CAST(value AS UNSIGNED) + CASE part");
        for (part, n) in PARTS.iter().zip(self.done) {
            let _ = write!(sql, " WHEN '{part}' THEN {n}");
        }
        let _ = write!(sql, " ELSE 0 END WHERE part IN ({})", in_list());
        self.done = [0; 6];
        Some(sql)
    }
}

fn in_list() -> String {
    PARTS.map(|p| format!("'{p}'")).join(", ")
}

/// Creates the ledger's rows at 0 where they are missing (before every
/// run and check).
pub(crate) fn create_sql() -> String {
    let rows: Vec<String> = PARTS.iter().map(|p| format!("('{p}', '0')")).collect();
    format!(
        "INSERT IGNORE INTO {PROGRESS} (part, value) VALUES {}",
        rows.join(", ")
    )
}

/// SQL for the ledger's total of `e` (0 when no run has added to it).
pub(crate) fn total_sql(e: Entry) -> String {
    format!(
        "(SELECT COALESCE(SUM(CAST(value AS UNSIGNED)), 0) FROM {PROGRESS} WHERE part = '{}')",
        PARTS[e as usize]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_completed_events_reach_the_ledger() {
        let mut t = Tally::default();
        assert_eq!(t.flush_sql(), None);
        t.begin();
        t.note(Entry::LinkAdded, 1);
        t.begin(); // rolled back, retried
        t.note(Entry::LinkShown, 1);
        t.complete();
        t.begin();
        t.note(Entry::NodeAdded, 1); // never completed
        let sql = t.flush_sql().unwrap_or_default();
        assert!(sql.contains("WHEN 'run.links_added' THEN 0 "), "{sql}");
        assert!(sql.contains("WHEN 'run.links_shown' THEN 1 "), "{sql}");
        assert!(sql.contains("WHEN 'run.nodes_added' THEN 0 "), "{sql}");
        assert_eq!(t.flush_sql(), None);
    }
}
