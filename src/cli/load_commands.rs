//! The load commands: `prepare`, `run`, `cleanup` and a script's own
//! commands, with the exit code a run's status gives.

use super::plan::LoadPlan;
use crate::lab::{block_on, ready};
use crate::report;
use crate::stats::{RunResult, RunStatus};
use anyhow::Result;

/// How sysbench mode prints a load command: sysbench 1.0.20's text only,
/// at its verbosity (`cli::sysbench_mode`).
pub(super) struct SysbenchStyle {
    /// --verbosity, 0..5: the header, lines and summary from 3, the
    /// limit's note from 4.
    pub verbosity: u32,
    /// --percentile (0: none).
    pub percentile: u32,
    /// The general options sysbench echoes before a run.
    pub echo: report::host_text::Echo,
    /// `FILE:LINE: ` of the script line whose connect sysbench blames
    /// when no connection opens ("" when unknown).
    pub connect_at: String,
    /// --db-debug: the driver's statistics at --verbosity=5.
    pub db_debug: bool,
    /// `FILE:LINE: ` of the script line that prepares the first statement
    /// on a connection, where sysbench fails when a table is missing (""
    /// when the test prepares none there).
    pub prepare_at: String,
    /// --report-checkpoints: seconds from the start, sorted; at each, the
    /// part of the run since the last is reported (and the summary then
    /// covers the part after the last).
    pub checkpoints: Vec<u64>,
}

pub(super) fn cmd_prepare(p: &LoadPlan) -> Result<()> {
    prepare_styled(p, None)
}

/// A prepare, printed as qpslab does or (`style`) as sysbench does:
/// sysbench's progress lines alone, at verbosity 3 and above.
pub(super) fn prepare_styled(p: &LoadPlan, style: Option<&SysbenchStyle>) -> Result<()> {
    if let Some(script) = p.script()? {
        return script_command(p, &script, "prepare");
    }
    if p.tpcc().is_some() {
        return super::tpcc::prepare(p);
    }
    if p.linkbench().is_some() {
        return super::linkbench::prepare(p);
    }
    if p.dbstress().is_some() {
        return super::dbstress::prepare(p);
    }
    if p.ibench().is_some() {
        return super::dbstress::prepare_ibench(p);
    }
    if p.dbt3().is_some() {
        return super::dbt3::prepare(p);
    }
    let family = p.oltp()?;
    let o = family.opts();
    // (sysbench prepares with its --threads, one table after another)
    let loaders = match style {
        Some(_) => p.single_threads()? as usize,
        None => p.loaders()?,
    };
    let json = p.output.json();
    // (sysbench's scripts print these lines at every verbosity)
    let rep = p.prepare_with_progress(&family, loaders)?;
    if style.is_none() {
        outln!("{}", report::sysbench::prepared(&rep, o.table_size, json));
    }
    Ok(())
}

/// A script's command (prepare, cleanup, or its own) on the target.
fn script_command(
    p: &LoadPlan,
    script: &crate::workload::script::Script,
    name: &str,
) -> Result<()> {
    let t = match name {
        "cleanup" => p.existing_target()?,
        _ => p.target()?,
    };
    crate::lab::script_command(&t, script, name)
}

pub(super) fn cmd_script_command(c: &super::args::ScriptCommandArgs) -> Result<()> {
    script_command_styled(c, false)
}

/// A script's own command; `detach`: without a server when none answers
/// (sysbench mode).
pub(super) fn script_command_styled(
    c: &super::args::ScriptCommandArgs,
    detach: bool,
) -> Result<()> {
    let not_script = || {
        anyhow::anyhow!(
            "'{}' is not a qpslab command, and {} is not a sysbench script that could define it (see qpslab --help)",
            c.name,
            c.load.workload
        )
    };
    if !crate::workload::script::is_script(&c.load.workload) {
        return Err(not_script());
    }
    let mut p = LoadPlan::from_args(&c.load)?;
    p.detach_unreachable = detach;
    let script = p.script()?.ok_or_else(not_script)?;
    script_command(&p, &script, &c.name)
}

