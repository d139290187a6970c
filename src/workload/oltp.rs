//! The sysbench OLTP workloads as a [`Family`]: each connection prepares the
//! statements its workload uses on every table, and a session plans an
//! event exactly as sysbench draws it (`Workload::plan`), then binds one
//! statement per step (`Workload::bind`).

use super::family::{
    BoxFuture, Consume, Family, Op as StepOp, PrepareReport, Session, StatementSpec, Step,
};
use super::oltp_plan::{EventPlan, OltpOpts, Workload};
use super::options::{OptKind, OptSpec, OptValues};
use super::rand::{RandParams, Rng, Unique};
use super::statements::{Kind, ALL_KINDS};
use crate::protocol::{Conn, ConnOpts, Stmt};
use std::sync::Arc;

const NKINDS: usize = ALL_KINDS.len();

/// One OLTP workload with its options.
pub struct Oltp {
    inner: Arc<Inner>,
}

struct Inner {
    w: Workload,
    o: OltpOpts,
    groups: Vec<(Kind, u32)>,
    /// Prepared statement of (table - 1) * NKINDS + kind; u16::MAX if none.
    slots: Vec<u16>,
    specs: Vec<StatementSpec>,
    /// `sysbench.rand.unique()`, shared by all connections (oltp_insert
    /// without auto_inc).
    unique: Unique,
    seed: u64,
}

impl Oltp {
    /// `seed` seeds the ids `oltp_insert` draws without auto-increment.
    pub fn new(w: Workload, o: OltpOpts, seed: u64) -> Oltp {
        let tables = o.tables.max(1);
        let mut slots = vec![u16::MAX; tables as usize * NKINDS];
        let mut specs = Vec::new();
        for kind in w.kinds(&o) {
            let n = w.arity(kind, &o);
            let ts = if kind.per_table() { 1..=tables } else { 1..=1 };
            for t in ts {
                slots[slot(t, kind)] = specs.len() as u16;
                specs.push(StatementSpec {
                    sql: kind.sql(t, n),
                    params: kind.params(n),
                    dynamic: false,
                });
            }
        }
        Oltp {
            inner: Arc::new(Inner {
                groups: w.groups(&o),
                w,
                o,
                slots,
                specs,
                unique: Unique::new(seed as u32),
                seed,
            }),
        }
    }

    /// Its options.
    pub fn opts(&self) -> &OltpOpts {
        &self.inner.o
    }
}

#[inline]
fn slot(table: u32, kind: Kind) -> usize {
    let t = if kind.per_table() {
        table as usize - 1
    } else {
        0
    };
    t * NKINDS + kind.index()
}

impl Family for Oltp {
    fn name(&self) -> &str {
        self.inner.w.name()
    }

    fn options(&self) -> serde_json::Value {
        serde_json::to_value(&self.inner.o).unwrap_or_default()
    }

    fn statements(&self) -> Vec<StatementSpec> {
        self.inner.specs.clone()
    }

    fn stat_names(&self) -> Vec<String> {
        ALL_KINDS.iter().map(|k| k.name().to_string()).collect()
    }

    fn session(&self, thread: u32, threads: u32, seed: u64) -> Box<dyn Session> {
        let mut o = self.inner.o.clone();
        o.threads = threads;
        Box::new(OltpSession {
            rng: Rng::for_connection(&o.rand, thread, seed),
            o,
            inner: self.inner.clone(),
            thread,
            ev: EventPlan::default(),
            events: 0,
            pos: 0,
        })
    }

    fn required_tables(&self) -> Vec<String> {
        let needed = match self.inner.w {
            Workload::SelectRandomPoints | Workload::SelectRandomRanges => 1,
            _ => self.inner.o.tables,
        };
        (1..=needed).map(|i| format!("sbtest{i}")).collect()
    }

    fn prepare_command(&self) -> String {
        format!(
            "qpslab prepare {} --tables {} --table-size {}",
            self.inner.w.name(),
            self.inner.o.tables,
            self.inner.o.table_size
        )
    }

    fn prepare(
        &self,
        opts: &ConnOpts,
        loaders: usize,
        progress: &mut dyn FnMut(super::Progress),
        stop: fn() -> bool,
    ) -> anyhow::Result<PrepareReport> {
        // oltp_insert with --auto-inc=off prepares empty tables, as its
        // sysbench script does: ids loaded now could collide with the
        // unique ids its inserts draw.
        let mut o = self.inner.o.clone();
        if self.inner.w == Workload::Insert && !o.auto_inc {
            o.table_size = 0;
        }
        super::prepare::prepare(opts, &o, loaders, self.inner.seed, progress, stop)
    }

