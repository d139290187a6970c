//! The interface between a workload family and the executor.
//!
//! A family (the sysbench OLTP workloads, a sysbench Lua script, later
//! TPC-C) says
//! which statements each connection prepares and, per connection, what the
//! next event is: a sequence of steps, each a statement with its parameters
//! bound and how its result is consumed. `exec` drives any family through
//! these two traits and knows nothing else about it: it connects, prepares,
//! executes, times, counts, retries and reconnects.
//!
//! A session is a state machine rather than an async function so that the
//! executor keeps its allocation-free loop and owns every wait (rate,
//! watchdog, stop): `start` begins an event, `next` says the next step (a
//! prepared statement bound, a text query, or connection management such
//! as a prepare or a reconnect) after seeing the result of the previous
//! one, `None` ends the event. `init`/`done` run a connection's set-up and
//! tear-down (a script's thread_init/thread_done) the same way, uncounted.
//! A server error goes to the session first (`error`): a script sees it as
//! sysbench's sql_error; a built-in family restarts or ends the event.

use crate::protocol::{Conn, ConnOpts, Outcome, Param, Rows, ServerError, Stmt};
use std::future::Future;
use std::pin::Pin;

/// A future a family returns for its cold-path work (cleanup).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// What a prepare did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PrepareReport {
    /// Tables created and loaded.
    pub tables: u32,
    /// Rows loaded, all tables together.
    pub rows: u64,
    /// Wall-clock seconds it took.
    pub seconds: f64,
    /// Whether the rows went through named pipes the server read (LOAD
    /// DATA INFILE, `--load-via`) rather than over the connections.
    pub piped: bool,
    /// Why they did not, where `--load-via auto` fell back to LOAD DATA
    /// LOCAL (the pipe's check failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipe_note: Option<String>,
}

impl PrepareReport {
    /// The route its LOAD DATA rows took, as the JSON reports say it:
    /// "pipe" or "local".
    pub fn load_via(&self) -> &'static str {
        if self.piped {
            "pipe"
        } else {
            "local"
        }
    }
}

/// A statement each connection prepares, addressed by its position in
/// [`Family::statements`].
#[derive(Debug, Clone)]
pub struct StatementSpec {
    /// The statement's text, with `?` placeholders.
    pub sql: String,
    /// The placeholders' types, in order.
    pub params: Vec<Param>,
    /// Parameter types come with each execution (`Stmt::binder`); `params`
    /// is then empty.
    pub dynamic: bool,
}

/// What exec does with a statement's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consume {
    /// Rows skipped undecoded; counted as a read, write or other query
    /// (sysbench's classes).
    Count,
    /// Like `Count`, and the outcome (rows or affected) is handed to
    /// [`Session::result`] before the next step; the rows themselves are
    /// skipped.
    Outcome,
    /// Like `Outcome`, with the rows decoded into the buffer handed over.
    Decode,
    /// Executed and timed, but not counted among the queries (e.g. a
    /// session's own bookkeeping statement).
    Skip,
}

/// What a step asks of the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Execute the connection's statement at this index (the family's
    /// statements first, then those the session prepared), bound by the
    /// session.
    Execute(usize),
    /// Run [`Session::text`] over the text protocol.
    Query,
    /// Prepare this many statements, [`Session::prepare_text`] of 0, 1…,
    /// with parameter types bound at each execution, in one pipelined
    /// batch; they take the next indexes among the connection's statements,
    /// in order (and are prepared again after a reconnect). One the server
    /// refuses takes its index all the same, as a statement never run; the
    /// first such is said to [`Session::prepare_failed`], then its error to
    /// [`Session::error`].
    Prepare(usize),
    /// Close the statement at this index (its index is not reused).
    Close(usize),
    /// Replace the connection, preparing every statement again.
    Reconnect,
    /// Wait this many microseconds without blocking the other connections
    /// of the shard (a script's `sysbench.qpslab.sleep`); the run's stop
    /// cuts it short.
    Sleep(u64),
    /// The session cannot go on; [`Session::text`] says why. The run ends.
    Fail,
    /// The connection's events are over (a script's event() returned a
    /// value other than nil/false, or its own thread_run() returned): the
    /// event in progress completes here, counted as an event if `true`
    /// (its statements are counted either way), no other starts on this
    /// connection, its tear-down runs and it closes. The run goes on with
    /// the other connections and ends when every one has.
    Finish(bool),
}

