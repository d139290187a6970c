//! The run's document: every option, total, rate, percentile, error count
//! and interval of a run as serde types with a version. Stored with the
//! run (`runs.summary`, `runs.options`, `runs.host`, `runs.sandbox`) and
//! printed by `run --format json`; readers deserialize it and use its
//! fields, never keys. Owns the types and their JSON form only: lab fills
//! them from a `RunResult`, analyze computes the TPC-C block and the
//! stability, store keeps the JSON.
//!
//! Versions: documents written before `version` existed read as version
//! 0 (every field they lack takes its default); 1 is the first typed one.

mod agents;
mod dbt3;
mod environment;
mod fairness;
mod host_test;
mod ibench_phase;
mod latency;
mod operations;
mod options;
mod profile;
mod tpcc;

pub use agents::{AgentRow, AgentsBlock};
pub use dbt3::{geomean, plan_fingerprint, Dbt3Block, QueryCpu, QueryFigure, COMPOSITE_NAME};
pub use environment::{HostDocument, Preflight, SandboxDocument};
pub use fairness::{EventSpread, ThreadsFairness};
pub use host_test::{HostFigure, HostTestBlock};
pub use ibench_phase::IbenchPhase;
pub use latency::{LatencyMs, PercentileRow, PercentileTable};
pub use operations::OperationFigures;
pub use options::{IgnoreErrors, MonitorOptions, OptionsDocument, PsMode, RunOptions};
pub use profile::{
    KindFigures, KindSummary, LockShares, ProfileSummary, Share, SyscallCount, SyscallSide,
    LOCK_SHARES_TITLE,
};
pub use tpcc::{TpccBlock, TpccTransaction};

use super::RunStatus;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The version `RunDocument`s are written with.
pub const RUN_DOCUMENT_VERSION: u32 = 1;

/// A run's summary document.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunDocument {
    /// The document's version (0: written before versions).
    pub version: u32,
    /// The qpslab version that ran it.
    pub qpslab_version: String,
    /// The commit it was built from.
    pub git_hash: String,
    /// The command line, secrets removed.
    pub command_line: String,
    /// How the run ended.
    pub status: RunStatus,
    /// The server's version string.
    pub server_version: String,
    /// The workload's name.
    pub workload: String,
    /// Every option.
    pub options: RunOptions,
    /// The measured time's totals.
    pub totals: Totals,
    /// TPC-C's figures; None for other families.
    pub tpcc: Option<TpccBlock>,
    /// A built-in host test's figures (`qpslab run cpu` …); absent for
    /// database runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_test: Option<HostTestBlock>,
    /// An insert benchmark phase's figures (`run insert-benchmark
    /// --phases …`); absent for other runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ibench_phase: Option<IbenchPhase>,
    /// Each operation of a family with classes other than TPC-C's
    /// (LinkBench); None otherwise (and then left out of the JSON).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operations: Option<Vec<OperationFigures>>,
    /// DBT3's per-query figures; None for other families (and then left
    /// out of the JSON).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dbt3: Option<Dbt3Block>,
    /// How steady throughput was; None with too few intervals.
    pub stability: Option<Stability>,
    /// Latency per statement kind.
    pub latency_by_statement: Vec<StatementLatency>,
    /// The load generator's CPU and connections.
    pub client: ClientFigures,
    /// Per connection: events and seconds in events.
    pub threads_fairness: ThreadsFairness,
    /// Every interval, warm-up included.
    pub intervals: Vec<IntervalFigures>,
    /// A run driven by agents: each one's share and figures; absent for
    /// a run from one process.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agents: Option<AgentsBlock>,
}

impl RunDocument {
    /// The document as a JSON value (keys sorted, as the store keeps them
    /// and `run --format json` prints them).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// Serializes a document with its keys sorted, as the store keeps it and
/// as `serde_json::Value` prints it (for a document nested in a struct
/// that serializes in field order: `#[serde(serialize_with = "sorted")]`).
pub fn sorted<T: Serialize, S: serde::Serializer>(doc: &T, s: S) -> Result<S::Ok, S::Error> {
    serde_json::to_value(doc)
        .map_err(serde::ser::Error::custom)?
        .serialize(s)
}

/// The measured time's totals.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Totals {
    /// Measured seconds.
    pub seconds: f64,
    /// Events (transactions).
    pub transactions: u64,
    /// Events per second.
    pub tps: f64,
    /// Statements.
    pub queries: u64,
    /// Statements per second.
    pub qps: f64,
    /// Reading statements.
    pub reads: u64,
    /// Writing statements.
    pub writes: u64,
    /// Other statements (BEGIN, COMMIT).
    pub other: u64,
    /// Errors ignored (retried).
    pub ignored_errors: u64,
    /// Errors by server error code.
    pub errors_by_code: BTreeMap<String, u64>,
    /// Reconnects.
    pub reconnects: u64,
    /// Events that failed.
    pub failed_events: u64,
    /// Reconnects that failed.
    pub failed_reconnects: u64,
    /// Seconds the server could not be reached.
    pub unreachable_seconds: f64,
    /// Event latency.
    pub latency_ms: LatencyMs,
    /// How late a rate-driven run started its events; None in the closed model.
    pub schedule_lag_ms: Option<LatencyMs>,
    /// Intervals where the generator fell behind; None in the closed model.
    pub generator_late_intervals: Option<u64>,
}

