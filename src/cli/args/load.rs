//! The load commands: run/prepare/cleanup options (sysbench's names), the
//! monitor beside a run, sweeps, campaigns and the quickstart.

use super::choices::{ClientSched, IoBackend, ProfileWaits, PsModeArg, RandTypeArg, RunFormat};
use super::conn::ConnArgs;
use super::shared::{
    parse_bool, positive_f64, rate_per_s, timeout_secs, AgentLinkArgs, MetricsListenArgs,
    RecordArgs, StoreArg,
};
use crate::workload::OptValues;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Args, Debug, Clone)]
pub(crate) struct LoadArgs {
    /// Workload name, e.g. oltp_read_write or read_write, tpcc, or a
    /// sysbench Lua script's path (`qpslab help workloads`).
    pub workload: String,
    #[command(flatten)]
    pub conn: ConnArgs,
    /// The workload family's own options (`--tables`, `--table-size` …),
    /// taken from the words before clap sees them: see `split_workload_options`.
    #[arg(skip)]
    pub options: OptValues,
    /// Concurrent connections, each running events back to back (alias --users).
    #[arg(long, alias = "users", default_value = "1", help_heading = super::help::LOAD)]
    pub threads: String,
    /// Seconds to run (after warm-up); 0 = no limit.
    #[arg(long, default_value_t = 10.0, value_parser = positive_f64, help_heading = super::help::LOAD)]
    pub time: f64,
    /// Stop after this many events; 0 = no limit.
    #[arg(long, default_value_t = 0, help_heading = super::help::LOAD)]
    pub events: u64,
    /// Seconds run before measuring, not counted in the results [default:
    /// 0 for run; for sweep a fifth of --time, 1 to 30 s, each point].
    #[arg(long, value_parser = positive_f64, help_heading = super::help::LOAD)]
    pub warmup_time: Option<f64>,
    /// Target events per second over all connections (Poisson arrivals,
    /// latency counted from the scheduled start); 0 = as fast as possible.
    #[arg(long, default_value_t = 0.0, value_parser = rate_per_s, help_heading = super::help::LOAD)]
    pub rate: f64,
    /// Seconds between report lines (sub-second allowed); 0 = no lines.
    #[arg(long, default_value_t = 1.0, value_parser = positive_f64, help_heading = super::help::OUTPUT)]
    pub report_interval: f64,
    /// The distribution row ids are drawn from.
    #[arg(long, value_enum, default_value_t = RandTypeArg::Special, help_heading = super::help::RANDOM)]
    pub rand_type: RandTypeArg,
    /// special: iterations summed for each draw (more: closer to a bell).
    #[arg(long, default_value_t = 12, help_heading = super::help::RANDOM)]
    pub rand_spec_iter: u32,
    /// special: percent of the id range that gets the hot draws.
    #[arg(long, default_value_t = 1.0, help_heading = super::help::RANDOM)]
    pub rand_spec_pct: f64,
    /// special: percent of the draws that fall in that hot part.
    #[arg(long, default_value_t = 75.0, help_heading = super::help::RANDOM)]
    pub rand_spec_res: f64,
    /// pareto: the shape parameter h (smaller: more skewed).
    #[arg(long, default_value_t = 0.2, help_heading = super::help::RANDOM)]
    pub rand_pareto_h: f64,
    /// zipfian: the exponent (theta; larger: more skewed).
    #[arg(long, default_value_t = 0.8, help_heading = super::help::RANDOM)]
    pub rand_zipfian_exp: f64,
    /// Seed of the random numbers; 0 = from the clock (a run is then not
    /// repeatable draw for draw).
    #[arg(long, default_value_t = 0, help_heading = super::help::RANDOM)]
    pub rand_seed: u64,
    /// auto: prepared statements; disable: text protocol.
    #[arg(long, value_enum, default_value_t = PsModeArg::Auto, help_heading = super::help::STATEMENTS)]
    pub db_ps_mode: PsModeArg,
    /// Error codes that roll back and retry the event: a list, 'all' or 'none'.
    #[arg(long, alias = "ignore-errors", default_value = "1213,1205,1020", help_heading = super::help::STATEMENTS)]
    pub mysql_ignore_errors: String,
    /// Reconnect after every N events; 0 = never.
    #[arg(long, default_value_t = 0, help_heading = super::help::LOAD)]
    pub reconnect: u64,
    /// Latency percentiles to report, comma-separated, each in (0, 100].
    #[arg(long, default_value = "50,95,99,99.9", help_heading = super::help::OUTPUT)]
    pub percentile: String,
    /// Print the latency histogram: on or off.
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool, default_value = "off", help_heading = super::help::OUTPUT)]
    pub histogram: bool,
    /// Output: text (sysbench-style) or json (one document).
    #[arg(long, value_enum, default_value_t = RunFormat::Text, help_heading = super::help::OUTPUT)]
    pub format: RunFormat,
    #[command(flatten)]
    pub record: RecordArgs,
    /// Variant name recorded with the run (e.g. a config), for `ratio`,
    /// `best` and the charts [default: none].
    #[arg(long, help_heading = super::help::STORE)]
    pub variant: Option<String>,
    /// Client runtimes (shards); 0 = automatic from threads and CPUs.
    #[arg(long, default_value_t = 0, help_heading = super::help::CLIENT)]
    pub client_shards: usize,
    /// Connections opened per second at the start; 0 = as fast as a
    /// bounded number of connects in flight allows.
    #[arg(long, default_value_t = 0.0, value_parser = rate_per_s, help_heading = super::help::LOAD)]
    pub connect_rate: f64,
    /// The run fails once no connection could reach the server for this
    /// many seconds in a row (shorter spells mark it degraded).
    #[arg(long, default_value_t = 10.0, value_parser = timeout_secs, help_heading = super::help::LOAD)]
    pub max_unreachable: f64,
    /// Pin qpslab's load threads to these CPUs, e.g. 2-3 or 4,6 (as
    /// `server start --cpus` pins a sandbox server); the client threads
    /// are then sized to this set. Recorded with the run [default: not
    /// pinned].
    #[arg(long, value_name = "LIST", help_heading = super::help::CLIENT)]
    pub client_cpus: Option<String>,
    /// Client thread scheduling: auto, batch (do not preempt the server) or normal.
    #[arg(long, value_enum, default_value_t = ClientSched::Auto, help_heading = super::help::CLIENT)]
    pub client_sched: ClientSched,
    /// Socket I/O: auto (a connection alone on its client thread sends,
    /// then waits in poll(), then receives; epoll otherwise), epoll (always
    /// the reactor) or uring (io_uring: one system call submits a client
    /// thread's ready connections; a connection alone on its thread gets a
    /// ring of its own, one system call a round trip).
    #[arg(long, value_enum, default_value_t = IoBackend::Auto, help_heading = super::help::CLIENT)]
    pub io_backend: IoBackend,
    /// Drive the load from agents (`qpslab agent`) on other hosts:
    /// HOST:PORT[=WEIGHT],…, @FILE (one a line, # comments) or
    /// dns:NAME:PORT (each address of NAME an agent). The connections (and
    /// --rate, --events) are split by weight (evenly by default) and the
    /// agents' results merged exactly into one run, each sweep step's too
    /// (docs/AGENTS.md) [default: none: the load runs here].
    #[arg(long, value_name = "LIST", help_heading = super::help::AGENTS)]
    pub agents: Option<String>,
    #[command(flatten)]
    pub agent_link: AgentLinkArgs,
    #[command(flatten)]
    pub monitor: MonitorArgs,
    /// Profile the server during the run: cpu, offcpu, syscalls, waits,
    /// comma-separated, or all; kept with the run, summed up after it
    /// [default: none].
    #[arg(long, default_value = "", hide_default_value = true, help_heading = super::help::PROFILER)]
    pub profile: String,
    /// On-CPU samples per second (per CPU; per thread beside offcpu).
    #[arg(long, default_value_t = 99, value_parser = clap::value_parser!(u32).range(1..=10_000), help_heading = super::help::PROFILER)]
    pub profile_hz: u32,
    /// --profile waits: use the Performance Schema as it is set up, or
    /// enable and time every wait instrument for the run (put back after).
    #[arg(long, value_enum, default_value_t = ProfileWaits::Use, help_heading = super::help::PROFILER)]
    pub profile_waits: ProfileWaits,
}

