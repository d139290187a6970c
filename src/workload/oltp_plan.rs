//! The built-in OLTP workloads (sysbench's oltp_* scripts): the options
//! they share (`OltpOpts`), each one's per-event plan of statements and
//! the random draws of its parameters. The family over them is oltp.rs;
//! this file opens no connection and knows no other family.

use super::rand::{RandParams, Rng, Unique};
use super::sbtest_data::{fill_groups, C_LEN, PAD_LEN};
use super::script::is_script;
use super::statements::Kind;
use crate::protocol::Stmt;
use anyhow::{bail, Result};

/// Options shared by the OLTP workloads, named as in sysbench.
#[derive(Debug, Clone, serde::Serialize)]
pub struct OltpOpts {
    /// Tables sbtest1..N.
    pub tables: u32,
    /// Rows per table.
    pub table_size: u32,
    /// Whether --table-size was given (a run checks the data against the
    /// default only when it was not).
    #[serde(skip)]
    pub table_size_given: bool,
    /// Rows a range query spans.
    pub range_size: u32,
    /// Point selects per event.
    pub point_selects: u32,
    /// Simple range selects per event.
    pub simple_ranges: u32,
    /// SUM() range selects per event.
    pub sum_ranges: u32,
    /// ORDER BY range selects per event.
    pub order_ranges: u32,
    /// DISTINCT range selects per event.
    pub distinct_ranges: u32,
    /// UPDATEs of the indexed column per event.
    pub index_updates: u32,
    /// UPDATEs of a non-indexed column per event.
    pub non_index_updates: u32,
    /// DELETE + INSERT pairs per event.
    pub delete_inserts: u32,
    /// Whether the range selects run at all.
    pub range_selects: bool,
    /// Run without BEGIN/COMMIT (autocommit statements).
    pub skip_trx: bool,
    /// Ids from AUTO_INCREMENT (else qpslab chooses them).
    pub auto_inc: bool,
    /// Create the secondary index on k at prepare.
    pub create_secondary: bool,
    /// Ids in one select_random_points IN list.
    pub random_points: u32,
    /// BETWEEN ranges in one select_random_ranges query.
    pub number_of_ranges: u32,
    /// Width of each of those ranges.
    pub delta: u32,
    /// The tables' engine at prepare (innodb, myrocks, …).
    pub storage_engine: String,
    /// How ids are drawn (distribution and its parameters).
    pub rand: RandParams,
    /// Number of load threads (select_random_* split the key space by thread).
    pub threads: u32,
}

impl Default for OltpOpts {
    fn default() -> Self {
        OltpOpts {
            tables: 1,
            table_size: 10_000,
            table_size_given: false,
            range_size: 100,
            point_selects: 10,
            simple_ranges: 1,
            sum_ranges: 1,
            order_ranges: 1,
            distinct_ranges: 1,
            index_updates: 1,
            non_index_updates: 1,
            delete_inserts: 1,
            range_selects: true,
            skip_trx: false,
            auto_inc: true,
            create_secondary: true,
            random_points: 10,
            number_of_ranges: 10,
            delta: 5,
            storage_engine: "innodb".into(),
            rand: RandParams::default(),
            threads: 1,
        }
    }
}

/// The built-in OLTP workloads, each sysbench's script of the same name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Workload {
    /// oltp_point_select: one primary-key select per event.
    PointSelect,
    /// oltp_read_only: the read part of oltp_read_write.
    ReadOnly,
    /// oltp_read_write: point and range selects, updates, a delete and
    /// an insert in one transaction.
    ReadWrite,
    /// oltp_write_only: the write part of oltp_read_write.
    WriteOnly,
    /// oltp_update_index: one update of the indexed column.
    UpdateIndex,
    /// oltp_update_non_index: one update of a non-indexed column.
    UpdateNonIndex,
    /// oltp_delete: one delete (and its row put back).
    Delete,
    /// oltp_insert: one insert.
    Insert,
    /// select_random_points: an IN list of random ids.
    SelectRandomPoints,
    /// select_random_ranges: several BETWEEN ranges in one query.
    SelectRandomRanges,
}

