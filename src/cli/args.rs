//! Command-line definitions. Option names follow sysbench (`--tables`,
//! `--table-size`, `--mysql-host` …) so that existing scripts keep working.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};

/// Output of a run: sysbench's text, or one JSON document.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunFormat {
    Text,
    Json,
}

/// Output of a table.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableFormat {
    Text,
    #[value(alias = "md")]
    Markdown,
    Csv,
    Json,
}

impl From<TableFormat> for crate::report::table::Format {
    fn from(f: TableFormat) -> Self {
        use crate::report::table::Format;
        match f {
            TableFormat::Text => Format::Text,
            TableFormat::Markdown => Format::Markdown,
            TableFormat::Csv => Format::Csv,
            TableFormat::Json => Format::Json,
        }
    }
}

/// Output of raw series.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DumpFormat {
    Csv,
    Json,
}

/// sysbench's --db-ps-mode.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PsModeArg {
    /// Prepared statements (text protocol where the server refuses one).
    Auto,
    /// The text protocol for everything.
    Disable,
}

impl From<PsModeArg> for crate::exec::PsMode {
    fn from(m: PsModeArg) -> Self {
        match m {
            PsModeArg::Auto => crate::exec::PsMode::Auto,
            PsModeArg::Disable => crate::exec::PsMode::Disable,
        }
    }
}

/// sysbench's --rand-type.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RandTypeArg {
    Uniform,
    Gaussian,
    Special,
    Pareto,
    Zipfian,
}

impl From<RandTypeArg> for crate::workload::RandType {
    fn from(t: RandTypeArg) -> Self {
        use crate::workload::RandType;
        match t {
            RandTypeArg::Uniform => RandType::Uniform,
            RandTypeArg::Gaussian => RandType::Gaussian,
            RandTypeArg::Special => RandType::Special,
            RandTypeArg::Pareto => RandType::Pareto,
            RandTypeArg::Zipfian => RandType::Zipfian,
        }
    }
}

/// TLS mode (MySQL's names; sysbench's --mysql-ssl on|off too).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SslModeArg {
    #[value(name = "DISABLED", alias = "off", alias = "0")]
    Disabled,
    #[value(name = "PREFERRED")]
    Preferred,
    #[value(name = "REQUIRED", alias = "on", alias = "1")]
    Required,
    #[value(name = "VERIFY_CA")]
    VerifyCa,
    #[value(name = "VERIFY_IDENTITY")]
    VerifyIdentity,
}

impl From<SslModeArg> for crate::protocol::SslMode {
    fn from(m: SslModeArg) -> Self {
        use crate::protocol::SslMode;
        match m {
            SslModeArg::Disabled => SslMode::Disabled,
            SslModeArg::Preferred => SslMode::Preferred,
            SslModeArg::Required => SslMode::Required,
            SslModeArg::VerifyCa => SslMode::VerifyCa,
            SslModeArg::VerifyIdentity => SslMode::VerifyIdentity,
        }
    }
}

/// How the client threads are scheduled.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientSched {
    /// SCHED_BATCH above one connection per CPU.
    Auto,
    Batch,
    Normal,
}

/// The results store: one flag shared by every command that reads or
/// records runs.
#[derive(Args, Debug, Clone, Default)]
pub struct StoreArg {
    /// Results store (SQLite); default <state dir>/results.db.
    #[arg(long = "store", id = "store", value_name = "FILE")]
    pub file: Option<PathBuf>,
}

impl StoreArg {
    pub fn path(&self) -> Option<&Path> {
        self.file.as_deref()
    }
}

/// Output format of the table commands.
#[derive(Args, Debug, Clone)]
pub struct TableFormatArg {
    /// Output: text, markdown, csv or json.
    #[arg(long = "format", value_enum, default_value_t = TableFormat::Text)]
    pub format: TableFormat,
}

