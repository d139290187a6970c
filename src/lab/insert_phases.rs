//! The insert benchmark's phase sequence (`run insert-benchmark --phases
//! …`): each phase a recorded run of one campaign (point
//! `insert-benchmark:PHASE`), its figures (analyze::phase_figures) with
//! the table's size and the server's RSS at its end kept in the run's
//! `ibench_phase` block; a fresh table before l.i0; a settle step before
//! the first query phase after writes. Ctrl-C ends the sequence with what
//! was measured; a failed phase ends it, a degraded one does not.
//!
//! Its SQL beyond the family's: the table's size, and the history list
//! and dirty pages while settling. Prints nothing (cli does).

use super::environment_capture::Environment;
use super::run::record_run;
use super::runtime::query_number;
use super::tags::RunTags;
use super::target::Target;
use crate::analyze::phase_figures::{phase_figures, PhaseShape};
use crate::exec::RunConfig;
use crate::monitor::MonitorConfig;
use crate::stats::document::IbenchPhase;
use crate::stats::RunStatus;
use crate::store::Store;
use crate::workload::ibench::phases::{Phase, PhaseKind};
use crate::workload::ibench::{Ibench, IbenchOpts, IndexBuild};
use anyhow::{Context, Result};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the sequence runs.
pub struct PhasesPlan<'a> {
    /// The server, as its runs record it.
    pub env: &'a Environment,
    /// Where the runs are kept.
    pub store: &'a Store,
    /// The campaign its runs are kept in.
    pub campaign: i64,
    /// The phases, in order.
    pub phases: &'a [Phase],
    /// The command's options; each phase fixes its own (Phase::options).
    pub base: &'a IbenchOpts,
    /// Connections that insert, in every phase but l.x.
    pub inserters: u32,
    /// Connections that query, in query phases.
    pub query_threads: u32,
    /// Each timed phase's seconds.
    pub time: f64,
    /// Label, variant and command line of every run.
    pub tags: RunTags,
}

/// What the sequence says as it goes.
pub enum PhaseEvent<'a> {
    /// A phase begins with this many connections.
    Start(&'a Phase, u32),
    /// The settle step: a reading (seconds waited, history list length,
    /// dirty pages); `last` on its final reading, `calm` when it ended
    /// because the server calmed down (not at its bound).
    #[allow(missing_docs)]
    Settle {
        secs: f64,
        history: Option<f64>,
        dirty: Option<f64>,
        last: bool,
        calm: bool,
    },
    /// A phase ended: its run and figures.
    Done(&'a Phase, i64, &'a IbenchPhase, &'a RunStatus),
}

/// How the sequence ended.
pub struct PhasesOutcome {
    /// Each phase that ran: its run and figures.
    pub phases: Vec<(i64, IbenchPhase)>,
    /// 0 ok, 3 if a phase was degraded, a failing phase's code, or 130.
    pub code: i32,
}

/// Drops and creates purchases_index without its secondary indexes (the
/// state l.i0 loads into).
pub fn fresh_table(t: &Target, base: &IbenchOpts) -> Result<()> {
    let mut o = base.clone();
    o.num_secondary_indexes = 0;
    let fam = Ibench::new(o);
    super::data::cleanup(t, &fam, |_| {})?;
    super::data::prepare(t, &fam, 1, &mut |_| {})?;
    Ok(())
}

/// Runs the sequence; `config_for(threads)` gives a run's configuration
/// (the family in it is replaced by each phase's) and monitor.
pub fn run_phases(
    plan: &PhasesPlan,
    config_for: impl Fn(u32) -> Result<(RunConfig, Option<MonitorConfig>)>,
    mut on: impl FnMut(PhaseEvent),
) -> Result<PhasesOutcome> {
    let _ctrl_c = crate::exec::Cooperative::enter();
    let (mut out, mut code, mut wrote) = (Vec::new(), 0, false);
    for (i, phase) in plan.phases.iter().enumerate() {
        if crate::exec::interrupted() {
            code = 130;
            break;
        }
        if phase.kind == PhaseKind::Query && wrote && plan.base.settle > 0 {
            let (cfg, _) = config_for(1)?;
            settle(&cfg.conn, plan.base.settle, &mut on);
            wrote = false;
        }
        let o = phase.options(plan.base, plan.query_threads);
        let threads = match phase.kind {
            PhaseKind::Index => 1,
            PhaseKind::Query => plan.inserters + plan.query_threads,
            _ => plan.inserters,
        };
        let (mut cfg, mon) = config_for(threads)?;
        cfg.warmup = 0.0;
        cfg.time = plan.time;
        cfg.events = 0;
        match phase.kind {
            PhaseKind::Load => {
                cfg.time = 0.0;
                cfg.events = u64::from(plan.base.rows).div_ceil(u64::from(o.rows_per_commit));
            }
            PhaseKind::Index => {
                let Some(build) = IndexBuild::new(plan.base.num_secondary_indexes) else {
                    continue;
                };
                cfg.workload = Arc::new(build);
                cfg.time = 0.0;
                cfg.events = 1;
            }
            _ => {}
        }
        if phase.kind != PhaseKind::Index {
            cfg.workload = Arc::new(Ibench::new(o.clone()));
        }
        on(PhaseEvent::Start(phase, threads));
        let tags = RunTags {
            campaign_id: Some(plan.campaign),
            point_hash: Some(format!("{}:{}", crate::workload::ibench::NAME, phase.name)),
            ..plan.tags.clone()
        };
        let rec = record_run(plan.store, &cfg, mon, plan.env, &tags, None)?;
        let shape = PhaseShape {
            name: &phase.name,
            order: i as u32 + 1,
            rows_per_commit: o.rows_per_commit,
            deletes: o.delete_per_insert,
            target_rows_per_s: (phase.kind == PhaseKind::Query)
                .then(|| f64::from(phase.rate) * f64::from(plan.inserters)),
            index_build: phase.kind == PhaseKind::Index,
        };
        let mut fig = phase_figures(&shape, &rec.result, rec.figures.as_ref());
        let local_pid = rec
            .figures
            .as_ref()
            .and_then(|f| f.server.as_ref())
            .filter(|s| s.local)
            .and_then(|s| s.pid);
        fig.db_size_mb = local_pid
            .and_then(|_| table_files_mb(plan.env, &cfg.conn))
            .or_else(|| table_size_mb(&cfg.conn));
        fig.server_rss_mb = local_pid.and_then(rss_mb);
        plan.store
            .set_run_phase(rec.run_id, &fig)
            .with_context(|| {
                format!(
                    "keeping phase {}'s figures with run {}",
                    phase.name, rec.run_id
                )
            })?;
        on(PhaseEvent::Done(
            phase,
            rec.run_id,
            &fig,
            &rec.result.status,
        ));
        out.push((rec.run_id, fig));
        wrote |= phase.writes();
        match rec.result.status {
            RunStatus::Ok => {}
            RunStatus::Degraded(_) => code = code.max(3),
            RunStatus::Failed(_) | RunStatus::Aborted(_) => {
                code = rec.result.status.exit_code();
                break;
            }
        }
    }
    Ok(PhasesOutcome { phases: out, code })
}

/// A local server's table files (its .ibd, one per partition), MB: what
/// the table takes on disk now, unlike the server's table statistics,
/// which lag behind a load.
fn table_files_mb(env: &Environment, conn: &crate::protocol::ConnOpts) -> Option<f64> {
    let datadir = env.variables.get("datadir")?.as_str()?;
    let dir = std::path::Path::new(datadir).join(conn.db.as_deref()?);
    let table = crate::workload::ibench::TABLE;
    let bytes: u64 = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| {
            let n = e.file_name().to_string_lossy().to_string();
            n.ends_with(".ibd")
                && (n == format!("{table}.ibd") || n.starts_with(&format!("{table}#")))
        })
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    (bytes > 0).then(|| bytes as f64 / 1048576.0)
}

