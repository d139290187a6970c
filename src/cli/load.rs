//! The load commands: `prepare`, `run`, `cleanup` and a script's own
//! commands, with the exit code a run's status gives.

use super::args::{parse_pct_list, LoadArgs, RunFormat};
use super::monitor_args::monitor_for;
use super::target::resolve;
use crate::lab::{block_on, ready, RunTags};
use crate::report;
use crate::secret::redacted_command_line;
use crate::stats::{RunResult, RunStatus};
use anyhow::{bail, Result};

use super::load_config::{
    check_load_args, family, recording_store, run_config, script, seed, single_threads,
};

pub(super) fn cmd_prepare(a: &LoadArgs) -> Result<()> {
    if let Some(script) = script(a, seed(a.rand_seed))? {
        return script_command(a, &script, "prepare");
    }
    if crate::workload::tpcc::is_tpcc(&a.workload) {
        return super::tpcc::prepare(a);
    }
    let family = family(a)?;
    let o = family.opts();
    let t = resolve(&a.conn, "sbtest")?;
    let loaders = super::load_config::loaders(a)?;
    let json = a.format == RunFormat::Json;
    let rep = crate::lab::prepare(
        &t,
        &family,
        loaders,
        &mut super::progress::prepare_printer(json),
    )?;
    outln!("{}", report::sysbench::prepared(&rep, o.table_size, json));
    Ok(())
}

/// A script's command (prepare, cleanup, or its own) on the target.
fn script_command(
    a: &LoadArgs,
    script: &crate::workload::script::Script,
    name: &str,
) -> Result<()> {
    let t = resolve(&a.conn, "sbtest")?;
    crate::lab::script_command(&t, script, name)
}

pub(super) fn cmd_script_command(c: &super::args::ScriptCommandArgs) -> Result<()> {
    let Some(script) = script(&c.load, seed(c.load.rand_seed))? else {
        bail!(
            "'{}' is not a qpslab command, and {} is not a sysbench script that could define it (see qpslab --help)",
            c.name,
            c.load.workload
        );
    };
    script_command(&c.load, &script, &c.name)
}

pub(super) fn cmd_cleanup(a: &LoadArgs) -> Result<()> {
    if let Some(script) = script(a, seed(a.rand_seed))? {
        return script_command(a, &script, "cleanup");
    }
    let family = super::load_config::workload_family(a, seed(a.rand_seed))?;
    let t = resolve(&a.conn, "sbtest")?;
    crate::lab::cleanup(&t, family.as_ref(), |table| {
        outln!("Dropping table '{table}'...")
    })
}

/// A built-in OLTP workload run without --table-size on tables prepared
/// with another size: the arguments with the data's size (sbtest1's
/// largest id), said in a note, so that a run after `prepare --table-size
/// 100000` reads all of it as sysbench users expect it to. None: nothing
/// to change.
pub(super) fn sized_to_data(a: &LoadArgs, t: &crate::lab::Target) -> Result<Option<LoadArgs>> {
    use crate::workload::Workload;
    let builtin = Workload::parse(&a.workload).is_ok_and(|w| w != Workload::Insert);
    if !builtin || a.options.is_given("table_size") {
        return Ok(None);
    }
    let default = a.options.count("table_size");
    match crate::lab::largest_id(t, "sbtest1")? {
        Some(rows) if rows != u64::from(default) && rows <= u64::from(u32::MAX) => {
            let mut sized = a.clone();
            sized
                .options
                .set("table_size", &rows.to_string())
                .map_err(anyhow::Error::msg)?;
            errln!(
                "note: --table-size not given: using {rows}, the rows sbtest1 was prepared with (its largest id), not the default {default}"
            );
            Ok(Some(sized))
        }
        _ => Ok(None),
    }
}

pub(super) fn cmd_run(a: &LoadArgs) -> Result<i32> {
    // Validate everything that does not need the server first.
    check_load_args(a)?;
    super::profile::check_kinds(a)?;
    single_threads(a)?;
    if a.time == 0.0 && a.events == 0 && a.rate == 0.0 {
        errln!("note: no --time and no --events: running until Ctrl-C");
    }
    let t = resolve(&a.conn, "sbtest")?;
    let sized = sized_to_data(a, &t)?;
    let a = sized.as_ref().unwrap_or(a);
    let cfg = run_config(a, &t.opts)?;
    let store = recording_store(&a.record)?;
    let env = block_on(ready(&t, cfg.workload.as_ref()))??;
    // Refused before anything is printed or run.
    let profile = super::profile::plan_for(a, &t)?;
    let json = a.format == RunFormat::Json;
    let pcts = parse_pct_list(&a.percentile).map_err(|e| anyhow::anyhow!("--percentile: {e}"))?;
    let tags = RunTags {
        label: a.record.label.clone(),
        variant: a.variant.clone(),
        command_line: redacted_command_line(),
        ..Default::default()
    };
    let pct = report::sysbench::line_percentile(&pcts);
    if !json {
        out!(
            "{}",
            report::sysbench::run_header(&report::sysbench::RunHeader {
                threads: cfg.threads,
                rate: cfg.rate,
                report_interval: a.report_interval,
                warmup: cfg.warmup,
                seed: cfg.seed,
            })
        );
    }
    let print_lines = a.report_interval > 0.0 && !json;
    let plan = crate::lab::RunPlan {
        env: &env,
        mon: monitor_for(a, &t)?,
        store: store.as_ref(),
        tags,
        pcts: &pcts,
        profile: profile.as_ref(),
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
    let run = crate::lab::run_once(&cfg, plan, |s| {
        if print_lines && !s.sliver {
            let stat = report::sysbench::report_stat(&s.iv, s.dur, s.t, cfg.threads, pct);
            if !hooked(&stat, false) {
                outln!(
                    "{}",
                    report::sysbench::interval_line(s, cfg.threads, pct, cfg.rate > 0.0)
                );
            }
            crate::out::flush();
        }
    })?;
    if !json {
        let r = &run.result;
        let stat = report::sysbench::report_stat(&r.total, r.elapsed, r.elapsed, cfg.threads, pct);
        hooked(&stat, true);
    }
    if json {
        let doc = crate::lab::run_document(&cfg, &run, &pcts, &redacted_command_line());
        outln!("{}", serde_json::to_string_pretty(&doc.to_json())?);
    } else {
        let text = (&pcts[..], a.histogram);
        let end = report::sysbench::run_end(&run.result, run.figures.as_ref(), run.run_id, text);
        out!("{end}");
        if let Some(p) = &run.profile {
            super::profile::print_profile(p);
        }
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
