//! The result of a run: its status, per-interval samples, totals, latency
//! per statement kind, and the load generator's CPU. exec produces it;
//! store keeps it; report renders it. No behaviour beyond naming statuses.

use super::{Hist, Interval};

/// How a run ended; every status but `Ok` carries its reason in words.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "status", content = "reason", rename_all = "lowercase")]
pub enum RunStatus {
    /// Ran its course with nothing to report (also what a document
    /// without a status reads as).
    #[default]
    Ok,
    /// Ended by an error; what was measured is kept.
    Failed(String),
    /// Stopped by the user.
    Aborted(String),
    /// Ran to its end, but events failed or the server was unreachable
    /// for a while: the figures are not those of a healthy run.
    Degraded(String),
}

impl RunStatus {
    /// The word the store and reports use.
    pub fn word(&self) -> &'static str {
        match self {
            RunStatus::Ok => "ok",
            RunStatus::Failed(_) => "failed",
            RunStatus::Aborted(_) => "aborted",
            RunStatus::Degraded(_) => "degraded",
        }
    }

    /// The reason in words; None for `Ok`.
    pub fn reason(&self) -> Option<&str> {
        match self {
            RunStatus::Ok => None,
            RunStatus::Failed(m) | RunStatus::Aborted(m) | RunStatus::Degraded(m) => Some(m),
        }
    }

    /// The process exit code for a run that ended this way: 0 ok,
    /// 1 failed, 3 degraded, 130 interrupted.
    pub fn exit_code(&self) -> i32 {
        match self {
            RunStatus::Ok => 0,
            RunStatus::Failed(_) => 1,
            RunStatus::Degraded(_) => 3,
            RunStatus::Aborted(_) => 130,
        }
    }
}

/// One merged interval.
#[derive(Debug, Clone)]
pub struct Sample {
    /// Seconds since the start of measurement at the end of the interval
    /// (negative during warm-up).
    pub t: f64,
    /// The interval's length in seconds.
    pub dur: f64,
    /// Whether it fell in the warm-up (left out of totals).
    pub warmup: bool,
    /// A sliver of an interval at the very end (under half an interval):
    /// kept and stored, but its rates are noise and not worth printing.
    pub sliver: bool,
    /// What the interval counted, merged over every shard.
    pub iv: Interval,
    /// qpslab's CPU seconds during the interval.
    pub client_cpu_s: f64,
    /// CPU seconds the host had in the interval (all CPUs).
    pub host_cpu_s: f64,
    /// The host's busy share in the interval, 0 to 1.
    pub host_busy: f64,
}

/// Latency of one statement class (named by the workload family).
pub struct KindStats {
    /// The class's name as the family gives it.
    pub name: String,
    /// Completed events (or statements) of the class.
    pub count: u64,
    /// Their latency.
    pub hist: Hist,
}

/// Everything a run measured, as exec hands it to the lab: status, totals,
/// intervals, latency by class and the load generator's own figures.
pub struct RunResult {
    /// How it ended.
    pub status: RunStatus,
    /// Everything after warm-up.
    pub total: Interval,
    /// Measured seconds (after warm-up).
    pub elapsed: f64,
    /// Latency and count of each statement kind the workload ran.
    pub kinds: Vec<KindStats>,
    /// Latency and count of each event class the family declares (TPC-C's
    /// transaction types), in its order, zero counts included.
    pub classes: Vec<KindStats>,
    /// Events each connection completed, by connection.
    pub thread_events: Vec<u64>,
    /// Seconds each connection spent in events, by connection.
    pub thread_time: Vec<f64>,
    /// qpslab's CPU seconds over the measured time.
    pub client_cpu_s: f64,
    /// CPU seconds the host had over the measured time (all CPUs).
    pub host_cpu_s: f64,
    /// The host's busy share over the measured time, 0 to 1.
    pub host_busy: f64,
    /// Every interval, warm-up included, in order.
    pub samples: Vec<Sample>,
    /// The server's version string, from the handshake.
    pub server_version: String,
    /// Statements run as text because the server refused to prepare them.
    pub text_fallbacks: u64,
    /// The client threading actually used: shards and SCHED_BATCH.
    pub client_shards: usize,
    /// Connections on direct (blocking) I/O: those alone on their shard
    /// in the closed model with `--io-backend auto`; the rest use epoll.
    pub direct_connections: usize,
    /// Connections on the io_uring backend (`--io-backend uring`).
    pub uring_connections: usize,
    /// Of the direct ones, those on an io_uring ring of their own
    /// (`--io-backend uring`).
    pub direct_ring_connections: usize,
    /// Connections whose result sets came without column definitions
    /// (MySQL 8's resultset_metadata = NONE).
    pub metadata_off_connections: usize,
    /// CPUs the load threads were pinned to (`--client-cpus`); empty: none.
    pub client_cpus: Vec<usize>,
    /// Whether the load threads ran under SCHED_BATCH.
    pub client_sched_batch: bool,
    /// Seconds during which no connection could reach the server.
    pub unreachable_s: f64,
    /// Seconds during which the load generator itself did not run (the
    /// process stopped, or its threads not scheduled): what those seconds
    /// measured is the client, not the server.
    pub client_stall_s: f64,
    /// The family's server-side tally of one event class over the whole
    /// run, warm-up included (see `Family::server_tally`).
    pub server_tally: Option<Tally>,
    /// The family's headline figure (TPC-C's tpmC), or why the run does
    /// not allow it; None for families without one.
    pub headline: Option<Headline>,
    /// A run driven by agents: each one's figures (None: one process).
    pub agents: Option<super::document::AgentsBlock>,
}

