//! Argument blocks shared by many commands (store, output format, which
//! runs) and the value parsers with their bounds.

use super::choices::TableFormat;
use clap::Args;
use std::path::{Path, PathBuf};

/// The results store: one flag shared by every command that reads or
/// records runs.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct StoreArg {
    /// Results store: a SQLite file, or a shared server store
    /// mysql://user[:password]@host[:port]/db (password also from
    /// MYSQL_PWD, else asked; never stored; see `qpslab help store`)
    /// [default: $QPSLAB_HOME/results.db, else
    /// ~/.local/share/qpslab/results.db].
    #[arg(long = "store", id = "store", value_name = "FILE|URL", help_heading = super::help::STORE)]
    pub file: Option<PathBuf>,
}

impl StoreArg {
    pub fn path(&self) -> Option<&Path> {
        self.file.as_deref()
    }
}

/// The live Prometheus endpoint beside a run, sweep, campaign or monitor
/// session.
#[derive(Args, Debug, Clone)]
pub(crate) struct MetricsListenArgs {
    /// Serve the live figures at http://ADDR:PORT/metrics for Prometheus
    /// (text format or OpenMetrics, as the scraper asks): the load's
    /// counters and latency histograms, the server under mysqld_exporter's
    /// names. A bare PORT listens on 127.0.0.1 [default: off].
    #[arg(long, value_name = "ADDR:PORT", help_heading = super::help::MONITOR)]
    pub metrics_listen: Option<String>,
    /// With --metrics-listen: at the end, wait up to this many seconds
    /// for a scrape to read the final figures (0: exit at once).
    #[arg(long, value_name = "SECONDS", default_value_t = 15.0, value_parser = positive_f64, help_heading = super::help::MONITOR)]
    pub metrics_linger: f64,
    /// Push the same series to a Prometheus remote-write receiver every
    /// --remote-write-interval (Prometheus, VictoriaMetrics, Mimir,
    /// Grafana Cloud), e.g. http://127.0.0.1:9090/api/v1/write; a slow
    /// receiver drops samples (counted), never queries [default: off].
    #[arg(long, value_name = "URL", help_heading = super::help::MONITOR)]
    pub remote_write: Option<String>,
    /// An HTTP header for --remote-write, NAME=VALUE (repeatable), e.g.
    /// 'Authorization=Bearer TOKEN' [default: none].
    #[arg(long, value_name = "NAME=VALUE", help_heading = super::help::MONITOR)]
    pub remote_write_header: Vec<String>,
    /// Seconds between --remote-write pushes.
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0, value_parser = super::shared::monitor_interval, help_heading = super::help::MONITOR)]
    pub remote_write_interval: f64,
}

impl Default for MetricsListenArgs {
    fn default() -> Self {
        MetricsListenArgs {
            metrics_listen: None,
            metrics_linger: 15.0,
            remote_write: None,
            remote_write_header: Vec::new(),
            remote_write_interval: 1.0,
        }
    }
}

/// The agent beside a server on another host (`--server-agent`) and how
/// agents are reached (the token, TLS): shared by the load commands (whose
/// `--agents` take the same token and TLS), `monitor`, `iostat`, `top`
/// and `profile`.
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = super::help::AGENTS)]
pub(crate) struct AgentLinkArgs {
    /// The agents' shared token: the first line of this file (as each
    /// agent's --token-file) [default: none].
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Reach the agents over HTTPS, trusting the certificates in this PEM
    /// file (the agents' own self-signed certificate, or the CA that
    /// signed theirs; each must name the address it is reached by)
    /// [default: none: plain HTTP].
    #[arg(long, value_name = "FILE")]
    pub agent_ca: Option<PathBuf>,
    /// The agent (`qpslab agent`) running beside a server on another
    /// host, as HOST:PORT, with --token-file's token: the monitor reads
    /// that host's CPU, the server's process, disks, network, memory and
    /// pressure through it, and perf records the server there
    /// (docs/AGENTS.md) [default: none: a remote server's host sources
    /// are skipped].
    #[arg(long, value_name = "HOST:PORT")]
    pub server_agent: Option<String>,
}

