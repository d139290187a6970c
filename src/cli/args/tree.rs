//! The command tree: `Cli` and its subcommands, each holding the
//! argument blocks its siblings define. Owns no parsing steps (those are
//! in mod.rs) and no validation beyond clap's.

use super::conn::ServerCmd;
use super::load::{AgentArgs, CampaignCmd, LoadArgs, QuickArgs, SweepArgs};
use super::manage::{
    BaselineArgs, DeleteArgs, DiffArgs, ExcludeArgs, ExportArgs, NoteArgs, TagArgs,
};
use super::views::{
    AnalysisArgs, ChartArgs, CompareArgs, FlamegraphArgs, IostatArgs, MetricsArgs, MonitorCmdArgs,
    ProfileArgs, RatioArgs, ReportArgs, RunsArgs, ShowArgs, UiArgs,
};
use clap::{Args, Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "qpslab",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("QPSLAB_GIT_HASH"), ")"),
    about = "MySQL/MariaDB performance lab: sysbench-compatible load, sandbox servers, results"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Cmd {
    /// Manage private sandbox servers.
    Server {
        #[command(subcommand)]
        cmd: ServerCmd,
    },
    /// Create and load the sbtest tables.
    Prepare(LoadArgs),
    /// Run a workload and print sysbench-style results.
    Run(LoadArgs),
    /// Wait for work from a controller (`run … --agents`) on this client
    /// host: one run at a time, for the controller with the shared token.
    Agent(AgentArgs),
    /// Drop the sbtest tables.
    Cleanup(LoadArgs),
    /// A workload's consistency conditions on its data (`check tpcc`:
    /// TPC-C's clause 3.3.2), on a quiet database.
    Check(LoadArgs),
    /// List the workloads and their statements.
    Workloads,
    /// Run a workload at each of several concurrencies (one campaign), then
    /// print the scalability table; several workloads (a,b) are swept in
    /// turn into the same campaign.
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
    /// Tag runs (`tag 12-15 before-fix`), or untag them with --remove;
    /// `runs --tag T` lists a tag's runs.
    Tag(TagArgs),
    /// Set a run's note (`note 12 "disk was full"`), or --clear it.
    Note(NoteArgs),
    /// Leave runs out of analyses (scalability, best, ratio, campaign
    /// tables), keeping them listed and marked; --undo takes them back.
    Exclude(ExcludeArgs),
    /// Delete runs and everything they own (samples, counters, profiles).
    Delete(DeleteArgs),
    /// Pin a run as its workload's baseline (`diff RUN` compares with it
    /// and its page shows the diff); --list, --clear WORKLOAD.
    Baseline(BaselineArgs),
    /// Two runs' server counters per transaction side by side (Handler_*,
    /// Innodb_*, Com_*, tmp tables, sorts…), largest relative change first;
    /// `diff RUN` against its workload's baseline.
    Diff(DiffArgs),
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
    /// Move runs between results stores: `store copy FROM TO` (a SQLite
    /// file or a mysql://user@host[:port]/db server store, either way);
    /// retention: `store prune --before DATE`, `store vacuum`.
    Store {
        #[command(subcommand)]
        cmd: super::manage::StoreCmd,
    },
    /// Profile a server for a while (on-/off-CPU stacks, syscalls,
    /// Performance Schema waits) and print the top functions, lock
    /// families, syscalls per query and the limiting lock.
    Profile(ProfileArgs),
    /// A stored run's flame graph as an SVG file (searchable, click to
    /// zoom), or with --diff the differential one against another run.
    Flamegraph(FlamegraphArgs),
    /// One self-contained, offline HTML file of a run or a campaign.
    Report(ReportArgs),
    /// One chart of a run or a campaign as an SVG file.
    Chart(ChartArgs),
    /// Stored runs as OpenMetrics with their own timestamps, to backfill
    /// into Prometheus beside production data (mysqld_exporter's names
    /// for the server's counters).
    Export(ExportArgs),
    /// The main job: a sandbox MariaDB, 4 × 100,000 rows, point_select and
    /// read_write at 1, 4, 16, 64 users, a table of results.
    Quickstart(QuickArgs),
    /// Help on a command (`qpslab help run`, `qpslab help campaign run`)
    /// or a topic: workloads, campaign, store, metrics.
    Help(HelpArgs),
    /// A sysbench script's own command: `qpslab NAME script.lua [options]`
    /// (e.g. oltp_common's `prewarm`).
    #[command(hide = true)]
    Command(ScriptCommandArgs),
}

#[derive(Args, Debug, Clone)]
pub(crate) struct HelpArgs {
    /// A command (run, campaign run …) or a topic: workloads, campaign,
    /// store, metrics [default: none: the commands and the topics].
    pub topic: Vec<String>,
}

#[derive(Args, Debug, Clone)]
pub(crate) struct ScriptCommandArgs {
    /// The command's name, as the script declares it.
    pub name: String,
    #[command(flatten)]
    pub load: LoadArgs,
}
