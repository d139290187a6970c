//! One LinkBench requester: the ten operations as LinkStoreMysql runs
//! them, one step at a time for exec. An event is one operation; its
//! class is the operation. Operations are dealt from a deck the run's
//! requesters share (`Deck`: 10,000 cards in the mix's shares, shuffled),
//! so that any 10,000 operations in a row have the mix to 0.01%, where
//! LinkBench draws each independently.
//!
//! Link writes are transactions as LinkStoreMysql makes them: ADD_LINK
//! and UPDATE_LINK insert-or-flip-visibility, then count +1 when a
//! visible link appeared, then rewrite the data when the row was already
//! there; DELETE_LINK reads the visibility, hides a visible link and
//! takes 1 off its count. Reads and node operations run alone
//! (autocommit), as LinkBench's `…; commit` does in one round trip. An
//! operation rolled back for a deadlock or lock-wait timeout is retried
//! as the same operation with fresh draws (exec rolls back and counts the
//! error by code). GET_LINKS_LIST counts its page's rows undecoded and
//! reads a full page's last time with a second query (link_list_tail).
//! Each requester tallies its committed outcomes for the run ledger
//! (ledger.rs) and writes them in its tear-down.

use super::graph::{Access, Graph, MAX_LINK_DATA, MAX_NODE_DATA, P_ADD_EXIST};
use super::graph::{P_DELETE_EXIST, P_UPDATE_EXIST};
use super::ledger::{Entry, Tally};
use super::model::{geometric, lognormal_size, Motif};
use super::params::{LinkBenchOpts, OPS};
use crate::protocol::{IntWidth, Outcome, Rows, Stmt};
use crate::workload::family::{Consume, Op, Session, Step};
use crate::workload::xoroshiro::Xoroshiro;
use std::fmt::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Cards in the deck.
const DECK: usize = 10_000;

/// The operations of a run, dealt in turn to every requester.
pub(crate) struct Deck {
    cards: Vec<u8>,
    next: AtomicUsize,
}

impl Deck {
    /// A deck with each operation's share of `DECK` cards (largest
    /// remainders rounded up), shuffled with `seed`.
    pub fn new(mix: &[f64; 10], seed: u64) -> Deck {
        let exact: Vec<f64> = mix.iter().map(|s| s / 100.0 * DECK as f64).collect();
        let mut n: Vec<usize> = exact.iter().map(|e| e.floor() as usize).collect();
        let mut order: Vec<usize> = (0..10).collect();
        order.sort_by(|&a, &b| (exact[b] - n[b] as f64).total_cmp(&(exact[a] - n[a] as f64)));
        let short = DECK.saturating_sub(n.iter().sum());
        for &i in order.iter().take(short) {
            n[i] += 1;
        }
        let mut cards: Vec<u8> = n
            .iter()
            .enumerate()
            .flat_map(|(i, &k)| std::iter::repeat_n(i as u8, k))
            .collect();
        let mut x = Xoroshiro::from_seed(seed);
        for i in (1..cards.len()).rev() {
            let j = (x.next_u64() % (i as u64 + 1)) as usize;
            cards.swap(i, j);
        }
        Deck {
            cards,
            next: AtomicUsize::new(0),
        }
    }

    /// The next operation.
    fn deal(&self) -> usize {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        usize::from(self.cards[i % self.cards.len()])
    }
}