/// A cleanup (sysbench's lines: the same in sysbench mode).
pub(super) fn cmd_cleanup(p: &LoadPlan) -> Result<()> {
    if let Some(script) = p.script()? {
        return script_command(p, &script, "cleanup");
    }
    let t = p.existing_target()?;
    crate::lab::cleanup(&t, p.family().as_ref(), |table| {
        outln!("Dropping table '{table}'...")
    })
}

pub(super) fn cmd_run(p: &LoadPlan) -> Result<i32> {
    run_styled(p, None)
}

/// A run, printed as qpslab does or (`style`) as sysbench 1.0.20 does.
pub(super) fn run_styled(p: &LoadPlan, style: Option<&SysbenchStyle>) -> Result<i32> {
    if p.dbt3().is_some() {
        return super::dbt3::run(p);
    }
    // Everything that does not need the server was checked in the plan.
    if let Some(ib) = p.ibench().filter(|ib| !ib.opts().phases.is_empty()) {
        if style.is_some() {
            anyhow::bail!("--phases is qpslab's own: run the sequence with qpslab run insert-benchmark, not in sysbench mode");
        }
        return super::ibench::run_phases(p, &ib);
    }
    p.single_threads()?;
    // (one run, then the process exits: its scripts' states need not be
    // closed first)
    crate::workload::script::leave_states_to_exit();
    let c = &p.config;
    if c.time == 0.0 && c.events == 0 && c.rate == 0.0 && style.is_none() {
        errln!("note: no --time and no --events: running until Ctrl-C");
    }
    let t = p.target()?;
    let scripted = p.script()?.is_some();
    // (a script's reachability was settled by target(): it runs detached
    // when no server answers)
    if let Some(s) = style.filter(|_| !scripted) {
        if let Some(code) = sysbench_unreachable(&t, s)? {
            return Ok(code);
        }
    }
    let sized = p.sized_to_data(&t)?;
    let resized = sized.is_some();
    let p = sized.as_ref().unwrap_or(p);
    // sysbench reports SQL statistics when the SQL driver was used: a
    // family of qpslab's always, a script when it asked for the driver.
    let uses_sql = || !scripted || crate::workload::script::sql_used();
    let mut cfg = p.run_config(p.threads[0], &t.opts)?;
    if let Some(s) = style {
        let ready = report::host_text::workers_ready(s.verbosity, &s.echo);
        cfg.on_started = Some(std::sync::Arc::new(move || {
            out!("{ready}");
            crate::out::flush();
        }));
    }
    let fleet = match &p.agents {
        Some(a) => Some(super::agent::gather(p, a, &cfg, style.is_some(), resized)?),
        None => None,
    };
    let store = p.recording.open()?;
    let env = if t.opts.detached {
        crate::lab::Environment::without_server()
    } else {
        match block_on(ready(&t, cfg.workload.as_ref()))? {
            Ok(env) => env,
            Err(e) => match (style, e.downcast_ref::<crate::lab::MissingTable>()) {
                (Some(s), Some(m)) if !s.prepare_at.is_empty() => {
                    sysbench_missing_table(s, m);
                    return Ok(1);
                }
                _ => return Err(e),
            },
        }
    };
    // Refused before anything is printed or run.
    let profile = p.profile_for(&t)?;
    let json = p.output.json();
    let pcts = &p.output.pcts;
    let pct = match style {
        Some(s) => f64::from(s.percentile),
        None => report::sysbench::line_percentile(pcts),
    };
    let says = style.is_none_or(|s| s.verbosity >= 3);
    // The family's own start (a script's init()), before the header.
    if let Err(m) = cfg.workload.begin_run() {
        if style.is_some() {
            outln!("FATAL: `init' function failed: {m}");
            return Ok(1);
        }
        anyhow::bail!("the script's init() failed: {m}");
    }
    if let Some(s) = style {
        if says {
            out!(
                "{}",
                report::sysbench::sysbench_header(s.verbosity, &s.echo)
            );
        }
    } else if !json {
        out!(
            "{}",
            report::sysbench::run_header(&report::sysbench::RunHeader {
                threads: cfg.threads,
                rate: cfg.rate,
                report_interval: p.output.report_interval,
                warmup: cfg.warmup,
                seed: cfg.seed,
            })
        );
    }
    // (a script's report_intermediate hook is called at every verbosity,
    // as in sysbench; the default line only from 3)
    let print_lines = p.output.report_interval > 0.0 && !json;
    let plan = crate::lab::RunPlan {
        env: &env,
        mon: p.monitor_for(&t),
        store: store.as_ref(),
        tags: p.recording.tags(),
        pcts,
        profile: profile.as_ref(),
        agents: fleet.as_ref(),
    };
    // A script's report hooks replace the interval lines (and come before
    // the summary), as in sysbench.
    let mut hook = if json {
        None
    } else {
        cfg.workload.report_hook()
    };
    let mut hooked = |stat: &crate::workload::family::ReportStat, last: bool| {
        let r = hook.as_mut().map(|h| {
            if last {
                h.cumulative(stat)
            } else {
                h.intermediate(stat)
            }
        });
        match r {
            Some(Ok(done)) => done,
            Some(Err(e)) => {
                errln!("qpslab: {e} (the script's report hooks are off from here)");
                hook = None;
                false
            }
            None => false,
        }
    };
    let tpcc_classes = cfg
        .workload
        .event_classes()
        .first()
        .is_some_and(|c| c == crate::workload::tpcc::NEW_ORDER);
    let mut checkpoints = super::checkpoints::Checkpoints::new(
        style.map_or(&[][..], |s| &s.checkpoints[..]),
        &cfg,
        pct,
        scripted,
    );
    let run = crate::lab::run_once(&cfg, plan, |s| {
        if says {
            checkpoints.sample(s);
        }
        // (sysbench's reporter is usually stopped before the interval
        // that ends at --time: sysbench mode leaves that one out)
        let at_end = style.is_some() && cfg.time > 0.0 && s.t >= cfg.time - 0.05;
        if print_lines && !s.sliver && !at_end {
            let stat = report::sysbench::report_stat(&s.iv, s.dur, s.t, cfg.threads, pct);
            if !hooked(&stat, false) && says {
                let line = match style {
                    Some(_) => {
                        report::sysbench::sysbench_interval_line(s, cfg.threads, pct, uses_sql())
                    }
                    None => report::sysbench::interval_line(
                        s,
                        cfg.threads,
                        pct,
                        cfg.rate > 0.0,
                        tpcc_classes,
                    ),
                };
                outln!("{line}");
            }
            crate::out::flush();
        }
    })?;
    // A script's report_cumulative replaces sysbench's summary.
    let mut summarized = false;
    if !json {
        let r = &run.result;
        let stat = report::sysbench::report_stat(&r.total, r.elapsed, r.elapsed, cfg.threads, pct);
        summarized = hooked(&stat, true);
    }
    if let Some(s) = style {
        let r = &run.result;
        if let RunStatus::Failed(m) = &r.status {
            // sysbench stops at a script's error: its message, no summary
            // (one in a connection's set-up is thread_init's).
            let m = m.lines().next().unwrap_or("");
            match set_up_failure(m) {
                Some(why) => outln!(
                    "FATAL: `thread_init' function failed: {why}\nFATAL: Thread initialization failed!"
                ),
                None if m.starts_with("cannot find the event() function") => {
                    outln!("FATAL: {m}")
                }
                None => outln!("FATAL: `thread_run' function failed: {m}"),
            }
            return Ok(1);
        }
        if s.verbosity >= 4 {
            let by_events = cfg.events > 0 && r.total.events >= cfg.events;
            outln!(
                "{} limit exceeded, exiting...\nDone.\n",
                if by_events { "Event" } else { "Time" }
            );
        }
        if says && !summarized {
            let whole = report::sysbench::Part::of(r);
            let part = checkpoints.rest(r).unwrap_or(whole);
            out!(
                "{}",
                report::sysbench::sysbench_summary_of(
                    r,
                    &part,
                    pct,
                    p.output.histogram,
                    uses_sql(),
                    s.db_debug && s.verbosity >= 5
                )
            );
        }
    } else if json {
        let doc = crate::lab::run_document(&cfg, &run, pcts, &p.recording.command_line);
        outln!("{}", serde_json::to_string_pretty(&doc.to_json())?);
    } else {
        let text = (&pcts[..], p.output.histogram);
        let end = report::sysbench::run_end(&run.result, run.figures.as_ref(), run.run_id, text);
        out!("{end}");
        if let Some(a) = &run.result.agents {
            out!("{}", report::agents_text::agents_table(a));
        }
        if let Some(p) = &run.profile {
            super::profile::print_profile(p);
        }
    }
    // The family's own end (a script's done()), after the report.
    if let Err(m) = cfg.workload.end_run() {
        outln!("FATAL: `done' function failed: {m}");
        return Ok(1);
    }
    let code = exit_code(&run.result);
    if let Some(e) = run.store_error {
        errln!("qpslab: the run was measured (printed above) but not stored: {e}");
        if code == 0 {
            return Ok(crate::lab::EXIT_NOT_STORED);
        }
    }
    Ok(code)
}