#[derive(Parser, Debug)]
#[command(
    name = "qpslab",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("QPSLAB_GIT_HASH"), ")"),
    about = "MySQL/MariaDB performance lab: sysbench-compatible load, sandbox servers, results"
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Manage private sandbox servers.
    Server {
        #[command(subcommand)]
        cmd: ServerCmd,
    },
    /// Create and load the sbtest tables.
    Prepare(LoadArgs),
    /// Run a workload and print sysbench-style results.
    Run(LoadArgs),
    /// Drop the sbtest tables.
    Cleanup(LoadArgs),
    /// List the workloads and their statements.
    Workloads,
    /// Run a workload at each of several concurrencies (one campaign), then
    /// print the scalability table.
    Sweep(SweepArgs),
    /// Run a campaign file (a matrix of servers, variants, workloads and
    /// concurrencies), resumable; or show its status, or the presets.
    Campaign {
        #[command(subcommand)]
        cmd: CampaignCmd,
    },
    /// QPS, TPS, p95 and p99 against users for each series of stored runs.
    Scalability(AnalysisArgs),
    /// Ratio of series per concurrency: `ratio A B` (A / B), or the matrix
    /// of every variant against --reference.
    Ratio(RatioArgs),
    /// Best-to-best: each label's best variant per concurrency, and ratios.
    Best(AnalysisArgs),
    /// Two runs side by side: per-second throughput mean ± standard error
    /// (corrected for autocorrelation) and whether the difference is real.
    Compare(CompareArgs),
    /// List stored runs.
    Runs(RunsArgs),
    /// Show one stored run: environment, per-interval samples, statements.
    Show(ShowArgs),
    /// Watch a server (any, by host/socket/DSN, or a sandbox) every second
    /// until Ctrl-C or --time; stored as a run of workload "monitor".
    Monitor(MonitorCmdArgs),
    /// A live inniostat-style table: physical and InnoDB IO by class.
    Iostat(IostatArgs),
    /// A live one-screen view of the server: QPS by command, threads,
    /// InnoDB rows and pages, top waits, CPU split.
    Top(IostatArgs),
    /// Dump the monitor's stored snapshots of a run (raw counters, or
    /// per-second rates), as CSV or JSON.
    Metrics(MetricsArgs),
    /// The local web UI over the results store (read-only).
    Ui(UiArgs),
    /// One self-contained, offline HTML file of a run or a campaign.
    Report(ReportArgs),
    /// One chart of a run or a campaign as an SVG file.
    Chart(ChartArgs),
    /// The main job: a sandbox MariaDB, 4 × 100,000 rows, point_select and
    /// read_write at 1, 4, 16, 64 users, a table of results.
    Quickstart(QuickArgs),
}

#[derive(Subcommand, Debug)]
pub enum ServerCmd {
    /// Initialise (first time) and start a sandbox.
    Start(SandboxArgs),
    /// Stop a sandbox.
    Stop(NameArg),
    /// Show a sandbox's state.
    Status(NameArg),
    /// List all sandboxes.
    List,
    /// Stop a sandbox and delete its datadir.
    Destroy(NameArg),
    /// Show the my.cnf profiles.
    Profiles,
}

#[derive(Args, Debug)]
pub struct NameArg {
    /// Sandbox name.
    #[arg(long, default_value = "default")]
    pub name: String,
}

#[derive(Args, Debug)]
pub struct SandboxArgs {
    #[arg(long, default_value = "default")]
    pub name: String,
    /// Top of a server tree (tarball layout: bin/mariadbd or bin/mysqld).
    #[arg(long)]
    pub basedir: Option<PathBuf>,
    /// my.cnf profile: default or bench.
    #[arg(long)]
    pub profile: Option<String>,
    /// Server variable override, e.g. --set innodb_buffer_pool_size=2G (repeatable).
    #[arg(long = "set", value_name = "VAR=VALUE")]
    pub sets: Vec<String>,
    /// Pin the server to these CPUs, e.g. 0-7 or 0,2,4.
    #[arg(long)]
    pub cpus: Option<String>,
    /// Seconds to wait for the server to accept connections.
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub timeout: u64,
}