/// How the server and host are watched during a run.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = super::help::MONITOR)]
pub(crate) struct MonitorArgs {
    /// Do not watch the server and host during the run.
    #[arg(long)]
    pub no_monitor: bool,
    /// Seconds between polls of the per-second sources (others scale with it).
    #[arg(long, default_value_t = 1.0, value_parser = super::shared::monitor_interval)]
    pub monitor_interval: f64,
    /// Per-source seconds between polls: e.g. innodb_status=10,threads=30.
    /// Sources: status, innodb_metrics, ps_waits, ps_files, innodb_status,
    /// threads, cpu, server_proc, server_tasks, client_proc, disk, net, mem,
    /// pressure (`qpslab help metrics`) [default: none: 1 s each, 5 s for
    /// innodb_status, threads, innodb_mutex, mem and server_tasks].
    #[arg(long, default_value = "", hide_default_value = true)]
    pub monitor_rates: String,
    /// Sources not to poll, comma-separated [default: none].
    #[arg(long, default_value = "", hide_default_value = true)]
    pub monitor_off: String,
    /// A poll may take this percentage of its source's interval; a source
    /// over it three polls in a row is polled half as often, down to once
    /// a minute, then turned off for the run (with a note).
    #[arg(long, default_value_t = 5.0, value_parser = positive_f64)]
    pub monitor_budget: f64,
    #[command(flatten)]
    pub metrics: MetricsListenArgs,
}

