//! The one door from a load command's arguments into the lab: `LoadArgs`
//! (parsed once by clap) becomes a typed, validated [`LoadPlan`] in
//! [`LoadPlan::from_args`] — the workload family and its options, the
//! seed, the thread list, the load shape (a `RunConfig` on a placeholder
//! endpoint), the target, the monitor, the profile, the recording and the
//! output. Every check that needs no server is made there, so bad input
//! fails before a sandbox starts or a connection opens; the steps that
//! need the server (the data's size, the server's process for a profile)
//! are the plan's methods. The commands (load_commands.rs, sweep.rs, tpcc.rs,
//! campaign.rs, quickstart.rs) take the plan; nothing after `from_args`
//! reads `LoadArgs`. Runs nothing and prints only notes.

use super::args::{
    parse_pct_list, ClientSched, ConnArgs, IoBackend, LoadArgs, ProfileWaits, PsModeArg,
    RecordArgs, RunFormat,
};
use super::monitor_args::monitor_config;
use crate::exec::{IgnoreErrors, IoMode, PsMode, RunConfig};
use crate::lab::{ProfilePlan, RunTags, Target};
use crate::monitor::MonitorConfig;
use crate::profiler::{parse_kinds, Kind};
use crate::protocol::ConnOpts;
use crate::workload::dbstress::{Dbstress, DbstressOpts};
use crate::workload::dbt3::{Dbt3, Dbt3Opts};
use crate::workload::ibench::{Ibench, IbenchOpts};
use crate::workload::linkbench::{LinkBench, LinkBenchOpts};
use crate::workload::script::{is_script, BuiltIns, Script, ScriptDef};
use crate::workload::tpcc::{Tpcc, TpccOpts};
use crate::workload::{Family, Oltp, OltpOpts, OptValues, RandParams, Workload};
use anyhow::{anyhow, bail, Context, Result};
use std::path::PathBuf;
use std::sync::Arc;

/// More connections than any server takes (MariaDB's max_connections
/// ceiling is 100,000).
const MAX_THREADS: u32 = 100_000;

/// The workload family a load command names, with its checked options.
#[derive(Clone)]
pub(crate) enum WorkloadChoice {
    /// A built-in OLTP workload.
    Oltp(Workload, OltpOpts),
    /// TPC-C.
    Tpcc(TpccOpts),
    /// LinkBench.
    LinkBench(LinkBenchOpts),
    /// dbSTRESS.
    Dbstress(DbstressOpts),
    /// The insert benchmark.
    Ibench(IbenchOpts),
    /// DBT3 (TPC-H-like).
    Dbt3(Dbt3Opts),
    /// A sysbench Lua script: its path, and sysbench's own options as the
    /// script reads them, but `threads` (set for each thread count).
    Script(PathBuf, BuiltIns),
}

/// Whether and where the runs are recorded, and what with.
#[derive(Clone)]
pub(crate) struct Recording {
    /// The results store (None: the default one).
    pub store: Option<PathBuf>,
    /// --no-store: print only.
    pub no_store: bool,
    /// The series' label.
    pub label: Option<String>,
    /// The variant within the label.
    pub variant: Option<String>,
    /// The command line without secrets.
    pub command_line: String,
}

impl Recording {
    pub(super) fn from_args(r: &RecordArgs, variant: Option<String>) -> Recording {
        Recording {
            store: r.store.file.clone(),
            no_store: r.no_store,
            label: r.label.clone(),
            variant,
            command_line: crate::secret::redacted_command_line(),
        }
    }

    /// The store the runs record into; None with --no-store.
    pub(super) fn open(&self) -> Result<Option<crate::store::Store>> {
        if self.no_store {
            return Ok(None);
        }
        Ok(Some(crate::lab::open_store(self.store.as_deref())?))
    }

    /// The tags every run of the plan carries.
    pub(super) fn tags(&self) -> RunTags {
        RunTags {
            label: self.label.clone(),
            variant: self.variant.clone(),
            command_line: self.command_line.clone(),
            ..Default::default()
        }
    }
}

/// How the results are printed.
#[derive(Clone)]
pub(crate) struct Output {
    /// Text (sysbench's) or JSON.
    pub format: RunFormat,
    /// --percentile, checked (percentages).
    pub pcts: Vec<f64>,
    /// --histogram: the latency histogram after the summary.
    pub histogram: bool,
    /// Seconds between interval lines (0: none).
    pub report_interval: f64,
}