/// Where the server is. Without any of host/port/socket/dsn, the sandbox
/// named by --server (default "default") is used and started if needed.
#[derive(Args, Debug, Clone, Default)]
pub struct ConnArgs {
    #[arg(long, alias = "mysql-host")]
    pub host: Option<String>,
    #[arg(long, alias = "mysql-port")]
    pub port: Option<u16>,
    #[arg(long, alias = "mysql-socket")]
    pub socket: Option<PathBuf>,
    #[arg(long, alias = "mysql-user")]
    pub user: Option<String>,
    /// Password; without a value, prompted for. MYSQL_PWD is read too.
    #[arg(long, alias = "mysql-password", num_args = 0..=1, default_missing_value = "\u{1}prompt")]
    pub password: Option<String>,
    #[arg(long, alias = "mysql-db")]
    pub db: Option<String>,
    /// mysql://user[:password]@host[:port]/db or mysql://user@localhost/db?socket=/path
    #[arg(long)]
    pub dsn: Option<String>,
    /// Sandbox to target when no host/socket is given.
    #[arg(long)]
    pub server: Option<String>,
    /// TLS: DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY
    /// (sysbench's --mysql-ssl on|off is accepted too).
    #[arg(long, alias = "mysql-ssl", value_enum, ignore_case = true)]
    pub ssl_mode: Option<SslModeArg>,
    /// CA certificate (PEM) for --ssl-mode VERIFY_CA / VERIFY_IDENTITY.
    #[arg(long, alias = "mysql-ssl-ca")]
    pub ssl_ca: Option<PathBuf>,
    /// PEM file with the server's RSA public key (caching_sha2/sha256 over TCP).
    #[arg(long, alias = "server-public-key-path")]
    pub server_public_key: Option<PathBuf>,
    /// Seconds to open a connection and log in, retries of a full accept
    /// backlog included [default: 10].
    #[arg(long, alias = "mysql-connect-timeout", value_parser = timeout_secs)]
    pub connect_timeout: Option<f64>,
    /// Seconds to wait for a response before the connection counts as lost
    /// (counted as error 2013, then reconnected) [default: 60].
    #[arg(long, alias = "mysql-read-timeout", value_parser = timeout_secs)]
    pub read_timeout: Option<f64>,
}

fn parse_bool(s: &str) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(format!("'{s}' is not a boolean; use on or off")),
    }
}

pub fn parse_pct_list(s: &str) -> Result<Vec<f64>, String> {
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
pub fn positive_f64(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=MAX_SECONDS).contains(&v) => Ok(v),
        _ => Err(format!(
            "'{s}' is not a number of seconds from 0 to {MAX_SECONDS:.0}"
        )),
    }
}

/// A timeout: more than zero seconds, at most a day.
fn timeout_secs(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 86_400.0 => Ok(v),
        _ => Err(format!(
            "'{s}' is not a timeout in seconds (more than 0, at most 86400)"
        )),
    }
}

/// A rate per second: finite, not negative, at most a billion.
fn rate_per_s(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=1e9).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a rate per second from 0 to 1e9")),
    }
}

