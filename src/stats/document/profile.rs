//! A profiled run's summary document (the store's `runs.profile`, and
//! "profile" in `run --profile … --format json`): each collector's figures
//! or why it is missing, its cost, and the lock families' shares. Owns the
//! types only; lab writes them from a profile, ui renders them.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The profile's summary.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProfileSummary {
    /// The on-CPU sampling rate (samples per second).
    pub hz: u32,
    /// Queries the load ran while it recorded.
    pub queries: Option<u64>,
    /// Each collector's part.
    pub kinds: Vec<KindSummary>,
    /// Lock families' shares of the connection threads' time.
    pub locks: Option<LockShares>,
}

/// One collector's part of the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KindSummary {
    /// "cpu", "offcpu", "syscalls" or "waits".
    pub kind: String,
    /// When recording began, seconds since the Unix epoch.
    #[serde(default)]
    pub started_at: f64,
    /// Seconds recorded.
    #[serde(default)]
    pub seconds: f64,
    /// CPU seconds of the collector's own process, when known.
    #[serde(default)]
    pub collector_cpu_s: Option<f64>,
    /// What it gathered, or why not.
    #[serde(flatten)]
    pub figures: KindFigures,
}

/// What one collector gathered; in JSON its keys sit beside the kind's.
/// Told apart by the keys each must have (`error`; `sides`; `threads`
/// and `top_events`; `top_self`), the others defaulting when missing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum KindFigures {
    /// It could not record: why.
    Failed {
        /// The reason.
        error: String,
    },
    /// Syscall counts.
    Syscalls {
        /// The counter's sampling period.
        #[serde(default)]
        period: u64,
        /// By side ("server", "load", "qpslab").
        sides: BTreeMap<String, SyscallSide>,
    },
    /// Performance Schema waits.
    Waits {
        /// Threads whose time the shares are of.
        threads: u32,
        /// Wait instruments timed.
        #[serde(default)]
        timed_instruments: u64,
        /// Wait instruments in all.
        #[serde(default)]
        instruments: u64,
        /// (event, share of thread time), largest first.
        top_events: Vec<(String, f64)>,
    },
    /// On- or off-CPU stacks.
    Stacks {
        /// All stacks' weight (samples, or µs off CPU).
        #[serde(default)]
        weight: u64,
        /// Distinct stacks.
        #[serde(default)]
        stacks: u64,
        /// The innermost functions with the most weight.
        top_self: Vec<Share>,
    },
}

/// One side's syscalls.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SyscallSide {
    /// Syscalls in all.
    pub total: u64,
    /// Per second recorded.
    pub per_second: f64,
    /// Per query; None without a query count.
    pub per_query: Option<f64>,
    /// The most frequent, by count.
    pub top: Vec<SyscallCount>,
}

/// One syscall's count.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SyscallCount {
    /// The syscall's name.
    pub name: String,
    /// Its count.
    pub count: u64,
    /// Per query; None without a query count.
    pub per_query: Option<f64>,
}

/// One row of a top table (a function or a lock family).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Share {
    /// The frame (function) or group's name.
    pub name: String,
    /// Its samples (or µs for off-CPU time).
    pub samples: u64,
    /// Of all samples, in percent.
    pub pct: f64,
}

/// How lock-family shares are named wherever they are shown (terminal,
/// pages, reports): one name for the one definition, `LockShares`'.
pub const LOCK_SHARES_TITLE: &str = "Lock families, share of connection-thread time";

/// Lock families' shares of the connection threads' time in one run (the
/// only lock-family figure a profile's summary keeps: the per-kind weights
/// of every thread, which older summaries carried, are not kept).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LockShares {
    /// "stacks" or "waits".
    pub source: String,
    /// (family, share of the connection threads' time), largest first;
    /// lock families only.
    pub shares: Vec<(String, f64)>,
    /// The heaviest stack of the top family (root first), if from stacks.
    pub top_stack: Option<String>,
}