impl Output {
    pub(super) fn json(&self) -> bool {
        self.format == RunFormat::Json
    }
}

/// What `--profile` records beside each run.
#[derive(Clone)]
struct ProfileChoice {
    kinds: Vec<Kind>,
    hz: u32,
    waits: ProfileWaits,
}

/// A load command's arguments, validated and typed: what the commands
/// hand the lab.
#[derive(Clone)]
pub(crate) struct LoadPlan {
    /// sysbench mode: a script whose server cannot be reached runs without
    /// one (its connections fail only if it uses them), as in sysbench.
    pub detach_unreachable: bool,
    /// The workload as named on the command line.
    pub workload_name: String,
    /// The family it names, with its options.
    pub workload: WorkloadChoice,
    /// The workload family's option values (as given and defaulted).
    options: OptValues,
    rand: RandParams,
    /// --rand-seed as given (0: each run draws its own from the clock).
    rand_seed: u64,
    /// The seed of the family validated here (and of a prepare).
    pub seed: u64,
    /// --threads: one count, or a sweep's list.
    pub threads: Vec<u32>,
    /// The load shape, for the first thread count on a placeholder
    /// endpoint; its family is the one validated.
    pub config: RunConfig,
    /// The script, loaded once for the first thread count (prepare,
    /// cleanup and a script's commands use this one).
    script: Option<Arc<Script>>,
    /// Which server (resolved by `target`, which may start a sandbox).
    pub conn: ConnArgs,
    /// The monitor on a placeholder endpoint; None under --no-monitor.
    monitor: Option<MonitorConfig>,
    profile: ProfileChoice,
    /// Where and how the runs are recorded.
    pub recording: Recording,
    /// How the results are printed.
    pub output: Output,
    /// `--agents`: the agents that drive the load, the token and the
    /// workload's words to ship; None: the load runs here.
    pub agents: Option<crate::lab::agent::FleetPlan>,
    /// `--server-agent`: the agent beside the server, which reads its
    /// host's OS sources and records it with perf; None: this host's.
    server_agent: Option<crate::lab::agent::ServerAgent>,
}

/// `--threads` as a list (sweep) or a single number (everything else).
pub(super) fn thread_list(s: &str) -> Result<Vec<u32>> {
    let v: Vec<u32> = s
        .split(',')
        .map(|t| match t.trim().parse::<u32>() {
            Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
            _ => bail!("--threads: '{t}' is not a number from 1 to {MAX_THREADS}"),
        })
        .collect::<Result<_>>()?;
    if v.is_empty() {
        bail!("--threads needs at least one number");
    }
    Ok(v)
}

impl LoadPlan {
    /// The one step from arguments to plan: everything checked that can be
    /// without a server, in the order the errors were always given.
    pub(crate) fn from_args(a: &LoadArgs) -> Result<LoadPlan> {
        let rand = rand_params(a)?;
        let pcts = parse_pct_list(&a.percentile).map_err(|e| anyhow!("--percentile: {e}"))?;
        let threads = thread_list(&a.threads)?;
        let seed = seed(a.rand_seed);
        let workload = choice(a, &rand)?;
        let placeholder = ConnOpts::placeholder();
        let mut plan = LoadPlan {
            detach_unreachable: false,
            workload_name: a.workload.clone(),
            workload,
            options: a.options.clone(),
            rand,
            rand_seed: a.rand_seed,
            seed,
            threads,
            config: shape(a, &pcts, seed)?,
            script: None,
            conn: a.conn.clone(),
            monitor: None,
            profile: ProfileChoice {
                kinds: Vec::new(),
                hz: a.profile_hz,
                waits: a.profile_waits,
            },
            recording: Recording::from_args(&a.record, a.variant.clone()),
            output: Output {
                format: a.format,
                pcts,
                histogram: a.histogram,
                report_interval: a.report_interval,
            },
            agents: super::fleet_plan::fleet_plan(a)?,
            server_agent: super::fleet_plan::server_agent(&a.agent_link)?,
        };
        let first = plan.threads[0];
        let family: Arc<dyn Family> = match plan.workload {
            WorkloadChoice::Script(..) => {
                let script = Arc::new(plan.script_for(first, seed)?);
                plan.script = Some(script.clone());
                script
            }
            _ => plan.family_for(first, seed)?,
        };
        plan.config = plan.config_with(first, &placeholder, family, seed);
        let monitor = monitor_config(&placeholder, &a.monitor)?;
        plan.monitor = (!a.monitor.no_monitor).then_some(monitor);
        plan.profile.kinds = parse_kinds(&a.profile).map_err(|e| anyhow!("--profile: {e}"))?;
        let agent = plan.server_agent.take();
        Ok(plan.with_server_agent(agent))
    }