impl Default for MonitorArgs {
    fn default() -> Self {
        MonitorArgs {
            no_monitor: false,
            monitor_interval: 1.0,
            monitor_rates: String::new(),
            monitor_off: String::new(),
            monitor_budget: 5.0,
            metrics: MetricsListenArgs::default(),
        }
    }
}

#[derive(Args, Debug)]
pub(crate) struct SweepArgs {
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
pub(crate) enum CampaignCmd {
    /// Run the points not done yet (rerun to resume after a stop).
    Run(CampaignRunArgs),
    /// Show which points are done and which are pending.
    Status(CampaignArgs),
    /// List the built-in campaigns (`--show NAME`: one's whole definition).
    Presets(PresetsArgs),
}

#[derive(Args, Debug)]
pub(crate) struct PresetsArgs {
    /// Print this preset's campaign file (servers, variants and what each
    /// sets, workloads, concurrencies), to read or copy and edit [default:
    /// none: list the presets].
    #[arg(long)]
    pub show: Option<String>,
}

#[derive(Args, Debug)]
pub(crate) struct CampaignRunArgs {
    #[command(flatten)]
    pub campaign: CampaignArgs,
    /// Leave the campaign's sandboxes running when it ends (default: the
    /// sandboxes it started are stopped, their datadirs and templates kept).
    #[arg(long)]
    pub keep_servers: bool,
    /// Adaptive repeats: after the file's repeats (at least 2), run more
    /// rounds until every ratio to the reference variant has a 95%
    /// interval narrower than PCT percent of the ratio, or --max-rounds
    /// is reached (then said as not reached) [default: off].
    #[arg(long, value_name = "PCT", value_parser = until_pct)]
    pub until_interval: Option<f64>,
    /// The most rounds --until-interval runs.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(2..=100))]
    pub max_rounds: u32,
    /// Before each round, wait for a quiet host (the pre-flight check, up
    /// to 6 times 10 s apart); a round that still finds it busy runs
    /// anyway and is noted.
    #[arg(long)]
    pub require_quiet: bool,
    #[command(flatten)]
    pub metrics: MetricsListenArgs,
}

/// A percentage above 0 and at most 1000 (an interval may be wider than
/// its ratio).
fn until_pct(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .trim_end_matches('%')
        .parse()
        .map_err(|_| format!("'{s}' is not a percentage"))?;
    if v > 0.0 && v <= 1000.0 {
        Ok(v)
    } else {
        Err(format!("'{s}': give a percentage above 0 and at most 1000"))
    }
}

#[derive(Args, Debug)]
pub(crate) struct CampaignArgs {
    /// Campaign file (TOML): `qpslab help campaign` lists its keys; see
    /// examples/campaigns/. `campaign status` also takes a stored
    /// campaign's id here.
    pub file: Option<PathBuf>,
    /// A built-in campaign instead of a file (see `qpslab campaign
    /// presets`) [default: none].
    #[arg(long)]
    pub preset: Option<String>,
    /// Override the concurrency list, e.g. 1,4,16 [default: the file's
    /// threads].
    #[arg(long)]
    pub threads: Option<String>,
    /// Override the seconds per point [default: the file's time].
    #[arg(long, value_parser = positive_f64)]
    pub time: Option<f64>,
    /// Only these of the file's workloads, e.g.
    /// oltp_point_select,oltp_read_write [default: all of them].
    #[arg(long)]
    pub workloads: Option<String>,
    /// Override the repeats per point [default: the file's repeat].
    #[arg(long)]
    pub repeat: Option<u32>,
    /// Override the data size's tables [default: the file's [data] tables].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub tables: Option<u32>,
    /// Override the data size's rows per table [default: the file's [data]
    /// table_size].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub table_size: Option<u32>,
    #[command(flatten)]
    pub store: StoreArg,
}

#[derive(Args, Debug)]
pub(crate) struct QuickArgs {
    #[command(flatten)]
    pub conn: ConnArgs,
    /// Tables sbtest1..N to create and load.
    #[arg(long, default_value_t = 4)]
    pub tables: u32,
    /// Rows in each table.
    #[arg(long, default_value_t = 100000)]
    pub table_size: u32,
    /// The concurrencies each workload is swept over.
    #[arg(long, default_value = "1,4,16,64")]
    pub threads: String,
    /// Seconds per point.
    #[arg(long, default_value_t = 10.0, value_parser = positive_f64)]
    pub time: f64,
    /// The workloads, in order, comma-separated.
    #[arg(long, default_value = "oltp_point_select,oltp_read_write")]
    pub workloads: String,
    #[command(flatten)]
    pub store: StoreArg,
}

impl LoadArgs {
    /// The warm-up seconds: as given, else none (a sweep sets its own
    /// default before this is read).
    pub fn warmup(&self) -> f64 {
        self.warmup_time.unwrap_or(0.0)
    }
}

/// `qpslab agent`: where to listen and the shared token.
#[derive(Args, Debug, Clone)]
pub(crate) struct AgentArgs {
    /// Where to listen: PORT (on 127.0.0.1) or ADDR:PORT (0.0.0.0:PORT for
    /// every interface).
    #[arg(long, value_name = "ADDR:PORT", help_heading = "Agent")]
    pub listen: String,
    /// The shared token's file (its first line); the controller passes
    /// the same file's token.
    #[arg(long, value_name = "FILE", help_heading = "Agent")]
    pub token_file: PathBuf,
    /// Serve over TLS with this PEM certificate (chain), with --tls-key;
    /// the controller then gives --agent-ca [default: none: plain HTTP].
    #[arg(
        long,
        value_name = "FILE",
        requires = "tls_key",
        help_heading = "Agent"
    )]
    pub tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert [default: none].
    #[arg(
        long,
        value_name = "FILE",
        requires = "tls_cert",
        help_heading = "Agent"
    )]
    pub tls_key: Option<PathBuf>,
    /// Testing only: this agent's clock reads this many ms off.
    #[arg(
        long,
        hide = true,
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    pub fake_clock_offset_ms: f64,
    /// Testing only: write each run's samples and end to this file (JSON).
    #[arg(long, hide = true)]
    pub dump: Option<PathBuf>,
}
