//! dbSTRESS as a workload family, built from the benchmark's public
//! description only (docs/WORKLOADS.md says every choice it had to make):
//! an objects table and its history spread over several history tables,
//! one of them hot (tables.rs), the loader (chunk_loader.rs), the read and write
//! transactions as sessions (txn.rs), and the consistency conditions
//! (check.rs); its options are knobs.rs.
//!
//! Like every family it says what to execute and nothing else: exec runs
//! the sessions and times each statement; the lab layer prints and
//! stores.

mod check;
mod chunk_loader;
mod knobs;
mod tables;
mod txn;

pub use check::{CheckReport, Condition};
pub(crate) use knobs::option_specs;
pub use knobs::DbstressOpts;

use super::family::{BoxFuture, Family, PrepareReport, Session, StatementSpec};
use super::rand::Rng;
use super::RandParams;
use crate::protocol::{Conn, ConnOpts};

/// The family's name on the command line.
pub const NAME: &str = "dbstress";

/// Whether a workload word names dbSTRESS.
pub fn is_dbstress(word: &str) -> bool {
    word.eq_ignore_ascii_case(NAME)
}

/// dbSTRESS with its options.
pub struct Dbstress {
    o: DbstressOpts,
    /// As runs are stored: `dbstress-rw1` (`-think50` with a think time),
    /// so that runs of different mixes are different series.
    name: String,
}

impl Dbstress {
    /// The family for options `o`.
    pub fn new(o: DbstressOpts) -> Dbstress {
        let mut name = format!("{NAME}-rw{}", o.rw_ratio);
        if o.read_only() {
            name = format!("{NAME}-ro");
        }
        if o.think_time_ms > 0 {
            name.push_str(&format!("-think{}", o.think_time_ms));
        }
        Dbstress { o, name }
    }

    /// Its options.
    pub fn opts(&self) -> &DbstressOpts {
        &self.o
    }

    /// The consistency conditions (on a quiet database).
    pub async fn check(&self, conn: &mut Conn) -> anyhow::Result<CheckReport> {
        check::check(conn).await
    }
}

impl Family for Dbstress {
    fn name(&self) -> &str {
        &self.name
    }

    fn options(&self) -> serde_json::Value {
        serde_json::to_value(&self.o).unwrap_or_default()
    }

    fn statements(&self) -> Vec<StatementSpec> {
        txn::statements_sql(&self.o)
            .into_iter()
            .map(|sql| StatementSpec {
                sql,
                params: Vec::new(),
                dynamic: true,
            })
            .collect()
    }

    fn stat_names(&self) -> Vec<String> {
        txn::STATS.iter().map(|s| s.to_string()).collect()
    }

    fn required_tables(&self) -> Vec<String> {
        tables::all_tables(self.o.history_tables)
    }

    fn ready_checks(&self) -> Vec<(String, String)> {
        let o = &self.o;
        vec![(
            format!(
                "SELECT 1 FROM {m} a JOIN {m} b ON b.part = 'objects' JOIN {m} c ON c.part = 'history_tables' JOIN {m} d ON d.part = 'history_per_object'
                 WHERE a.part = 'complete' AND b.value >= {} AND c.value = {} AND d.value = {}",
                o.objects, o.history_tables, o.history_per_object, m = tables::META
            ),
            format!(
                "the dbSTRESS tables are not a complete prepare of at least {} objects with --history-tables {} --history-per-object {} (an interrupted prepare, or another scale): run `qpslab cleanup dbstress` and `{}`",
                o.objects, o.history_tables, o.history_per_object, self.prepare_command()
            ),
        )]
    }

    fn prepare_command(&self) -> String {
        format!(
            "qpslab prepare dbstress --objects {} --history-per-object {} --history-tables {}",
            self.o.objects, self.o.history_per_object, self.o.history_tables
        )
    }

    fn prepare(
        &self,
        opts: &ConnOpts,
        loaders: usize,
        progress: &mut dyn FnMut(super::Progress),
        stop: fn() -> bool,
    ) -> anyhow::Result<PrepareReport> {
        chunk_loader::prepare(opts, &self.o, loaders, progress, stop)
    }

    fn cleanup<'a>(
        &'a self,
        conn: &'a mut Conn,
        each: &'a mut dyn FnMut(&str),
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            for t in tables::all_tables(self.o.history_tables) {
                each(&t);
                conn.exec(&format!("DROP TABLE IF EXISTS {t}")).await?;
            }
            Ok(())
        })
    }

    fn session(&self, thread: u32, threads: u32, seed: u64) -> Box<dyn Session> {
        let rng = Rng::new(&RandParams::default(), seed);
        Box::new(txn::DbSession::new(&self.o, rng, thread, threads))
    }

    fn advice(&self, code: u16) -> Option<String> {
        (code == 1146).then(|| {
            format!(
                "the dbSTRESS tables are missing: run `{}` first",
                self.prepare_command()
            )
        })
    }
}
