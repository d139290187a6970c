//! dbSTRESS's sessions: a read transaction of two SELECTs (the object,
//! then its latest history) and a write transaction of three auto-commit
//! statements (DELETE the object's oldest history row, INSERT a new one,
//! UPDATE the object), dealt in a fixed cycle of `--rw-ratio` reads then
//! one write, with `--think-time` after each.
//!
//! No deadlocks by construction: every write statement is its own
//! transaction (auto-commit) and touches the rows of one object only,
//! and each object has a single writer, the session `k mod sessions`
//! (k: its index within its history table); so a statement can wait only
//! for a one-statement transaction of another session that waits for
//! nothing the first holds: no cycle. Reads are consistent (lock-free)
//! reads.

use super::knobs::DbstressOpts;
use super::tables::{self, OBJECTS};
use crate::protocol::{IntWidth, Stmt};
use crate::workload::family::{Consume, Op, Session, Step};
use crate::workload::rand::Rng;

/// The statements of the objects table, then three per history table.
pub(crate) const SELECT_OBJECT: usize = 0;
pub(crate) const UPDATE_OBJECT: usize = 1;
const PER_TABLE: usize = 3;
const SELECT_HISTORY: usize = 0;
const DELETE_HISTORY: usize = 1;
const INSERT_HISTORY: usize = 2;

/// The names latency is reported by, in stat order.
pub(crate) const STATS: [&str; 5] = [
    "select_object",
    "update_object",
    "select_history",
    "delete_history",
    "insert_history",
];

/// Every statement's SQL, in the order the connections prepare them.
pub(crate) fn statements_sql(o: &DbstressOpts) -> Vec<String> {
    let mut v = vec![
        format!("SELECT id, name, section, zone, updated, writes, last_value, note FROM {OBJECTS} WHERE id = ?"),
        format!("UPDATE {OBJECTS} SET writes = writes + 1, last_value = ?, updated = NOW() WHERE id = ?"),
    ];
    for t in 1..=o.history_tables {
        let h = tables::history(t);
        v.push(format!(
            "SELECT seq, ts, value, note FROM {h} WHERE object_id = ? ORDER BY seq DESC LIMIT {}",
            o.history_per_object
        ));
        v.push(format!(
            "DELETE FROM {h} WHERE object_id = ? ORDER BY seq LIMIT 1"
        ));
        v.push(format!(
            "INSERT INTO {h} (object_id, seq, ts, value, note) VALUES (?, ?, NOW(), ?, ?)"
        ));
    }
    v
}

/// The stat a statement's latency is counted under.
fn stat_of(stmt: usize) -> usize {
    match stmt {
        SELECT_OBJECT | UPDATE_OBJECT => stmt,
        i => 2 + (i - 2) % PER_TABLE,
    }
}

/// One session.
pub(crate) struct DbSession {
    o: DbstressOpts,
    rng: Rng,
    /// This session's number and the session count (the writer of an
    /// object is session `k mod sessions`).
    me: u64,
    sessions: u64,
    /// Position in the cycle of `rw_ratio` reads and one write.
    cycle: u32,
    write: bool,
    table: u32,
    object: u64,
    pc: u8,
    /// The last history seq this session inserted (a microsecond clock,
    /// kept strictly increasing).
    last_seq: u64,
    /// Why the session cannot run, when it cannot.
    fail: String,
}

impl DbSession {
    pub(crate) fn new(o: &DbstressOpts, rng: Rng, thread: u32, threads: u32) -> DbSession {
        let (me, sessions) = (u64::from(thread), u64::from(threads.max(1)));
        let fail = if o.read_only() {
            String::new()
        } else {
            (1..=o.history_tables)
                .find(|&t| tables::objects_in(t, o.history_tables, o.objects) <= me)
                .map(|t| format!(
                    "--objects {} leaves session {} of {threads} no object of its own in {} (each object has one writer): give at least {} objects, or fewer --threads",
                    o.objects, thread + 1, tables::history(t), u64::from(o.history_tables) * sessions
                ))
                .unwrap_or_default()
        };
        DbSession {
            o: o.clone(),
            rng,
            me,
            sessions,
            cycle: 0,
            write: false,
            table: 1,
            object: 1,
            pc: 0,
            last_seq: 0,
            fail,
        }
    }

    /// The history table of the next transaction: the hot one at
    /// `--hot-share` percent, else one of the others evenly.
    fn draw_table(&mut self) -> u32 {
        let tables = self.o.history_tables;
        if tables == 1 || self.rng.unit() * 100.0 < f64::from(self.o.hot_share) {
            return 1;
        }
        self.rng.uniform(2, tables)
    }

