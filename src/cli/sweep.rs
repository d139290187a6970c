//! `sweep`: one workload (or several, in one campaign) stepped through
//! concurrencies and repeats, then its scalability table.

use super::args::SweepArgs;
use super::plan::LoadPlan;
use crate::campaign::{SweepDefinition, SWEEP_DEFINITION_VERSION};
use crate::lab::{block_on, open_store, ready};
use crate::report;
use anyhow::{bail, Result};

/// What a sweep adds to its workloads' plans.
struct Steps {
    /// Each concurrency this many times.
    repeat: u32,
    /// Seconds of rest between steps.
    cooldown: f64,
}

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
    let steps = Steps {
        repeat: a.repeat,
        cooldown: a.cooldown,
    };
    if names.len() < 2 {
        let (code, end) = sweep_workload(&steps, &LoadPlan::from_args(&load)?, None)?;
        out!("{end}");
        return Ok(code);
    }
    let mut seen = std::collections::BTreeSet::new();
    if let Some(dup) = names.iter().find(|w| !seen.insert(**w)) {
        bail!("workload {dup} is listed twice in the sweep: name each workload once");
    }
    // Every workload's plan before the first step runs.
    let plans: Vec<LoadPlan> = names
        .iter()
        .map(|w| {
            let mut l = load.clone();
            l.workload = w.to_string();
            let mut p = LoadPlan::from_args(&l)?;
            // the agents run this workload, not the list
            if let Some(a) = p.agents.as_mut() {
                for word in a.words.iter_mut().filter(|x| **x == load.workload) {
                    *word = w.to_string();
                }
            }
            Ok(p)
        })
        .collect::<Result<_>>()?;
    let first = &plans[0];
    let store = open_store(first.recording.store.as_deref())?;
    let definition = SweepDefinition {
        version: SWEEP_DEFINITION_VERSION,
        workloads: Some(names.iter().map(|w| w.to_string()).collect()),
        threads: first.threads.clone(),
        repeat: a.repeat,
        time: first.config.time,
        warmup_time: first.config.warmup,
        cooldown: a.cooldown,
        command_line: first.recording.command_line.clone(),
        ..Default::default()
    };
    let campaign = crate::lab::new_sweep(&store, &names.join("+"), &definition)?;
    drop(store);
    let json = first.output.json();
    let (mut code, mut docs) = (0, Vec::new());
    for p in &plans {
        let (c, end) = sweep_workload(&steps, p, Some(campaign))?;
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
fn sweep_workload(steps: &Steps, p: &LoadPlan, campaign: Option<i64>) -> Result<(i32, String)> {
    let t = p.target()?;
    let sized = p.sized_to_data(&t)?;
    let p = sized.as_ref().unwrap_or(p);
    let threads = &p.threads;
    let cfg0 = p.run_config(threads[0], &t.opts)?;
    let name = cfg0.workload.name().to_string();
    let env = block_on(ready(&t, cfg0.workload.as_ref()))??;
    let store = open_store(p.recording.store.as_deref())?;
    let (time, warmup) = (p.config.time, p.config.warmup);
    let definition = SweepDefinition {
        version: SWEEP_DEFINITION_VERSION,
        workload: Some(name.clone()),
        threads: threads.clone(),
        repeat: steps.repeat,
        time,
        warmup_time: warmup,
        cooldown: steps.cooldown,
        command_line: p.recording.command_line.clone(),
        ..Default::default()
    };
    let campaign = match campaign {
        Some(c) => c,
        None => crate::lab::new_sweep(&store, name.as_str(), &definition)?,
    };
    let what = (name.as_str(), t.describe(), campaign);
    outln!(
        "{}",
        report::campaign_text::sweep_start(what, threads, (time, warmup), steps.repeat)
    );
    let plan = crate::lab::SweepPlan {
        env: &env,
        store: &store,
        campaign,
        workload: name.as_str(),
        threads,
        repeat: steps.repeat,
        cooldown: steps.cooldown,
        tags: p.recording.tags(),
    };
    let profile = p.profile_for(&t)?;
    // Each step's agents greeted, checked and split anew (refused,
    // naming the agent, before that step starts).
    let config_for = |th: u32| {
        let cfg = p.run_config(th, &t.opts)?;
        let fleet = match &p.agents {
            Some(a) => Some(super::agent::gather(p, a, &cfg, false, sized.is_some())?),
            None => None,
        };
        Ok((cfg, p.monitor_for(&t), profile.clone(), fleet))
    };
    let json = p.output.json();
    let out = crate::lab::sweep(&plan, config_for, |s| {
        if let Some(pre) = s.preflight {
            // Beside a JSON document on stdout, the note goes to stderr.
            if json {
                errln!("{pre}");
            } else {
                outln!("{pre}");
            }
        }
        let line = (s.repeat, steps.repeat);
        let text =
            report::campaign_text::sweep_step_line(s.threads, line, s.figures, s.run_id, s.status);
        outln!("{text}");
    })?;
    let mut end = report::campaign_text::sweep_end(name.as_str(), campaign, &out.medians, json);
    if let (Some(l), false) = (&out.limiter, json) {
        end.push_str(&format!("Scaling limiter: {l}\n"));
    }
    Ok((out.code, end))
}
