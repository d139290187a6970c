//! The agents' wire messages: the JSON bodies of the HTTP endpoints that
//! docs/AGENTS.md lists, and their conversion to and from stats' intervals
//! (histograms travel as HdrHistogram V2 bytes, base64-encoded). Owns no
//! socket and runs nothing: the agent's side is `worker.rs` (served by
//! ui/agent_api.rs), the controller's `controller.rs`.

use crate::stats::{Hist, Interval, RunStatus};
use base64::Engine;
use serde::{Deserialize, Serialize};

/// The wire's version: a controller and an agent of different versions
/// refuse each other at the hello (2: `Work` has `events` and `rate`).
pub const PROTOCOL: u32 = 2;

/// `GET /v1/hello`: who the agent is, whether it is busy, and its clock
/// (seconds since the epoch, read while answering: the controller's
/// clock-offset sample).
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Hello {
    /// The wire's version (`PROTOCOL`).
    pub protocol: u32,
    /// The agent's qpslab version.
    pub version: String,
    /// Whether a run is going on.
    pub busy: bool,
    /// The agent's clock, seconds since the epoch.
    pub unix_s: f64,
}

/// The server the agents load: TCP only (a unix socket is the
/// controller's host's alone).
#[derive(Serialize, Deserialize, Clone)]
pub struct TargetSpec {
    /// The server's host name or address, as the agents reach it.
    pub host: String,
    /// Its TCP port.
    pub port: u16,
    /// The account's user name.
    pub user: String,
    /// Sent to the agents, which need it to connect; never logged,
    /// stored or echoed by them.
    pub password: String,
    /// The default database.
    pub db: Option<String>,
    /// Bound on connecting and logging in (ms).
    pub connect_timeout_ms: u64,
    /// Bound on each response of the text protocol (ms).
    pub read_timeout_ms: u64,
}

/// A Lua script's text, shipped with its SHA-256 (hex): the agent
/// checks the digest and runs this text, not a file of its own.
#[derive(Serialize, Deserialize, Clone)]
pub struct ScriptText {
    /// The script's file name (`x.lua`).
    pub name: String,
    /// The script's text.
    pub text: String,
    /// Its SHA-256, lower-case hex.
    pub sha256: String,
}

/// What an agent runs: the workload as `qpslab run` words (workload first,
/// its options after; a campaign file's shape), and this agent's share.
#[derive(Serialize, Deserialize, Clone)]
pub struct Work {
    /// The workload and its options as `qpslab run` words.
    pub words: Vec<String>,
    /// A script's text and digest, when the workload is one.
    pub script: Option<ScriptText>,
    /// This agent's connections.
    pub threads: u32,
    /// Measured seconds (after the warm-up); never 0 with agents.
    pub time: f64,
    /// Seconds run before measuring (not counted).
    pub warmup: f64,
    /// Seconds between intervals.
    pub interval: f64,
    /// This agent's seed (each agent draws its own values).
    pub seed: u64,
    /// This agent's share of `--events` (0: no limit but `time`).
    pub events: u64,
    /// This agent's share of `--rate`, events/s (0: closed loop).
    pub rate: f64,
}

/// `POST /v1/check`: can the agent reach the target (connect and log in)?
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct CheckAnswer {
    /// None: reached; else why not.
    pub error: Option<String>,
}

/// `POST /v1/start`: run `work` against `target` from `start_at` (the
/// agent's own clock, seconds since the epoch: the controller's agreed
/// instant plus this agent's measured offset).
#[derive(Serialize, Deserialize, Clone)]
pub struct StartRequest {
    /// The server to load.
    pub target: TargetSpec,
    /// What to run.
    pub work: Work,
    /// The agreed instant on the agent's clock (seconds since the epoch).
    pub start_at: f64,
}

/// `POST /v1/start`'s answer: the run's id, which polls and the stop name.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Started {
    /// The run's id on the agent.
    pub run: u64,
}

/// One interval's counters and histograms.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct WireInterval {
    /// Events (transactions) completed.
    pub events: u64,
    /// Read queries.
    pub reads: u64,
    /// Write queries.
    pub writes: u64,
    /// Other queries (BEGIN, COMMIT, …).
    pub others: u64,
    /// (server error code, count).
    pub errors: Vec<(u16, u64)>,
    /// Of the errors, lost connections.
    pub lost: u64,
    /// Connections re-opened after a loss.
    pub reconnects: u64,
    /// Events that could not complete.
    pub failed: u64,
    /// Reconnect attempts that could not reach the server.
    pub failed_connects: u64,
    /// Rate mode: events due but not started.
    pub backlog: u64,
    /// CPU seconds of the load threads.
    pub load_cpu_s: f64,
    /// Completed events by event class.
    pub classes: Vec<u64>,
    /// Event latency, V2 bytes in base64.
    pub hist: String,
    /// Rate mode's wake-up lateness, V2 in base64.
    pub lag: Option<String>,
    /// Each statement kind's then event class's latency, V2 in base64.
    pub kinds: Vec<String>,
}

