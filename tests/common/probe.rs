//! A workload family for driving exec in-process (`Probe`): each event is
//! one text query, `SELECT 1`, or a failing one, or a `Fail` step, as its
//! mode says; it has no data and prepares no statement.

use qpslab::exec::{IgnoreErrors, IoMode, PsMode, RunConfig};
use qpslab::protocol::{Conn, ConnOpts, Endpoint, Stmt};
use qpslab::workload::family::{BoxFuture, Op, Step};
use qpslab::workload::{Consume, Family, PrepareReport, Session, StatementSpec};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What the probe's events do.
#[derive(Clone, Copy, Debug)]
pub enum Mode {
    /// `SELECT 1`, always.
    Select,
    /// Every k-th attempt of a connection (k, 2k, ...) selects a column
    /// that does not exist: error 1054.
    FailEvery(u64),
    /// The connection's k-th event is a `Fail` step (the session gives
    /// up), the others `SELECT 1`.
    GiveUpAt(u64),
    /// The first event a connection begins this long after its first
    /// one is a `Fail` step (a run that fails once it has intervals).
    GiveUpAfter(std::time::Duration),
}

pub const BAD_SQL: &str = "SELECT no_such_column FROM (SELECT 1 AS one) AS t";
pub const GIVE_UP: &str = "the probe gives up";

pub struct Probe {
    pub mode: Mode,
    /// Attempts made to fail (the failing query sent), over every session.
    pub failing: Arc<AtomicU64>,
}

impl Family for Probe {
    fn name(&self) -> &str {
        "probe"
    }
    fn options(&self) -> serde_json::Value {
        serde_json::json!({ "mode": format!("{:?}", self.mode) })
    }
    fn statements(&self) -> Vec<StatementSpec> {
        Vec::new()
    }
    fn stat_names(&self) -> Vec<String> {
        vec!["probe".into()]
    }
    fn required_tables(&self) -> Vec<String> {
        Vec::new()
    }
    fn prepare_command(&self) -> String {
        String::new()
    }
    fn prepare(
        &self,
        _: &ConnOpts,
        _: usize,
        _: &mut dyn FnMut(qpslab::workload::Progress),
        _: fn() -> bool,
    ) -> anyhow::Result<PrepareReport> {
        anyhow::bail!("the probe has no data")
    }
    fn cleanup<'a>(
        &'a self,
        _: &'a mut Conn,
        _: &'a mut dyn FnMut(&str),
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async { Ok(()) })
    }
    fn session(&self, _: u32, _: u32, _: u64) -> Box<dyn Session> {
        Box::new(ProbeSession {
            mode: self.mode,
            failing: self.failing.clone(),
            attempt: 0,
            first: None,
            sent: false,
            text: "",
        })
    }
}

struct ProbeSession {
    mode: Mode,
    failing: Arc<AtomicU64>,
    /// Events begun on this connection, restarts included.
    attempt: u64,
    /// When its first event began.
    first: Option<std::time::Instant>,
    /// Whether this event's one step was handed out.
    sent: bool,
    text: &'static str,
}

impl Session for ProbeSession {
    fn start(&mut self) {
        self.attempt += 1;
        self.sent = false;
        let first = *self.first.get_or_insert_with(std::time::Instant::now);
        self.text = match self.mode {
            Mode::FailEvery(k) if self.attempt.is_multiple_of(k) => {
                self.failing.fetch_add(1, Ordering::SeqCst);
                BAD_SQL
            }
            Mode::GiveUpAt(k) if self.attempt == k => GIVE_UP,
            Mode::GiveUpAfter(d) if first.elapsed() >= d => GIVE_UP,
            _ => "SELECT 1",
        };
    }

    fn next(&mut self, _: &mut [Stmt]) -> Option<Step> {
        if std::mem::replace(&mut self.sent, true) {
            return None;
        }
        let op = if self.text == GIVE_UP {
            Op::Fail
        } else {
            Op::Query
        };
        Some(Step {
            op,
            consume: Consume::Count,
            stat: 0,
        })
    }

    fn text(&self) -> &str {
        self.text
    }
}

/// A run of the probe on the server at `socket`, as root: `threads`
/// connections, `time` seconds or `events` events.
pub fn config(
    socket: std::path::PathBuf,
    mode: Mode,
    threads: u32,
    time: f64,
    events: u64,
) -> (RunConfig, Arc<AtomicU64>) {
    let failing = Arc::new(AtomicU64::new(0));
    let mut conn = ConnOpts::new(Endpoint::Unix(socket), "root", None);
    conn.connect_timeout = std::time::Duration::from_secs(30);
    conn.read_timeout = std::time::Duration::from_secs(30);
    let cfg = RunConfig {
        conn,
        workload: Arc::new(Probe {
            mode,
            failing: failing.clone(),
        }),
        threads,
        time,
        events,
        warmup: 0.0,
        rate: 0.0,
        interval: 0.25,
        ignore: IgnoreErrors::Codes(Vec::new()),
        reconnect_every: 0,
        ps_mode: PsMode::Auto,
        seed: 7,
        shards: 0,
        sched_batch: None,
        io: IoMode::Auto,
        client_cpus: Vec::new(),
        connect_rate: 0.0,
        max_unreachable: 30.0,
        sample_quantiles: Vec::new(),
        on_started: None,
        halt: None,
        statement_latency: true,
    };
    (cfg, failing)
}
