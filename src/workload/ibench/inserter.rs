//! The insert benchmark's connections: inserters (a multi-row INSERT per
//! event, then the DELETE of as many of the oldest rows with
//! --delete-per-insert, each auto-committed; at --inserts-per-second on a
//! fixed schedule: open loop, an event late on its schedule starts at
//! once and its lateness is kept, not forgiven) and query threads (one
//! range query on a secondary index drawn at random per event, or with
//! --query-pk-only a point query on ids between the table's least and
//! largest, read every 100 queries).

use super::ib_knobs::IbenchOpts;
use super::purchases::{DELETE, INSERT, MIN_MAX, POINT, RANGE};
use crate::protocol::{IntWidth, Outcome, Rows, Stmt};
use crate::workload::family::{Consume, Op, Session, Step};
use crate::workload::rand::Rng;
use std::time::{Duration, Instant};

/// What a connection does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Inserter,
    Query,
}

/// One connection.
pub(crate) struct IbSession {
    o: IbenchOpts,
    rng: Rng,
    role: Role,
    pc: u8,
    /// Query threads: queries made, and the id range of point queries.
    queries: u64,
    ids: (i64, i64),
    /// Inserters at a rate: the time between events, the next one's due
    /// time.
    interval: Option<Duration>,
    due: Option<Instant>,
    fail: String,
}

const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

impl IbSession {
    pub(crate) fn new(o: &IbenchOpts, rng: Rng, thread: u32, threads: u32) -> IbSession {
        let inserters = threads.saturating_sub(o.query_threads);
        let fail = if inserters == 0 {
            format!(
                "--query-threads {} leaves no inserter among --threads {threads}: give more threads",
                o.query_threads
            )
        } else {
            String::new()
        };
        let interval = (o.inserts_per_second > 0).then(|| {
            Duration::from_secs_f64(f64::from(o.rows_per_commit) / f64::from(o.inserts_per_second))
        });
        IbSession {
            o: o.clone(),
            rng,
            role: if thread < inserters {
                Role::Inserter
            } else {
                Role::Query
            },
            pc: 0,
            queries: 0,
            ids: (1, 1),
            interval,
            due: None,
            fail,
        }
    }

    fn bind_insert(&mut self, stmt: &mut Stmt) {
        let mut b = stmt.binder();
        for _ in 0..self.o.rows_per_commit {
            let cash = self.rng.uniform(0, self.o.cashregisters - 1);
            let cust = self.rng.uniform(0, self.o.customers - 1);
            let prod = self.rng.uniform(0, self.o.products - 1);
            let price = self.rng.uniform(0, self.o.max_price - 1);
            b.int(i64::from(cash), IntWidth::Long);
            b.int(i64::from(cust), IntWidth::Long);
            b.int(i64::from(prod), IntWidth::Long);
            b.int(i64::from(price), IntWidth::Long);
            // the data: 'a's, then the random share (three quarters of
            // it counted, as the benchmark does for its base64 text)
            let len = self
                .rng
                .uniform(self.o.data_length_min, self.o.data_length_max);
            let random = (f64::from(len) * 0.75 * f64::from(self.o.data_random_pct) / 100.0) as u32;
            let mut d = vec![b'a'; (len - random) as usize];
            d.extend((0..random).map(|_| ALPHABET[self.rng.uniform(0, 63) as usize]));
            b.bytes(&d);
        }
    }

    fn step(stmt: usize, consume: Consume) -> Option<Step> {
        Some(Step {
            op: Op::Execute(stmt),
            consume,
            stat: stmt,
        })
    }

    fn next_insert(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        match self.pc {
            1 => {
                self.bind_insert(&mut stmts[INSERT]);
                Self::step(INSERT, Consume::Count)
            }
            2 if self.o.delete_per_insert => Self::step(DELETE, Consume::Count),
            _ => None,
        }
    }