    fn cleanup<'a>(
        &'a self,
        conn: &'a mut Conn,
        each: &'a mut dyn FnMut(&str),
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(super::prepare::cleanup(conn, self.inner.o.tables, each))
    }

    /// The data must cover --table-size (a point select of a missing id
    /// finds nothing, silently), and when the option was not given the
    /// data must not be bigger than its default (the run would read only
    /// the first 10,000 rows of a bigger table without saying so).
    /// oltp_insert reads no ids: no check.
    fn ready_checks(&self) -> Vec<(String, String)> {
        if self.inner.w == Workload::Insert {
            return Vec::new();
        }
        let o = &self.inner.o;
        let n = o.table_size;
        let size = if o.table_size_given {
            format!("--table-size {n}")
        } else {
            format!("--table-size {n} (the default)")
        };
        let mut checks = Vec::new();
        for t in self.required_tables() {
            checks.push((
                format!("SELECT 1 FROM `{t}` WHERE id = {n}"),
                format!(
                    "{t} has no row with id {n}: it holds fewer rows than {size}; give the --table-size it was prepared with, or prepare again (`qpslab cleanup {}` then `{}`)",
                    self.inner.w.name(),
                    self.prepare_command()
                ),
            ));
            if !o.table_size_given {
                checks.push((
                    format!(
                        "SELECT 1 FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM `{t}` WHERE id = {})",
                        u64::from(n) + 1
                    ),
                    format!(
                        "{t} holds more rows than {size}, and the run would use only ids 1 to {n}: give --table-size with the size it was prepared with (or this one, to use that part on purpose)"
                    ),
                ));
            }
        }
        checks
    }

    fn advice(&self, code: u16) -> Option<String> {
        (code == 1146).then(|| {
            format!(
                "the workload's tables are missing ({} tables of {} rows expected): prepare them first",
                self.inner.o.tables, self.inner.o.table_size
            )
        })
    }
}

struct OltpSession {
    inner: Arc<Inner>,
    /// The options with this run's thread count (select_random_* split the
    /// key space by thread).
    o: OltpOpts,
    rng: Rng,
    thread: u32,
    /// The event in progress: its statements and the strings they write.
    ev: EventPlan,
    pos: usize,
    /// Events started so far.
    events: u64,
}

impl Session for OltpSession {
    fn start(&mut self) {
        let i = &*self.inner;
        if self.events > 0 {
            // sysbench's latency histogram draws its slot from the thread's
            // generator after each event: the next event's numbers follow it
            self.rng.stream().next_u64();
        }
        self.events += 1;
        i.w.plan(&self.o, &i.groups, &mut self.rng, &mut self.ev);
        self.pos = 0;
    }

    #[inline]
    fn next(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        let op = *self.ev.ops.get(self.pos)?;
        self.pos += 1;
        let i = &*self.inner;
        let s = i.slots[slot(op.table, op.kind)] as usize;
        i.w.bind(
            &self.o,
            &op,
            &mut stmts[s],
            &mut self.rng,
            self.thread,
            &i.unique,
        );
        self.ev.bind_strings(&op, &mut stmts[s]);
        Some(Step {
            op: StepOp::Execute(s),
            consume: Consume::Count,
            stat: op.kind.index(),
        })
    }
}

/// More sbtest tables than any run of this family uses (each connection
/// keeps a statement slot per table and kind).
pub(crate) const MAX_TABLES: u32 = 100_000;

/// The OLTP family's options, with the names, defaults and meaning of
/// sysbench's oltp_common.lua (descriptions in our words).
pub(crate) fn option_specs() -> Vec<OptSpec> {
    use OptKind::*;
    let o = |n: &str, k: OptKind, d: &str, h: &str| OptSpec::new(n, k, d, h);
    vec![
        o(
            "tables",
            Count,
            "1",
            "tables sbtest1..N the load spreads over",
        ),
        o("table_size", Count, "10000", "rows in each table"),
        o("range_size", Count, "100", "rows each range query spans"),
        o(
            "point_selects",
            Count,
            "10",
            "primary-key lookups in each event",
        ),
        o(
            "simple_ranges",
            Count,
            "1",
            "plain range selects in each event",
        ),
        o(
            "sum_ranges",
            Count,
            "1",
            "range selects with SUM(k) in each event",
        ),
        o(
            "order_ranges",
            Count,
            "1",
            "range selects sorted by c in each event",
        ),
        o(
            "distinct_ranges",
            Count,
            "1",
            "range selects of DISTINCT c in each event",
        ),
        o(
            "index_updates",
            Count,
            "1",
            "updates of the indexed column k in each event",
        ),
        o(
            "non_index_updates",
            Count,
            "1",
            "updates of the unindexed column c in each event",
        ),
        o(
            "delete_inserts",
            Count,
            "1",
            "delete-then-reinsert pairs in each event",
        ),
        o(
            "range_selects",
            Bool,
            "on",
            "off leaves out every range query",
        ),
        o(
            "skip_trx",
            Bool,
            "off",
            "on runs the statements in autocommit, without BEGIN/COMMIT",
        ),
        o(
            "auto_inc",
            Bool,
            "on",
            "ids from AUTO_INCREMENT; off: ids drawn by the client",
        ),
        o(
            "create_secondary",
            Bool,
            "on",
            "build the index on k (after the load)",
        ),
        o(
            "random_points",
            Count,
            "10",
            "values in the IN() list of select_random_points",
        ),
        o(
            "number_of_ranges",
            Count,
            "10",
            "BETWEEN ranges of select_random_ranges",
        ),
        o(
            "delta",
            Count,
            "5",
            "width of each select_random_ranges range",
        ),
        o(
            "storage_engine",
            Text,
            "innodb",
            "ENGINE of the created tables",
        )
        .alias("mysql_storage_engine"),
    ]
}