/// One interval of the agent's run, as exec gave it.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct WireSample {
    /// The interval's number on the agent's clock (0 = the first,
    /// warm-up included).
    pub k: u64,
    /// Seconds since the start of measurement at the interval's end.
    pub t: f64,
    /// The interval's length, seconds.
    pub dur: f64,
    /// Seconds run before measuring (not counted).
    pub warmup: bool,
    /// A sliver of an interval at the very end.
    pub sliver: bool,
    /// What the interval counted.
    pub iv: WireInterval,
    /// The agent process's CPU seconds in the interval.
    pub client_cpu_s: f64,
    /// The agent host's CPU capacity seconds and busy share.
    pub host_cpu_s: f64,
    /// The agent host's busy share, 0 to 1.
    pub host_busy: f64,
}

/// The agent's run once ended: its status and whole-run figures.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct WireFinal {
    /// How the agent's run ended.
    pub status: RunStatus,
    /// The measured intervals merged (the late parts included), without
    /// its per-kind histograms: those are `kinds` and `classes`.
    pub total: WireInterval,
    /// (statement kind, its latency V2 in base64), kinds that ran.
    pub kinds: Vec<(String, String)>,
    /// (event class, its latency V2 in base64), every class.
    pub classes: Vec<(String, String)>,
    /// Measured seconds.
    pub elapsed: f64,
    /// Per connection: events.
    pub thread_events: Vec<u64>,
    /// Per connection: seconds in events.
    pub thread_time: Vec<f64>,
    /// The agent process's CPU seconds.
    pub client_cpu_s: f64,
    /// The agent host's CPU capacity seconds.
    pub host_cpu_s: f64,
    /// The agent host's busy share, 0 to 1.
    pub host_busy: f64,
    /// The server's version string.
    pub server_version: String,
    /// Statements run as text after a prepare failed.
    pub text_fallbacks: u64,
    /// The agent's client threads (shards).
    pub client_shards: usize,
    /// Seconds the server was unreachable.
    pub unreachable_s: f64,
    /// Seconds the agent process itself was stalled.
    pub client_stall_s: f64,
    /// Events completed over the whole run, warm-up included (beside the
    /// server's Com_commit).
    pub events_all: u64,
    /// How late the agent's clock started after the agreed instant (s).
    pub started_late_s: f64,
    /// CPU seconds the agent spent shipping the run: answering the
    /// controller's polls (its HTTP thread) and encoding the intervals.
    #[serde(default)]
    pub shipping_cpu_s: f64,
}

/// `GET /v1/runs/{run}?after=N`: the samples numbered N and above, and the
/// final figures once the run ended (or why it could not start).
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct Poll {
    /// The samples numbered `after` and above.
    pub samples: Vec<WireSample>,
    /// The run's end figures, once it ended.
    pub done: Option<WireFinal>,
    /// Events that could not complete.
    pub failed: Option<String>,
}

/// `POST /v1/host/locate`: find the server's process on the agent's host
/// (the agent beside a server on another host).
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct LocateRequest {
    /// The server's datadir (@@datadir).
    pub datadir: Option<String>,
    /// Its pid file (@@pid_file), relative to the datadir or absolute.
    pub pid_file: String,
    /// The TCP port it listens on (0: unknown).
    pub port: u16,
}

/// `POST /v1/host/poll`: one host source, read on the agent's host by
/// the monitor's own code. The answer is `HostValues`.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct HostPollRequest {
    /// The source's name (`cpu`, `server_proc`, `disk`, …).
    pub source: String,
    /// The server's pid on that host, as `locate` found it.
    pub pid: Option<i32>,
    /// The datadir's device, as `locate` found it.
    pub disk: Option<String>,
}

/// The parsed counters of one host source (name, value), or why not.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct HostValues {
    /// The values, as a local poll gives them.
    pub values: Vec<(String, f64)>,
    /// Why the source could not be read.
    pub error: Option<String>,
}

/// `POST /v1/profile/start`: record the server process `pid` with perf
/// (kinds cpu, offcpu, syscalls) until stopped, or `max_s` at most.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct ProfileStart {
    /// The server's pid on the agent's host.
    pub pid: i32,
    /// The kinds by name (waits is the controller's: it reads SQL).
    pub kinds: Vec<String>,
    /// On-CPU samples per second.
    pub hz: u32,
    /// The agent stops and drops the recording on its own after this
    /// many seconds (a controller that vanished leaves no perf behind).
    pub max_s: f64,
}