/// What failed in a connection's set-up (exec's "connection N setting
/// up: WHY"), if that is where the run failed.
fn set_up_failure(m: &str) -> Option<&str> {
    let rest = m.strip_prefix("connection ")?;
    let (n, why) = rest.split_once(" setting up: ")?;
    n.parse::<u32>().is_ok().then_some(why)
}

fn exit_code(r: &RunResult) -> i32 {
    match &r.status {
        // The summary above has the whole message (a script's traceback).
        RunStatus::Failed(m) => errln!(
            "qpslab: run failed: {}",
            crate::out::inert_line(m.lines().next().unwrap_or(""), crate::out::MAX_LINE)
        ),
        RunStatus::Degraded(m) => errln!(
            "qpslab: run degraded: {}",
            crate::out::inert_line(m, crate::out::MAX_LINE)
        ),
        _ => {}
    }
    r.status.exit_code()
}

/// sysbench mode: a table missing at the start of a run is said as
/// sysbench's driver says it when the script prepares its first
/// statement.
fn sysbench_missing_table(s: &SysbenchStyle, m: &crate::lab::MissingTable) {
    if s.verbosity >= 3 {
        out!(
            "{}",
            report::sysbench::sysbench_header(s.verbosity, &s.echo)
        );
    }
    if s.verbosity >= 1 {
        outln!("FATAL: mysql_stmt_prepare() failed");
        outln!(
            "FATAL: MySQL error: 1146 \"Table '{}.{}' doesn't exist\"",
            m.db,
            m.table
        );
        outln!(
            "FATAL: `thread_init' function failed: {}SQL API error",
            s.prepare_at
        );
        outln!("FATAL: Thread initialization failed!");
    }
}

/// sysbench mode: a server that cannot be reached is said as sysbench
/// says it — after its header, its driver's lines — and exits 1 (Some);
/// None when a connection opens.
fn sysbench_unreachable(t: &crate::lab::Target, s: &SysbenchStyle) -> Result<Option<i32>> {
    let Some(e) = crate::lab::connect_error(t) else {
        return Ok(None);
    };
    if s.verbosity >= 3 {
        out!(
            "{}",
            report::sysbench::sysbench_header(s.verbosity, &s.echo)
        );
    }
    if s.verbosity >= 1 {
        outln!(
            "{}\nFATAL: `thread_init' function failed: {}connection creation failed\nFATAL: Thread initialization failed!",
            report::sysbench::sysbench_connect_failure(&t.opts.endpoint, &e),
            s.connect_at
        );
    }
    Ok(Some(1))
}