impl OltpOpts {
    /// The options from their values; `rand` from the run's `--rand-*`.
    /// Err is one line naming the option and its bound.
    pub fn from_values(v: &OptValues, rand: RandParams) -> Result<OltpOpts, String> {
        let at_least_1 = |name: &str, why: &str| {
            if v.count(name) == 0 {
                Err(format!(
                    "--{} must be at least 1{why}",
                    name.replace('_', "-")
                ))
            } else {
                Ok(())
            }
        };
        at_least_1("tables", "")?;
        // Each connection keeps a slot per table and statement kind; a
        // statement has at most 65,535 placeholders (the protocol's limit).
        for (name, max) in [
            ("tables", MAX_TABLES),
            ("random_points", 65_535),
            ("number_of_ranges", 32_767),
        ] {
            if v.count(name) > max {
                return Err(format!(
                    "--{} must be at most {max}, got {}",
                    name.replace('_', "-"),
                    v.count(name)
                ));
            }
        }
        at_least_1("table_size", " (every query would look for id 1)")?;
        at_least_1("range_size", "")?;
        at_least_1("random_points", "")?;
        at_least_1("number_of_ranges", "")?;
        Ok(OltpOpts {
            tables: v.count("tables"),
            table_size: v.count("table_size"),
            table_size_given: v.is_given("table_size"),
            range_size: v.count("range_size"),
            point_selects: v.count("point_selects"),
            simple_ranges: v.count("simple_ranges"),
            sum_ranges: v.count("sum_ranges"),
            order_ranges: v.count("order_ranges"),
            distinct_ranges: v.count("distinct_ranges"),
            index_updates: v.count("index_updates"),
            non_index_updates: v.count("non_index_updates"),
            delete_inserts: v.count("delete_inserts"),
            range_selects: v.flag("range_selects"),
            skip_trx: v.flag("skip_trx"),
            auto_inc: v.flag("auto_inc"),
            create_secondary: v.flag("create_secondary"),
            random_points: v.count("random_points"),
            number_of_ranges: v.count("number_of_ranges"),
            delta: v.count("delta"),
            storage_engine: v.text("storage_engine").to_string(),
            rand,
            // the real thread count is given to each session by exec
            threads: 1,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Param;

    #[test]
    fn sizes_that_would_exhaust_memory_are_refused() {
        for (opt, bad) in [
            ("--tables", "4000000000"),
            ("--random-points", "70000"),
            ("--number-of-ranges", "40000"),
        ] {
            let mut v = OptValues::new(option_specs());
            v.take_from(&[opt.to_string(), bad.to_string()]).unwrap();
            let e = OltpOpts::from_values(&v, Default::default()).unwrap_err();
            assert!(e.contains(opt) && e.contains("at most"), "{e}");
        }
    }

    #[test]
    fn every_planned_statement_is_prepared() {
        for w in super::super::ALL {
            let o = OltpOpts {
                tables: 3,
                ..Default::default()
            };
            let f = Oltp::new(w, o, 7);
            let specs = f.statements();
            let mut stmts: Vec<Stmt> = specs
                .iter()
                .map(|s| Stmt::new_text(s.sql.as_str(), &s.params))
                .collect();
            let mut s = f.session(0, 4, 1);
            for _ in 0..50 {
                s.start();
                let mut n = 0;
                while let Some(step) = s.next(&mut stmts) {
                    assert!(step.stmt().unwrap() < specs.len(), "{}", w.name());
                    n += 1;
                }
                assert!(n > 0, "{}", w.name());
            }
            assert!(specs.iter().all(|s| s
                .params
                .iter()
                .all(|p| matches!(p, Param::Int | Param::Char(_)))));
        }
    }

    #[test]
    fn option_defaults_are_the_built_in_defaults() {
        let v = OptValues::new(option_specs());
        let a = serde_json::to_value(OltpOpts::from_values(&v, RandParams::default()).unwrap());
        assert_eq!(
            a.unwrap(),
            serde_json::to_value(OltpOpts::default()).unwrap()
        );
    }

    #[test]
    fn read_write_event_is_sysbench_shaped() {
        let f = Oltp::new(Workload::ReadWrite, OltpOpts::default(), 1);
        let specs = f.statements();
        let mut stmts: Vec<Stmt> = specs
            .iter()
            .map(|s| Stmt::new_text(s.sql.as_str(), &s.params))
            .collect();
        let mut s = f.session(0, 1, 1);
        s.start();
        let mut sql = Vec::new();
        while let Some(step) = s.next(&mut stmts) {
            sql.push(specs[step.stmt().unwrap()].sql.clone());
        }
        assert_eq!(sql.len(), 20);
        assert_eq!((sql[0].as_str(), sql[19].as_str()), ("BEGIN", "COMMIT"));
    }
}
