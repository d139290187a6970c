//! A run driven by several agents: each agent's share and figures (the
//! per-agent table), the client-bound flags, the clock offsets measured
//! before the start, and the clients' transactions beside the server's
//! Com_commit. Types and their JSON form only: lab fills them.

use serde::{Deserialize, Serialize};

/// The per-agent block of a run's document.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentsBlock {
    /// One row per agent, in the order `--agents` named them.
    pub agents: Vec<AgentRow>,
    /// The largest clock offset a run accepts (ms).
    pub offset_limit_ms: f64,
    /// Events the agents completed over the whole run (warm-up included).
    pub client_transactions: u64,
    /// The server's Com_commit over the same span; None when unread.
    pub server_commits: Option<i64>,
    /// Set when the two differ by more than the events in flight (one
    /// per connection at the start and at the end).
    pub commit_mismatch: Option<String>,
}

/// One agent's share and figures over the measured time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentRow {
    /// host:port as given to --agents.
    pub agent: String,
    /// Its connections.
    pub connections: u32,
    /// Its share of the connections (0..1).
    pub share: f64,
    /// Queries per second over the measured time.
    pub qps: f64,
    /// Transactions per second over the measured time.
    pub tps: f64,
    /// Event latency p99 (ms).
    pub p99_ms: f64,
    /// The agent's load threads' CPU per query (µs).
    pub load_us_per_query: f64,
    /// The agent host's CPU busy share (0..1) over the measured time.
    pub host_busy: f64,
    /// Its host's CPU was saturated: its figures measure the client.
    pub client_bound: bool,
    /// Its clock minus the controller's (ms), and the round trip of the
    /// best sample (ms).
    pub offset_ms: f64,
    /// The best clock sample's round trip (ms).
    pub rtt_ms: f64,
    /// The agent's own run status word (ok, degraded, failed, aborted,
    /// lost).
    pub status: String,
    /// Why its figures stop early (cut off, died), when they do.
    pub lost: Option<String>,
}