    /// The plan with `agent` beside its server (a campaign's `[[server]]
    /// agent`): its monitor reads that host's OS sources there, its
    /// profile records the server there.
    pub(super) fn with_server_agent(
        mut self,
        agent: Option<crate::lab::agent::ServerAgent>,
    ) -> LoadPlan {
        if let Some(m) = self.monitor.as_mut() {
            m.host = agent
                .clone()
                .map(|a| Arc::new(a) as Arc<dyn crate::monitor::HostReader>);
        }
        self.server_agent = agent;
        self
    }

    /// The one thread count of a command that takes one (all but sweep).
    pub(super) fn single_threads(&self) -> Result<u32> {
        match self.threads.as_slice() {
            [n] => Ok(*n),
            _ => bail!(
                "--threads takes one number here; for several concurrencies use `qpslab sweep`"
            ),
        }
    }

    /// Loaders of a prepare: `--threads` when given above 1, else four per CPU.
    pub(super) fn loaders(&self) -> Result<usize> {
        Ok(match self.single_threads()? {
            n if n > 1 => n as usize,
            _ => crate::workload::prepare::default_loaders(),
        })
    }

    /// The family validated in `from_args` (for the first thread count).
    pub(super) fn family(&self) -> &Arc<dyn Family> {
        &self.config.workload
    }

    /// The server: resolved (a sandbox started when that is the target,
    /// its database made when missing).
    pub(super) fn target(&self) -> Result<Target> {
        self.target_for(super::target::MissingDb::Create)
    }

    /// The server for a command that only reads or drops what is there
    /// (cleanup, check): a sandbox database named with `--db` must exist.
    pub(super) fn existing_target(&self) -> Result<Target> {
        self.target_for(super::target::MissingDb::CreateDefaultOnly)
    }

    fn target_for(&self, missing: super::target::MissingDb) -> Result<Target> {
        let mut t = super::target::resolve_for(&self.conn, "sbtest", missing)?;
        if self.detach_unreachable
            && self.script.is_some()
            && crate::lab::connect_error(&t).is_some()
        {
            t.opts.detached = true;
        }
        Ok(t)
    }

    /// The sysbench script the command names, for a command of one
    /// thread count (None: not a script).
    pub(super) fn script(&self) -> Result<Option<Arc<Script>>> {
        if self.script.is_some() {
            self.single_threads()?;
        }
        Ok(self.script.clone())
    }

    fn script_for(&self, threads: u32, seed: u64) -> Result<Script> {
        let WorkloadChoice::Script(path, rest) = &self.workload else {
            bail!("{} is not a sysbench script", self.workload_name);
        };
        let mut builtins = BuiltIns::default();
        builtins.num("threads", f64::from(threads));
        builtins.values.extend(rest.values.iter().cloned());
        let def = ScriptDef::new(path, &self.options, &builtins, self.rand.clone(), seed)
            .map_err(anyhow::Error::msg)?;
        Script::new(def, seed).map_err(anyhow::Error::msg)
    }

    /// TPC-C, when the command names it.
    pub(super) fn tpcc(&self) -> Option<Arc<Tpcc>> {
        match &self.workload {
            WorkloadChoice::Tpcc(o) => Some(Arc::new(Tpcc::new(o.clone(), self.seed))),
            _ => None,
        }
    }

    /// LinkBench, when the command names it.
    pub(super) fn linkbench(&self) -> Option<Arc<LinkBench>> {
        match &self.workload {
            WorkloadChoice::LinkBench(o) => Some(Arc::new(LinkBench::new(o.clone(), self.seed))),
            _ => None,
        }
    }

    /// dbSTRESS, when the command names it.
    pub(super) fn dbstress(&self) -> Option<Arc<Dbstress>> {
        match &self.workload {
            WorkloadChoice::Dbstress(o) => Some(Arc::new(Dbstress::new(o.clone()))),
            _ => None,
        }
    }

    /// DBT3, when the command names it.
    pub(super) fn dbt3(&self) -> Option<Arc<Dbt3>> {
        match &self.workload {
            WorkloadChoice::Dbt3(o) => Some(Arc::new(Dbt3::new(o.clone(), self.seed))),
            _ => None,
        }
    }