/// Every built-in workload, in the order `qpslab workloads` lists them.
pub const ALL: [Workload; 10] = [
    Workload::PointSelect,
    Workload::ReadOnly,
    Workload::ReadWrite,
    Workload::WriteOnly,
    Workload::UpdateIndex,
    Workload::UpdateNonIndex,
    Workload::Delete,
    Workload::Insert,
    Workload::SelectRandomPoints,
    Workload::SelectRandomRanges,
];

/// One statement execution of an event: which statement, on which table,
/// with the ids chosen when the event was planned.
#[derive(Debug, Clone, Copy)]
pub struct Op {
    /// The statement.
    pub kind: Kind,
    /// The table's number (sbtest<table>).
    pub table: u32,
    /// The first id (the row, or a range's start).
    pub a: i32,
    /// The second id (a range's end), when the statement takes one.
    pub b: i32,
    /// Where this row's `c` (then `pad`) starts in the event's strings
    /// (updates of c and inserts only).
    pub(crate) strings: u32,
}

/// One planned event: its statements in order, and the `c`/`pad` values
/// they write, drawn where sysbench draws them (between the ids). Reused
/// from event to event: planning allocates nothing once it has grown.
#[derive(Debug, Default)]
pub struct EventPlan {
    /// The statements.
    pub ops: Vec<Op>,
    /// The `c` and `pad` values, back to back.
    pub(crate) strings: Vec<u8>,
}

impl EventPlan {
    /// Draws one `len`-byte value (`c` or `pad`) onto the strings; returns
    /// where it starts.
    fn draw_value(&mut self, len: usize, rng: &mut Rng) -> u32 {
        let at = self.strings.len();
        self.strings.resize(at + len, 0);
        fill_groups(&mut self.strings[at..], rng.stream());
        at as u32
    }

    /// Copies `op`'s `c` (and `pad`) into `stmt`'s parameters.
    #[inline]
    pub(crate) fn bind_strings(&self, op: &Op, stmt: &mut Stmt) {
        let at = op.strings as usize;
        let copy = |slot: &mut [u8], from: usize| {
            if let Some(v) = self.strings.get(from..from + slot.len()) {
                slot.copy_from_slice(v);
            }
        };
        match op.kind {
            Kind::NonIndexUpdate => copy(stmt.char_slot(0), at),
            Kind::Insert => {
                copy(stmt.char_slot(2), at);
                copy(stmt.char_slot(3), at + C_LEN);
            }
            _ => {}
        }
    }
}

impl Workload {
    /// Accepts sysbench's names, with or without `oltp_`.
    pub fn parse(name: &str) -> Result<Workload> {
        if is_script(name) {
            bail!("{name} is a sysbench Lua script, not a built-in workload: this command runs built-in workloads only (`qpslab workloads`)");
        }
        let short = name.trim_end_matches(".lua");
        let short = short.strip_prefix("oltp_").unwrap_or(short);
        for w in ALL {
            if w.name().strip_prefix("oltp_").unwrap_or(w.name()) == short {
                return Ok(w);
            }
        }
        let names: Vec<&str> = ALL.iter().map(|w| w.name()).collect();
        bail!(
            "unknown workload '{name}'; known: {} (see `qpslab workloads`)",
            names.join(", ")
        )
    }