    /// An object of table `t`: any for a read, one of this session's own
    /// for a write.
    fn draw_object(&mut self, t: u32) -> u64 {
        let n = tables::objects_in(t, self.o.history_tables, self.o.objects);
        let k = if self.write {
            let own = (n - 1 - self.me) / self.sessions + 1;
            let j = u64::from(
                self.rng
                    .uniform(0, (own - 1).min(u64::from(u32::MAX)) as u32),
            );
            self.me + self.sessions * j
        } else {
            u64::from(self.rng.uniform(0, (n - 1).min(u64::from(u32::MAX)) as u32))
        };
        tables::object_id(t, self.o.history_tables, k)
    }

    /// A new history seq: the clock in microseconds, strictly increasing
    /// (above every loaded seq, and above this object's earlier ones:
    /// only this session writes it).
    fn next_seq(&mut self) -> u64 {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_micros() as u64)
            .unwrap_or(0);
        self.last_seq = now.max(self.last_seq + 1);
        self.last_seq
    }

    fn exec(stmt: usize, consume: Consume) -> Option<Step> {
        Some(Step {
            op: Op::Execute(stmt),
            consume,
            stat: stat_of(stmt),
        })
    }

    fn history_stmt(&self, which: usize) -> usize {
        2 + (self.table as usize - 1) * PER_TABLE + which
    }
}

impl Session for DbSession {
    fn start(&mut self) {
        self.pc = 0;
        self.write = !self.o.read_only() && self.cycle == self.o.rw_ratio;
        self.table = self.draw_table();
        if self.fail.is_empty() {
            self.object = self.draw_object(self.table);
        }
    }

    fn next(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        if !self.fail.is_empty() {
            return Some(Step {
                op: Op::Fail,
                consume: Consume::Skip,
                stat: 0,
            });
        }
        self.pc += 1;
        let id = self.object as i64;
        let step = match (self.write, self.pc) {
            (false, 1) => SELECT_OBJECT,
            (false, 2) => self.history_stmt(SELECT_HISTORY),
            (true, 1) => self.history_stmt(DELETE_HISTORY),
            (true, 2) => self.history_stmt(INSERT_HISTORY),
            (true, 3) => UPDATE_OBJECT,
            _ => {
                self.cycle = if self.write { 0 } else { self.cycle + 1 };
                return None;
            }
        };
        let value = i64::from(self.rng.uniform(0, 999_999));
        let mut b = stmts[step].binder();
        if step == UPDATE_OBJECT {
            b.int(value, IntWidth::Long);
            b.int(id, IntWidth::LongLong);
        } else if step == self.history_stmt(INSERT_HISTORY) {
            let seq = self.next_seq();
            b.int(id, IntWidth::LongLong);
            b.int(seq as i64, IntWidth::LongLong);
            b.int(value, IntWidth::Long);
            b.bytes(format!("{value:06}-{seq:x}").as_bytes());
        } else {
            b.int(id, IntWidth::LongLong);
        }
        drop(b);
        Self::exec(step, Consume::Count)
    }

    fn text(&self) -> &str {
        &self.fail
    }

    fn pause_us(&mut self) -> u64 {
        u64::from(self.o.think_time_ms) * 1_000
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::RandParams;

    fn opts(rw: u32) -> DbstressOpts {
        DbstressOpts {
            objects: 1000,
            history_per_object: 20,
            history_tables: 4,
            hot_share: 80,
            rw_ratio: rw,
            think_time_ms: 0,
            storage_engine: "InnoDB".into(),
        }
    }

    #[test]
    fn writes_keep_to_the_sessions_own_objects_and_the_hot_table_gets_its_share() {
        let o = opts(1);
        let rng = Rng::new(&RandParams::default(), 7);
        let mut s = DbSession::new(&o, rng, 2, 3);
        let (mut hot, mut n) = (0, 0);
        for _ in 0..4000 {
            s.start();
            if s.write {
                let k = (s.object - u64::from(s.table)) / 4;
                assert_eq!(k % 3, 2, "object {} is not session 2's", s.object);
            }
            assert_eq!(tables::table_of(s.object, 4), s.table);
            assert!(s.object <= 1000);
            hot += u32::from(s.table == 1);
            n += 1;
            s.cycle = if s.write { 0 } else { s.cycle + 1 };
        }
        let pct = 100.0 * f64::from(hot) / f64::from(n);
        assert!((76.0..84.0).contains(&pct), "hot {pct}%");
        assert_eq!(stat_of(2 + 3 * 3 + INSERT_HISTORY), 4);
        assert_eq!(statements_sql(&o).len(), 2 + 3 * 4);
    }

    #[test]
    fn too_few_objects_for_the_sessions_is_said() {
        let mut o = opts(1);
        o.objects = 8;
        let s = DbSession::new(&o, Rng::new(&RandParams::default(), 1), 3, 4);
        assert!(s.fail.contains("at least 16 objects"), "{}", s.fail);
        o.rw_ratio = 0;
        let s = DbSession::new(&o, Rng::new(&RandParams::default(), 1), 3, 4);
        assert!(s.fail.is_empty());
    }
}