    /// The insert benchmark, when the command names it.
    pub(super) fn ibench(&self) -> Option<Arc<Ibench>> {
        match &self.workload {
            WorkloadChoice::Ibench(o) => Some(Arc::new(Ibench::new(o.clone()))),
            _ => None,
        }
    }

    /// Prepares `family` on the plan's target with `loaders`
    /// connections, its progress lines printed (as JSON with `--format
    /// json`); every family's prepare goes through here.
    pub(super) fn prepare_with_progress(
        &self,
        family: &dyn Family,
        loaders: usize,
    ) -> Result<crate::workload::PrepareReport> {
        let t = self.target()?;
        crate::lab::prepare(
            &t,
            family,
            loaders,
            &mut super::progress_lines::prepare_printer(self.output.json()),
        )
    }

    /// The built-in OLTP workload the command names.
    pub(super) fn oltp(&self) -> Result<Oltp> {
        match &self.workload {
            WorkloadChoice::Oltp(w, o) => Ok(Oltp::new(*w, o.clone(), self.seed)),
            _ => {
                Workload::parse(&self.workload_name)?;
                bail!("{} is not a built-in OLTP workload", self.workload_name)
            }
        }
    }

    /// A fresh family for `threads` connections (a script reads its count).
    fn family_for(&self, threads: u32, seed: u64) -> Result<Arc<dyn Family>> {
        Ok(match &self.workload {
            WorkloadChoice::Oltp(w, o) => Arc::new(Oltp::new(*w, o.clone(), seed)),
            WorkloadChoice::Tpcc(o) => Arc::new(Tpcc::new(o.clone(), seed)),
            WorkloadChoice::LinkBench(o) => Arc::new(LinkBench::new(o.clone(), seed)),
            WorkloadChoice::Dbstress(o) => Arc::new(Dbstress::new(o.clone())),
            WorkloadChoice::Ibench(o) => Arc::new(Ibench::new(o.clone())),
            WorkloadChoice::Dbt3(o) => Arc::new(Dbt3::new(o.clone(), seed)),
            WorkloadChoice::Script(..) => Arc::new(self.script_for(threads, seed)?),
        })
    }

    /// The run of `threads` connections against `conn`, with a fresh family
    /// (and, without --rand-seed, a fresh seed: repeats draw differently).
    pub(super) fn run_config(&self, threads: u32, conn: &ConnOpts) -> Result<RunConfig> {
        let seed = seed(self.rand_seed);
        let family = self.family_for(threads, seed)?;
        Ok(self.config_with(threads, conn, family, seed))
    }

    /// The run of `threads` connections against `conn` with `seed` (an
    /// agent's share of a controller's run).
    pub(super) fn run_config_seeded(
        &self,
        threads: u32,
        conn: &ConnOpts,
        seed: u64,
    ) -> Result<RunConfig> {
        let family = self.family_for(threads, seed)?;
        Ok(self.config_with(threads, conn, family, seed))
    }

    /// A script's path, when the workload is one.
    pub(super) fn script_path(&self) -> Option<&std::path::Path> {
        match &self.workload {
            WorkloadChoice::Script(p, _) => Some(p),
            _ => None,
        }
    }

    /// The OLTP tables' size the plan runs with, when it is an OLTP one.
    pub(super) fn oltp_table_size(&self) -> Option<u32> {
        match &self.workload {
            WorkloadChoice::Oltp(_, o) => Some(o.table_size),
            _ => None,
        }
    }

    fn config_with(
        &self,
        threads: u32,
        conn: &ConnOpts,
        family: Arc<dyn Family>,
        seed: u64,
    ) -> RunConfig {
        let mut cfg = self.config.clone();
        // Load connections ride through a momentary refusal (a restarting
        // server) within the connect timeout.
        cfg.conn = conn.clone();
        cfg.conn.retry_refused = true;
        cfg.threads = threads;
        cfg.workload = family;
        cfg.seed = seed;
        cfg
    }

    /// The monitor for target `t`: None under --no-monitor.
    pub(super) fn monitor_for(&self, t: &Target) -> Option<MonitorConfig> {
        self.monitor.clone().map(|mut m| {
            m.conn = t.opts.clone();
            m
        })
    }

