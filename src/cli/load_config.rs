//! A load command's options into what the lab runs: the OLTP family with
//! its options, the run configuration, the thread list; every check that
//! needs no server, so that bad input fails before anything starts.

use super::args::{parse_pct_list, ClientSched, LoadArgs};
use crate::exec::{IgnoreErrors, PsMode, RunConfig};
use crate::workload::{Oltp, OltpOpts, RandParams, Workload};
use anyhow::{bail, Result};

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
    OltpOpts::from_values(&a.options, rand).map_err(anyhow::Error::msg)
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
    Workload::parse(&a.workload)?;
    oltp_opts(a)?;
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
    let family = Oltp::new(Workload::parse(&a.workload)?, oltp_opts(a)?, seed);
    let ps_mode = PsMode::from(a.db_ps_mode);
    // Load connections ride through a momentary refusal (a restarting
    // server) within the connect timeout.
    let mut conn = conn.clone();
    conn.retry_refused = true;
    Ok(RunConfig {
        conn,
        workload: std::sync::Arc::new(family),
        threads,
        time: a.time,
        events: a.events,
        warmup: a.warmup_time,
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
    })
}

/// The store a run or session records into; None with --no-store.
pub(super) fn recording_store(r: &super::args::RecordArgs) -> Result<Option<crate::store::Store>> {
    if r.no_store {
        return Ok(None);
    }
    Ok(Some(crate::lab::open_store(r.store.path())?))
}
