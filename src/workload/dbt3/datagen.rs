//! The data, from the `tpchgen` crate (a port of dbgen whose output is
//! dbgen's, row for row): each table cut into chunks (the crate's parts)
//! that a loader streams as dbgen's `.tbl` text, and each table's row
//! count for a scale factor. Generates nothing itself and talks to no
//! server.

use super::tpch_schema::Table;
use std::fmt::Display;
use std::io::Write;
use tpchgen::generators::{
    CustomerGenerator, LineItemGenerator, NationGenerator, OrderGenerator, PartGenerator,
    PartSuppGenerator, RegionGenerator, SupplierGenerator,
};

/// Rows a chunk holds, about.
const CHUNK_ROWS: u64 = 25_000;
/// Rows written per call of a chunk's filler.
const ROWS_PER_FILL: usize = 2_000;

/// One chunk of a table: the crate's `part` of `parts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    /// The table.
    pub table: Table,
    /// 1-based.
    pub part: i32,
    /// The table's chunks.
    pub parts: i32,
}

impl Chunk {
    /// Its key in the progress table (`lineitem:3/12`).
    pub fn key(&self) -> String {
        format!("{}:{}/{}", self.table.name(), self.part, self.parts)
    }
}

/// Rows of `t` at scale `sf` (lineitem's counted by generating its line
/// counts, as they are drawn per order).
pub fn rows(t: Table, sf: f64) -> u64 {
    let n = match t {
        Table::Region => 5,
        Table::Nation => 25,
        Table::Part => PartGenerator::calculate_row_count(sf, 1, 1),
        Table::Supplier => SupplierGenerator::calculate_row_count(sf, 1, 1),
        Table::PartSupp => 4 * PartSuppGenerator::calculate_row_count(sf, 1, 1),
        Table::Customer => CustomerGenerator::calculate_row_count(sf, 1, 1),
        Table::Orders => OrderGenerator::calculate_row_count(sf, 1, 1),
        Table::LineItem => return LineItemGenerator::new(sf, 1, 1).iter().count() as u64,
    };
    n.max(0) as u64
}

/// Rows of `t` at scale `sf`, about (lineitem: 4 per order), cheaply.
pub fn rows_about(t: Table, sf: f64) -> u64 {
    match t {
        Table::LineItem => 4 * rows(Table::Orders, sf),
        t => rows(t, sf),
    }
}

/// Builds dbgen's text pool (300 MB of generated text that every
/// table's comments are cut from; built once a process, single-threaded,
/// before the first row can be written) on a thread of its own, so that
/// it is under way while the tables are created and the loaders connect.
pub fn warm_up() {
    std::thread::spawn(|| {
        tpchgen::text::TextPool::get_or_init_default();
    });
}

/// Every chunk of every table at scale `sf`, the largest first.
pub fn chunks(sf: f64) -> Vec<Chunk> {
    let mut out = Vec::new();
    for t in super::tpch_schema::ALL {
        let parts = match t {
            Table::Region | Table::Nation => 1,
            t => rows_about(t, sf).div_ceil(CHUNK_ROWS).clamp(1, 100_000) as i32,
        };
        out.extend((1..=parts).map(|part| Chunk {
            table: t,
            part,
            parts,
        }));
    }
    out.sort_by_key(|c| std::cmp::Reverse(rows_about(c.table, sf) / c.parts as u64));
    out
}

/// Writes a chunk's rows as `.tbl` lines: each call appends up to
/// `ROWS_PER_FILL` rows and says whether more follow.
pub type Filler = Box<dyn FnMut(&mut Vec<u8>) -> bool + Send>;

fn filler<T: Display, I: Iterator<Item = T> + Send + 'static>(
    mut it: I,
    count: std::sync::Arc<std::sync::atomic::AtomicU64>,
) -> Filler {
    Box::new(move |buf: &mut Vec<u8>| {
        for _ in 0..ROWS_PER_FILL {
            match it.next() {
                Some(row) => {
                    let _ = writeln!(buf, "{row}");
                    count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                None => return false,
            }
        }
        true
    })
}

/// The rows of chunk `c` at scale `sf`; `count` counts the rows written.
pub fn chunk_rows(
    c: Chunk,
    sf: f64,
    count: std::sync::Arc<std::sync::atomic::AtomicU64>,
) -> Filler {
    let (p, n) = (c.part, c.parts);
    match c.table {
        Table::Region => filler(RegionGenerator::new(sf, p, n).into_iter(), count),
        Table::Nation => filler(NationGenerator::new(sf, p, n).into_iter(), count),
        Table::Part => filler(PartGenerator::new(sf, p, n).into_iter(), count),
        Table::Supplier => filler(SupplierGenerator::new(sf, p, n).into_iter(), count),
        Table::PartSupp => filler(PartSuppGenerator::new(sf, p, n).into_iter(), count),
        Table::Customer => filler(CustomerGenerator::new(sf, p, n).into_iter(), count),
        Table::Orders => filler(OrderGenerator::new(sf, p, n).into_iter(), count),
        Table::LineItem => filler(LineItemGenerator::new(sf, p, n).into_iter(), count),
    }
}

/// The LOAD DATA statement for `t`'s `.tbl` lines (`|` after every
/// field, the last included; no escapes: dbgen's text has none).
pub fn load_sql(t: Table) -> String {
    format!(
        "LOAD DATA LOCAL INFILE 'qpslab-dbt3-{0}' INTO TABLE {0} CHARACTER SET latin1 FIELDS TERMINATED BY '|' ESCAPED BY '' LINES TERMINATED BY '|\\n'",
        t.name()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    #[test]
    fn row_counts_follow_the_scale_and_chunks_cover_them() {
        assert_eq!(rows(Table::Orders, 0.01), 15_000);
        assert_eq!(rows(Table::PartSupp, 0.01), 8_000);
        assert_eq!(rows(Table::Supplier, 0.01), 100);
        assert_eq!(rows(Table::LineItem, 0.01), 60_175);
        let cs = chunks(0.05);
        let li: Vec<_> = cs.iter().filter(|c| c.table == Table::LineItem).collect();
        assert_eq!(li.len(), 12);
        let n = Arc::new(AtomicU64::new(0));
        for c in li {
            let mut f = chunk_rows(*c, 0.05, n.clone());
            let mut buf = Vec::new();
            while f(&mut buf) {}
        }
        assert_eq!(n.load(Ordering::Relaxed), rows(Table::LineItem, 0.05));
    }

    #[test]
    fn rows_are_dbgen_text() {
        let n = Arc::new(AtomicU64::new(0));
        let c = Chunk {
            table: Table::Nation,
            part: 1,
            parts: 1,
        };
        let mut buf = Vec::new();
        let mut f = chunk_rows(c, 0.01, n);
        while f(&mut buf) {}
        let text = String::from_utf8_lossy(&buf);
        assert!(text.starts_with("0|ALGERIA|0| haggle."), "{text}");
        assert_eq!(text.lines().count(), 25);
    }
}
