//! DBT3 (the TPC-H-like decision-support workload) as a workload family:
//! the eight tables (tpch_schema.rs), their data from the `tpchgen` crate,
//! dbgen's own output (datagen.rs), the parallel resumable loader
//! (loader.rs), the row-count check (row_counts.rs); its options are
//! settings.rs; the answers against a reference, answer_check.rs. What follows TPC-H and what deviates is docs/WORKLOADS.md.
//!
//! Its runs have their own driver (stream_driver.rs), which times each
//! query; it never prints or stores (cli prints, lab stores).

mod answer_check;
mod datagen;
mod loader;
mod qgen_params;
mod query_text;
mod refresh_sql;
mod row_counts;
mod settings;
mod stream_driver;
mod tpch_schema;

pub use answer_check::AnswerCheck;
pub use row_counts::Condition;
pub(crate) use settings::option_specs;
pub use settings::{Dbt3Opts, Test};
pub use stream_driver::{order, run, Event, Windows};

use super::family::{BoxFuture, Family, PrepareReport, Session, Step};
use super::family::{Consume, Op, StatementSpec};
use crate::protocol::{Conn, ConnOpts, Stmt};
use std::sync::Arc;

/// The family's name on the command line.
pub const NAME: &str = "dbt3";

/// Whether a workload word names DBT3.
pub fn is_dbt3(word: &str) -> bool {
    word.eq_ignore_ascii_case(NAME)
}

/// DBT3 with its options.
pub struct Dbt3 {
    o: Arc<Dbt3Opts>,
    seed: u64,
    /// As runs are stored: `dbt3-sf0.1`, so that scales are different
    /// series.
    name: String,
}

impl Dbt3 {
    /// The family for options `o`; `seed` seeds the query parameters.
    pub fn new(o: Dbt3Opts, seed: u64) -> Dbt3 {
        let name = format!("{NAME}-sf{}", o.scale_text());
        Dbt3 {
            o: Arc::new(o),
            seed,
            name,
        }
    }

    /// Its options.
    pub fn opts(&self) -> &Dbt3Opts {
        &self.o
    }

    /// The seed of its query parameters.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The row-count and order/line-item conditions (on a quiet
    /// database).
    pub async fn check(&self, conn: &mut Conn) -> anyhow::Result<Vec<Condition>> {
        row_counts::check(conn, self.o.scale).await
    }

    /// The chosen queries' answers at the validation parameters against
    /// `references` (each query's reference answer text).
    pub async fn check_answers(
        &self,
        conn: &mut Conn,
        references: &std::collections::BTreeMap<u32, String>,
    ) -> anyhow::Result<Vec<AnswerCheck>> {
        let queries = self.o.chosen(&(1..=22).collect::<Vec<u32>>());
        answer_check::check_answers(conn, self.o.scale, &queries, references).await
    }
}

/// A session for exec's event loop, which DBT3 does not use: its runs
/// have their own driver.
struct NoSession;

impl Session for NoSession {
    fn start(&mut self) {}
    fn next(&mut self, _stmts: &mut [Stmt]) -> Option<Step> {
        Some(Step {
            op: Op::Fail,
            consume: Consume::Skip,
            stat: 0,
        })
    }
    fn text(&self) -> &str {
        "DBT3 runs through its own driver (`qpslab run dbt3`), not the event loop"
    }
}

impl Family for Dbt3 {
    fn name(&self) -> &str {
        &self.name
    }

    fn options(&self) -> serde_json::Value {
        serde_json::to_value(&*self.o).unwrap_or_default()
    }

    fn statements(&self) -> Vec<StatementSpec> {
        Vec::new()
    }

    fn stat_names(&self) -> Vec<String> {
        vec!["query".into()]
    }

    fn required_tables(&self) -> Vec<String> {
        let mut t: Vec<String> = tpch_schema::ALL
            .iter()
            .map(|t| t.name().to_string())
            .collect();
        t.push(tpch_schema::PROGRESS.into());
        t
    }

    fn ready_checks(&self) -> Vec<(String, String)> {
        vec![(
            format!(
                "SELECT 1 FROM {p} a JOIN {p} b ON b.part = 'scale' WHERE a.part = 'complete' AND b.value = '{}'",
                self.o.scale_text(),
                p = tpch_schema::PROGRESS
            ),
            format!(
                "the DBT3 tables are not a complete load at scale {}: run `{}` to finish it, or `qpslab cleanup dbt3` and prepare again",
                self.o.scale_text(),
                self.prepare_command()
            ),
        )]
    }

    fn prepare_command(&self) -> String {
        format!("qpslab prepare dbt3 --scale {}", self.o.scale_text())
    }

    fn prepare(
        &self,
        opts: &ConnOpts,
        loaders: usize,
        progress: &mut dyn FnMut(super::Progress),
        stop: fn() -> bool,
    ) -> anyhow::Result<PrepareReport> {
        loader::prepare(opts, &self.o, loaders, progress, stop)
    }

    fn cleanup<'a>(
        &'a self,
        conn: &'a mut Conn,
        each: &'a mut dyn FnMut(&str),
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            // Q15's views, one per stream, when a run was cut short
            let views: Vec<String> = (0..=64).map(|s| format!("revenue{s}")).collect();
            conn.exec(&format!("DROP VIEW IF EXISTS {}", views.join(", ")))
                .await?;
            let names = tpch_schema::ALL
                .iter()
                .rev()
                .map(|t| t.name())
                .chain([tpch_schema::PROGRESS]);
            for t in names {
                each(t);
                conn.exec(&format!("DROP TABLE IF EXISTS {t}")).await?;
            }
            Ok(())
        })
    }

    fn session(&self, _thread: u32, _threads: u32, _seed: u64) -> Box<dyn Session> {
        Box::new(NoSession)
    }

    fn advice(&self, code: u16) -> Option<String> {
        (code == 1146).then(|| {
            format!(
                "the DBT3 tables are missing: run `{}` first",
                self.prepare_command()
            )
        })
    }
}
