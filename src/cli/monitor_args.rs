//! The monitor's options on the command line, turned into its
//! configuration.

use super::args::MonitorArgs;
use crate::monitor::{MonitorConfig, SourceId};
use crate::protocol::ConnOpts;
use anyhow::{anyhow, Result};

/// Builds the monitor's configuration from the command line.
pub(crate) fn monitor_config(conn: &ConnOpts, a: &MonitorArgs) -> Result<MonitorConfig> {
    let mut cfg = MonitorConfig::new(conn.clone());
    cfg.base = a.monitor_interval;
    cfg.budget_share = a.monitor_budget / 100.0;
    cfg.set_rates(&a.monitor_rates)
        .map_err(|e| anyhow!("--monitor-rates: {e}"))?;
    for name in a
        .monitor_off
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        cfg.off.push(SourceId::parse(name).ok_or_else(|| {
            anyhow!("--monitor-off: unknown source '{name}'; see `qpslab monitor --help`")
        })?);
    }
    Ok(cfg)
}
