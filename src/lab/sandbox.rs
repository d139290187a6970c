//! Sandboxes as use cases: start one with changed settings (refusing what
//! would silently change a running or initialised one), or make sure the
//! default one runs before a command uses it.

use crate::server::{Profile, Progress, Sandbox};
use anyhow::{bail, Result};
use std::path::PathBuf;
use std::time::Duration;

/// Settings to change before a sandbox starts; None/empty keeps the
/// sandbox's own.
#[derive(Default)]
pub struct SandboxChange {
    /// An installed server's directory (already checked to exist).
    pub basedir: Option<PathBuf>,
    /// The my.cnf preset's name (see `server::Profile`).
    pub profile: Option<String>,
    /// Server variables; each replaces the sandbox's value of that name.
    pub sets: Vec<(String, String)>,
    /// CPU list the server is pinned to (taskset syntax: `0-3,6`); checked
    /// before it is kept.
    pub cpus: Option<String>,
}

/// Applies `change` to sandbox `name` (created if new) and starts it,
/// telling `progress` what the start does.
pub fn start_sandbox(
    name: &str,
    change: &SandboxChange,
    timeout: Duration,
    progress: &mut dyn FnMut(Progress),
) -> Result<Sandbox> {
    let mut sb = Sandbox::open_or_new(name)?;
    let mut spec = sb.spec.clone();
    if let Some(b) = &change.basedir {
        spec.basedir = Some(b.clone());
    }
    if let Some(p) = &change.profile {
        spec.profile = Profile::parse(p)?;
    }
    for (k, v) in &change.sets {
        spec.sets.retain(|(x, _)| x != k);
        spec.sets.push((k.clone(), v.clone()));
    }
    if let Some(c) = &change.cpus {
        crate::server::parse_cpu_list(c)?;
        spec.cpus = Some(c.clone());
    }
    if spec != sb.spec && sb.running_pid().is_some() {
        bail!("sandbox '{name}' is running with other settings; stop it first (qpslab server stop --name {name})");
    }
    if spec.basedir != sb.spec.basedir && sb.datadir().join("mysql").is_dir() {
        bail!("sandbox '{name}' was initialised with another server; destroy it first or use another --name");
    }
    sb.spec = spec;
    sb.start(timeout, progress)?;
    Ok(sb)
}

/// Sandbox `name`, started with its own settings if it is not running;
/// `starting` is told before a start (the first one initialises a datadir),
/// `progress` what the start does.
pub fn running_sandbox(
    name: &str,
    starting: impl FnOnce(),
    progress: &mut dyn FnMut(Progress),
) -> Result<Sandbox> {
    let mut sb = Sandbox::open_or_new(name)?;
    if sb.running_pid().is_none() {
        starting();
        sb.start(Duration::from_secs(120), progress)?;
    }
    Ok(sb)
}