    /// `--profile` on target `t`'s server: what to record, or None.
    pub(super) fn profile_for(&self, t: &Target) -> Result<Option<ProfilePlan>> {
        let p = &self.profile;
        if p.kinds.is_empty() {
            return Ok(None);
        }
        let agent = self.server_agent.as_ref();
        super::profile::plan(p.kinds.clone(), p.hz, p.waits, t, None, agent).map(Some)
    }

    /// A built-in OLTP workload run without --table-size on tables prepared
    /// with another size: the plan with the data's size (sbtest1's largest
    /// id), said in a note, so that a run after `prepare --table-size
    /// 100000` reads all of it as sysbench users expect it to. None:
    /// nothing to change.
    pub(super) fn sized_to_data(&self, t: &Target) -> Result<Option<LoadPlan>> {
        let WorkloadChoice::Oltp(w, o) = &self.workload else {
            return Ok(None);
        };
        if *w == Workload::Insert || o.table_size_given {
            return Ok(None);
        }
        let default = o.table_size;
        match crate::lab::largest_id(t, "sbtest1")? {
            Some(rows) if rows != u64::from(default) && rows <= u64::from(u32::MAX) => {
                let mut sized = self.clone();
                sized
                    .options
                    .set("table_size", &rows.to_string())
                    .map_err(anyhow::Error::msg)?;
                let o = OltpOpts::from_values(&sized.options, self.rand.clone())
                    .map_err(anyhow::Error::msg)?;
                sized.workload = WorkloadChoice::Oltp(*w, o);
                errln!(
                    "note: --table-size not given: using {rows}, the rows sbtest1 was prepared with (its largest id), not the default {default}"
                );
                Ok(Some(sized))
            }
            _ => Ok(None),
        }
    }
}

/// The workload family the command names, with its options checked: a
/// script (found, not yet loaded), TPC-C, or a built-in OLTP workload.
fn choice(a: &LoadArgs, rand: &RandParams) -> Result<WorkloadChoice> {
    if is_script(&a.workload) {
        let path = crate::workload::script::find_script(&a.workload).map_err(anyhow::Error::msg)?;
        return Ok(WorkloadChoice::Script(path, builtins(a)));
    }
    if crate::workload::tpcc::is_tpcc(&a.workload) {
        let o = TpccOpts::from_values(&a.options).map_err(anyhow::Error::msg)?;
        return Ok(WorkloadChoice::Tpcc(o));
    }
    if crate::workload::linkbench::is_linkbench(&a.workload) {
        let o = LinkBenchOpts::from_values(&a.options).map_err(anyhow::Error::msg)?;
        return Ok(WorkloadChoice::LinkBench(o));
    }
    if crate::workload::dbstress::is_dbstress(&a.workload) {
        let o = DbstressOpts::from_values(&a.options).map_err(anyhow::Error::msg)?;
        return Ok(WorkloadChoice::Dbstress(o));
    }
    if crate::workload::dbt3::is_dbt3(&a.workload) {
        let o = Dbt3Opts::from_values(&a.options).map_err(anyhow::Error::msg)?;
        return Ok(WorkloadChoice::Dbt3(o));
    }
    if crate::workload::ibench::is_ibench(&a.workload) {
        let o = IbenchOpts::from_values(&a.options)
            .and_then(crate::workload::ibench::phases::checked)
            .map_err(anyhow::Error::msg)?;
        return Ok(WorkloadChoice::Ibench(o));
    }
    let w = Workload::parse(&a.workload)?;
    let o = OltpOpts::from_values(&a.options, rand.clone()).map_err(anyhow::Error::msg)?;
    Ok(WorkloadChoice::Oltp(w, o))
}

/// The `--rand-*` options, checked.
fn rand_params(a: &LoadArgs) -> Result<RandParams> {
    let rand = RandParams {
        kind: a.rand_type.into(),
        spec_iter: a.rand_spec_iter,
        spec_pct: a.rand_spec_pct,
        spec_res: a.rand_spec_res,
        pareto_h: a.rand_pareto_h,
        zipf_exp: a.rand_zipfian_exp,
        // sysbench takes --rand-seed as a C int and seeds srandom() with it
        sysbench_seed: a.rand_seed as u32,
    };
    if !(0.0..1.0).contains(&a.rand_pareto_h) || a.rand_pareto_h == 0.0 {
        bail!(
            "--rand-pareto-h must be between 0 and 1 (exclusive), got {}",
            a.rand_pareto_h
        );
    }
    if !(0.0..=100.0).contains(&a.rand_spec_pct) || !(0.0..=100.0).contains(&a.rand_spec_res) {
        bail!("--rand-spec-pct and --rand-spec-res are percentages (0 to 100)");
    }
    if a.rand_zipfian_exp <= 0.0 || a.rand_zipfian_exp == 1.0 {
        bail!(
            "--rand-zipfian-exp must be > 0 and not 1, got {}",
            a.rand_zipfian_exp
        );
    }
    Ok(rand)
}

