//! One terminal: the five TPC-C transactions as their profiles say
//! (clause 2.4 to 2.8), one step at a time for exec.
//!
//! A terminal is bound to a home warehouse (and a district for
//! Stock-Level) of one table set. Transaction types come from a deck of
//! 100 cards (45 New-Order, 43 Payment, 4 each of the others) shuffled
//! and dealt in turn, reshuffled when empty (5.2.4.2). Each transaction is
//! a small program: `next` binds the statement at the program counter,
//! `result` reads what the program needs from its rows. A transaction
//! rolled back for a deadlock or lock-wait timeout is started again as
//! the same type with fresh input (exec counts the error by code).

use super::random_rules::{self, CUSTOMERS, DISTRICTS, ITEMS};
use super::sql::{s, stat_of};
use crate::protocol::{IntWidth, Outcome, Rows, Stmt};
use crate::workload::family::{Consume, Op, Session, Step};
use crate::workload::rand::Rng;
use std::io::Write;

/// The transaction types, in the order of the family's event classes;
/// `ROLLED_BACK` is the class of a New-Order rolled back on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tx {
    NewOrder = 0,
    Payment = 1,
    OrderStatus = 2,
    Delivery = 3,
    StockLevel = 4,
}

pub const ROLLED_BACK: usize = 5;
/// Statements per set with `--procedures`: one CALL per type.
pub(crate) const PROC_COUNT: usize = 5;
/// A program counter past every step: the transaction is over.
const DONE: u32 = 1000;
pub(crate) const CLASSES: [&str; 6] = [
    "new_order",
    "payment",
    "order_status",
    "delivery",
    "stock_level",
    "new_order_rollback",
];

/// Where a terminal works.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Home {
    /// The table set (1-based).
    pub set: u32,
    pub w: u32,
    /// Stock-Level's district.
    pub d: u32,
    pub warehouses: u32,
}