/// The prepared statements, in order, as (latency class, SQL).
pub(crate) const STATEMENTS: [(&str, &str); 13] = [
    ("link_insert", "INSERT INTO linktable (id1, id2, link_type, visibility, data, time, version) VALUES (?, ?, ?, 1, ?, ?, 0) ON DUPLICATE KEY UPDATE visibility = VALUES(visibility)"),
    ("count_add", "INSERT INTO counttable (id, link_type, count, time, version) VALUES (?, ?, 1, ?, 0) ON DUPLICATE KEY UPDATE count = count + 1, version = version + 1"),
    ("link_update_data", "UPDATE linktable SET visibility = 1, data = ?, time = ?, version = 0 WHERE id1 = ? AND id2 = ? AND link_type = ?"),
    ("link_visibility", "SELECT visibility FROM linktable WHERE id1 = ? AND id2 = ? AND link_type = ?"),
    ("link_hide", "UPDATE linktable SET visibility = 0 WHERE id1 = ? AND id2 = ? AND link_type = ?"),
    ("count_sub", "INSERT INTO counttable (id, link_type, count, time, version) VALUES (?, ?, 0, ?, 0) ON DUPLICATE KEY UPDATE count = IF(count = 0, 0, count - 1), time = VALUES(time), version = version + 1"),
    ("count_get", "SELECT count FROM counttable WHERE id = ? AND link_type = ?"),
    ("link_list", "SELECT id1, id2, link_type, visibility, data, time, version FROM linktable WHERE id1 = ? AND link_type = ? AND time >= ? AND time <= ? AND visibility = 1 ORDER BY time DESC LIMIT ?, ?"),
    ("node_insert", "INSERT INTO nodetable (type, version, time, data) VALUES (2048, 1, ?, ?)"),
    ("node_update", "UPDATE nodetable SET version = 2, time = ?, data = ? WHERE id = ? AND type = 2048"),
    ("node_delete", "DELETE FROM nodetable WHERE id = ? AND type = 2048"),
    ("node_get", "SELECT id, type, version, time, data FROM nodetable WHERE id = ?"),
    // A full page's last time, for the history queries (not LinkBench's:
    // it decodes the page; skipping the page's rows undecoded and asking
    // for that one row costs the client less than rendering ten thousand)
    ("link_list_tail", "SELECT time FROM linktable WHERE id1 = ? AND link_type = ? AND time >= ? AND time <= ? AND visibility = 1 ORDER BY time DESC LIMIT ?, 1"),
];
const LINK_INSERT: usize = 0;
const COUNT_ADD: usize = 1;
const LINK_UPDATE_DATA: usize = 2;
const LINK_VISIBILITY: usize = 3;
const LINK_HIDE: usize = 4;
const COUNT_SUB: usize = 5;
const COUNT_GET: usize = 6;
const LINK_LIST: usize = 7;
const NODE_INSERT: usize = 8;
const NODE_UPDATE: usize = 9;
const NODE_DELETE: usize = 10;
const NODE_GET: usize = 11;
const LINK_LIST_TAIL: usize = 12;
/// The latency class of the multiget (a text query: its IN list varies).
pub(crate) const MULTIGET_STAT: usize = STATEMENTS.len();

/// The latency classes: the statements, then the multiget.
pub(crate) fn stat_names() -> Vec<String> {
    let mut v: Vec<String> = STATEMENTS.iter().map(|(n, _)| n.to_string()).collect();
    v.push("link_multiget".into());
    v
}

/// Operation numbers (indexes into `OPS`).
const ADD_LINK: usize = 0;
const DELETE_LINK: usize = 1;
const UPDATE_LINK: usize = 2;
const COUNT_LINK: usize = 3;
const MULTIGET_LINK: usize = 4;
const GET_LINKS_LIST: usize = 5;
const ADD_NODE: usize = 6;
const UPDATE_NODE: usize = 7;
const DELETE_NODE: usize = 8;

/// Lists seen longer than the range limit, kept for history queries
/// (LinkBenchRequest's listTailHistoryLimit).
const HISTORY_LIMIT: usize = 2048;

/// One requester.
pub(crate) struct Requester {
    o: Arc<LinkBenchOpts>,
    g: Arc<Graph>,
    x: Xoroshiro,
    deck: Arc<Deck>,
    op: usize,
    finished: bool,
    pc: u32,
    text: String,
    /// Where the connection's set-up (1, 2) or tear-down (3, 4) is; 0
    /// between them.
    init_step: u8,
    /// The outcomes the run ledger gets in the tear-down.
    ledger: Tally,
    id1: u64,
    id2: u64,
    link_type: u64,
    data: Vec<u8>,
    affected: u64,
    visible: bool,
    /// Whether the link list just read filled its page.
    full: bool,
    /// (id1, link_type, time of the oldest link seen) of long lists.
    history: Vec<(u64, u64, u64)>,
    /// The history entry a history query pages from.
    from_history: Option<usize>,
    max_time: u64,
    offset: u64,
    id2s: Vec<u64>,
    gens: [Motif; 4],
}

const LINK_ADD_GEN: usize = 0;
const LINK_UP_GEN: usize = 1;
const NODE_ADD_GEN: usize = 2;
const NODE_UP_GEN: usize = 3;