#[derive(Args, Debug, Clone)]
pub struct LoadArgs {
    /// Workload name, e.g. oltp_read_write or read_write (see `qpslab workloads`).
    pub workload: String,
    #[command(flatten)]
    pub conn: ConnArgs,
    #[arg(long, default_value_t = 1)]
    pub tables: u32,
    #[arg(long, default_value_t = 10000)]
    pub table_size: u32,
    /// Concurrent connections (alias --users); for `sweep`, a list: 1,2,4,8.
    #[arg(long, alias = "users", default_value = "1")]
    pub threads: String,
    /// Seconds to run (after warm-up); 0 = no limit.
    #[arg(long, default_value_t = 10.0, value_parser = positive_f64)]
    pub time: f64,
    /// Stop after this many events; 0 = no limit.
    #[arg(long, default_value_t = 0)]
    pub events: u64,
    /// Seconds run before measuring; not counted in the results.
    #[arg(long, default_value_t = 0.0, value_parser = positive_f64)]
    pub warmup_time: f64,
    /// Target events per second (Poisson arrivals); 0 = as fast as possible.
    #[arg(long, default_value_t = 0.0, value_parser = rate_per_s)]
    pub rate: f64,
    /// Seconds between report lines (sub-second allowed); 0 = no lines.
    #[arg(long, default_value_t = 1.0, value_parser = positive_f64)]
    pub report_interval: f64,
    #[arg(long, value_enum, default_value_t = RandTypeArg::Special)]
    pub rand_type: RandTypeArg,
    #[arg(long, default_value_t = 12)]
    pub rand_spec_iter: u32,
    #[arg(long, default_value_t = 1.0)]
    pub rand_spec_pct: f64,
    #[arg(long, default_value_t = 75.0)]
    pub rand_spec_res: f64,
    #[arg(long, default_value_t = 0.2)]
    pub rand_pareto_h: f64,
    #[arg(long, default_value_t = 0.8)]
    pub rand_zipfian_exp: f64,
    /// Seed; 0 = from the clock.
    #[arg(long, default_value_t = 0)]
    pub rand_seed: u64,
    #[arg(long, default_value_t = 100)]
    pub range_size: u32,
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "off")]
    pub skip_trx: bool,
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "on")]
    pub range_selects: bool,
    #[arg(long, default_value_t = 10)]
    pub point_selects: u32,
    #[arg(long, default_value_t = 1)]
    pub simple_ranges: u32,
    #[arg(long, default_value_t = 1)]
    pub sum_ranges: u32,
    #[arg(long, default_value_t = 1)]
    pub order_ranges: u32,
    #[arg(long, default_value_t = 1)]
    pub distinct_ranges: u32,
    #[arg(long, default_value_t = 1)]
    pub index_updates: u32,
    #[arg(long, default_value_t = 1)]
    pub non_index_updates: u32,
    #[arg(long, default_value_t = 1)]
    pub delete_inserts: u32,
    #[arg(long, default_value_t = 10)]
    pub random_points: u32,
    #[arg(long, default_value_t = 10)]
    pub number_of_ranges: u32,
    #[arg(long, default_value_t = 5)]
    pub delta: u32,
    /// auto: prepared statements; disable: text protocol.
    #[arg(long, value_enum, default_value_t = PsModeArg::Auto)]
    pub db_ps_mode: PsModeArg,
    /// Error codes that roll back and retry the event: a list, 'all' or 'none'.
    #[arg(long, alias = "ignore-errors", default_value = "1213,1205,1020")]
    pub mysql_ignore_errors: String,
    /// Reconnect after every N events; 0 = never.
    #[arg(long, default_value_t = 0)]
    pub reconnect: u64,
    /// Latency percentiles to report.
    #[arg(long, default_value = "50,95,99,99.9")]
    pub percentile: String,
    /// Print the latency histogram.
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "off")]
    pub histogram: bool,
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "on")]
    pub create_secondary: bool,
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "on")]
    pub auto_inc: bool,
    #[arg(long, alias = "mysql-storage-engine", default_value = "innodb")]
    pub storage_engine: String,
    /// Output: text (sysbench-style) or json (one document).
    #[arg(long, value_enum, default_value_t = RunFormat::Text)]
    pub format: RunFormat,
    #[command(flatten)]
    pub store: StoreArg,
    /// Do not record the run in the results store.
    #[arg(long)]
    pub no_store: bool,
    /// Series label recorded with the run (e.g. engine and version).
    #[arg(long)]
    pub label: Option<String>,
    /// Variant name recorded with the run (e.g. a config).
    #[arg(long)]
    pub variant: Option<String>,
    /// Client runtimes (shards); 0 = automatic from threads and CPUs.
    #[arg(long, default_value_t = 0)]
    pub client_shards: usize,
    /// Connections opened per second at the start; 0 = as fast as a
    /// bounded number of connects in flight allows.
    #[arg(long, default_value_t = 0.0, value_parser = rate_per_s)]
    pub connect_rate: f64,
    /// The run fails once no connection could reach the server for this
    /// many seconds in a row (shorter spells mark it degraded).
    #[arg(long, default_value_t = 10.0, value_parser = timeout_secs)]
    pub max_unreachable: f64,
    /// Client thread scheduling: auto, batch (do not preempt the server) or normal.
    #[arg(long, value_enum, default_value_t = ClientSched::Auto)]
    pub client_sched: ClientSched,
    #[command(flatten)]
    pub monitor: MonitorArgs,
}

/// How the server and host are watched during a run.
#[derive(Args, Debug, Clone)]
pub struct MonitorArgs {
    /// Do not watch the server and host during the run.
    #[arg(long)]
    pub no_monitor: bool,
    /// Seconds between polls of the per-second sources (others scale with it).
    #[arg(long, default_value_t = 1.0, value_parser = positive_f64)]
    pub monitor_interval: f64,
    /// Per-source seconds between polls: e.g. innodb_status=10,threads=30.
    /// Sources: status, innodb_metrics, ps_waits, ps_files, innodb_status,
    /// threads, cpu, server_proc, server_tasks, client_proc, disk, net, mem,
    /// pressure.
    #[arg(long, default_value = "")]
    pub monitor_rates: String,
    /// Sources not to poll, comma-separated.
    #[arg(long, default_value = "")]
    pub monitor_off: String,
    /// A poll may take this percentage of its source's interval; a source
    /// over it three polls in a row is polled half as often (with a note).
    #[arg(long, default_value_t = 5.0, value_parser = positive_f64)]
    pub monitor_budget: f64,
}

