//! The insert benchmark (Mark Callaghan's iibench.py, mdcallag/mytools
//! bench/ibench) as a workload family: its table and indexes
//! (purchases.rs), its knobs under its names (ib_knobs.rs), and its
//! connections, inserters and query threads (inserter.rs). The facts
//! (schema, statements, knobs and defaults) are the benchmark's; the code
//! is qpslab's. Prepare creates the table with its secondary indexes; the
//! rows come from runs (the benchmark's load phase is a run of
//! inserters).
//!
//! Like every family it says what to execute and nothing else: exec runs
//! the connections, times each statement and paces nothing but what a
//! session's pause asks.

mod ib_knobs;
mod index_build;
pub mod index_check;
mod inserter;
pub mod phases;
mod purchases;

pub(crate) use ib_knobs::option_specs;
pub use ib_knobs::IbenchOpts;
pub use index_build::IndexBuild;
pub(crate) use purchases::TABLE;

use super::family::{BoxFuture, Family, PrepareReport, Session, StatementSpec};
use super::rand::Rng;
use super::RandParams;
use crate::protocol::{Conn, ConnOpts};
use anyhow::Context;

/// The family's name on the command line.
pub const NAME: &str = "insert-benchmark";

/// Whether a workload word names the insert benchmark (also `iibench`).
pub fn is_ibench(word: &str) -> bool {
    word.eq_ignore_ascii_case(NAME) || word.eq_ignore_ascii_case("iibench")
}

/// The event class of an inserter's events (an INSERT, and its DELETE).
pub const INSERTS: &str = "inserts";
/// The event class of a query thread's events.
pub const QUERIES: &str = "queries";

/// The insert benchmark with its options.
pub struct Ibench {
    o: IbenchOpts,
    /// As runs are stored: `insert-benchmark-rpc1000` with `-ips100`
    /// (a rate), `-d` (deletes), `-qr`/`-qp` (range or point queries).
    name: String,
}

impl Ibench {
    /// The family for options `o`.
    pub fn new(o: IbenchOpts) -> Ibench {
        let mut name = format!("{NAME}-rpc{}", o.rows_per_commit);
        if o.inserts_per_second > 0 {
            name.push_str(&format!("-ips{}", o.inserts_per_second));
        }
        if o.delete_per_insert {
            name.push_str("-d");
        }
        if o.query_threads > 0 {
            name.push_str(if o.query_pk_only { "-qp" } else { "-qr" });
        }
        Ibench { o, name }
    }

    /// Its options.
    pub fn opts(&self) -> &IbenchOpts {
        &self.o
    }
}

impl Family for Ibench {
    fn name(&self) -> &str {
        &self.name
    }

    fn options(&self) -> serde_json::Value {
        serde_json::to_value(&self.o).unwrap_or_default()
    }

    fn statements(&self) -> Vec<StatementSpec> {
        purchases::statements_sql(&self.o)
            .into_iter()
            .enumerate()
            // (a range query no connection runs is not prepared: its
            // index may not exist yet, e.g. in a load before the indexes)
            .map(|(i, sql)| {
                let ranges = self.o.query_threads > 0 && !self.o.query_pk_only;
                let missing = (purchases::RANGE..purchases::POINT).contains(&i)
                    && (!ranges || i - purchases::RANGE >= self.o.num_secondary_indexes as usize);
                StatementSpec {
                    sql: if missing { "SELECT 1".into() } else { sql },
                    params: Vec::new(),
                    dynamic: true,
                }
            })
            .collect()
    }

    fn stat_names(&self) -> Vec<String> {
        purchases::STATS.iter().map(|s| s.to_string()).collect()
    }

    fn required_tables(&self) -> Vec<String> {
        vec![purchases::TABLE.to_string()]
    }

    /// An inserter's events and a query thread's, counted apart in every
    /// interval (a phase's insert rate and query rate).
    fn event_classes(&self) -> Vec<String> {
        vec![INSERTS.into(), QUERIES.into()]
    }

    fn prepare_command(&self) -> String {
        format!(
            "qpslab prepare insert-benchmark --num-secondary-indexes {}",
            self.o.num_secondary_indexes
        )
    }

    fn prepare(
        &self,
        opts: &ConnOpts,
        _loaders: usize,
        progress: &mut dyn FnMut(super::Progress),
        _stop: fn() -> bool,
    ) -> anyhow::Result<PrepareReport> {
        let started = std::time::Instant::now();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        rt.block_on(async {
            let mut conn = Conn::connect(opts).await?;
            progress(super::Progress::LoadStart(0));
            conn.exec(&purchases::create_sql(&self.o))
                .await
                .with_context(|| format!("creating {}", purchases::TABLE))?;
            if let Some(sql) = purchases::add_indexes_sql(self.o.num_secondary_indexes) {
                conn.exec(&sql)
                    .await
                    .context("adding the secondary indexes")?;
            }
            progress(super::Progress::LoadEnd);
            conn.quit().await;
            Ok::<_, anyhow::Error>(())
        })?;
        Ok(PrepareReport {
            tables: 1,
            rows: 0,
            seconds: started.elapsed().as_secs_f64(),
            piped: false,
            pipe_note: None,
        })
    }

    fn cleanup<'a>(
        &'a self,
        conn: &'a mut Conn,
        each: &'a mut dyn FnMut(&str),
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            each(purchases::TABLE);
            conn.exec(&format!("DROP TABLE IF EXISTS {}", purchases::TABLE))
                .await?;
            Ok(())
        })
    }

    fn session(&self, thread: u32, threads: u32, seed: u64) -> Box<dyn Session> {
        let rng = Rng::new(&RandParams::default(), seed);
        Box::new(inserter::IbSession::new(&self.o, rng, thread, threads))
    }

    fn advice(&self, code: u16) -> Option<String> {
        match code {
            1146 => Some(format!(
                "the insert benchmark's table is missing: run `{}` first",
                self.prepare_command()
            )),
            1176 => Some(format!(
                "an index the queries use is missing: the table was prepared with fewer than --num-secondary-indexes {}",
                self.o.num_secondary_indexes
            )),
            _ => None,
        }
    }
}