    fn next_query(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        if self.pc > 1 {
            return None;
        }
        if self.o.query_pk_only {
            if self.queries.is_multiple_of(100) && self.pc == 1 {
                self.pc = 0;
                self.queries += 1;
                return Self::step(MIN_MAX, Consume::Decode);
            }
            let (lo, hi) = self.ids;
            let mut b = stmts[POINT].binder();
            for _ in 0..self.o.rows_per_query {
                let span = (hi - lo).clamp(0, i64::from(u32::MAX - 1)) as u32;
                b.int(
                    lo + i64::from(self.rng.uniform(0, span)),
                    IntWidth::LongLong,
                );
            }
            drop(b);
            self.queries += 1;
            return Self::step(POINT, Consume::Count);
        }
        let which = self.rng.uniform(0, self.o.num_secondary_indexes - 1) as usize;
        let bound = match which {
            0 => self.rng.uniform(0, self.o.products - 1),
            1 => self.rng.uniform(0, self.o.cashregisters - 1),
            _ => self.rng.uniform(0, self.o.max_price - 1),
        };
        let mut b = stmts[RANGE + which].binder();
        b.int(i64::from(bound), IntWidth::Long);
        drop(b);
        self.queries += 1;
        Self::step(RANGE + which, Consume::Count)
    }
}

impl Session for IbSession {
    fn start(&mut self) {
        self.pc = 0;
        if self.due.is_none() && self.interval.is_some() {
            self.due = Some(Instant::now());
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
        match self.role {
            Role::Inserter => self.next_insert(stmts),
            Role::Query => self.next_query(stmts),
        }
    }

    fn result(&mut self, _out: Outcome, rows: &mut Rows) {
        if let (Some(lo), Some(hi)) = (rows.int(0, 0), rows.int(0, 1)) {
            self.ids = (lo, hi.max(lo));
        }
    }

    fn text(&self) -> &str {
        &self.fail
    }

    fn class(&self) -> Option<usize> {
        Some(match self.role {
            Role::Inserter => 0,
            Role::Query => 1,
        })
    }

    fn paced(&self) -> bool {
        self.interval.is_some() && self.role == Role::Inserter
    }

    fn pause_us(&mut self) -> u64 {
        let (Some(interval), Some(due), Role::Inserter) = (self.interval, self.due, self.role)
        else {
            return 0;
        };
        let due = due + interval;
        self.due = Some(due);
        due.saturating_duration_since(Instant::now()).as_micros() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::RandParams;

    #[test]
    fn the_last_threads_query_and_a_rate_spaces_the_inserts() {
        let o = IbenchOpts {
            rows_per_commit: 10,
            inserts_per_second: 100,
            delete_per_insert: true,
            query_threads: 1,
            rows_per_query: 10,
            query_pk_only: false,
            data_length_min: 10,
            data_length_max: 20,
            data_random_pct: 50,
            cashregisters: 1000,
            products: 10000,
            customers: 100000,
            max_price: 500,
            num_secondary_indexes: 3,
            num_partitions: 0,
            rows_per_partition: 0,
            engine: "InnoDB".into(),
            engine_options: String::new(),
            phases: String::new(),
            rows: 0,
            duration: 0,
            settle: 0,
        };
        let rng = || Rng::new(&RandParams::default(), 3);
        assert_eq!(IbSession::new(&o, rng(), 1, 2).role, Role::Query);
        let mut s = IbSession::new(&o, rng(), 0, 2);
        assert_eq!(s.role, Role::Inserter);
        // 10 rows per event at 100 rows/s: one event per 100 ms
        assert_eq!(s.pause_us(), 0);
        s.start();
        let p = s.pause_us();
        assert!((90_000..=100_000).contains(&p), "{p}");
        // a late event is not forgiven: the next is due 100 ms after it was due
        let p2 = s.pause_us();
        assert!((190_000..=200_000).contains(&p2), "{p2}");
        assert!(!IbSession::new(&o, rng(), 0, 1).fail.is_empty());
    }
}
