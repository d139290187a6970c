//! The commands over stored runs and the live views: runs, show, compare,
//! ratio, scalability, metrics, monitor, iostat/top, ui, report, chart.

use super::choices::{DumpFormat, ProfileWaits};
use super::conn::ConnArgs;
use super::load::MonitorArgs;
use super::shared::{
    positive_f64, timeout_secs, AgentLinkArgs, RecordArgs, RunFilterArgs, StoreArg, TableFormatArg,
};
use clap::Args;
use std::path::PathBuf;

/// Which stored runs an analysis reads.
#[derive(Args, Debug)]
pub(crate) struct AnalysisArgs {
    #[command(flatten)]
    pub store: StoreArg,
    #[command(flatten)]
    pub select: RunFilterArgs,
    #[command(flatten)]
    pub format: TableFormatArg,
}

#[derive(Args, Debug)]
pub(crate) struct CompareArgs {
    /// The baseline run id.
    pub run_a: i64,
    /// The run compared with it.
    pub run_b: i64,
    #[command(flatten)]
    pub store: StoreArg,
    #[command(flatten)]
    pub format: TableFormatArg,
}

#[derive(Args, Debug)]
pub(crate) struct RatioArgs {
    /// The series compared (a variant or a label).
    pub a: Option<String>,
    /// The series it is divided by.
    pub b: Option<String>,
    /// Matrix form: every variant divided by this one [default: none: A / B].
    #[arg(long)]
    pub reference: Option<String>,
    /// The slowdown form: the reference (or B) divided by each variant
    /// (> 1 = the variant is slower), as published overhead tables show it.
    #[arg(long)]
    pub slowdown: bool,
    #[command(flatten)]
    pub filter: AnalysisArgs,
}

#[derive(Args, Debug)]
pub(crate) struct RunsArgs {
    #[command(flatten)]
    pub store: StoreArg,
    #[command(flatten)]
    pub select: RunFilterArgs,
    /// Only runs that ended so: ok, failed, degraded, aborted or running
    /// [default: all].
    #[arg(long, value_parser = ["ok", "failed", "degraded", "aborted", "running"])]
    pub status: Option<String>,
    /// Only the last N runs [default: all].
    #[arg(long)]
    pub limit: Option<usize>,
    #[command(flatten)]
    pub format: TableFormatArg,
}

#[derive(Args, Debug)]
pub(crate) struct ShowArgs {
    /// Run id (see `qpslab runs`).
    pub run: i64,
    #[command(flatten)]
    pub store: StoreArg,
    #[command(flatten)]
    pub format: TableFormatArg,
}

#[derive(Args, Debug)]
pub(crate) struct FlamegraphArgs {
    /// Run id (see `qpslab runs`), recorded with --profile cpu or offcpu.
    pub run: i64,
    /// Which stacks: cpu or offcpu [default: cpu when the run has them,
    /// else offcpu].
    #[arg(long)]
    pub kind: Option<String>,
    /// Draw the difference from this run to RUN (red: more in RUN, blue:
    /// less), e.g. 8 users against 64, or version A against B [default:
    /// none: RUN's own graph].
    #[arg(long)]
    pub diff: Option<i64>,
    /// The SVG file to write [default: qpslab-run-RUN-flame-KIND.svg (or
    /// …-flame-KIND-from-OTHER.svg for --diff) in the current directory].
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreArg,
}

#[derive(Args, Debug)]
pub(crate) struct MonitorCmdArgs {
    #[command(flatten)]
    pub conn: ConnArgs,
    /// Seconds to watch; 0 = until Ctrl-C.
    #[arg(long, default_value_t = 0.0, value_parser = positive_f64)]
    pub time: f64,
    #[command(flatten)]
    pub monitor: MonitorArgs,
    #[command(flatten)]
    pub record: RecordArgs,
    /// No per-second lines.
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub agent: AgentLinkArgs,
}

#[derive(Args, Debug)]
pub(crate) struct IostatArgs {
    #[command(flatten)]
    pub conn: ConnArgs,
    /// Seconds between lines.
    #[arg(long, default_value_t = 1.0, value_parser = timeout_secs)]
    pub interval: f64,
    /// Stop after N lines; 0 = until Ctrl-C.
    #[arg(long, default_value_t = 0)]
    pub count: u64,
    #[command(flatten)]
    pub agent: AgentLinkArgs,
}

