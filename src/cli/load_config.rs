//! A load command's options into what the lab runs: the OLTP family with
//! its options, the run configuration, the thread list; every check that
//! needs no server, so that bad input fails before anything starts.

use super::args::{parse_pct_list, ClientSched, IoBackend, LoadArgs};
use crate::exec::{IgnoreErrors, IoMode, PsMode, RunConfig};
use crate::workload::script::{BuiltIns, Script, ScriptDef};
use crate::workload::{Family, Oltp, OltpOpts, RandParams, Workload};
use anyhow::{bail, Context, Result};
use std::sync::Arc;

/// More connections than any server takes (MariaDB's max_connections
/// ceiling is 100,000).
const MAX_THREADS: u32 = 100_000;

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

pub(super) fn single_threads(a: &LoadArgs) -> Result<u32> {
    match thread_list(&a.threads)?.as_slice() {
        [n] => Ok(*n),
        _ => bail!("--threads takes one number here; for several concurrencies use `qpslab sweep`"),
    }
}

/// The OLTP options: the family's values with the run's `--rand-*`.
pub(super) fn oltp_opts(a: &LoadArgs) -> Result<OltpOpts> {
    OltpOpts::from_values(&a.options, rand_params(a)?).map_err(anyhow::Error::msg)
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

/// sysbench's own options as a script reads them in `sysbench.opt`.
fn builtins(a: &LoadArgs) -> Result<BuiltIns> {
    let mut b = BuiltIns::default();
    b.num("threads", f64::from(single_threads(a)?))
        .num("time", a.time)
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
            if a.db_ps_mode == super::args::PsModeArg::Disable {
                "disable"
            } else {
                "auto"
            },
        )
        .text("percentile", &a.percentile)
        .flag("histogram", a.histogram);
    Ok(b)
}

/// The sysbench Lua script a load command names, loaded once with its
/// options (None: a built-in workload).
pub(super) fn script(a: &LoadArgs, seed: u64) -> Result<Option<Script>> {
    if !crate::workload::script::is_script(&a.workload) {
        return Ok(None);
    }
    let path = crate::workload::script::find_script(&a.workload).map_err(anyhow::Error::msg)?;
    let def = ScriptDef::new(&path, &a.options, &builtins(a)?, rand_params(a)?, seed)
        .map_err(anyhow::Error::msg)?;
    Ok(Some(Script::new(def, seed).map_err(anyhow::Error::msg)?))
}

/// The workload family a load command names: a script, or an OLTP workload.
pub(super) fn workload_family(a: &LoadArgs, seed: u64) -> Result<Arc<dyn Family>> {
    if let Some(s) = script(a, seed)? {
        return Ok(Arc::new(s));
    }
    if let Some(t) = crate::workload::tpcc::family(&a.workload, &a.options, seed) {
        return Ok(t.map_err(anyhow::Error::msg)?);
    }
    Ok(Arc::new(Oltp::new(
        Workload::parse(&a.workload)?,
        oltp_opts(a)?,
        seed,
    )))
}

pub(super) fn seed(s: u64) -> u64 {
    if s != 0 {
        return s;
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
}

/// Loaders of a prepare: `--threads` when given above 1, else four per CPU.
pub(super) fn loaders(a: &LoadArgs) -> Result<usize> {
    Ok(match single_threads(a)? {
        n if n > 1 => n as usize,
        _ => crate::workload::prepare::default_loaders(),
    })
}

/// The OLTP workload a load command names, with its options.
pub(super) fn family(a: &LoadArgs) -> Result<Oltp> {
    let w = Workload::parse(&a.workload)?;
    Ok(Oltp::new(w, oltp_opts(a)?, seed(a.rand_seed)))
}

/// Everything about a load command's options that can be checked without
/// a server, so that bad input fails before a sandbox is started or a
/// connection opened. Returns the run as configured (on a placeholder
/// endpoint).
pub(super) fn check_load_args(a: &LoadArgs) -> Result<RunConfig> {
    rand_params(a)?;
    parse_pct_list(&a.percentile).map_err(|e| anyhow::anyhow!("--percentile: {e}"))?;
    let opts = crate::protocol::ConnOpts::placeholder();
    let mut first = a.clone();
    first.threads = thread_list(&a.threads)?[0].to_string();
    let cfg = run_config(&first, &opts)?;
    super::monitor_args::monitor_config(&opts, &a.monitor)?;
    Ok(cfg)
}

pub(super) fn run_config(a: &LoadArgs, conn: &crate::protocol::ConnOpts) -> Result<RunConfig> {
    let threads = single_threads(a)?;
    let seed = seed(a.rand_seed);
    let family = workload_family(a, seed)?;
    let ps_mode = PsMode::from(a.db_ps_mode);
    // Load connections ride through a momentary refusal (a restarting
    // server) within the connect timeout.
    let mut conn = conn.clone();
    conn.retry_refused = true;
    Ok(RunConfig {
        conn,
        workload: family,
        threads,
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
        ps_mode,
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
        sample_quantiles: parse_pct_list(&a.percentile)
            .map_err(|e| anyhow::anyhow!("--percentile: {e}"))?
            .into_iter()
            .map(|p| p / 100.0)
            .collect(),
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

/// The store a run or session records into; None with --no-store.
pub(super) fn recording_store(r: &super::args::RecordArgs) -> Result<Option<crate::store::Store>> {
    if r.no_store {
        return Ok(None);
    }
    Ok(Some(crate::lab::open_store(r.store.path())?))
}