/// Whether and where a run (or monitor session) is recorded, and its label.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct RecordArgs {
    #[command(flatten)]
    pub store: StoreArg,
    /// Do not record in the results store (print only).
    #[arg(long, conflicts_with = "store", help_heading = super::help::STORE)]
    pub no_store: bool,
    /// Series label recorded with the run (e.g. engine and version), for
    /// `scalability`, `best` and the charts [default: none].
    #[arg(long, help_heading = super::help::STORE)]
    pub label: Option<String>,
}

/// Which stored runs: shared by `runs` and the analyses.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct RunFilterArgs {
    /// Only the runs of this campaign (or sweep) id [default: all].
    #[arg(long)]
    pub campaign: Option<i64>,
    /// Only the runs of this workload, e.g. oltp_read_write [default: all].
    #[arg(long)]
    pub workload: Option<String>,
    /// Only the runs with this label [default: all].
    #[arg(long)]
    pub label: Option<String>,
    /// Only the runs with this tag (`qpslab tag`) [default: all].
    #[arg(long)]
    pub tag: Option<String>,
}

impl RunFilterArgs {
    /// The store's filter for these options, with a status and a limit.
    pub fn filter(&self, status: Option<&str>, limit: Option<usize>) -> crate::store::RunFilter {
        crate::store::RunFilter {
            workload: self.workload.clone(),
            label: self.label.clone(),
            campaign: self.campaign,
            status: status.map(str::to_string),
            limit,
            tag: self.tag.clone(),
            ..Default::default()
        }
    }
}

/// Output format of the table commands.
#[derive(Args, Debug, Clone)]
pub(crate) struct TableFormatArg {
    /// Output: text, markdown, csv or json.
    #[arg(long = "format", value_enum, default_value_t = TableFormat::Text)]
    pub format: TableFormat,
}

pub fn parse_bool(s: &str) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(format!("'{s}' is not a boolean; use on or off")),
    }
}

pub(crate) fn parse_pct_list(s: &str) -> Result<Vec<f64>, String> {
    s.split(',')
        .map(|p| {
            let v: f64 = p
                .trim()
                .parse()
                .map_err(|_| format!("'{p}' is not a percentile; use e.g. 50,95,99,99.9"))?;
            if v > 0.0 && v <= 100.0 {
                Ok(v)
            } else {
                Err(format!("percentile {v} is outside (0, 100]"))
            }
        })
        .collect()
}

/// The longest duration any option takes: ten years, far below what a
/// `Duration` or the clock can hold.
pub const MAX_SECONDS: f64 = 10.0 * 365.0 * 86_400.0;

/// Seconds: finite, not negative, at most `MAX_SECONDS`.
pub(crate) fn positive_f64(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=MAX_SECONDS).contains(&v) => Ok(v),
        _ => Err(format!(
            "'{s}' is not a number of seconds from 0 to {MAX_SECONDS:.0}"
        )),
    }
}

/// The monitor's shortest poll interval: below it the polls themselves
/// (SHOW GLOBAL STATUS costs about a millisecond of server time) become
/// load.
pub(crate) const MIN_MONITOR_INTERVAL: f64 = 0.1;

/// `--monitor-interval`: seconds from `MIN_MONITOR_INTERVAL` to an hour.
pub(crate) fn monitor_interval(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (MIN_MONITOR_INTERVAL..=3600.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "'{s}' is not a monitor interval: give seconds from {MIN_MONITOR_INTERVAL} to 3600 (or --no-monitor to turn it off)"
        )),
    }
}

/// A timeout: more than zero seconds, at most a day.
pub(crate) fn timeout_secs(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 86_400.0 => Ok(v),
        _ => Err(format!(
            "'{s}' is not a timeout in seconds (more than 0, at most 86400)"
        )),
    }
}

/// A rate per second: finite, not negative, at most a billion.
pub(crate) fn rate_per_s(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=1e9).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a rate per second from 0 to 1e9")),
    }
}