/// `POST /v1/profile/start`'s answer.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct ProfileStarted {
    /// The recording's id (`POST /v1/profile/{id}/stop`).
    pub id: u64,
}

/// A syscalls recording: one sample stands for `period` entries;
/// (side, name, estimated entries each second).
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct WireSyscalls {
    /// Sampling period.
    pub period: u64,
    /// (side, syscall name, per-second counts).
    pub counts: Vec<(String, String, Vec<u64>)>,
}

/// One kind's outcome of a recording, as `POST /v1/profile/{id}/stop`
/// answers (a list of them).
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct WireOutcome {
    /// The kind's name.
    pub kind: String,
    /// Seconds recorded.
    pub secs: f64,
    /// When recording began, seconds since the epoch (the agent's clock).
    pub started_unix: f64,
    /// perf's own CPU seconds.
    pub cost_cpu_s: Option<f64>,
    /// cpu and offcpu: folded stacks and their weights.
    pub stacks: Option<std::collections::BTreeMap<String, u64>>,
    /// syscalls: the sampling period and the per-second counts.
    pub syscalls: Option<WireSyscalls>,
    /// Why the kind gathered nothing.
    pub error: Option<String>,
}

fn b64(h: &Hist) -> String {
    base64::engine::general_purpose::STANDARD.encode(h.to_v2_bytes())
}

/// A histogram back from the wire; "" (an unallocated one, which
/// `to_v2_bytes` writes as nothing) stays unallocated, so a kind no
/// agent ran costs the controller no buckets.
fn unb64(s: &str) -> Result<Hist, String> {
    if s.is_empty() {
        return Ok(Hist::unallocated());
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(s)
        .map_err(|e| format!("a histogram's base64: {e}"))?;
    Hist::from_v2_bytes(&bytes).ok_or_else(|| "a histogram's V2 bytes do not decode".to_string())
}

impl WireInterval {
    /// `iv` on the wire (its histograms must be full, not compacted).
    pub fn of(iv: &Interval) -> WireInterval {
        WireInterval {
            events: iv.events,
            reads: iv.reads,
            writes: iv.writes,
            others: iv.others,
            errors: iv.errors.0.clone(),
            lost: iv.lost,
            reconnects: iv.reconnects,
            failed: iv.failed,
            failed_connects: iv.failed_connects,
            backlog: iv.backlog,
            load_cpu_s: iv.load_cpu_s,
            classes: iv.classes.to_vec(),
            hist: b64(&iv.hist),
            lag: iv.lag.as_deref().map(b64),
            kinds: iv.kinds.iter().map(b64).collect(),
        }
    }

    /// Back into an interval, histograms full (those sent empty of
    /// buckets: unallocated).
    pub fn to_interval(&self) -> Result<Interval, String> {
        let mut iv = Interval {
            events: self.events,
            reads: self.reads,
            writes: self.writes,
            others: self.others,
            lost: self.lost,
            reconnects: self.reconnects,
            failed: self.failed,
            failed_connects: self.failed_connects,
            backlog: self.backlog,
            load_cpu_s: self.load_cpu_s,
            hist: unb64(&self.hist)?,
            lag: self.lag.as_deref().map(unb64).transpose()?.map(Box::new),
            kinds: self
                .kinds
                .iter()
                .map(|k| unb64(k))
                .collect::<Result<_, _>>()?,
            ..Interval::default()
        };
        for &(code, n) in &self.errors {
            iv.errors.add(code, n);
        }
        for (a, b) in iv.classes.iter_mut().zip(&self.classes) {
            *a = *b;
        }
        Ok(iv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_survives_the_wire() {
        let mut iv = Interval::with_unallocated_kinds(3);
        iv.events = 3;
        iv.errors.add(1213, 2);
        iv.classes[1] = 4;
        for v in [10, 200, 3000] {
            iv.hist.record(v);
        }
        iv.kinds[1].record(77);
        let json = serde_json::to_string(&WireInterval::of(&iv)).unwrap();
        let back: WireInterval = serde_json::from_str(&json).unwrap();
        let b = back.to_interval().unwrap();
        assert_eq!((b.events, b.errors.total(), b.classes[1]), (3, 2, 4));
        assert_eq!(b.hist.recorded(), iv.hist.recorded());
        assert_eq!(b.kinds[1].count(), 1);
        assert!(b.kinds[1].is_allocated());
        assert!(!b.kinds[0].is_allocated() && !b.kinds[2].is_allocated());
        assert_eq!(b.kinds.len(), 3);
    }
}