impl Home {
    /// Terminal `thread`: spread over sets first, then warehouses, then
    /// districts, so that N terminals cover min(N, sets × warehouses)
    /// warehouses evenly.
    pub fn of(thread: u32, sets: u32, warehouses: u32) -> Home {
        let sets = sets.max(1);
        let warehouses = warehouses.max(1);
        Home {
            set: thread % sets + 1,
            w: (thread / sets) % warehouses + 1,
            d: (thread / (sets * warehouses)) % DISTRICTS + 1,
            warehouses,
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Line {
    item: u32,
    supply_w: u32,
    qty: u32,
}

/// One terminal's state.
pub(crate) struct Terminal {
    home: Home,
    /// First statement of the home set's block.
    base: usize,
    rng: Rng,
    deck: [Tx; 100],
    dealt: usize,
    tx: Tx,
    /// The previous transaction completed (false: it is being retried).
    finished: bool,
    rolled_back: bool,
    pc: u32,
    text: &'static str,
    /// SET SESSION TRANSACTION ISOLATION LEVEL …, run at connect; empty
    /// for the server's default.
    setup: String,
    /// 0: no set-up in progress; 1: to send; 2: sent.
    setup_step: u8,
    /// Keying and think times (5.2.5.7) between transactions.
    keying: bool,
    /// The type dealt while pausing before it (keying needs it early).
    dealt_next: Option<Tx>,
    /// The type of the last completed transaction, for its think time.
    last_done: Option<Tx>,
    /// Each transaction is one CALL of its stored procedure.
    procedures: bool,
    /// This New-Order's last item is the unused one.
    rollback_planned: bool,
    /// A New-Order's lines as comma lists, for its procedure.
    csv: [Vec<u8>; 3],
    // Inputs and what the program read.
    d: u32,
    c_w: u32,
    c_d: u32,
    c_id: u32,
    by_name: bool,
    last: Vec<u8>,
    lines: [Line; 15],
    ol_cnt: usize,
    line: usize,
    all_local: bool,
    o_id: i64,
    price_cents: i64,
    s_quantity: i64,
    dist_info: Vec<u8>,
    amount: Vec<u8>,
    bad_credit: bool,
    c_data: Vec<u8>,
    h_data: Vec<u8>,
    carrier: u32,
    threshold: u32,
    found: bool,
}

fn shuffled(rng: &mut Rng, deck: &mut [Tx; 100]) {
    for (i, t) in deck.iter_mut().enumerate() {
        *t = match i {
            0..45 => Tx::NewOrder,
            45..88 => Tx::Payment,
            88..92 => Tx::OrderStatus,
            92..96 => Tx::Delivery,
            _ => Tx::StockLevel,
        };
    }
    for i in (1..deck.len()).rev() {
        deck.swap(i, rng.uniform(0, i as u32) as usize);
    }
}

impl Terminal {
    pub fn new(home: Home, rng: Rng, isolation: &str, keying: bool, procedures: bool) -> Terminal {
        let block = if procedures { PROC_COUNT } else { s::COUNT };
        Terminal {
            base: (home.set as usize - 1) * block,
            home,
            rng,
            deck: [Tx::NewOrder; 100],
            dealt: 100,
            tx: Tx::NewOrder,
            finished: true,
            rolled_back: false,
            pc: 0,
            text: "",
            setup: if isolation.is_empty() {
                String::new()
            } else {
                format!("SET SESSION TRANSACTION ISOLATION LEVEL {isolation}")
            },
            setup_step: 0,
            keying,
            dealt_next: None,
            last_done: None,
            procedures,
            rollback_planned: false,
            csv: [
                Vec::with_capacity(96),
                Vec::with_capacity(64),
                Vec::with_capacity(48),
            ],
            d: 1,
            c_w: 1,
            c_d: 1,
            c_id: 1,
            by_name: false,
            last: Vec::with_capacity(16),
            lines: [Line::default(); 15],
            ol_cnt: 0,
            line: 0,
            all_local: true,
            o_id: 0,
            price_cents: 0,
            s_quantity: 0,
            dist_info: Vec::with_capacity(24),
            amount: Vec::with_capacity(16),
            bad_credit: false,
            c_data: Vec::with_capacity(600),
            h_data: Vec::with_capacity(32),
            carrier: 1,
            threshold: 10,
            found: false,
        }
    }

    /// The next card of the deck.
    fn deal(&mut self) -> Tx {
        if self.dealt == self.deck.len() {
            shuffled(&mut self.rng, &mut self.deck);
            self.dealt = 0;
        }
        self.dealt += 1;
        self.deck[self.dealt - 1]
    }

    /// Another warehouse than home, or home when it is the only one.
    fn other_warehouse(&mut self) -> u32 {
        let n = self.home.warehouses;
        if n == 1 {
            return self.home.w;
        }
        let v = self.rng.uniform(1, n - 1);
        if v >= self.home.w {
            v + 1
        } else {
            v
        }
    }

    /// The customer of a Payment or Order-Status: 60% by last name.
    fn draw_customer(&mut self) {
        self.by_name = self.rng.uniform(1, 100) <= 60;
        if self.by_name {
            let n = random_rules::nurand(&mut self.rng, 255, random_rules::C_LAST_RUN, 0, 999);
            random_rules::last_name(n, &mut self.last);
        } else {
            self.c_id = random_rules::nurand(&mut self.rng, 1023, random_rules::C_ID, 1, CUSTOMERS);
        }
    }

    /// Draws the input of the transaction about to start (2.4.1, 2.5.1,
    /// 2.6.1, 2.7.1, 2.8.1).
    fn draw_input(&mut self) {
        let w = self.home.w;
        self.d = self.rng.uniform(1, DISTRICTS);
        self.rolled_back = false;
        match self.tx {
            Tx::NewOrder => {
                self.c_id =
                    random_rules::nurand(&mut self.rng, 1023, random_rules::C_ID, 1, CUSTOMERS);
                self.ol_cnt = self.rng.uniform(5, 15) as usize;
                let rollback = self.rng.uniform(1, 100) == 1;
                self.all_local = true;
                for i in 0..self.ol_cnt {
                    let item = random_rules::nurand(
                        &mut self.rng,
                        8191,
                        random_rules::C_OL_I_ID,
                        1,
                        ITEMS,
                    );
                    let supply_w = if self.home.warehouses > 1 && self.rng.uniform(1, 100) == 1 {
                        self.all_local = false;
                        self.other_warehouse()
                    } else {
                        w
                    };
                    let qty = self.rng.uniform(1, 10);
                    self.lines[i] = Line {
                        item,
                        supply_w,
                        qty,
                    };
                }
                // Stock rows are locked in one order by every terminal,
                // which keeps deadlocks between New-Orders rare; the
                // unused item of a rolled-back order stays last.
                let sorted = if rollback {
                    self.ol_cnt - 1
                } else {
                    self.ol_cnt
                };
                self.lines[..sorted].sort_unstable_by_key(|l| (l.supply_w, l.item));
                if rollback {
                    self.lines[self.ol_cnt - 1].item = ITEMS + 1;
                }
                self.rollback_planned = rollback;
                self.line = 0;
            }
            Tx::Payment => {
                let local = self.rng.uniform(1, 100) <= 85 || self.home.warehouses == 1;
                (self.c_w, self.c_d) = if local {
                    (w, self.d)
                } else {
                    (self.other_warehouse(), self.rng.uniform(1, DISTRICTS))
                };
                self.draw_customer();
                self.amount.clear();
                random_rules::money(self.rng.uniform(100, 500_000), &mut self.amount);
            }
            Tx::OrderStatus => {
                (self.c_w, self.c_d) = (w, self.d);
                self.draw_customer();
            }
            Tx::Delivery => {
                self.carrier = self.rng.uniform(1, 10);
                self.d = 1;
            }
            Tx::StockLevel => {
                self.d = self.home.d;
                self.threshold = self.rng.uniform(10, 20);
            }
        }
    }

    fn query(&mut self, sql: &'static str) -> Option<Step> {
        self.text = sql;
        Some(Step {
            op: Op::Query,
            consume: Consume::Count,
            stat: usize::MAX,
        })
    }

    /// Executes statement `i` of the home set, its values already bound.
    fn exec(&self, i: usize, consume: Consume) -> Option<Step> {
        Some(Step {
            op: Op::Execute(self.base + i),
            consume,
            stat: stat_of(i),
        })
    }

    /// Binds integers (as INT) to statement `i` and executes it.
    fn ints(&self, stmts: &mut [Stmt], i: usize, v: &[i64], consume: Consume) -> Option<Step> {
        let mut b = stmts[self.base + i].binder();
        for &x in v {
            b.int(x, IntWidth::Long);
        }
        drop(b);
        self.exec(i, consume)
    }

    fn next_new_order(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        let (w, d) = (i64::from(self.home.w), i64::from(self.d));
        self.pc += 1;
        match self.pc {
            1 => self.query("BEGIN"),
            2 => self.ints(stmts, s::NO_WH, &[w], Consume::Decode),
            3 => self.ints(stmts, s::NO_DIST, &[w, d], Consume::Decode),
            4 => self.ints(
                stmts,
                s::NO_DIST_UPD,
                &[self.o_id + 1, w, d],
                Consume::Count,
            ),
            5 => self.ints(
                stmts,
                s::NO_CUST,
                &[w, d, self.c_id.into()],
                Consume::Decode,
            ),
            6 => {
                let n = self.ol_cnt as i64;
                let local = i64::from(self.all_local);
                let v = [self.o_id, d, w, self.c_id.into(), n, local];
                self.ints(stmts, s::NO_ORDER_INS, &v, Consume::Count)
            }
            7 => self.ints(stmts, s::NO_NEWORD_INS, &[self.o_id, d, w], Consume::Count),
            // Per order line: item, stock, stock update, order line.
            8 => {
                if self.line == self.ol_cnt {
                    self.pc = DONE;
                    return self.query("COMMIT");
                }
                let item = self.lines[self.line].item;
                self.ints(stmts, s::NO_ITEM, &[item.into()], Consume::Decode)
            }
            9 if !self.found => {
                // The unused item: the order is rolled back (2.4.2.3).
                self.rolled_back = true;
                self.pc = DONE;
                self.query("ROLLBACK")
            }
            9 => {
                let l = self.lines[self.line];
                let i = s::NO_STOCK + self.d as usize - 1;
                self.ints(
                    stmts,
                    i,
                    &[l.item.into(), l.supply_w.into()],
                    Consume::Decode,
                )
            }
            10 => {
                let l = self.lines[self.line];
                let qty = i64::from(l.qty);
                let q = if self.s_quantity - qty >= 10 {
                    self.s_quantity - qty
                } else {
                    self.s_quantity - qty + 91
                };
                let remote = i64::from(l.supply_w != self.home.w);
                let v = [q, qty, remote, l.item.into(), l.supply_w.into()];
                self.ints(stmts, s::NO_STOCK_UPD, &v, Consume::Count)
            }
            11 => {
                let l = self.lines[self.line];
                let cents = self.price_cents * i64::from(l.qty);
                self.amount.clear();
                random_rules::money(cents as u32, &mut self.amount);
                let mut b = stmts[self.base + s::NO_OL_INS].binder();
                for x in [
                    self.o_id,
                    d,
                    w,
                    self.line as i64 + 1,
                    l.item.into(),
                    l.supply_w.into(),
                    l.qty.into(),
                ] {
                    b.int(x, IntWidth::Long);
                }
                b.bytes(&self.amount);
                b.bytes(&self.dist_info);
                drop(b);
                self.line += 1;
                self.pc = 7;
                self.exec(s::NO_OL_INS, Consume::Count)
            }
            _ => None,
        }
    }

    fn next_payment(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        let (w, d) = (i64::from(self.home.w), i64::from(self.d));
        let (cw, cd) = (i64::from(self.c_w), i64::from(self.c_d));
        self.pc += 1;
        match self.pc {
            1 => self.query("BEGIN"),
            2 => {
                let mut b = stmts[self.base + s::P_WH_UPD].binder();
                b.bytes(&self.amount);
                b.int(w, IntWidth::Long);
                drop(b);
                self.exec(s::P_WH_UPD, Consume::Count)
            }
            3 => self.ints(stmts, s::P_WH, &[w], Consume::Decode),
            4 => {
                let mut b = stmts[self.base + s::P_DIST_UPD].binder();
                b.bytes(&self.amount);
                b.int(w, IntWidth::Long);
                b.int(d, IntWidth::Long);
                drop(b);
                self.exec(s::P_DIST_UPD, Consume::Count)
            }
            5 => self.ints(stmts, s::P_DIST, &[w, d], Consume::Decode),
            6 if self.by_name => self.customer_by_name(stmts),
            6 | 7 => {
                self.pc = 7;
                self.ints(
                    stmts,
                    s::P_CUST,
                    &[cw, cd, self.c_id.into()],
                    Consume::Decode,
                )
            }
            8 if self.bad_credit => {
                let v = [cw, cd, self.c_id.into()];
                self.ints(stmts, s::P_CUST_DATA, &v, Consume::Decode)
            }
            8 | 9 => {
                self.pc = 9;
                let i = if self.bad_credit {
                    s::P_CUST_UPD_BC
                } else {
                    s::P_CUST_UPD
                };
                let mut b = stmts[self.base + i].binder();
                b.bytes(&self.amount);
                b.bytes(&self.amount);
                if self.bad_credit {
                    b.bytes(&self.c_data);
                }
                for x in [cw, cd, self.c_id.into()] {
                    b.int(x, IntWidth::Long);
                }
                drop(b);
                self.exec(i, Consume::Count)
            }
            10 => {
                let mut b = stmts[self.base + s::P_HIST_INS].binder();
                for x in [cd, cw, self.c_id.into(), d, w] {
                    b.int(x, IntWidth::Long);
                }
                b.bytes(&self.amount);
                b.bytes(&self.h_data);
                drop(b);
                self.exec(s::P_HIST_INS, Consume::Count)
            }
            11 => self.query("COMMIT"),
            _ => None,
        }
    }

    fn customer_by_name(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        let mut b = stmts[self.base + s::CUST_BY_NAME].binder();
        b.int(self.c_w.into(), IntWidth::Long);
        b.int(self.c_d.into(), IntWidth::Long);
        b.bytes(&self.last);
        drop(b);
        self.exec(s::CUST_BY_NAME, Consume::Decode)
    }

    fn next_order_status(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        let (w, d) = (i64::from(self.home.w), i64::from(self.d));
        self.pc += 1;
        match self.pc {
            1 => self.query("BEGIN"),
            2 if self.by_name => self.customer_by_name(stmts),
            2 | 3 => {
                self.pc = 3;
                self.ints(
                    stmts,
                    s::OS_CUST,
                    &[w, d, self.c_id.into()],
                    Consume::Decode,
                )
            }
            4 => self.ints(
                stmts,
                s::OS_ORDER,
                &[w, d, self.c_id.into()],
                Consume::Decode,
            ),
            5 if self.found => self.ints(stmts, s::OS_LINES, &[w, d, self.o_id], Consume::Decode),
            5 | 6 => {
                self.pc = 6;
                self.query("COMMIT")
            }
            _ => None,
        }
    }

    fn next_delivery(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        let w = i64::from(self.home.w);
        self.pc += 1;
        loop {
            let d = i64::from(self.d);
            return match self.pc {
                1 => self.query("BEGIN"),
                2 if self.d > DISTRICTS => {
                    self.pc = 9;
                    self.query("COMMIT")
                }
                2 => self.ints(stmts, s::D_NEWORD, &[w, d], Consume::Decode),
                3 if !self.found => {
                    // No undelivered order in this district: skipped.
                    self.d += 1;
                    self.pc = 2;
                    continue;
                }
                3 => self.ints(stmts, s::D_NEWORD_DEL, &[w, d, self.o_id], Consume::Count),
                4 => self.ints(stmts, s::D_ORDER, &[w, d, self.o_id], Consume::Decode),
                5 => {
                    let v = [self.carrier.into(), w, d, self.o_id];
                    self.ints(stmts, s::D_ORDER_UPD, &v, Consume::Count)
                }
                6 => self.ints(stmts, s::D_OL_UPD, &[w, d, self.o_id], Consume::Count),
                7 => self.ints(stmts, s::D_OL_SUM, &[w, d, self.o_id], Consume::Decode),
                8 => {
                    let mut b = stmts[self.base + s::D_CUST_UPD].binder();
                    b.bytes(&self.amount);
                    for x in [w, d, self.c_id.into()] {
                        b.int(x, IntWidth::Long);
                    }
                    drop(b);
                    self.d += 1;
                    self.pc = 1;
                    self.exec(s::D_CUST_UPD, Consume::Count)
                }
                _ => None,
            };
        }
    }

    fn next_stock_level(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        let (w, d) = (i64::from(self.home.w), i64::from(self.d));
        self.pc += 1;
        match self.pc {
            1 => self.query("BEGIN"),
            2 => self.ints(stmts, s::SL_DIST, &[w, d], Consume::Decode),
            3 => {
                let v = [w, d, self.o_id, self.o_id - 20, self.threshold.into()];
                self.ints(stmts, s::SL_COUNT, &v, Consume::Decode)
            }
            4 => self.query("COMMIT"),
            _ => None,
        }
    }

    /// `--procedures`: the transaction is one CALL with its draws.
    fn next_call(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        self.pc += 1;
        if self.pc > 1 {
            return None;
        }
        let i = self.tx as usize;
        let (w, d) = (i64::from(self.home.w), i64::from(self.d));
        let long = IntWidth::Long;
        let mut b = stmts[self.base + i].binder();
        match self.tx {
            Tx::NewOrder => {
                for x in [
                    w,
                    d,
                    self.c_id.into(),
                    self.ol_cnt as i64,
                    self.all_local.into(),
                ] {
                    b.int(x, long);
                }
                for c in self.csv.iter_mut() {
                    c.clear();
                }
                for (k, l) in self.lines[..self.ol_cnt].iter().enumerate() {
                    let sep = if k > 0 { "," } else { "" };
                    let _ = write!(self.csv[0], "{sep}{}", l.item);
                    let _ = write!(self.csv[1], "{sep}{}", l.supply_w);
                    let _ = write!(self.csv[2], "{sep}{}", l.qty);
                }
                for c in &self.csv {
                    b.bytes(c);
                }
                self.rolled_back = self.rollback_planned;
            }
            Tx::Payment => {
                for x in [
                    w,
                    d,
                    self.c_w.into(),
                    self.c_d.into(),
                    self.c_id.into(),
                    self.by_name.into(),
                ] {
                    b.int(x, long);
                }
                b.bytes(&self.last);
                b.bytes(&self.amount);
            }
            Tx::OrderStatus => {
                for x in [w, d, self.c_id.into(), self.by_name.into()] {
                    b.int(x, long);
                }
                b.bytes(&self.last);
            }
            Tx::Delivery => {
                b.int(w, long);
                b.int(self.carrier.into(), long);
            }
            Tx::StockLevel => {
                for x in [w, d, self.threshold.into()] {
                    b.int(x, long);
                }
            }
        }
        drop(b);
        Some(Step {
            op: Op::Execute(self.base + i),
            consume: Consume::Count,
            stat: i,
        })
    }

    /// What the statement just run (the one before the program counter)
    /// returned.
    fn read(&mut self, rows: &Rows) {
        self.found = !rows.is_empty();
        let int = |c| rows.int(0, c).unwrap_or(0);
        match (self.tx, self.pc) {
            (Tx::NewOrder, 3) => self.o_id = int(0),
            (Tx::NewOrder, 8) => self.price_cents = cents(rows.get(0, 0)),
            (Tx::NewOrder, 9) => {
                self.s_quantity = int(0);
                self.dist_info.clear();
                self.dist_info
                    .extend_from_slice(rows.get(0, 2).unwrap_or_default());
            }
            (Tx::Payment, 3) | (Tx::Payment, 5) => {
                // w_name / d_name: the last column; h_data is both, four
                // spaces apart.
                if self.pc == 3 {
                    self.h_data.clear();
                } else {
                    self.h_data.extend_from_slice(b"    ");
                }
                self.h_data
                    .extend_from_slice(rows.get(0, 5).unwrap_or_default());
            }
            (Tx::Payment, 6) | (Tx::OrderStatus, 2) => {
                // The customer in the middle of those with the name, by
                // first name (2.5.2.2).
                let n = rows.len();
                if n > 0 {
                    self.c_id = rows.int((n - 1) / 2, 0).unwrap_or(1) as u32;
                }
            }
            (Tx::Payment, 7) => self.bad_credit = rows.get(0, 9) == Some(b"BC"),
            (Tx::Payment, 8) => {
                let old = rows.get(0, 0).unwrap_or_default();
                self.c_data.clear();
                let _ = write!(
                    self.c_data,
                    "{} {} {} {} {} {} ",
                    self.c_id,
                    self.c_d,
                    self.c_w,
                    self.d,
                    self.home.w,
                    String::from_utf8_lossy(&self.amount)
                );
                let room = 500usize.saturating_sub(self.c_data.len());
                self.c_data.extend_from_slice(&old[..old.len().min(room)]);
            }
            (Tx::OrderStatus, 4) => self.o_id = int(0),
            (Tx::Delivery, 2) => self.o_id = int(0),
            (Tx::Delivery, 4) => self.c_id = int(0) as u32,
            (Tx::Delivery, 7) => {
                self.amount.clear();
                self.amount
                    .extend_from_slice(rows.get(0, 0).unwrap_or(b"0"));
            }
            (Tx::StockLevel, 2) => self.o_id = int(0),
            _ => {}
        }
    }
}

/// (keying time, mean think time) in seconds of a transaction type
/// (5.2.5.7).
pub(crate) fn timing(t: Tx) -> (f64, f64) {
    match t {
        Tx::NewOrder => (18.0, 12.0),
        Tx::Payment => (3.0, 12.0),
        Tx::OrderStatus => (2.0, 10.0),
        Tx::Delivery => (2.0, 5.0),
        Tx::StockLevel => (2.0, 5.0),
    }
}

/// A DECIMAL(…,2) as cents.
fn cents(v: Option<&[u8]>) -> i64 {
    let s = v.and_then(|b| std::str::from_utf8(b).ok()).unwrap_or("0");
    let (whole, frac) = s.split_once('.').unwrap_or((s, "0"));
    let frac: String = frac.chars().chain("00".chars()).take(2).collect();
    whole.parse::<i64>().unwrap_or(0) * 100 + frac.parse::<i64>().unwrap_or(0)
}

impl Session for Terminal {
    fn start(&mut self) {
        if self.finished {
            self.tx = match self.dealt_next.take() {
                Some(t) => t,
                None => self.deal(),
            };
        }
        self.finished = false;
        self.pc = 0;
        self.draw_input();
    }

    fn next(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        if self.procedures && self.setup_step == 0 {
            let step = self.next_call(stmts);
            if step.is_none() {
                self.finished = true;
                self.last_done = Some(self.tx);
            }
            return step;
        }
        match self.setup_step {
            1 => {
                self.setup_step = 2;
                return Some(Step {
                    op: Op::Query,
                    consume: Consume::Skip,
                    stat: usize::MAX,
                });
            }
            2 => {
                self.setup_step = 0;
                return None;
            }
            _ => {}
        }
        let step = match self.tx {
            Tx::NewOrder => self.next_new_order(stmts),
            Tx::Payment => self.next_payment(stmts),
            Tx::OrderStatus => self.next_order_status(stmts),
            Tx::Delivery => self.next_delivery(stmts),
            Tx::StockLevel => self.next_stock_level(stmts),
        };
        if step.is_none() {
            self.finished = true;
            self.last_done = Some(self.tx);
        }
        step
    }

    fn result(&mut self, _out: Outcome, rows: &mut Rows) {
        self.read(rows);
    }

    fn text(&self) -> &str {
        if self.setup_step != 0 {
            &self.setup
        } else {
            self.text
        }
    }

    fn init(&mut self) -> bool {
        if self.setup.is_empty() {
            return false;
        }
        self.setup_step = 1;
        true
    }

    fn pause_us(&mut self) -> u64 {
        if !self.keying || !self.finished {
            return 0;
        }
        let think = match self.last_done.take() {
            Some(t) => {
                // Negative exponential, capped at ten times the mean.
                let mean = timing(t).1;
                let r = self.rng.unit().max(1e-12);
                (-r.ln() * mean).min(10.0 * mean)
            }
            None => 0.0,
        };
        let next = self.deal();
        self.dealt_next = Some(next);
        ((think + timing(next).0) * 1e6) as u64
    }

    fn class(&self) -> Option<usize> {
        Some(if self.rolled_back {
            ROLLED_BACK
        } else {
            self.tx as usize
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::RandParams;

    #[test]
    fn the_deck_deals_the_mix() {
        let mut t = Terminal::new(
            Home::of(0, 1, 1),
            Rng::new(&RandParams::default(), 3),
            "",
            false,
            false,
        );
        let mut n = [0u32; 5];
        for _ in 0..1000 {
            n[t.deal() as usize] += 1;
        }
        assert_eq!(n, [450, 430, 40, 40, 40]);
    }

    #[test]
    fn terminals_spread_over_sets_and_warehouses() {
        let homes: Vec<(u32, u32, u32)> = (0..8)
            .map(|t| {
                let h = Home::of(t, 2, 2);
                (h.set, h.w, h.d)
            })
            .collect();
        assert_eq!(
            homes,
            [
                (1, 1, 1),
                (2, 1, 1),
                (1, 2, 1),
                (2, 2, 1),
                (1, 1, 2),
                (2, 1, 2),
                (1, 2, 2),
                (2, 2, 2)
            ]
        );
    }

    #[test]
    fn money_reads_as_cents() {
        assert_eq!(cents(Some(b"12.5")), 1250);
        assert_eq!(cents(Some(b"99.99")), 9999);
        assert_eq!(cents(Some(b"7")), 700);
    }

    #[test]
    fn new_orders_roll_back_one_in_a_hundred_and_go_remote_one_line_in_a_hundred() {
        let mut t = Terminal::new(
            Home::of(0, 1, 10),
            Rng::new(&RandParams::default(), 11),
            "",
            false,
            false,
        );
        let (mut orders, mut rb, mut lines, mut remote) = (0, 0, 0, 0);
        for _ in 0..20_000 {
            t.tx = Tx::NewOrder;
            t.draw_input();
            orders += 1;
            let last = t.lines[t.ol_cnt - 1];
            rb += (last.item == ITEMS + 1) as u32;
            lines += t.ol_cnt;
            remote += t.lines[..t.ol_cnt]
                .iter()
                .filter(|l| l.supply_w != 1)
                .count();
        }
        let rb_pct = 100.0 * f64::from(rb) / f64::from(orders);
        let remote_pct = 100.0 * remote as f64 / lines as f64;
        assert!((0.8..1.2).contains(&rb_pct), "{rb_pct}");
        assert!((0.8..1.2).contains(&remote_pct), "{remote_pct}");
    }

    #[test]
    fn keying_pauses_before_each_transaction_with_its_times() {
        let mut t = Terminal::new(
            Home::of(0, 1, 1),
            Rng::new(&RandParams::default(), 7),
            "",
            true,
            false,
        );
        let mut think_sum = 0.0;
        let n = 2000;
        for _ in 0..n {
            let pause = t.pause_us() as f64 / 1e6;
            let next = t.dealt_next.unwrap();
            t.start();
            assert_eq!(t.tx, next, "the type dealt while pausing runs");
            let (keying, mean) = timing(next);
            assert!(pause >= keying && pause <= keying + 10.0 * 12.0, "{pause}");
            t.finished = true;
            t.last_done = Some(next);
            think_sum += pause - keying;
            let _ = mean;
        }
        // mean think ~ 0.45*12 + 0.43*12 + 0.04*(10+5+5) = 11.36 s (the
        // first pause has none)
        let mean = think_sum / f64::from(n - 1);
        assert!((10.0..12.8).contains(&mean), "{mean}");
        let mut off = Terminal::new(
            Home::of(0, 1, 1),
            Rng::new(&RandParams::default(), 7),
            "",
            false,
            false,
        );
        assert_eq!(off.pause_us(), 0);
    }
}
