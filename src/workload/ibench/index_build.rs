//! The insert benchmark's `l.x` phase as a family: one connection, one
//! event, the ALTER TABLE that adds the secondary indexes. Run with one
//! thread and one event, it is timed, monitored and stored like any run
//! (its latency is the build's time). Prepares nothing; its table comes
//! from the l.i0 phase or `prepare insert-benchmark`.

use super::purchases::{add_indexes_sql, TABLE};
use crate::protocol::Conn;
use crate::workload::family::{
    BoxFuture, Consume, Family, Op, PrepareReport, Session, StatementSpec, Step,
};
use crate::workload::Progress;

/// Adds the first `n` secondary indexes to purchases_index.
pub struct IndexBuild {
    sql: String,
    name: String,
}

impl IndexBuild {
    /// The build of `n` (1 to 3) indexes; None for 0.
    pub fn new(n: u32) -> Option<IndexBuild> {
        Some(IndexBuild {
            sql: add_indexes_sql(n)?,
            name: "insert-benchmark-l.x".into(),
        })
    }
}

impl Family for IndexBuild {
    fn name(&self) -> &str {
        &self.name
    }

    fn options(&self) -> serde_json::Value {
        serde_json::json!({ "sql": self.sql })
    }

    fn statements(&self) -> Vec<StatementSpec> {
        Vec::new()
    }

    fn stat_names(&self) -> Vec<String> {
        vec!["create_index".into()]
    }

    fn required_tables(&self) -> Vec<String> {
        vec![TABLE.to_string()]
    }

    fn prepare_command(&self) -> String {
        "qpslab run insert-benchmark --phases l.i0".into()
    }

    fn prepare(
        &self,
        _opts: &crate::protocol::ConnOpts,
        _loaders: usize,
        _progress: &mut dyn FnMut(Progress),
        _stop: fn() -> bool,
    ) -> anyhow::Result<PrepareReport> {
        anyhow::bail!("the l.x phase prepares nothing: it adds indexes to a loaded table")
    }

    fn cleanup<'a>(
        &'a self,
        _conn: &'a mut Conn,
        _each: &'a mut dyn FnMut(&str),
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async { Ok(()) })
    }

    fn session(&self, _thread: u32, _threads: u32, _seed: u64) -> Box<dyn Session> {
        Box::new(Build {
            sql: self.sql.clone(),
            pc: 0,
        })
    }
}

/// The one connection: the ALTER TABLE as its event's only statement.
struct Build {
    sql: String,
    pc: u8,
}

impl Session for Build {
    fn start(&mut self) {
        self.pc = 0;
    }

    fn next(&mut self, _stmts: &mut [crate::protocol::Stmt]) -> Option<Step> {
        self.pc += 1;
        (self.pc == 1).then_some(Step {
            op: Op::Query,
            consume: Consume::Count,
            stat: 0,
        })
    }

    fn text(&self) -> &str {
        &self.sql
    }
}