    /// sysbench's name ("oltp_point_select").
    pub fn name(self) -> &'static str {
        match self {
            Workload::PointSelect => "oltp_point_select",
            Workload::ReadOnly => "oltp_read_only",
            Workload::ReadWrite => "oltp_read_write",
            Workload::WriteOnly => "oltp_write_only",
            Workload::UpdateIndex => "oltp_update_index",
            Workload::UpdateNonIndex => "oltp_update_non_index",
            Workload::Delete => "oltp_delete",
            Workload::Insert => "oltp_insert",
            Workload::SelectRandomPoints => "select_random_points",
            Workload::SelectRandomRanges => "select_random_ranges",
        }
    }

    /// What it runs, in one line.
    pub fn description(self) -> &'static str {
        match self {
            Workload::PointSelect => "one primary-key lookup per event",
            Workload::ReadOnly => "transaction of point selects and four kinds of range selects",
            Workload::ReadWrite => "read_only plus index/non-index updates and a delete+insert",
            Workload::WriteOnly => "transaction of index/non-index updates and a delete+insert",
            Workload::UpdateIndex => "one UPDATE of the indexed column k per event",
            Workload::UpdateNonIndex => "one UPDATE of the non-indexed column c per event",
            Workload::Delete => "one DELETE by primary key per event",
            Workload::Insert => "one INSERT per event (auto-increment or unique random ids)",
            Workload::SelectRandomPoints => "SELECT … WHERE k IN (10 random values) on sbtest1",
            Workload::SelectRandomRanges => {
                "SELECT count(k) … WHERE k BETWEEN … OR … (10 ranges) on sbtest1"
            }
        }
    }

    /// Statement groups of one event, in order, with their repeat counts.
    pub fn groups(self, o: &OltpOpts) -> Vec<(Kind, u32)> {
        use Kind::*;
        let trx = |mut body: Vec<(Kind, u32)>| {
            if !o.skip_trx {
                body.insert(0, (Begin, 1));
                body.push((Commit, 1));
            }
            body
        };
        let reads = || {
            let mut g = vec![(PointSelect, o.point_selects)];
            if o.range_selects {
                g.extend([
                    (SimpleRange, o.simple_ranges),
                    (SumRange, o.sum_ranges),
                    (OrderRange, o.order_ranges),
                    (DistinctRange, o.distinct_ranges),
                ]);
            }
            g
        };
        let writes = || {
            vec![
                (IndexUpdate, o.index_updates),
                (NonIndexUpdate, o.non_index_updates),
                (Delete, o.delete_inserts),
            ]
        };
        let groups = match self {
            Workload::PointSelect => vec![(PointSelect, 1)],
            Workload::ReadOnly => trx(reads()),
            Workload::ReadWrite => trx([reads(), writes()].concat()),
            Workload::WriteOnly => trx(writes()),
            Workload::UpdateIndex => vec![(IndexUpdate, o.index_updates)],
            Workload::UpdateNonIndex => vec![(NonIndexUpdate, o.non_index_updates)],
            Workload::Delete => vec![(Delete, 1)],
            Workload::Insert => vec![(Insert, 1)],
            Workload::SelectRandomPoints => vec![(RandomPoints, 1)],
            Workload::SelectRandomRanges => vec![(RandomRanges, 1)],
        };
        groups.into_iter().filter(|(_, n)| *n > 0).collect()
    }

    /// The statements a connection must prepare (delete_inserts need both).
    pub fn kinds(self, o: &OltpOpts) -> Vec<Kind> {
        let mut k: Vec<Kind> = self.groups(o).iter().map(|g| g.0).collect();
        if k.contains(&Kind::Delete) && self != Workload::Delete {
            k.push(Kind::Insert);
        }
        k
    }

    /// Statement count a kind takes for its placeholders (select_random_*).
    pub fn arity(self, kind: Kind, o: &OltpOpts) -> usize {
        match kind {
            Kind::RandomPoints => o.random_points as usize,
            Kind::RandomRanges => o.number_of_ranges as usize,
            _ => 0,
        }
    }

    /// Plans one event into `ops` (cleared first): tables and ids are drawn
    /// here, exactly in sysbench's order of draws per statement group.
    pub fn plan(self, o: &OltpOpts, groups: &[(Kind, u32)], rng: &mut Rng, ev: &mut EventPlan) {
        ev.ops.clear();
        ev.strings.clear();
        let size = o.table_size.max(1);
        for &(kind, count) in groups {
            let table = if kind.per_table() {
                rng.uniform(1, o.tables.max(1))
            } else {
                1
            };
            for _ in 0..count {
                let op = |a: u32, b: u32, strings: u32| Op {
                    kind,
                    table,
                    a: a as i32,
                    b: b as i32,
                    strings,
                };
                let none = 0;
                match kind {
                    Kind::PointSelect | Kind::IndexUpdate => {
                        ev.ops.push(op(rng.default_in(1, size), 0, none));
                    }
                    Kind::NonIndexUpdate => {
                        let c = ev.draw_value(C_LEN, rng);
                        ev.ops.push(op(rng.default_in(1, size), 0, c));
                    }
                    Kind::SimpleRange | Kind::SumRange | Kind::OrderRange | Kind::DistinctRange => {
                        let begin = rng.default_in(1, size);
                        ev.ops
                            .push(op(begin, begin + o.range_size.max(1) - 1, none));
                    }
                    Kind::Delete if self == Workload::Delete => {
                        ev.ops.push(op(rng.default_in(1, size), 0, none));
                    }
                    Kind::Delete => {
                        let id = rng.default_in(1, size);
                        let k = rng.default_in(1, size);
                        ev.ops.push(op(id, 0, none));
                        let c = ev.draw_value(C_LEN, rng);
                        ev.draw_value(PAD_LEN, rng);
                        ev.ops.push(Op {
                            kind: Kind::Insert,
                            table,
                            a: id as i32,
                            b: k as i32,
                            strings: c,
                        });
                    }
                    Kind::Insert => {
                        let k = rng.default_in(1, size);
                        let c = ev.draw_value(C_LEN, rng);
                        ev.draw_value(PAD_LEN, rng);
                        ev.ops.push(op(0, k, c));
                    }
                    Kind::Begin | Kind::Commit | Kind::RandomPoints | Kind::RandomRanges => {
                        ev.ops.push(op(0, 0, none))
                    }
                }
            }
        }
    }

    /// Sets the parameters of `stmt` for `op`. `thread` is the load thread
    /// number (select_random_* partition the key space by thread, as sysbench
    /// does); `unique` feeds insert ids when auto_inc is off.
    #[inline]
    pub fn bind(
        self,
        o: &OltpOpts,
        op: &Op,
        stmt: &mut Stmt,
        rng: &mut Rng,
        thread: u32,
        unique: &Unique,
    ) {
        match op.kind {
            Kind::PointSelect | Kind::IndexUpdate | Kind::Delete => stmt.set_int(0, op.a),
            Kind::SimpleRange | Kind::SumRange | Kind::OrderRange | Kind::DistinctRange => {
                stmt.set_int(0, op.a);
                stmt.set_int(1, op.b);
            }
            Kind::NonIndexUpdate => stmt.set_int(1, op.a),
            Kind::Insert => {
                let id = if self == Workload::Insert {
                    if o.auto_inc {
                        0
                    } else {
                        unique.next().wrapping_sub(2_147_483_648) as i32
                    }
                } else {
                    op.a
                };
                stmt.set_int(0, id);
                stmt.set_int(1, op.b);
            }
            Kind::RandomPoints | Kind::RandomRanges => {
                let threads = o.threads.max(1);
                let rlen = o.table_size / threads;
                let rmin = rlen * (thread % threads);
                let rmax = rmin + rlen;
                if op.kind == Kind::RandomPoints {
                    for i in 0..o.random_points as usize {
                        stmt.set_int(i, rng.default_in(rmin, rmax) as i32);
                    }
                } else {
                    for i in 0..o.number_of_ranges as usize {
                        let v = rng.default_in(rmin, rmax);
                        stmt.set_int(2 * i, v as i32);
                        stmt.set_int(2 * i + 1, (v + o.delta) as i32);
                    }
                }
            }
            Kind::Begin | Kind::Commit => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(w: Workload) -> (usize, usize, usize) {
        let o = OltpOpts {
            tables: 4,
            ..Default::default()
        };
        let mut ev = EventPlan::default();
        let mut rng = Rng::new(&o.rand, 1);
        w.plan(&o, &w.groups(&o), &mut rng, &mut ev);
        let ops = ev.ops;
        let reads = ops
            .iter()
            .filter(|op| {
                matches!(
                    op.kind,
                    Kind::PointSelect
                        | Kind::SimpleRange
                        | Kind::SumRange
                        | Kind::OrderRange
                        | Kind::DistinctRange
                )
            })
            .count();
        let other = ops
            .iter()
            .filter(|op| matches!(op.kind, Kind::Begin | Kind::Commit))
            .count();
        (reads, ops.len() - reads - other, other)
    }

    #[test]
    fn statements_per_event_match_sysbench() {
        assert_eq!(count(Workload::ReadWrite), (14, 4, 2));
        assert_eq!(count(Workload::ReadOnly), (14, 0, 2));
        assert_eq!(count(Workload::WriteOnly), (0, 4, 2));
        assert_eq!(count(Workload::PointSelect), (1, 0, 0));
    }

    #[test]
    fn names_with_and_without_prefix() {
        assert_eq!(Workload::parse("read_write").unwrap(), Workload::ReadWrite);
        assert_eq!(
            Workload::parse("oltp_point_select").unwrap(),
            Workload::PointSelect
        );
        assert_eq!(
            Workload::parse("select_random_points").unwrap(),
            Workload::SelectRandomPoints
        );
        assert!(Workload::parse("nope").is_err());
    }

    #[test]
    fn delete_insert_reuses_the_id() {
        let o = OltpOpts::default();
        let mut ev = EventPlan::default();
        let mut rng = Rng::new(&o.rand, 3);
        let w = Workload::WriteOnly;
        w.plan(&o, &w.groups(&o), &mut rng, &mut ev);
        let ops = ev.ops;
        let d = ops.iter().find(|x| x.kind == Kind::Delete).unwrap();
        let i = ops.iter().find(|x| x.kind == Kind::Insert).unwrap();
        assert_eq!((d.a, d.table), (i.a, i.table));
    }

    /// oltp_read_write's event as oltp_common.lua draws it: per group the
    /// table, then per statement its ids, a row's c before its id (update)
    /// or after id and k (delete + insert), pad after c.
    #[test]
    fn read_write_draws_in_sysbench_order() {
        let o = OltpOpts {
            tables: 3,
            rand: RandParams {
                sysbench_seed: 5,
                ..Default::default()
            },
            ..Default::default()
        };
        // each plan drawn from connection 0's stream, afresh
        let plan = |w: Workload, ev: &mut EventPlan| {
            w.plan(
                &o,
                &w.groups(&o),
                &mut Rng::for_connection(&o.rand, 0, 0),
                ev,
            )
        };
        let mut ev = EventPlan::default();
        plan(Workload::ReadWrite, &mut ev);
        let mut r = Rng::for_connection(&o.rand, 0, 0);
        let size = o.table_size;
        let mut want: Vec<(Kind, u32, u32)> = vec![(Kind::Begin, 1, 0)];
        let t = r.uniform(1, 3);
        for _ in 0..10 {
            want.push((Kind::PointSelect, t, r.default_in(1, size)));
        }
        for k in [
            Kind::SimpleRange,
            Kind::SumRange,
            Kind::OrderRange,
            Kind::DistinctRange,
        ] {
            let t = r.uniform(1, 3);
            want.push((k, t, r.default_in(1, size)));
        }
        let t = r.uniform(1, 3);
        want.push((Kind::IndexUpdate, t, r.default_in(1, size)));
        let t = r.uniform(1, 3);
        let mut c = [0u8; C_LEN];
        fill_groups(&mut c, r.stream());
        want.push((Kind::NonIndexUpdate, t, r.default_in(1, size)));
        let t = r.uniform(1, 3);
        let (id, k) = (r.default_in(1, size), r.default_in(1, size));
        want.push((Kind::Delete, t, id));
        want.push((Kind::Insert, t, id));
        let (mut c2, mut pad) = ([0u8; C_LEN], [0u8; PAD_LEN]);
        fill_groups(&mut c2, r.stream());
        fill_groups(&mut pad, r.stream());
        want.push((Kind::Commit, 1, 0));
        let got: Vec<(Kind, u32, u32)> = ev
            .ops
            .iter()
            .map(|o| (o.kind, o.table, o.a as u32))
            .collect();
        assert_eq!(got, want);
        let insert = ev.ops.iter().find(|o| o.kind == Kind::Insert).unwrap();
        assert_eq!(insert.b as u32, k);
        assert_eq!(ev.strings, [&c[..], &c2[..], &pad[..]].concat());
        // oltp_delete draws the table and one id
        plan(Workload::Delete, &mut ev);
        let mut r = Rng::for_connection(&o.rand, 0, 0);
        let t = r.uniform(1, 3);
        assert_eq!(
            (ev.ops[0].table, ev.ops[0].a as u32),
            (t, r.default_in(1, size))
        );
        assert_eq!(ev.ops.len(), 1);
    }
}
