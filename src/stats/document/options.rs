//! The options a run was asked for, as its document records them (the
//! store's `runs.options` column and the summary's "options"). Owns the
//! types only; exec fills them from its `RunConfig` and gives
//! `IgnoreErrors` its parsing and matching.

use serde::{Deserialize, Serialize};

/// Which server error codes roll back and retry the event instead of ending the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum IgnoreErrors {
    /// Every error is retried.
    All,
    /// Only these server error codes are retried; empty: none.
    Codes(Vec<u16>),
}

impl Default for IgnoreErrors {
    fn default() -> Self {
        IgnoreErrors::Codes(Vec::new())
    }
}

/// Whether workers send their statements prepared or as text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PsMode {
    /// Prepared statements; a statement the server refuses to prepare
    /// (max_prepared_stmt_count reached) falls back to the text protocol.
    #[default]
    Auto,
    /// Text protocol for everything.
    Disable,
}

/// Every option of a run (sysbench's names where sysbench has one).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunOptions {
    /// Client connections.
    pub threads: u32,
    /// Measured seconds (0: until `events`).
    pub time: f64,
    /// Events to run (0: until `time`).
    pub events: u64,
    /// Warm-up seconds before the measured time.
    pub warmup_time: f64,
    /// Target events per second in all (0: closed loop).
    pub rate: f64,
    /// Seconds per interval.
    pub report_interval: f64,
    /// The error codes retried.
    pub ignore_errors: IgnoreErrors,
    /// Reconnect every this many events (0: never).
    pub reconnect: u64,
    /// Prepared statements or text.
    pub db_ps_mode: PsMode,
    /// The random generator's seed.
    pub rand_seed: u64,
    /// The CPUs the client was pinned to ("" for none).
    pub client_cpus: String,
    /// The workload family's own options, as the family names them (each
    /// family has its own set; "oltp" is the historical key).
    pub oltp: serde_json::Value,
}

/// The options of a monitor session recorded in the store.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MonitorOptions {
    /// Seconds it watched (0: until Ctrl-C).
    #[serde(default)]
    pub time: f64,
    /// Seconds between the collectors' polls.
    pub monitor_interval: f64,
    /// Per-source rates as given ("status=1,innodb=5").
    #[serde(default)]
    pub monitor_rates: String,
    /// Sources turned off as given.
    #[serde(default)]
    pub monitor_off: String,
}

/// The options stored with a run (`runs.options`): a load's or a monitor
/// session's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OptionsDocument {
    /// A monitor session's (told apart by its `monitor_interval`).
    Monitor(MonitorOptions),
    /// A load's.
    Load(RunOptions),
}

impl Default for OptionsDocument {
    fn default() -> Self {
        OptionsDocument::Load(RunOptions::default())
    }
}

impl OptionsDocument {
    /// The measured seconds asked for (0: unbounded).
    pub fn time(&self) -> f64 {
        match self {
            OptionsDocument::Monitor(m) => m.time,
            OptionsDocument::Load(o) => o.time,
        }
    }

    /// The warm-up seconds (none for a monitor session).
    pub fn warmup_time(&self) -> f64 {
        match self {
            OptionsDocument::Monitor(_) => 0.0,
            OptionsDocument::Load(o) => o.warmup_time,
        }
    }
}
