//! The interface between a workload family and the executor.
//!
//! A family (the sysbench OLTP workloads, later a Lua script or TPC-C) says
//! which statements each connection prepares and, per connection, what the
//! next event is: a sequence of steps, each a statement with its parameters
//! bound and how its result is consumed. `exec` drives any family through
//! these two traits and knows nothing else about it: it connects, prepares,
//! executes, times, counts, retries and reconnects.
//!
//! A session is a state machine rather than an async function so that the
//! executor keeps its allocation-free loop and owns every wait (rate,
//! watchdog, stop): `start` begins an event, `next` binds the next statement
//! (after seeing the rows of the previous one when it asked to read them),
//! `None` ends the event.

use crate::protocol::{Conn, ConnOpts, Param, Rows, Stmt};
use std::future::Future;
use std::pin::Pin;

/// A future a family returns for its cold-path work (cleanup).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// What a prepare did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PrepareReport {
    pub tables: u32,
    pub rows: u64,
    pub seconds: f64,
}

/// A statement each connection prepares, addressed by its position in
/// [`Family::statements`].
#[derive(Debug, Clone)]
pub struct StatementSpec {
    pub sql: String,
    pub params: Vec<Param>,
    /// Index in [`Family::stat_names`] its executions are counted under.
    pub stat: usize,
}

/// What exec does with a statement's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consume {
    /// Rows skipped undecoded; counted as a read, write or other query
    /// (sysbench's classes).
    Count,
    /// Like `Count`, and the rows are decoded and handed to
    /// [`Session::rows`] before the next step.
    Decode,
    /// Executed and timed, but not counted among the queries (e.g. a
    /// session's own bookkeeping statement).
    Skip,
}

/// One statement execution of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// Index into the connection's prepared statements.
    pub stmt: usize,
    pub consume: Consume,
}

/// A workload family, shared by every connection of a run.
pub trait Family: Send + Sync {
    /// The workload's name as runs are stored and reported under.
    fn name(&self) -> &str;

    /// The family's options as recorded with the run (JSON object).
    fn options(&self) -> serde_json::Value;

    /// The statements every connection prepares.
    fn statements(&self) -> Vec<StatementSpec>;

    /// Names of the statement classes latency is reported by.
    fn stat_names(&self) -> Vec<String>;

    /// Tables a run needs, checked before the connections open.
    fn required_tables(&self) -> Vec<String>;

    /// The command that creates them, for the error when one is missing.
    fn prepare_command(&self) -> String;

    /// Creates and loads the workload's data with `loaders` connections;
    /// `stop` is polled between chunks (Ctrl-C).
    fn prepare(
        &self,
        opts: &ConnOpts,
        loaders: usize,
        quiet: bool,
        stop: fn() -> bool,
    ) -> anyhow::Result<PrepareReport>;

    /// Drops the workload's data, telling `each` the name of each table
    /// before it goes.
    fn cleanup<'a>(
        &'a self,
        conn: &'a mut Conn,
        each: &'a mut dyn FnMut(&str),
    ) -> BoxFuture<'a, anyhow::Result<()>>;

    /// A fresh session for load connection `thread` of `threads`, with its
    /// own random stream from `seed`.
    fn session(&self, thread: u32, threads: u32, seed: u64) -> Box<dyn Session>;

    /// Advice for a server error met while preparing or running, e.g.
    /// "the tables are missing: prepare them first" (None: no advice).
    fn advice(&self, code: u16) -> Option<String> {
        let _ = code;
        None
    }
}

/// One connection's state: its random stream and the event in progress.
pub trait Session {
    /// Begins an event (again with fresh draws when the previous attempt
    /// was rolled back after an ignored error, as sysbench does).
    fn start(&mut self);

    /// Binds the next statement of the event into `stmts` and says which it
    /// is; None when the event is complete.
    fn next(&mut self, stmts: &mut [Stmt]) -> Option<Step>;

    /// The rows of the step that asked for `Consume::Decode`.
    fn rows(&mut self, rows: &Rows) {
        let _ = rows;
    }
}