/// The table's data and indexes, MB, as the server counts them.
fn table_size_mb(conn: &crate::protocol::ConnOpts) -> Option<f64> {
    let sql = format!(
        "SELECT data_length + index_length FROM information_schema.TABLES WHERE table_schema = DATABASE() AND table_name = '{}'",
        crate::workload::ibench::TABLE
    );
    query_number(conn, &sql).map(|b| b / 1048576.0)
}

/// A local process's resident memory, MB.
fn rss_mb(pid: i32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

/// The first of `sqls` that gives a number.
fn first_number(conn: &crate::protocol::ConnOpts, sqls: &[&str]) -> Option<f64> {
    sqls.iter().find_map(|s| query_number(conn, s))
}

/// Waits, at most `bound` seconds, for purge and flushing to calm: the
/// history list at most 1000 and the dirty pages at most 1% of the pool
/// or no longer falling for 5 readings. Reports a reading a second.
fn settle(conn: &crate::protocol::ConnOpts, bound: u32, on: &mut impl FnMut(PhaseEvent)) {
    let history = || {
        first_number(
            conn,
            &[
                "SELECT `COUNT` FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len' AND `STATUS` = 'enabled'",
                "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_HISTORY_LIST_LENGTH'",
            ],
        )
    };
    let status = |name: &str| {
        first_number(
            conn,
            &[
                &format!("SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = '{name}'"),
                &format!("SELECT VARIABLE_VALUE FROM performance_schema.global_status WHERE VARIABLE_NAME = '{name}'"),
            ],
        )
    };
    let total = status("INNODB_BUFFER_POOL_PAGES_TOTAL").unwrap_or(0.0);
    let started = Instant::now();
    let (mut least, mut flat) = (f64::INFINITY, 0);
    loop {
        let (h, d) = (history(), status("INNODB_BUFFER_POOL_PAGES_DIRTY"));
        let secs = started.elapsed().as_secs_f64();
        match d {
            Some(d) if d < least => (least, flat) = (d, 0),
            _ => flat += 1,
        }
        let history_calm = h.is_none_or(|h| h <= 1000.0);
        let dirty_calm = d.is_none_or(|d| d <= total * 0.01) || flat >= 5;
        let calm = history_calm && dirty_calm;
        let last = calm || secs >= f64::from(bound) || crate::exec::interrupted();
        on(PhaseEvent::Settle {
            secs,
            history: h,
            dirty: d,
            last,
            calm,
        });
        if last {
            return;
        }
        crate::exec::sleep_unless_interrupted(Duration::from_secs(1));
    }
}
