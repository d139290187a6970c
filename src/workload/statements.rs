//! The statements of the sysbench OLTP family, with sysbench's exact SQL and
//! parameter types. `%u` stands for the table number.

use super::sbtest_data::{C_LEN, PAD_LEN};
use crate::protocol::Param;

/// One kind of statement a workload executes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// SELECT c by primary key.
    PointSelect,
    /// SELECT c over an id range.
    SimpleRange,
    /// SELECT SUM(k) over an id range.
    SumRange,
    /// SELECT c over an id range, ORDER BY c.
    OrderRange,
    /// SELECT DISTINCT c over an id range, ORDER BY c.
    DistinctRange,
    /// UPDATE of k (indexed) by id.
    IndexUpdate,
    /// UPDATE of c (not indexed) by id.
    NonIndexUpdate,
    /// DELETE by id.
    Delete,
    /// INSERT of a row.
    Insert,
    /// BEGIN.
    Begin,
    /// COMMIT.
    Commit,
    /// SELECT of rows whose k is in a random IN list.
    RandomPoints,
    /// SELECT count over several random k ranges.
    RandomRanges,
}

pub(crate) const ALL_KINDS: [Kind; 13] = [
    Kind::PointSelect,
    Kind::SimpleRange,
    Kind::SumRange,
    Kind::OrderRange,
    Kind::DistinctRange,
    Kind::IndexUpdate,
    Kind::NonIndexUpdate,
    Kind::Delete,
    Kind::Insert,
    Kind::Begin,
    Kind::Commit,
    Kind::RandomPoints,
    Kind::RandomRanges,
];

impl Kind {
    /// Position in `ALL_KINDS` (declared in the same order).
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// sysbench's name for the statement group.
    pub fn name(self) -> &'static str {
        match self {
            Kind::PointSelect => "point_selects",
            Kind::SimpleRange => "simple_ranges",
            Kind::SumRange => "sum_ranges",
            Kind::OrderRange => "order_ranges",
            Kind::DistinctRange => "distinct_ranges",
            Kind::IndexUpdate => "index_updates",
            Kind::NonIndexUpdate => "non_index_updates",
            Kind::Delete => "deletes",
            Kind::Insert => "inserts",
            Kind::Begin => "begin",
            Kind::Commit => "commit",
            Kind::RandomPoints => "random_points",
            Kind::RandomRanges => "random_ranges",
        }
    }

    /// True for statements bound to one `sbtestN` table.
    pub(crate) fn per_table(self) -> bool {
        !matches!(
            self,
            Kind::Begin | Kind::Commit | Kind::RandomPoints | Kind::RandomRanges
        )
    }

    /// The SQL for table `t`; `n` is the point/range count for the
    /// select_random_* statements.
    pub fn sql(self, t: u32, n: usize) -> String {
        match self {
            Kind::PointSelect => format!("SELECT c FROM sbtest{t} WHERE id=?"),
            Kind::SimpleRange => format!("SELECT c FROM sbtest{t} WHERE id BETWEEN ? AND ?"),
            Kind::SumRange => format!("SELECT SUM(k) FROM sbtest{t} WHERE id BETWEEN ? AND ?"),
            Kind::OrderRange => {
                format!("SELECT c FROM sbtest{t} WHERE id BETWEEN ? AND ? ORDER BY c")
            }
            Kind::DistinctRange => {
                format!("SELECT DISTINCT c FROM sbtest{t} WHERE id BETWEEN ? AND ? ORDER BY c")
            }
            Kind::IndexUpdate => format!("UPDATE sbtest{t} SET k=k+1 WHERE id=?"),
            Kind::NonIndexUpdate => format!("UPDATE sbtest{t} SET c=? WHERE id=?"),
            Kind::Delete => format!("DELETE FROM sbtest{t} WHERE id=?"),
            Kind::Insert => format!("INSERT INTO sbtest{t} (id, k, c, pad) VALUES (?, ?, ?, ?)"),
            Kind::Begin => "BEGIN".into(),
            Kind::Commit => "COMMIT".into(),
            Kind::RandomPoints => {
                let qs = vec!["?"; n].join(", ");
                format!("SELECT id, k, c, pad FROM sbtest1 WHERE k IN ({qs})")
            }
            Kind::RandomRanges => {
                let r = vec!["k BETWEEN ? AND ?"; n].join(" OR ");
                format!("SELECT count(k) FROM sbtest1 WHERE {r}")
            }
        }
    }

    /// The placeholders' types, in order; `n` is the IN list's or the
    /// ranges' count for the random statements.
    pub fn params(self, n: usize) -> Vec<Param> {
        use Param::{Char, Int};
        match self {
            Kind::PointSelect | Kind::IndexUpdate | Kind::Delete => vec![Int],
            Kind::SimpleRange | Kind::SumRange | Kind::OrderRange | Kind::DistinctRange => {
                vec![Int, Int]
            }
            Kind::NonIndexUpdate => vec![Char(C_LEN), Int],
            Kind::Insert => vec![Int, Int, Char(C_LEN), Char(PAD_LEN)],
            Kind::Begin | Kind::Commit => vec![],
            Kind::RandomPoints => vec![Int; n],
            Kind::RandomRanges => vec![Int; 2 * n],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_is_the_position_in_all_kinds() {
        for (i, k) in ALL_KINDS.iter().enumerate() {
            assert_eq!(k.index(), i);
        }
    }
}