impl Default for MonitorArgs {
    fn default() -> Self {
        MonitorArgs {
            no_monitor: false,
            monitor_interval: 1.0,
            monitor_rates: String::new(),
            monitor_off: String::new(),
            monitor_budget: 5.0,
        }
    }
}

#[derive(Args, Debug)]
pub struct SweepArgs {
    #[command(flatten)]
    pub load: LoadArgs,
    /// Runs per concurrency; the table shows medians.
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Seconds of idle between steps.
    #[arg(long, default_value_t = 0.0, value_parser = positive_f64)]
    pub cooldown: f64,
}

#[derive(Subcommand, Debug)]
pub enum CampaignCmd {
    /// Run the points not done yet (rerun to resume after a stop).
    Run(CampaignArgs),
    /// Show which points are done and which are pending.
    Status(CampaignArgs),
    /// List the built-in campaigns.
    Presets,
}

#[derive(Args, Debug)]
pub struct CampaignArgs {
    /// Campaign file (TOML); see examples/campaigns/.
    pub file: Option<PathBuf>,
    /// A built-in campaign instead of a file (see `qpslab campaign presets`).
    #[arg(long)]
    pub preset: Option<String>,
    /// Override the concurrency list, e.g. 1,4,16.
    #[arg(long)]
    pub threads: Option<String>,
    /// Override the seconds per point.
    #[arg(long, value_parser = positive_f64)]
    pub time: Option<f64>,
    /// Override the workloads, e.g. oltp_point_select,oltp_read_write.
    #[arg(long)]
    pub workloads: Option<String>,
    /// Override the repeats per point.
    #[arg(long)]
    pub repeat: Option<u32>,
    #[command(flatten)]
    pub store: StoreArg,
}