/// A headline figure and the rules it was checked against.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Headline {
    /// The figure's name ("tpmC").
    pub name: String,
    /// None when a rule failed.
    pub value: Option<f64>,
    /// The rules the run broke.
    pub why_not: Vec<String>,
}

/// A class's count as the server keeps it, beside the client's.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tally {
    /// The event class counted.
    pub class: String,
    /// What the server's tables say happened.
    pub server: i64,
    /// Completed events of the class the client counted, warm-up included.
    pub client: u64,
}

impl RunResult {
    /// A result with nothing measured (a run that never started, or one
    /// whose figures come from elsewhere and fill what they have).
    pub fn empty(status: RunStatus) -> RunResult {
        RunResult {
            status,
            total: Interval::default(),
            elapsed: 0.0,
            kinds: Vec::new(),
            classes: Vec::new(),
            thread_events: Vec::new(),
            thread_time: Vec::new(),
            client_cpu_s: 0.0,
            host_cpu_s: 0.0,
            host_busy: 0.0,
            samples: Vec::new(),
            server_version: String::new(),
            text_fallbacks: 0,
            client_shards: 0,
            direct_connections: 0,
            uring_connections: 0,
            direct_ring_connections: 0,
            metadata_off_connections: 0,
            client_cpus: Vec::new(),
            client_sched_batch: false,
            unreachable_s: 0.0,
            client_stall_s: 0.0,
            server_tally: None,
            headline: None,
            agents: None,
        }
    }

    /// The completed events of the class named `name`, if the family has it.
    pub fn class_count(&self, name: &str) -> Option<u64> {
        self.classes
            .iter()
            .find(|k| k.name == name)
            .map(|k| k.count)
    }

    /// The class's completed events per minute of the measured time (TPC-C's
    /// NOPM for its New-Order class), if the family has it.
    pub fn class_per_minute(&self, name: &str) -> Option<f64> {
        self.class_count(name)
            .map(|n| n as f64 * 60.0 / self.elapsed.max(1e-9))
    }

    /// Transactions per second over the measured time.
    pub fn tps(&self) -> f64 {
        self.total.tps(self.elapsed)
    }

    /// Queries per second over the measured time.
    pub fn qps(&self) -> f64 {
        self.total.qps(self.elapsed)
    }

    /// The whole qpslab process's CPU per query over the measured time, µs
    /// (load threads and tool overhead together: what a user's `time`
    /// shows).
    pub fn client_us_per_query(&self) -> f64 {
        us_per_query(self.client_cpu_s, self.total.queries() as f64)
    }

    /// The load threads' CPU per query over the measured time, µs: "load
    /// CPU per query".
    pub fn load_us_per_query(&self) -> f64 {
        us_per_query(self.total.load_cpu_s, self.total.queries() as f64)
    }

    /// qpslab's CPU outside the load threads (monitor, store, profiler,
    /// the coordinator), in CPU milliseconds per second of the run: "tool
    /// overhead".
    pub fn tool_cpu_ms_per_s(&self) -> f64 {
        (self.client_cpu_s - self.total.load_cpu_s).max(0.0) * 1e3 / self.elapsed.max(1e-9)
    }
}

impl Sample {
    /// Events (transactions) per second of the interval.
    pub fn tps(&self) -> f64 {
        self.iv.tps(self.dur)
    }

    /// Queries per second of the interval.
    pub fn qps(&self) -> f64 {
        self.iv.qps(self.dur)
    }
}

/// CPU seconds spent on `queries` queries, as µs per query (the one
/// definition of "client µs/query"; 0 queries count as one).
pub fn us_per_query(cpu_s: f64, queries: f64) -> f64 {
    cpu_s * 1e6 / queries.max(1.0)
}