/// One statement kind's latency.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StatementLatency {
    /// The kind's name ("point_selects").
    pub statement: String,
    /// Statements of the kind.
    pub count: u64,
    /// Their latency.
    pub latency_ms: LatencyMs,
}

/// The load generator: its CPU, connections and scheduling.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClientFigures {
    /// CPU seconds in the load threads.
    pub load_cpu_seconds: f64,
    /// Load-thread CPU µs per query.
    pub load_cpu_us_per_query: f64,
    /// qpslab's CPU outside the load threads, ms per second.
    pub tool_cpu_ms_per_s: f64,
    /// qpslab's process CPU seconds.
    pub process_cpu_seconds: f64,
    /// Process CPU µs per query.
    pub process_cpu_us_per_query: f64,
    /// Same as `process_cpu_seconds` (the older name).
    pub cpu_seconds: f64,
    /// Same as `process_cpu_us_per_query` (the older name).
    pub cpu_us_per_query: f64,
    /// qpslab's share of the host's CPU.
    pub host_cpu_share: f64,
    /// How busy the host was (0..1).
    pub host_busy: f64,
    /// Statements sent as text after a refused prepare.
    pub text_protocol_fallbacks: u64,
    /// Client shards.
    pub shards: u64,
    /// Connections driven by blocking I/O.
    pub direct_io_connections: u64,
    /// Connections on io_uring rings.
    pub io_uring_connections: u64,
    /// Direct connections on io_uring.
    pub direct_io_uring_connections: u64,
    /// Connections with result metadata off.
    pub result_metadata_off_connections: u64,
    /// The CPUs the client was pinned to ("" for none).
    pub pinned_cpus: String,
    /// "batch" or "normal" scheduling.
    pub sched: String,
}

/// One interval's figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct IntervalFigures {
    /// Seconds from the end of the warm-up (negative before it).
    pub t: f64,
    /// The interval's length, s.
    pub dur: f64,
    /// Whether it lies in the warm-up.
    pub warmup: bool,
    /// Events per second.
    pub tps: f64,
    /// Statements per second.
    pub qps: f64,
    /// Reading statements.
    pub reads: u64,
    /// Writing statements.
    pub writes: u64,
    /// Other statements.
    pub other: u64,
    /// Errors.
    pub errors: u64,
    /// Reconnects.
    pub reconnects: u64,
    /// Events that failed.
    pub failed_events: u64,
    /// Reconnects that failed.
    pub failed_reconnects: u64,
    /// Events waiting at the interval's end (rate-driven).
    pub backlog: u64,
    /// p99 of the schedule lag; None in the closed model.
    pub lag_p99_ms: Option<f64>,
    /// Whether the generator fell behind; None in the closed model.
    pub generator_late: Option<bool>,
    /// Events per class (TPC-C's types); None for families without classes.
    pub by_class: Option<Vec<u64>>,
    /// Event latency.
    pub latency_ms: LatencyMs,
    /// qpslab's CPU seconds.
    pub client_cpu_s: f64,
    /// Load threads' CPU seconds.
    pub load_cpu_s: f64,
    /// The host's CPU seconds.
    pub host_cpu_s: f64,
    /// How busy the host was (0..1).
    pub host_busy: f64,
}

/// How steady a run's throughput was over its measured intervals
/// (computed by analyze::stability).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Stability {
    /// Whole measured intervals it is computed from.
    pub intervals: usize,
    /// Standard deviation / mean of per-interval QPS.
    pub cov: f64,
    /// Relative change of QPS from the run's start to its end, by the
    /// least-squares line (−0.12: throughput fell 12% across the run).
    pub trend: f64,
    /// Intervals more than 3.5 robust deviations (MAD) from the median.
    pub outliers: usize,
    /// First fifth's mean over the rest's, minus one.
    pub first_part_gap: f64,
    /// "unstable: CoV 18%, trending −12%", when it is.
    pub flag: Option<String>,
    /// A longer --warmup-time to try, when the first part differs.
    pub advice: Option<String>,
}

#[cfg(test)]
mod tests;
