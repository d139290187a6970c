//! The sysbench OLTP workloads as a [`Family`]: each connection prepares the
//! statements its workload uses on every table, and a session plans an
//! event exactly as sysbench draws it (`Workload::plan`), then binds one
//! statement per step (`Workload::bind`).

use super::family::{BoxFuture, Consume, Family, PrepareReport, Session, StatementSpec, Step};
use super::statements::{Kind, ALL_KINDS};
use super::{OltpOpts, Op, Rng, Unique, Workload};
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
                    stat: kind.index(),
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
            rng: Rng::new(&o.rand, seed),
            o,
            inner: self.inner.clone(),
            thread,
            ops: Vec::with_capacity(64),
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
        quiet: bool,
        stop: fn() -> bool,
    ) -> anyhow::Result<PrepareReport> {
        super::prepare::prepare(opts, &self.inner.o, loaders, self.inner.seed, quiet, stop)
    }

    fn cleanup<'a>(
        &'a self,
        conn: &'a mut Conn,
        each: &'a mut dyn FnMut(&str),
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(super::prepare::cleanup(conn, self.inner.o.tables, each))
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
    ops: Vec<Op>,
    pos: usize,
}

impl Session for OltpSession {
    fn start(&mut self) {
        let i = &*self.inner;
        i.w.plan(&self.o, &i.groups, &mut self.rng, &mut self.ops);
        self.pos = 0;
    }

    #[inline]
    fn next(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        let op = *self.ops.get(self.pos)?;
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
        Some(Step {
            stmt: s,
            consume: Consume::Count,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Param;

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
                .map(|s| Stmt::new_text(&s.sql, &s.params))
                .collect();
            let mut s = f.session(0, 4, 1);
            for _ in 0..50 {
                s.start();
                let mut n = 0;
                while let Some(step) = s.next(&mut stmts) {
                    assert!(step.stmt < specs.len(), "{}", w.name());
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
    fn read_write_event_is_sysbench_shaped() {
        let f = Oltp::new(Workload::ReadWrite, OltpOpts::default(), 1);
        let specs = f.statements();
        let mut stmts: Vec<Stmt> = specs
            .iter()
            .map(|s| Stmt::new_text(&s.sql, &s.params))
            .collect();
        let mut s = f.session(0, 1, 1);
        s.start();
        let mut sql = Vec::new();
        while let Some(step) = s.next(&mut stmts) {
            sql.push(specs[step.stmt].sql.clone());
        }
        assert_eq!(sql.len(), 20);
        assert_eq!((sql[0].as_str(), sql[19].as_str()), ("BEGIN", "COMMIT"));
    }
}
