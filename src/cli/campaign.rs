//! `qpslab campaign run|status|presets`: drives a campaign file's points
//! through sandboxes (or external servers), runs and the store. Resumable:
//! points with a finished run in the store are skipped.

use super::args::{CampaignArgs, CampaignCmd, CampaignRunArgs, ConnArgs, LoadArgs};
use super::load_config::{check_load_args, run_config, thread_list};
use super::monitor_args::monitor_for;
use super::target::resolve;
use crate::campaign::{presets, value_text, CampaignFile, Point};
use crate::lab::{lock_campaign, open_store, run_campaign, CampaignRun, Target};
use crate::report::campaign::{campaign_end, campaign_start, point_line};
use crate::store::{RunFilter, Store};
use crate::workload::Workload;
use anyhow::{bail, Context, Result};

pub fn campaign(cmd: CampaignCmd) -> Result<i32> {
    match cmd {
        CampaignCmd::Presets(p) => {
            if let Some(name) = &p.show {
                let text = presets::find(name).with_context(|| {
                    format!("no preset '{name}' (see `qpslab campaign presets`)")
                })?;
                out!("{}", text.trim_start());
                return Ok(0);
            }
            for (name, what, _) in presets::PRESETS {
                outln!("{name:<14} {what}");
            }
            outln!(
                "\nRun one with `qpslab campaign run --preset NAME [--threads 1,4,16 --time 10]`; `qpslab campaign presets --show NAME` prints its definition."
            );
            Ok(0)
        }
        CampaignCmd::Status(a) => status(&a).map(|_| 0),
        CampaignCmd::Run(a) => run(&a),
    }
}

fn load(a: &CampaignArgs) -> Result<(CampaignFile, String)> {
    let (text, origin) = match (&a.file, &a.preset) {
        (Some(f), None) => (
            std::fs::read_to_string(f)
                .with_context(|| format!("cannot read campaign file {}", f.display()))?,
            f.display().to_string(),
        ),
        (None, Some(p)) => (
            presets::find(p)
                .with_context(|| format!("no preset '{p}' (see `qpslab campaign presets`)"))?
                .to_string(),
            format!("preset {p}"),
        ),
        _ => bail!("give a campaign file or --preset NAME (not both)"),
    };
    let mut c = CampaignFile::parse(&text, &origin)?;
    if let Some(t) = &a.threads {
        c.threads = thread_list(t)?;
    }
    if let Some(t) = a.time {
        c.time = t;
    }
    if let Some(r) = a.repeat {
        c.repeat = r;
    }
    if let Some(t) = a.tables {
        c.data.tables = t;
    }
    if let Some(n) = a.table_size {
        c.data.table_size = n;
    }
    if let Some(ws) = &a.workloads {
        let names: Vec<&str> = ws.split(',').map(str::trim).collect();
        let same = |n: &str, w: &str| match (Workload::parse(n), Workload::parse(w)) {
            (Ok(a), Ok(b)) => a == b,
            _ => n == w,
        };
        c.workloads
            .retain(|w| names.iter().any(|n| same(n, &w.name)));
        if c.workloads.is_empty() {
            bail!("--workloads {ws}: none of these is in the campaign");
        }
    }
    c.validate()
        .with_context(|| format!("{origin} with the command-line overrides"))?;
    Ok((c, text))
}

fn open(a: &CampaignArgs, c: &CampaignFile, text: &str) -> Result<(Store, i64)> {
    let store = open_store(a.store.path())?;
    let id = crate::lab::open_campaign(&store, c, text)?;
    Ok((store, id))
}

fn status(a: &CampaignArgs) -> Result<()> {
    let (c, _) = load(a)?;
    // Read only: a campaign not run yet is all pending, and stays unrecorded.
    let path = crate::lab::store_path(a.store.path());
    let found = if path.exists() {
        let store = crate::lab::read_store(Some(&path))?;
        match store.find_campaign(&c.name, "campaign")? {
            Some(id) => Some((id, store.done_points(id)?)),
            None => None,
        }
    } else {
        None
    };
    let id = found.as_ref().map(|(id, _)| *id);
    let done = found.map(|(_, d)| d).unwrap_or_default();
    out!("{}", crate::report::campaign::status(&c, id, &done));
    Ok(())
}

