//! `sweep`: one workload (or several, in one campaign) stepped through
//! concurrencies and repeats, then its scalability table.

use super::args::{LoadArgs, RunFormat, SweepArgs};
use super::monitor_args::monitor_for;
use super::target::resolve;
use crate::campaign::{SweepDefinition, SWEEP_DEFINITION_VERSION};
use crate::lab::{block_on, open_store, ready, RunTags};
use crate::report;
use crate::secret::redacted_command_line;
use anyhow::{bail, Result};

use super::load_config::{check_load_args, run_config, thread_list};

/// One step per concurrency (and repeat), each stored as a run of one
/// campaign (lab::sweep), then the scalability table (medians over repeats).
/// `sweep W1,W2,…`: each workload swept in turn, all in one campaign
/// (its page charts them together); one workload is a sweep of its own.
pub(super) fn sweep(a: &SweepArgs) -> Result<i32> {
    if !(1..=1000).contains(&a.repeat) {
        bail!("--repeat must be from 1 to 1000");
    }
    // A sweep warms each point up unless told otherwise: a fifth of its
    // time, 1 to 30 s (the buffer pool and the connections settle).
    let mut load = a.load.clone();
    load.warmup_time = Some(
        load.warmup_time
            .unwrap_or((load.time / 5.0).clamp(1.0, 30.0)),
    );
    let names: Vec<&str> = load
        .workload
        .split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .collect();
    if names.len() < 2 {
        let (code, end) = sweep_workload(a, &load, None)?;
        out!("{end}");
        return Ok(code);
    }
    let mut seen = std::collections::BTreeSet::new();
    if let Some(dup) = names.iter().find(|w| !seen.insert(**w)) {
        bail!("workload {dup} is listed twice in the sweep: name each workload once");
    }
    let store = open_store(load.record.store.path())?;
    let definition = SweepDefinition {
        version: SWEEP_DEFINITION_VERSION,
        workloads: Some(names.iter().map(|w| w.to_string()).collect()),
        threads: thread_list(&load.threads)?,
        repeat: a.repeat,
        time: load.time,
        warmup_time: load.warmup(),
        cooldown: a.cooldown,
        command_line: redacted_command_line(),
        ..Default::default()
    };
    let campaign = crate::lab::new_sweep(&store, &names.join("+"), &definition)?;
    drop(store);
    let json = load.format == RunFormat::Json;
    let (mut code, mut docs) = (0, Vec::new());
    for w in &names {
        let mut l = load.clone();
        l.workload = w.to_string();
        let (c, end) = sweep_workload(a, &l, Some(campaign))?;
        code = code.max(c);
        if json {
            docs.push(end);
        } else {
            out!("{end}");
        }
    }
    if json {
        outln!("[{}]", docs.join(","));
    } else {
        outln!("All {} workloads are in campaign {campaign} (qpslab scalability --campaign {campaign}).", names.len());
    }
    Ok(code)
}

/// One workload's sweep, in `campaign` (a new sweep campaign when None);
/// returns its exit code and its closing table (or JSON document).
fn sweep_workload(a: &SweepArgs, l: &LoadArgs, campaign: Option<i64>) -> Result<(i32, String)> {
    let threads = thread_list(&l.threads)?;
    check_load_args(l)?;
    super::profile::check_kinds(l)?;
    let t = resolve(&l.conn, "sbtest")?;
    let sized = super::load::sized_to_data(l, &t)?;
    let l = sized.as_ref().unwrap_or(l);
    let mut first = l.clone();
    first.threads = threads[0].to_string();
    let cfg0 = run_config(&first, &t.opts)?;
    let name = cfg0.workload.name().to_string();
    let env = block_on(ready(&t, cfg0.workload.as_ref()))??;
    let store = open_store(l.record.store.path())?;
    let definition = SweepDefinition {
        version: SWEEP_DEFINITION_VERSION,
        workload: Some(name.clone()),
        threads: threads.clone(),
        repeat: a.repeat,
        time: l.time,
        warmup_time: l.warmup(),
        cooldown: a.cooldown,
        command_line: redacted_command_line(),
        ..Default::default()
    };
    let campaign = match campaign {
        Some(c) => c,
        None => crate::lab::new_sweep(&store, name.as_str(), &definition)?,
    };
    let what = (name.as_str(), t.describe(), campaign);
    outln!(
        "{}",
        report::campaign::sweep_start(what, &threads, (l.time, l.warmup()), a.repeat)
    );
    let plan = crate::lab::SweepPlan {
        env: &env,
        store: &store,
        campaign,
        workload: name.as_str(),
        threads: &threads,
        repeat: a.repeat,
        cooldown: a.cooldown,
        tags: RunTags {
            label: l.record.label.clone(),
            variant: l.variant.clone(),
            command_line: redacted_command_line(),
            ..Default::default()
        },
    };
    let profile = super::profile::plan_for(l, &t)?;
    let config_for = |th: u32| {
        let mut step = l.clone();
        step.threads = th.to_string();
        Ok((
            run_config(&step, &t.opts)?,
            monitor_for(&step, &t)?,
            profile.clone(),
        ))
    };
    let out = crate::lab::sweep(&plan, config_for, |s| {
        let line = (s.repeat, a.repeat);
        let text =
            report::campaign::sweep_step_line(s.threads, line, s.figures, s.run_id, s.status);
        outln!("{text}");
    })?;
    let json = l.format == RunFormat::Json;
    let mut end = report::campaign::sweep_end(name.as_str(), campaign, &out.medians, json);
    if let (Some(l), false) = (&out.limiter, json) {
        end.push_str(&format!("Scaling limiter: {l}\n"));
    }
    Ok((out.code, end))
}
