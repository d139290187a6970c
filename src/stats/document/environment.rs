//! What a run was measured on, as stored with it: the client host (and the
//! campaign round's pre-flight check of it) and the sandbox's settings.
//! Owns the types only; lab captures them, report and ui render them.

use serde::{Deserialize, Serialize};

/// The client host (the store's `runs.host`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HostDocument {
    /// Its hostname.
    pub hostname: String,
    /// /proc/cpuinfo's model name.
    pub cpu_model: String,
    /// CPUs available to qpslab.
    pub cpus: u64,
    /// /proc/meminfo's MemTotal ("24684092 kB").
    pub memory: String,
    /// The kernel's release.
    pub kernel: String,
    /// The pre-flight check of the campaign round the run belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preflight: Option<Preflight>,
}

/// How quiet the host was before a campaign round (a short CPU loop).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Preflight {
    /// The loop's speed: standard deviation over mean.
    pub loop_cov: f64,
    /// The host's busy share outside qpslab (0..1).
    pub host_busy_outside_qpslab: f64,
    /// Seconds the check took.
    pub seconds: f64,
    /// /proc/loadavg's first figure.
    pub load_average: Option<String>,
}

/// A sandbox's settings (the store's `runs.sandbox`; null for other targets).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SandboxDocument {
    /// The sandbox's name.
    pub name: String,
    /// The my.cnf preset (stored as `profile` before it was renamed).
    #[serde(alias = "profile")]
    pub preset: String,
    /// The server build's base directory; None for the system's server.
    pub basedir: Option<String>,
    /// The CPUs it is pinned to.
    pub cpus: Option<String>,
    /// The my.cnf settings given with --set, as (name, value).
    pub sets: Vec<(String, String)>,
}
