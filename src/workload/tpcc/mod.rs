//! TPC-C as a workload family: the nine tables in one or more table sets
//! (schema.rs), the loader (load.rs, with the spec's data rules in
//! random_rules.rs), the five transactions as terminals bound to a home warehouse
//! (txn.rs over the statements of sql.rs), and the consistency conditions
//! (check.rs); its options are opts.rs. What deviates from the specification, and why, is written
//! in docs/TPCC.md.
//!
//! Like every family it says what to execute and nothing else: exec runs
//! the terminals, times each transaction type (the family's event
//! classes) and retries deadlocks; the lab layer prints and stores.

mod check;
mod load;
mod opts;
mod procedures;
mod random_rules;
mod schema;
mod sql;
mod txn;

pub use check::Condition;
pub(crate) use opts::option_specs;
pub use opts::TpccOpts;

/// The event class NOPM counts, and that of the New-Orders rolled back
/// on purpose (in `Family::event_classes`).
pub const NEW_ORDER: &str = txn::CLASSES[txn::Tx::NewOrder as usize];
/// The event class of the New-Orders the spec rolls back on purpose (1%).
pub const ROLLED_BACK: &str = txn::CLASSES[txn::ROLLED_BACK];

use super::family::{BoxFuture, ClassRules, Family, PrepareReport, Session, StatementSpec};
use super::options::OptValues;
use super::rand::Rng;
use super::RandParams;
use crate::protocol::{Conn, ConnOpts};
use std::sync::Arc;

/// The family's name on the command line.
pub const NAME: &str = "tpcc";

/// Whether a workload word names TPC-C.
pub fn is_tpcc(word: &str) -> bool {
    word.eq_ignore_ascii_case(NAME)
}

/// TPC-C with its options.
pub struct Tpcc {
    o: TpccOpts,
    seed: u64,
    /// As runs are stored: `tpcc-10w` (`tpcc-10w-x4` with 4 table sets,
    /// `-sp` with procedures), so that runs at different warehouse counts
    /// are different series (a sweep over warehouses).
    name: String,
}

impl Tpcc {
    /// The family for options `o`; `seed` seeds every terminal's random
    /// stream.
    pub fn new(o: TpccOpts, seed: u64) -> Tpcc {
        let mut name = format!("{NAME}-{}w", o.warehouses);
        if o.tables > 1 {
            name.push_str(&format!("-x{}", o.tables));
        }
        if o.procedures {
            name.push_str("-sp");
        }
        Tpcc { o, seed, name }
    }

    /// Its options.
    pub fn opts(&self) -> &TpccOpts {
        &self.o
    }

    /// The consistency conditions over every set (on a quiet database).
    pub async fn check(&self, conn: &mut Conn) -> anyhow::Result<Vec<Condition>> {
        check::check(conn, self.o.tables).await
    }

    /// New orders the server has taken so far, over every set: the sum
    /// of (d_next_o_id - 1) less the 3,000 orders per district loaded.
    pub(crate) fn new_orders_sql(&self) -> String {
        let parts: Vec<String> = (1..=self.o.tables)
            .map(|n| {
                format!(
                    "SELECT SUM(d_next_o_id - 1 - {}) s FROM district{n}",
                    random_rules::ORDERS
                )
            })
            .collect();
        format!("SELECT SUM(s) FROM ({}) t", parts.join(" UNION ALL "))
    }
}

impl Family for Tpcc {
    fn name(&self) -> &str {
        &self.name
    }

    fn options(&self) -> serde_json::Value {
        serde_json::to_value(&self.o).unwrap_or_default()
    }

    fn statements(&self) -> Vec<StatementSpec> {
        let set = |n| {
            if self.o.procedures {
                procedures::call_sql(n).to_vec()
            } else {
                sql::set_sql(n)
            }
        };
        (1..=self.o.tables)
            .flat_map(set)
            .map(|sql| StatementSpec {
                sql,
                params: Vec::new(),
                dynamic: true,
            })
            .collect()
    }

    fn stat_names(&self) -> Vec<String> {
        if self.o.procedures {
            txn::CLASSES[..txn::PROC_COUNT]
                .iter()
                .map(|c| format!("call_{c}"))
                .collect()
        } else {
            sql::stat_names()
        }
    }