/// sysbench's own options as a script reads them in `sysbench.opt`, but
/// `threads` (first in the list, added for each thread count).
fn builtins(a: &LoadArgs) -> BuiltIns {
    let mut b = BuiltIns::default();
    b.num("time", a.time)
        .num("events", a.events as f64)
        .num("rate", a.rate)
        .num("report_interval", a.report_interval)
        .num("warmup_time", a.warmup())
        .num("rand_seed", a.rand_seed as f64)
        .text("rand_type", &format!("{:?}", a.rand_type).to_lowercase())
        .text("db_driver", "mysql")
        .text("mysql_db", a.conn.db.as_deref().unwrap_or("sbtest"))
        .text("mysql_host", a.conn.host.as_deref().unwrap_or("localhost"))
        .num("mysql_port", f64::from(a.conn.port.unwrap_or(3306)))
        .text("mysql_user", a.conn.user.as_deref().unwrap_or("sbtest"))
        .text("mysql_ignore_errors", &a.mysql_ignore_errors)
        .text(
            "db_ps_mode",
            if a.db_ps_mode == PsModeArg::Disable {
                "disable"
            } else {
                "auto"
            },
        )
        .flag("histogram", a.histogram);
    // (sysbench's is one number; qpslab's may be a list)
    match a.percentile.trim().parse::<f64>() {
        Ok(p) => b.num("percentile", p),
        Err(_) => b.text("percentile", &a.percentile),
    };
    // sysbench mode says the verbosity it was given; qpslab has sysbench's
    // default.
    let verbosity = std::env::var("QPSLAB_SYSBENCH_VERBOSITY")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(3.0);
    b.num("verbosity", verbosity);
    b
}

/// --rand-seed, or the clock's nanoseconds when it is 0.
fn seed(s: u64) -> u64 {
    if s != 0 {
        return s;
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
}

/// The load shape every run of the plan shares; the endpoint, the thread
/// count and the family are set by `LoadPlan::run_config`.
fn shape(a: &LoadArgs, pcts: &[f64], seed: u64) -> Result<RunConfig> {
    Ok(RunConfig {
        conn: ConnOpts::placeholder(),
        // Replaced by the plan's own family before anyone reads it.
        workload: Arc::new(Oltp::new(Workload::PointSelect, OltpOpts::default(), seed)),
        threads: 1,
        time: a.time,
        events: a.events,
        warmup: a.warmup(),
        rate: a.rate,
        interval: if a.report_interval > 0.0 {
            a.report_interval.max(0.01)
        } else {
            1.0
        },
        ignore: IgnoreErrors::parse(&a.mysql_ignore_errors)?,
        reconnect_every: a.reconnect,
        ps_mode: PsMode::from(a.db_ps_mode),
        seed,
        shards: a.client_shards,
        sched_batch: match a.client_sched {
            ClientSched::Auto => None,
            ClientSched::Batch => Some(true),
            ClientSched::Normal => Some(false),
        },
        connect_rate: a.connect_rate,
        max_unreachable: a.max_unreachable,
        io: io_mode(a.io_backend),
        client_cpus: match &a.client_cpus {
            Some(l) => crate::server::parse_cpu_list(l).context("--client-cpus")?,
            None => Vec::new(),
        },
        sample_quantiles: pcts.iter().map(|p| p / 100.0).collect(),
        on_started: None,
        halt: None,
        statement_latency: true,
    })
}

/// The I/O backend asked for; io_uring falls back to epoll with a note
/// when this kernel (or a seccomp policy) does not allow it.
fn io_mode(b: IoBackend) -> IoMode {
    match b {
        IoBackend::Auto => IoMode::Auto,
        IoBackend::Epoll => IoMode::Epoll,
        IoBackend::Uring => match crate::protocol::uring::probe() {
            Ok(()) => IoMode::Uring,
            Err(why) => {
                errln!("note: --io-backend uring unavailable ({why}); using epoll");
                IoMode::Epoll
            }
        },
    }
}
