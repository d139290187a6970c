//! Sandboxes as use cases: start one with changed settings (refusing what
//! would silently change a running or initialised one), or make sure the
//! default one runs before a command uses it.

use crate::server::{CnfPreset, Progress, Sandbox};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use std::time::Duration;

/// Settings to change before a sandbox starts; None/empty keeps the
/// sandbox's own.
#[derive(Default)]
pub struct SandboxChange {
    /// An installed server's directory (already checked to exist).
    pub basedir: Option<PathBuf>,
    /// The my.cnf preset's name (see `server::CnfPreset`).
    pub preset: Option<String>,
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
    if let Some(p) = &change.preset {
        spec.preset = CnfPreset::parse(p)?;
    }
    for (k, v) in &change.sets {
        let key = k.replace('-', "_");
        match key.as_str() {
            // The sandbox's own port: kept in its metadata (status, the
            // connection) rather than as a second `port` line.
            "port" => {
                spec.port = v
                    .trim()
                    .parse::<u16>()
                    .ok()
                    .filter(|p| *p > 0)
                    .with_context(|| format!("--set port={v}: give a TCP port from 1 to 65535"))?;
                continue;
            }
            "datadir" | "socket" | "pid_file" | "log_error" | "basedir" => bail!(
                "--set {k}: the sandbox sets its own {k} (see `qpslab server status --name {name}`); use --basedir for another server, or connect to a server of your own with --socket/--host"
            ),
            _ => {}
        }
        spec.sets.retain(|(x, _)| x.replace('-', "_") != key);
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

/// The sandbox that commands use when none is named; it is made on first
/// use.
pub const DEFAULT_SANDBOX: &str = "default";

/// Sandbox `name`, started with its own settings if it is not running;
/// `starting` is told before a start (the first one initialises a datadir),
/// `progress` what the start does. A sandbox that does not exist is made
/// only when it is the default one or `create` is set: otherwise the
/// error names the sandboxes there are (a mistyped name must not start a
/// new server).
pub fn running_sandbox(
    name: &str,
    create: bool,
    starting: impl FnOnce(),
    progress: &mut dyn FnMut(Progress),
) -> Result<Sandbox> {
    if !create && name != DEFAULT_SANDBOX && Sandbox::open(name)?.is_none() {
        let known: Vec<String> = Sandbox::list()?.into_iter().map(|s| s.spec.name).collect();
        let known = if known.is_empty() {
            "there are none yet".to_string()
        } else {
            format!("there are: {}", known.join(", "))
        };
        bail!(
            "no sandbox '{name}' ({known}); create it with `qpslab server start --name {name}` or add --create"
        );
    }
    let mut sb = Sandbox::open_or_new(name)?;
    if sb.running_pid().is_none() {
        starting();
        sb.start(Duration::from_secs(120), progress)?;
    }
    Ok(sb)
}