    fn setup_sql(&self) -> Vec<String> {
        if !self.o.procedures {
            return Vec::new();
        }
        (1..=self.o.tables)
            .flat_map(procedures::create_sql)
            .collect()
    }

    fn event_classes(&self) -> Vec<String> {
        txn::CLASSES.iter().map(|c| c.to_string()).collect()
    }

    fn required_tables(&self) -> Vec<String> {
        (1..=self.o.tables).flat_map(schema::set_tables).collect()
    }

    fn prepare_command(&self) -> String {
        format!(
            "qpslab prepare tpcc --warehouses {} --tables {}",
            self.o.warehouses, self.o.tables
        )
    }

    fn prepare(
        &self,
        opts: &ConnOpts,
        loaders: usize,
        progress: &mut dyn FnMut(super::Progress),
        stop: fn() -> bool,
    ) -> anyhow::Result<PrepareReport> {
        load::prepare(opts, &self.o, loaders, self.seed, progress, stop)
    }

    fn cleanup<'a>(
        &'a self,
        conn: &'a mut Conn,
        each: &'a mut dyn FnMut(&str),
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            for n in 1..=self.o.tables {
                for t in schema::set_tables(n) {
                    each(&t);
                    conn.exec(&format!("DROP TABLE IF EXISTS {t}")).await?;
                }
            }
            Ok(())
        })
    }

    fn session(&self, thread: u32, _threads: u32, seed: u64) -> Box<dyn Session> {
        let home = txn::Home::of(thread, self.o.tables, self.o.warehouses);
        let rng = Rng::new(&RandParams::default(), seed);
        Box::new(txn::Terminal::new(
            home,
            rng,
            &self.o.isolation,
            self.o.keying,
            self.o.procedures,
        ))
    }

    fn class_rules(&self) -> Option<ClassRules> {
        use txn::Tx;
        Some(ClassRules {
            headline: "tpmC",
            class: Tx::NewOrder as usize,
            paced: if self.o.keying {
                Ok(())
            } else {
                Err("keying and think times are off (--keying on)".into())
            },
            terminals: 10 * self.o.warehouses * self.o.tables,
            min_share: vec![
                (Tx::Payment as usize, 43.0),
                (Tx::OrderStatus as usize, 4.0),
                (Tx::Delivery as usize, 4.0),
                (Tx::StockLevel as usize, 4.0),
            ],
            // Delivery runs whole in the terminal: the deferred limit.
            max_p90_s: vec![
                (Tx::NewOrder as usize, 5.0),
                (Tx::Payment as usize, 5.0),
                (Tx::OrderStatus as usize, 5.0),
                (Tx::Delivery as usize, 80.0),
                (Tx::StockLevel as usize, 20.0),
            ],
            min_minutes: 120.0,
        })
    }

    fn server_tally(&self) -> Option<(String, usize)> {
        Some((self.new_orders_sql(), txn::Tx::NewOrder as usize))
    }

    fn ready_checks(&self) -> Vec<(String, String)> {
        (1..=self.o.tables)
            .map(|n| {
                let t = schema::progress_table(n);
                (
                    format!("SELECT 1 FROM {t} a JOIN {t} b ON b.part = 'warehouses' WHERE a.part = 'complete' AND CAST(b.value AS UNSIGNED) >= {}", self.o.warehouses),
                    format!(
                        "table set {n} is not a complete load of at least {} warehouses (an interrupted prepare, or fewer warehouses loaded): run `{}` to finish it, or `qpslab cleanup tpcc` and prepare again",
                        self.o.warehouses,
                        self.prepare_command()
                    ),
                )
            })
            .collect()
    }

    fn advice(&self, code: u16) -> Option<String> {
        (code == 1146).then(|| {
            format!(
                "the TPC-C tables are missing: run `{}` first",
                self.prepare_command()
            )
        })
    }
}

/// The family a load command names, when it is TPC-C.
pub fn family(workload: &str, v: &OptValues, seed: u64) -> Option<Result<Arc<Tpcc>, String>> {
    is_tpcc(workload).then(|| TpccOpts::from_values(v).map(|o| Arc::new(Tpcc::new(o, seed))))
}