#[derive(Args, Debug)]
pub(crate) struct ProfileArgs {
    /// The server (a sandbox by --server, or --socket/--host…) whose
    /// process is profiled: on this host, or on another with
    /// --server-agent beside it.
    #[command(flatten)]
    pub conn: ConnArgs,
    /// Profile this process instead of finding the server's (its pid on
    /// the agent's host with --server-agent) [default: the server's, found
    /// from its pid file or socket].
    #[arg(long)]
    pub pid: Option<i32>,
    /// What to record, comma-separated: cpu (on-CPU stacks sampled at
    /// --profile-hz), offcpu (where threads block, weighted by how long),
    /// syscalls (by name, the server's and qpslab's apart), waits
    /// (Performance Schema wait shares), or all.
    #[arg(long, default_value = "cpu")]
    pub kind: String,
    /// Seconds to record.
    #[arg(long, default_value_t = 10.0, value_parser = timeout_secs)]
    pub time: f64,
    /// On-CPU samples per second (per CPU; per thread beside offcpu).
    #[arg(long, default_value_t = 99, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub profile_hz: u32,
    /// waits: use the Performance Schema as it is set up, or enable and
    /// time every wait instrument while recording (put back after).
    #[arg(long, value_enum, default_value_t = ProfileWaits::Use)]
    pub profile_waits: ProfileWaits,
    /// Write the folded stacks here (flamegraph tools read them): a file
    /// with one stack kind, else a directory of `<kind>.folded` [default:
    /// none].
    #[arg(long)]
    pub folded: Option<PathBuf>,
    /// Write flame graphs (`<kind>.svg`, searchable, click to zoom) into
    /// this directory [default: none].
    #[arg(long)]
    pub flamegraph: Option<PathBuf>,
    /// Rows in each top table.
    #[arg(long, default_value_t = 15)]
    pub top: usize,
    #[command(flatten)]
    pub agent: AgentLinkArgs,
}

#[derive(Args, Debug)]
pub(crate) struct MetricsArgs {
    /// Run id (see `qpslab runs`).
    pub run: i64,
    /// Source (status, innodb_metrics, cpu, disk, …: `qpslab help
    /// metrics`) [default: none: list the run's sources and their snapshot
    /// counts].
    #[arg(long)]
    pub source: Option<String>,
    /// Only names containing this text (case-insensitive) [default: all].
    #[arg(long)]
    pub name: Option<String>,
    /// Per-second rates of counters instead of raw values.
    #[arg(long)]
    pub rate: bool,
    /// csv or json.
    #[arg(long, value_enum, default_value_t = DumpFormat::Csv)]
    pub format: DumpFormat,
    #[command(flatten)]
    pub store: StoreArg,
}

#[derive(Args, Debug)]
pub(crate) struct UiArgs {
    /// Address to listen on; the default keeps the UI on this host.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: String,
    /// Port to listen on.
    #[arg(long, default_value_t = 8780)]
    pub port: u16,
    /// Also serve /metrics for Prometheus at ADDR:PORT (a bare port binds
    /// 127.0.0.1): the last finished run's counters, event latency
    /// histogram and its monitor's last poll, under the names a run's own
    /// --metrics-listen uses; a run that finishes later replaces it
    /// [default: off].
    #[arg(long, value_name = "ADDR:PORT")]
    pub metrics_listen: Option<String>,
    #[command(flatten)]
    pub store: StoreArg,
}

#[derive(Args, Debug)]
pub(crate) struct ReportArgs {
    /// Run id; or give --campaign.
    #[arg(required_unless_present = "campaign")]
    pub run: Option<i64>,
    /// A campaign's id; several (3,5) for one report comparing them
    /// [default: none: give RUN].
    #[arg(long, conflicts_with = "run", value_delimiter = ',', num_args = 1..)]
    pub campaign: Vec<i64>,
    /// Output file (.html) [default: qpslab-run-ID.html or
    /// qpslab-campaign-ID.html in the current directory].
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreArg,
}

#[derive(Args, Debug)]
pub(crate) struct ChartArgs {
    /// Run id; several (12 15 17) to overlay their latency spectra
    /// (--metric spectrum); or give --campaign for its charts.
    #[arg(required_unless_present = "campaign", num_args = 1..)]
    pub run: Vec<i64>,
    /// A campaign's id: its scalability chart [default: none: give RUN].
    #[arg(long, conflicts_with = "run")]
    pub campaign: Option<i64>,
    /// For a run: qps, tps, p95, p99, spectrum (latency against
    /// percentile, from the stored histograms: all events and each
    /// statement; several runs: one line each), statement-p95 or
    /// statement-p99 (each statement's latency over time), or a stored
    /// counter's rate as source:name (e.g. status:Com_select). For a
    /// campaign: qps, p95, nopm (TPC-C's New-Orders per minute), or
    /// spectrum (one line per series at --threads users, repeats merged).
    #[arg(long, default_value = "qps")]
    pub metric: String,
    /// A campaign's spectrum: the user level drawn [default: the highest].
    #[arg(long, requires = "campaign")]
    pub threads: Option<i64>,
    /// Output file: .svg, or .png (rendered with the system's fonts)
    /// [default: qpslab-run-ID-METRIC.svg or qpslab-campaign-ID-METRIC.svg
    /// in the current directory].
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreArg,
}