/// Puts the statements an [`Op::Prepare`] made in the connection's list
/// `stmts`, each at its index: one the server refused as a statement never
/// run (its index stays taken, so that the next are the session's). The
/// first refused, by its place in the batch, and its error.
pub fn place_prepared(
    made: Vec<Result<Stmt, ServerError>>,
    stmts: &mut Vec<Stmt>,
) -> Option<(usize, ServerError)> {
    let mut refused = None;
    for (i, r) in made.into_iter().enumerate() {
        match r {
            Ok(s) => stmts.push(s),
            Err(e) => {
                stmts.push(Stmt::new_text("", &[]));
                refused.get_or_insert((i, e));
            }
        }
    }
    refused
}

/// Takes statement `i` out of the connection's list `stmts` for an
/// [`Op::Close`], leaving an empty placeholder at its index (which a
/// reconnect does not prepare again); the server's id to close, if it
/// had one.
pub fn take_closed(stmts: &mut [Stmt], i: usize) -> Option<u32> {
    let s = stmts.get_mut(i)?;
    std::mem::replace(s, Stmt::new_text("", &[])).id()
}

/// One step of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The statement and its arguments.
    pub op: Op,
    /// What is done with its result.
    pub consume: Consume,
    /// Index in [`Family::stat_names`] the step's latency is counted under.
    pub stat: usize,
}

#[cfg(test)]
impl Step {
    /// The statement an `Execute` step runs.
    pub fn stmt(&self) -> Option<usize> {
        match self.op {
            Op::Execute(i) => Some(i),
            _ => None,
        }
    }
}