/// The run options of a point, as command-line words.
pub(super) fn point_words(c: &CampaignFile, p: &Point) -> Vec<String> {
    let w = &c.workloads[p.workload];
    // The campaign's data size, for a script only when it has those
    // options (oltp_common.lua's scripts do).
    let declares = |opt: &str| {
        !crate::workload::script::is_script(&w.name)
            || crate::workload::options_for(std::slice::from_ref(&w.name), "run")
                .is_ok_and(|(_, specs)| specs.iter().any(|s| s.name == opt))
    };
    let mut words = vec![w.name.clone()];
    if crate::workload::tpcc::is_tpcc(&w.name) {
        if !w.options.contains_key("warehouses") {
            words.extend(["--warehouses".into(), c.data.warehouses.to_string()]);
        }
    } else {
        if declares("tables") {
            words.extend(["--tables".into(), c.data.tables.to_string()]);
        }
        if declares("table_size") {
            words.extend(["--table-size".into(), c.data.table_size.to_string()]);
        }
    }
    words.extend([
        "--threads".into(),
        p.threads.to_string(),
        "--time".into(),
        c.time.to_string(),
        "--warmup-time".into(),
        c.warmup.to_string(),
    ]);
    if !c.profile.is_empty() {
        words.extend(["--profile".into(), c.profile.join(",")]);
    }
    if let Some(cpus) = &c.client_cpus {
        words.extend(["--client-cpus".into(), cpus.clone()]);
    }
    for (k, v) in &w.options {
        words.push(format!("--{}", k.replace('_', "-")));
        words.push(value_text(v));
    }
    words
}

fn run(r: &CampaignRunArgs) -> Result<i32> {
    let a = &r.campaign;
    let (c, text) = load(a)?;
    // Validate every point's options before starting anything.
    for p in c.points() {
        LoadArgs::from_words(&point_words(&c, &p))
            .and_then(|l| check_load_args(&l).and_then(|_| super::profile::check_kinds(&l)))
            .with_context(|| format!("workload '{}' options", c.workloads[p.workload].name))?;
    }
    let (store, id) = open(a, &c, &text)?;
    let _lock = lock_campaign(&store, id, &c.name)?;
    let done = store.done_points(id)?;
    let points = c.points();
    let pending: Vec<&Point> = points
        .iter()
        .filter(|p| !done.contains_key(&p.hash))
        .collect();
    outln!("{}", campaign_start(&c, id, points.len(), pending.len()));
    let external = |dsn: &str| {
        let args = ConnArgs {
            dsn: Some(dsn.to_string()),
            ..Default::default()
        };
        resolve(&args, "sbtest")
    };
    let config_for = |p: &Point, t: &Target| {
        let load = LoadArgs::from_words(&point_words(&c, p))?;
        Ok((
            run_config(&load, &t.opts)?,
            monitor_for(&load, t)?,
            super::profile::plan_for(&load, t)?,
        ))
    };
    let run = CampaignRun {
        file: &c,
        store: &store,
        id,
        command_line: crate::secret::redacted_command_line(),
        keep_servers: r.keep_servers,
    };
    let out = run_campaign(
        &run,
        &pending,
        &external,
        config_for,
        |line| outln!("{line}"),
        &mut super::progress::server_printer(),
        |i, p, rec| {
            let line = point_line(i, pending.len(), &c, p, &rec.result, rec.run_id);
            outln!("{line}");
        },
    )?;
    if out.code == 130 {
        outln!(
            "\nStopped. Rerun the same command to resume: finished points are kept and skipped."
        );
        return Ok(130);
    }
    let runs = store.list_runs(&RunFilter {
        campaign: Some(id),
        status: Some("ok".into()),
        ..Default::default()
    })?;
    out!("{}", campaign_end(&c, &runs, out.failed, out.degraded));
    let diffs = crate::lab::variant_diffs(&store, &c, &runs)?;
    out!(
        "{}",
        crate::report::campaign::variant_variables(c.reference_variant(), &diffs)
    );
    Ok(match (out.failed, out.degraded) {
        (0, 0) => 0,
        (0, _) => 3,
        _ => 1,
    })
}