/// Rows a write changed (0 for an outcome that is not a write's).
fn affected(out: Outcome) -> u64 {
    match out {
        Outcome::Affected(n) => n,
        _ => 0,
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl Requester {
    pub fn new(o: Arc<LinkBenchOpts>, g: Arc<Graph>, deck: Arc<Deck>, seed: u64) -> Requester {
        let mut x = Xoroshiro::from_seed(seed);
        let gen = |d: super::params::DataGen, x: &mut Xoroshiro| {
            Motif::new(d.start, d.end, d.uniqueness, x)
        };
        let gens = [
            gen(o.link_add, &mut x),
            gen(o.link_up, &mut x),
            gen(o.node_add, &mut x),
            gen(o.node_up, &mut x),
        ];
        Requester {
            o,
            g,
            x,
            deck,
            op: 0,
            finished: true,
            pc: 0,
            text: String::new(),
            init_step: 0,
            ledger: Tally::default(),
            id1: 0,
            id2: 0,
            link_type: 0,
            data: Vec::new(),
            affected: 0,
            visible: false,
            full: false,
            history: Vec::new(),
            from_history: None,
            max_time: 0,
            offset: 0,
            id2s: Vec::new(),
            gens,
        }
    }

    fn query(&mut self, sql: &str) -> Option<Step> {
        self.text.clear();
        self.text.push_str(sql);
        Some(Step {
            op: Op::Query,
            consume: Consume::Count,
            stat: usize::MAX,
        })
    }

    /// Binds `ints` then (when given) `bytes` at its place among them,
    /// and executes statement `i`.
    fn exec(
        &mut self,
        stmts: &mut [Stmt],
        i: usize,
        ints: &[u64],
        data_at: Option<usize>,
        consume: Consume,
    ) -> Option<Step> {
        let mut b = stmts[i].binder();
        for (k, &v) in ints.iter().enumerate() {
            if data_at == Some(k) {
                b.bytes(&self.data);
            }
            b.int(v as i64, IntWidth::LongLong);
        }
        if data_at == Some(ints.len()) {
            b.bytes(&self.data);
        }
        drop(b);
        Some(Step {
            op: Op::Execute(i),
            consume,
            stat: i,
        })
    }

    fn draw_input(&mut self) {
        let (g, x) = (&*self.g, &mut self.x);
        match self.op {
            ADD_LINK | UPDATE_LINK | DELETE_LINK => {
                self.id1 = g.id1(Access::LinkWrite, x);
                self.link_type = g.link_type(x);
                let p = [P_ADD_EXIST, P_DELETE_EXIST, P_UPDATE_EXIST][self.op];
                self.id2 = g.id2(self.id1, self.link_type, p, x);
                if self.op != DELETE_LINK {
                    let n = lognormal_size(x, self.o.link_datasize, MAX_LINK_DATA);
                    let gen = if self.op == ADD_LINK {
                        LINK_ADD_GEN
                    } else {
                        LINK_UP_GEN
                    };
                    self.gens[gen].fill(x, n, &mut self.data);
                }
            }
            COUNT_LINK | MULTIGET_LINK => {
                self.id1 = g.id1(Access::LinkRead, x);
                self.link_type = g.link_type(x);
                if self.op == MULTIGET_LINK {
                    let n = geometric(
                        x,
                        self.o.multiget_min,
                        self.o.multiget_max,
                        self.o.multiget_prob,
                    );
                    g.id2s(self.id1, self.link_type, n, x, &mut self.id2s);
                }
            }
            GET_LINKS_LIST => {
                self.from_history = None;
                if !self.history.is_empty() && x.unit() * 100.0 < self.o.getlinklist_history {
                    let k = (x.unit() * self.history.len() as f64) as usize;
                    let (id1, t, time) = self.history[k.min(self.history.len() - 1)];
                    (self.id1, self.link_type, self.max_time, self.offset) = (id1, t, time, 1);
                    self.from_history = Some(k.min(self.history.len() - 1));
                } else {
                    self.id1 = g.id1(Access::LinkRead, x);
                    self.link_type = g.link_type(x);
                    (self.max_time, self.offset) = (i64::MAX as u64, 0);
                }
            }
            ADD_NODE | UPDATE_NODE => {
                if self.op == UPDATE_NODE {
                    self.id1 = g.id1(Access::NodeUpdate, x);
                }
                let n = lognormal_size(x, self.o.node_datasize, MAX_NODE_DATA);
                let gen = if self.op == ADD_NODE {
                    NODE_ADD_GEN
                } else {
                    NODE_UP_GEN
                };
                self.gens[gen].fill(x, n, &mut self.data);
            }
            DELETE_NODE => self.id1 = g.id1(Access::NodeDelete, x),
            _ => self.id1 = g.id1(Access::NodeRead, x),
        }
    }

    /// ADD_LINK and UPDATE_LINK (LinkStoreMysql.addLinkImpl).
    fn next_add(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        let (id1, id2, t) = (self.id1, self.id2, self.link_type);
        self.pc += 1;
        match self.pc {
            1 => self.query("BEGIN"),
            2 => self.exec(
                stmts,
                LINK_INSERT,
                &[id1, id2, t, now_ms()],
                Some(3),
                Consume::Outcome,
            ),
            3 if self.affected == 1 || self.affected == 2 => {
                self.exec(stmts, COUNT_ADD, &[id1, t, now_ms()], None, Consume::Count)
            }
            3 | 4 if self.affected != 1 => {
                self.pc = 4;
                self.exec(
                    stmts,
                    LINK_UPDATE_DATA,
                    &[now_ms(), id1, id2, t],
                    Some(0),
                    Consume::Count,
                )
            }
            3..=5 => {
                self.pc = 6;
                self.query("COMMIT")
            }
            _ => None,
        }
    }

    /// DELETE_LINK (LinkStoreMysql.deleteLinkImpl, not expunging).
    fn next_delete(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        let (id1, id2, t) = (self.id1, self.id2, self.link_type);
        self.pc += 1;
        match self.pc {
            1 => self.query("BEGIN"),
            2 => self.exec(
                stmts,
                LINK_VISIBILITY,
                &[id1, id2, t],
                None,
                Consume::Decode,
            ),
            3 if self.visible => {
                self.exec(stmts, LINK_HIDE, &[id1, id2, t], None, Consume::Outcome)
            }
            // Only when the hide changed the row: a delete that lost the
            // race to another leaves the count alone (LinkBench would
            // take 1 off twice).
            4 if self.affected == 1 => self.exec(
                stmts,
                COUNT_SUB,
                &[id1, t, now_ms(), now_ms()],
                None,
                Consume::Count,
            ),
            // (after the count too: a transaction left open would take
            // the connection's next operations into it, and a rollback
            // or the connection's end would undo them)
            3..=5 => {
                self.pc = 6;
                self.query("COMMIT")
            }
            _ => None,
        }
    }

    fn next_one(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        self.pc += 1;
        if self.pc > 1 {
            return None;
        }
        let (id1, t) = (self.id1, self.link_type);
        match self.op {
            COUNT_LINK => self.exec(stmts, COUNT_GET, &[id1, t], None, Consume::Count),
            MULTIGET_LINK => {
                self.text.clear();
                let _ = write!(
                    self.text,
                    "SELECT id1, id2, link_type, visibility, data, time, version FROM linktable WHERE id1 = {id1} AND link_type = {t} AND id2 IN ("
                );
                for (k, id2) in self.id2s.iter().enumerate() {
                    let _ = write!(self.text, "{}{id2}", if k > 0 { "," } else { "" });
                }
                self.text.push(')');
                Some(Step {
                    op: Op::Query,
                    consume: Consume::Count,
                    stat: MULTIGET_STAT,
                })
            }
            ADD_NODE => {
                let secs = now_ms() / 1000;
                self.exec(stmts, NODE_INSERT, &[secs], Some(1), Consume::Outcome)
            }
            UPDATE_NODE => {
                let secs = now_ms() / 1000;
                self.exec(stmts, NODE_UPDATE, &[secs, id1], Some(1), Consume::Count)
            }
            DELETE_NODE => self.exec(stmts, NODE_DELETE, &[id1], None, Consume::Outcome),
            _ => self.exec(stmts, NODE_GET, &[id1], None, Consume::Count),
        }
    }

    /// GET_LINKS_LIST: the page, its rows counted undecoded; when it is
    /// full, its last row's time (`link_list_tail`).
    fn next_list(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        let (id1, t, limit) = (self.id1, self.link_type, u64::from(self.o.range_limit));
        self.pc += 1;
        match self.pc {
            1 => {
                let v = [id1, t, 0, self.max_time, self.offset, limit];
                self.exec(stmts, LINK_LIST, &v, None, Consume::Outcome)
            }
            2 if self.full => {
                let v = [id1, t, 0, self.max_time, self.offset + limit - 1];
                self.exec(stmts, LINK_LIST_TAIL, &v, None, Consume::Decode)
            }
            _ => None,
        }
    }

    /// A link list read: a full page (with `last`, its last row's time)
    /// is remembered for history queries (LinkBenchRequest's
    /// addTailCacheEntry / getLinkListTail).
    fn read_list(&mut self, last: Option<u64>) {
        match (self.from_history, last) {
            (Some(k), Some(time)) => self.history[k].2 = time,
            (Some(k), None) => {
                self.history.swap_remove(k);
            }
            (None, Some(time)) => {
                let key = (self.id1, self.link_type);
                if self.history.iter().any(|h| (h.0, h.1) == key) {
                    return;
                }
                if self.history.len() < HISTORY_LIMIT {
                    self.history.push((key.0, key.1, time));
                } else {
                    let k = (self.x.unit() * self.history.len() as f64) as usize;
                    self.history[k.min(HISTORY_LIMIT - 1)] = (key.0, key.1, time);
                }
            }
            (None, None) => {}
        }
    }
}

impl Session for Requester {
    fn start(&mut self) {
        if self.finished {
            self.op = self.deck.deal().min(OPS.len() - 1);
        }
        self.finished = false;
        self.pc = 0;
        self.affected = 0;
        self.visible = false;
        self.full = false;
        self.ledger.begin();
        self.draw_input();
    }

    fn next(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        match self.init_step {
            1 => {
                self.init_step = 2;
                self.text.clear();
                // linktable and nodetable are latin1, payload bytes above 127 included.
                self.text.push_str("SET NAMES latin1");
                return Some(Step {
                    op: Op::Query,
                    consume: Consume::Skip,
                    stat: usize::MAX,
                });
            }
            3 => {
                let Some(sql) = self.ledger.flush_sql() else {
                    self.init_step = 0;
                    return None;
                };
                self.init_step = 4;
                self.text = sql;
                // (not one of the run's queries)
                return Some(Step {
                    op: Op::Query,
                    consume: Consume::Skip,
                    stat: usize::MAX,
                });
            }
            2 | 4 => {
                self.init_step = 0;
                return None;
            }
            _ => {}
        }
        let step = match self.op {
            ADD_LINK | UPDATE_LINK => self.next_add(stmts),
            DELETE_LINK => self.next_delete(stmts),
            GET_LINKS_LIST => self.next_list(stmts),
            _ => self.next_one(stmts),
        };
        if step.is_none() {
            self.finished = true;
            self.ledger.complete();
        }
        step
    }

    fn result(&mut self, out: Outcome, rows: &mut Rows) {
        match (self.op, self.pc) {
            (ADD_LINK | UPDATE_LINK, 2) => {
                self.affected = affected(out);
                match self.affected {
                    1 => self.ledger.note(Entry::LinkAdded, 1),
                    2 => self.ledger.note(Entry::LinkShown, 1),
                    _ => {}
                }
            }
            (DELETE_LINK, 3) => {
                self.affected = affected(out);
                let e = if self.affected == 1 {
                    Entry::LinkHidden
                } else {
                    Entry::HideRaced
                };
                self.ledger.note(e, 1);
            }
            (ADD_NODE, 1) => self.ledger.note(Entry::NodeAdded, affected(out)),
            (DELETE_NODE, 1) => self.ledger.note(Entry::NodeDeleted, affected(out)),
            (DELETE_LINK, 2) => self.visible = rows.int(0, 0) == Some(1),
            (GET_LINKS_LIST, 1) => {
                self.full = matches!(out, Outcome::Rows(n) if n >= u64::from(self.o.range_limit));
                if !self.full {
                    self.read_list(None);
                }
            }
            (GET_LINKS_LIST, 2) => {
                // (none when the page's last link went meanwhile)
                let last = rows.int(0, 0).map(|t| t as u64);
                self.read_list(last);
            }
            _ => {}
        }
    }

    fn text(&self) -> &str {
        &self.text
    }

    fn init(&mut self) -> bool {
        self.init_step = 1;
        true
    }

    fn done(&mut self) -> bool {
        self.init_step = 3;
        true
    }

    fn class(&self) -> Option<usize> {
        Some(self.op)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mix_is_drawn_in_its_shares() {
        let o = Arc::new(super::super::params::test_opts("1001"));
        let g = Arc::new(Graph::new(&o));
        let deck = Arc::new(Deck::new(&o.mix, 3));
        let mut r = Requester::new(o.clone(), g, deck, 7);
        let mut counts = [0u32; 10];
        let n = 20_000;
        for _ in 0..n {
            r.start();
            counts[r.op] += 1;
            r.finished = true;
        }
        for (i, c) in counts.iter().enumerate() {
            let share = f64::from(*c) * 100.0 / f64::from(n);
            assert!(
                (share - o.mix[i]).abs() < 0.01,
                "{}: {share} vs {}",
                OPS[i].0,
                o.mix[i]
            );
        }
    }
}