/// What exec does after a server error (not a lost connection).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnError {
    /// Roll back and start the event over (the error was ignored by
    /// `--mysql-ignore-errors`).
    Restart,
    /// End the run with the error.
    Fatal,
    /// Go on asking the session for steps: it has taken the error (a
    /// script sees it as sysbench's `sql_error`). Counted when ignored.
    Resume,
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

    /// Queries that must each return a row before a run starts, with the
    /// error when one does not (e.g. TPC-C's "the load is complete").
    fn ready_checks(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// Statements run once before a run, on the connection that checks
    /// the tables (TPC-C's `--procedures` installs them here).
    fn setup_sql(&self) -> Vec<String> {
        Vec::new()
    }

    /// A query returning one number the server keeps of one event class
    /// (TPC-C: new orders taken, from d_next_o_id), read before and after
    /// a run to cross-check the client's count; with the class's index.
    fn server_tally(&self) -> Option<(String, usize)> {
        None
    }

    /// The command that creates them, for the error when one is missing.
    fn prepare_command(&self) -> String;

    /// Creates and loads the workload's data with `loaders` connections,
    /// telling `progress` each step; `stop` is polled between chunks
    /// (Ctrl-C).
    fn prepare(
        &self,
        opts: &ConnOpts,
        loaders: usize,
        progress: &mut dyn FnMut(super::Progress),
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

    /// Names of the classes a family sorts its events into (TPC-C's
    /// transaction types), each counted and timed apart
    /// ([`Session::class`]); at most `stats::MAX_CLASSES`. None by default.
    fn event_classes(&self) -> Vec<String> {
        Vec::new()
    }

    /// What the event classes must satisfy for the family's headline
    /// figure (TPC-C's tpmC); None for families without one.
    fn class_rules(&self) -> Option<ClassRules> {
        None
    }

    /// Called before a run's header: the family's own start (a script's
    /// `init()`). Err: why the run must not start.
    fn begin_run(&self) -> Result<(), String> {
        Ok(())
    }

    /// Called after the run's report: the family's own end (a script's
    /// `done()`).
    fn end_run(&self) -> Result<(), String> {
        Ok(())
    }

    /// The family's own reports, made on the thread that reports (None:
    /// the default lines).
    fn report_hook(&self) -> Option<Box<dyn ReportHook>> {
        None
    }

    /// Advice for a server error met while preparing or running, e.g.
    /// "the tables are missing: prepare them first" (None: no advice).
    fn advice(&self, code: u16) -> Option<String> {
        let _ = code;
        None
    }
}

/// The conditions under which a family's headline figure may be
/// reported (TPC-C's tpmC: clause 5).
#[derive(Debug, Clone, serde::Serialize)]
pub struct ClassRules {
    /// The figure's name ("tpmC").
    pub headline: &'static str,
    /// The class it counts per minute.
    pub class: usize,
    /// Whether the terminals were paced as the rules ask (keying and
    /// think times); the option that turns it on otherwise.
    pub paced: Result<(), String>,
    /// Connections the rules ask for (10 terminals per warehouse).
    pub terminals: u32,
    /// Least share of all events, per class, in percent.
    pub min_share: Vec<(usize, f64)>,
    /// Most 90th-percentile latency, per class, in seconds.
    pub max_p90_s: Vec<(usize, f64)>,
    /// Least measured minutes.
    pub min_minutes: f64,
}

/// One interval (or the whole run) as a family's report hook sees it
/// (sysbench's stat table).
#[derive(Debug, Clone, Default)]
pub struct ReportStat {
    /// The interval's length in seconds.
    pub time_interval: f64,
    /// Seconds since the run began.
    pub time_total: f64,
    /// Connections running events.
    pub threads_running: u32,
    /// Events completed.
    pub events: u64,
    /// Read queries.
    pub reads: u64,
    /// Write queries.
    pub writes: u64,
    /// Other queries (BEGIN, COMMIT, …).
    pub other: u64,
    /// Errors of every code (ignored ones, which retried the event, and
    /// lost connections).
    pub errors: u64,
    /// Connections re-opened.
    pub reconnects: u64,
    /// The `--percentile` latency, in seconds.
    pub latency_pct_s: f64,
    /// The lowest latency, in seconds.
    pub latency_min_s: f64,
    /// The mean latency, in seconds.
    pub latency_avg_s: f64,
    /// The highest latency, in seconds.
    pub latency_max_s: f64,
    /// The latencies' sum, in seconds.
    pub latency_sum_s: f64,
}

/// A family's own reports (a script's `sysbench.hooks.report_*`); each
/// returns whether it reported (false: the default report is printed).
pub trait ReportHook {
    /// An interval's report (`report_intermediate`).
    fn intermediate(&mut self, s: &ReportStat) -> Result<bool, String>;
    /// The whole run's report (`report_cumulative`).
    fn cumulative(&mut self, s: &ReportStat) -> Result<bool, String>;
}

/// One connection's state: its random stream and the event in progress.
pub trait Session {
    /// Begins an event (again with fresh draws when the previous attempt
    /// was rolled back after an ignored error, as sysbench does, or was
    /// abandoned when the connection was lost).
    fn start(&mut self);

    /// Binds the next statement of the event into `stmts` and says which it
    /// is; None when the event is complete.
    fn next(&mut self, stmts: &mut [Stmt]) -> Option<Step>;

    /// The outcome of a step that asked for `Consume::Outcome` or
    /// `Consume::Decode`; `rows` holds its rows for `Decode` (the session
    /// may swap the buffer with one of its own).
    fn result(&mut self, out: Outcome, rows: &mut Rows) {
        let _ = (out, rows);
    }

    /// The SQL of a `Query` step, the message of a `Fail`.
    fn text(&self) -> &str {
        ""
    }

    /// The SQL of the `i`-th statement of a `Prepare` step.
    fn prepare_text(&self, i: usize) -> &str {
        let _ = i;
        ""
    }

    /// The `i`-th statement of the `Prepare` step just taken is the first
    /// the server refused (its error comes next, to `error`).
    fn prepare_failed(&mut self, i: usize) {
        let _ = i;
    }

    /// A server error for the step just taken; `ignored` when
    /// `--mysql-ignore-errors` lists its code.
    fn error(&mut self, e: &ServerError, ignored: bool) -> OnError {
        let _ = e;
        if ignored {
            OnError::Restart
        } else {
            OnError::Fatal
        }
    }

    /// Microseconds to wait before the next event starts, not counted in
    /// its latency (a TPC-C terminal's think time after its last
    /// transaction and keying time before the next); 0 by default.
    fn pause_us(&mut self) -> u64 {
        0
    }

    /// Whether `pause_us` keeps a schedule (an insert benchmark inserter
    /// at its rate): how late the connection wakes from each pause is
    /// then the generator's lag, recorded as rate mode's is and reported
    /// apart. Asked once per connection; false by default.
    fn paced(&self) -> bool {
        false
    }

    /// The class of the event just completed (an index into
    /// [`Family::event_classes`]); None for families without classes.
    fn class(&self) -> Option<usize> {
        None
    }

    /// Begins the connection's set-up (a script's `thread_init`): its steps
    /// come from `next` until None, after connecting and before the run
    /// starts, and are not counted. False when there is none.
    fn init(&mut self) -> bool {
        false
    }

    /// Begins the connection's tear-down (`thread_done`) after the run, the
    /// same way.
    fn done(&mut self) -> bool {
        false
    }

    /// Whether a step was stopped from outside the workload's own logic (a
    /// script past its deadline, or calling os.exit): the run fails for
    /// that even in the tear-down, whose own errors it otherwise survives
    /// (as sysbench's runs survive a failing `thread_done`).
    fn stopped(&self) -> bool {
        false
    }
}