/// Which stored runs an analysis reads.
#[derive(Args, Debug)]
pub struct AnalysisArgs {
    #[command(flatten)]
    pub store: StoreArg,
    /// Only the runs of this campaign (or sweep).
    #[arg(long)]
    pub campaign: Option<i64>,
    #[arg(long)]
    pub workload: Option<String>,
    #[arg(long)]
    pub label: Option<String>,
    #[command(flatten)]
    pub format: TableFormatArg,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
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
pub struct RatioArgs {
    /// The series compared (a variant or a label).
    pub a: Option<String>,
    /// The series it is divided by.
    pub b: Option<String>,
    /// Matrix form: every variant divided by this one.
    #[arg(long)]
    pub reference: Option<String>,
    #[command(flatten)]
    pub filter: AnalysisArgs,
}

#[derive(Args, Debug)]
pub struct RunsArgs {
    #[command(flatten)]
    pub store: StoreArg,
    #[arg(long)]
    pub workload: Option<String>,
    #[arg(long)]
    pub label: Option<String>,
    /// ok, failed, aborted or running.
    #[arg(long)]
    pub status: Option<String>,
    /// Only the runs of this campaign (or sweep).
    #[arg(long)]
    pub campaign: Option<i64>,
    /// Only the last N runs.
    #[arg(long)]
    pub limit: Option<usize>,
    #[command(flatten)]
    pub format: TableFormatArg,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// Run id (see `qpslab runs`).
    pub run: i64,
    #[command(flatten)]
    pub store: StoreArg,
    #[command(flatten)]
    pub format: TableFormatArg,
}

#[derive(Args, Debug)]
pub struct MonitorCmdArgs {
    #[command(flatten)]
    pub conn: ConnArgs,
    /// Seconds to watch; 0 = until Ctrl-C.
    #[arg(long, default_value_t = 0.0, value_parser = positive_f64)]
    pub time: f64,
    #[command(flatten)]
    pub monitor: MonitorArgs,
    #[command(flatten)]
    pub store: StoreArg,
    /// Do not store the session (lines are printed only).
    #[arg(long)]
    pub no_store: bool,
    #[arg(long)]
    pub label: Option<String>,
    /// No per-second lines.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct IostatArgs {
    #[command(flatten)]
    pub conn: ConnArgs,
    /// Seconds between lines (screens, for top).
    #[arg(long, default_value_t = 1.0, value_parser = timeout_secs)]
    pub interval: f64,
    /// Stop after N lines (screens); 0 = until Ctrl-C.
    #[arg(long, default_value_t = 0)]
    pub count: u64,
}

#[derive(Args, Debug)]
pub struct MetricsArgs {
    /// Run id (see `qpslab runs`).
    pub run: i64,
    /// Source (status, innodb_metrics, cpu, disk, ...); without it, the
    /// sources and their snapshot counts.
    #[arg(long)]
    pub source: Option<String>,
    /// Only names containing this text (case-insensitive).
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
pub struct UiArgs {
    /// Address to listen on; the default keeps the UI on this host.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: String,
    #[arg(long, default_value_t = 8780)]
    pub port: u16,
    #[command(flatten)]
    pub store: StoreArg,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Run id; or give --campaign.
    #[arg(required_unless_present = "campaign")]
    pub run: Option<i64>,
    #[arg(long, conflicts_with = "run")]
    pub campaign: Option<i64>,
    /// Output file (.html).
    #[arg(short, long)]
    pub output: PathBuf,
    #[command(flatten)]
    pub store: StoreArg,
}

#[derive(Args, Debug)]
pub struct ChartArgs {
    /// Run id; or give --campaign for its scalability chart.
    #[arg(required_unless_present = "campaign")]
    pub run: Option<i64>,
    #[arg(long, conflicts_with = "run")]
    pub campaign: Option<i64>,
    /// For a run: qps, tps, p95, p99, or a stored counter's rate as
    /// source:name (e.g. status:Com_select). For a campaign: qps or p95.
    #[arg(long, default_value = "qps")]
    pub metric: String,
    /// Output file: .svg, or .png (rendered with the system's fonts).
    #[arg(short, long)]
    pub output: PathBuf,
    #[command(flatten)]
    pub store: StoreArg,
}

#[derive(Args, Debug)]
pub struct QuickArgs {
    #[command(flatten)]
    pub conn: ConnArgs,
    #[arg(long, default_value_t = 4)]
    pub tables: u32,
    #[arg(long, default_value_t = 100000)]
    pub table_size: u32,
    #[arg(long, default_value = "1,4,16,64")]
    pub threads: String,
    #[arg(long, default_value_t = 10.0, value_parser = positive_f64)]
    pub time: f64,
    #[arg(long, default_value = "oltp_point_select,oltp_read_write")]
    pub workloads: String,
    #[command(flatten)]
    pub store: StoreArg,
}

/// Parses the command line; a mistake is one line on stderr and exit 2
/// (help and version print as clap prints them).
pub fn parse_command_line() -> Cli {
    use clap::error::ErrorKind;
    match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
            _ => {
                eprintln!("qpslab: {}", one_line(&e));
                std::process::exit(2)
            }
        },
    }
}

/// A clap error as one line: `--rand-type 'weird' is not one of uniform,
/// …` for a bad choice, else clap's first line with its tip.
pub fn one_line(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() == ErrorKind::InvalidValue {
        if let (Some(ContextValue::String(arg)), Some(ContextValue::String(val))) = (
            e.get(ContextKind::InvalidArg),
            e.get(ContextKind::InvalidValue),
        ) {
            let flag = arg.split_whitespace().next().unwrap_or(arg);
            return match e.get(ContextKind::ValidValue) {
                Some(ContextValue::Strings(v)) => {
                    format!("{flag} '{val}' is not one of {}", v.join(", "))
                }
                _ => format!("{flag} '{val}' is not a valid value"),
            };
        }
    }
    let text = e.render().to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines
        .next()
        .unwrap_or("bad arguments")
        .trim_start_matches("error: ");
    match lines.find(|l| l.starts_with("tip:") || l.contains("possible values")) {
        Some(more) => format!("{first} ({more}; see --help)"),
        None => format!("{first} (see --help)"),
    }
}

impl LoadArgs {
    /// Parses run options given as command-line words (workload first), as
    /// campaign files and the quickstart describe their runs.
    pub fn from_words(words: &[String]) -> anyhow::Result<LoadArgs> {
        #[derive(Parser)]
        #[command(name = "qpslab run")]
        struct P {
            #[command(flatten)]
            l: LoadArgs,
        }
        let argv = std::iter::once("qpslab".to_string()).chain(words.iter().cloned());
        P::try_parse_from(argv)
            .map(|p| p.l)
            .map_err(|e| anyhow::anyhow!("{}", one_line(&e)))
    }
}
