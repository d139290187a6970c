//! `qpslab campaign run|status|presets`: drives a campaign file's points
//! through sandboxes (or external servers), runs and the store. Resumable:
//! points with a finished run in the store are skipped.

use super::args::{CampaignArgs, CampaignCmd, CampaignRunArgs, ConnArgs, LoadArgs};
use super::plan::{thread_list, LoadPlan};
use super::target::resolve;
use crate::campaign::{presets, value_text, CampaignFile, Point};
use crate::lab::{lock_campaign, open_store, run_campaign, CampaignRun, Target};
use crate::report::campaign_text::{campaign_end, campaign_start, point_line};
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
        CampaignCmd::Run(a) => super::metrics_listen::serving(&a.metrics, || run(&a)),
    }
}

/// The first line of a stored definition run with command-line overrides:
/// `# qpslab overrides: threads=8,32 repeat=3` (a TOML comment), so
/// `campaign status` shows the points that run made.
const OVERRIDES: &str = "# qpslab overrides:";

/// The command line's overrides of a campaign file, as `key=value` words.
fn overrides(a: &CampaignArgs) -> Vec<String> {
    let mut o = Vec::new();
    let mut put = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            o.push(format!("{k}={v}"));
        }
    };
    put("threads", a.threads.clone());
    put("time", a.time.map(|t| t.to_string()));
    put("workloads", a.workloads.clone());
    put("repeat", a.repeat.map(|r| r.to_string()));
    put("tables", a.tables.map(|t| t.to_string()));
    put("table_size", a.table_size.map(|n| n.to_string()));
    o
}

/// The overrides a stored definition's first line names (see [`OVERRIDES`]).
fn stored_overrides(definition: &str) -> Vec<String> {
    definition
        .lines()
        .next()
        .and_then(|l| l.strip_prefix(OVERRIDES))
        .map(|r| r.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// The campaign file's text (or the preset's) and where it came from.
fn source(a: &CampaignArgs) -> Result<(String, String)> {
    Ok(match (&a.file, &a.preset) {
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
        _ => bail!("give a campaign file, a campaign's id (status), or --preset NAME (not both)"),
    })
}

fn load(a: &CampaignArgs) -> Result<(CampaignFile, String)> {
    let (text, origin) = source(a)?;
    let c = parse_with(&text, &origin, &overrides(a))?;
    Ok((c, text))
}

/// `text` parsed, with `overrides` (`key=value` words) applied and checked.
fn parse_with(text: &str, origin: &str, overrides: &[String]) -> Result<CampaignFile> {
    let mut c = CampaignFile::parse(text, origin)?;
    for o in overrides {
        let (k, v) = o.split_once('=').unwrap_or((o, ""));
        let bad = || format!("{origin}: override {o}");
        match k {
            "threads" => c.threads = thread_list(v)?,
            "time" => c.time = v.parse().with_context(bad)?,
            "repeat" => c.repeat = v.parse().with_context(bad)?,
            "tables" => c.data.tables = v.parse().with_context(bad)?,
            "table_size" => c.data.table_size = v.parse().with_context(bad)?,
            "workloads" => {
                let names: Vec<&str> = v.split(',').map(str::trim).collect();
                let same = |n: &str, w: &str| match (Workload::parse(n), Workload::parse(w)) {
                    (Ok(a), Ok(b)) => a == b,
                    _ => n == w,
                };
                c.workloads
                    .retain(|w| names.iter().any(|n| same(n, &w.name)));
                if c.workloads.is_empty() {
                    bail!("--workloads {v}: none of these is in the campaign");
                }
            }
            _ => bail!("{}: unknown override {o}", origin),
        }
    }
    c.validate()
        .with_context(|| format!("{origin} with the command-line overrides"))?;
    Ok(c)
}

fn open(a: &CampaignArgs, c: &CampaignFile, text: &str) -> Result<(Store, i64)> {
    let store = open_store(a.store.path())?;
    let o = overrides(a);
    let definition = if o.is_empty() {
        text.to_string()
    } else {
        format!("{OVERRIDES} {}\n{text}", o.join(" "))
    };
    let id = crate::lab::open_campaign(&store, c, &definition)?;
    Ok((store, id))
}

/// A campaign's id given where its file goes (`campaign status 2`): a
/// number that names no file.
fn id_argument(a: &CampaignArgs) -> Option<i64> {
    let f = a.file.as_ref()?;
    if f.exists() || a.preset.is_some() {
        return None;
    }
    f.to_str()?.parse().ok()
}

fn status(a: &CampaignArgs) -> Result<()> {
    // Read only: a campaign not run yet is all pending, and stays unrecorded.
    let path = crate::lab::store_path(a.store.path());
    let url = crate::store::url_scheme(&path.to_string_lossy()).is_some();
    let store = if path.exists() || url {
        Some(crate::lab::read_store(Some(&path))?)
    } else {
        None
    };
    let mut note = String::new();
    let (c, id) = match id_argument(a) {
        Some(id) => {
            let kind = match &store {
                Some(s) => s
                    .list_campaigns()?
                    .into_iter()
                    .find(|c| c.id == id)
                    .map(|c| c.kind),
                None => None,
            };
            if kind.as_deref() == Some("phases") {
                anyhow::bail!(
                    "campaign {id} is an insert benchmark phase sequence, not a campaign file's: `qpslab runs --campaign {id}` lists its runs, `qpslab ui` shows its phase table"
                );
            }
            if kind.as_deref() == Some("sweep") {
                anyhow::bail!(
                    "campaign {id} is a sweep, not a campaign file's: `qpslab runs --campaign {id}` lists its runs, `qpslab scalability --campaign {id}` analyses them"
                );
            }
            let definition = store
                .as_ref()
                .map(|s| s.campaign_definition(id))
                .transpose()?
                .flatten()
                .with_context(|| {
                    format!("no campaign {id} in {} (see `qpslab runs`)", path.display())
                })?;
            let last = stored_overrides(&definition);
            if !last.is_empty() {
                note = format!("(its last run's overrides: {})\n", last.join(" "));
            }
            let mut o = last;
            o.extend(overrides(a));
            let c = parse_with(&definition, &format!("campaign {id}"), &o).map_err(|e| {
                anyhow::anyhow!("campaign {id}'s stored definition does not read ({e}): an older record; `qpslab runs --campaign {id}` lists its runs")
            })?;
            (c, Some(id))
        }
        None => {
            let (text, origin) = source(a)?;
            let given = overrides(a);
            let c = parse_with(&text, &origin, &given)?;
            let id = match &store {
                Some(s) => s.find_campaign(&c.name, "campaign")?,
                None => None,
            };
            // Without overrides, the points its last run made (with the
            // overrides that run was given).
            let last = match (&store, id) {
                (Some(s), Some(id)) if given.is_empty() => {
                    stored_overrides(&s.campaign_definition(id)?.unwrap_or_default())
                }
                _ => Vec::new(),
            };
            if last.is_empty() {
                (c, id)
            } else {
                note = format!(
                    "(its last run's overrides: {}; give others to see those points)\n",
                    last.join(" ")
                );
                (parse_with(&text, &origin, &last)?, id)
            }
        }
    };
    let done = match (&store, id) {
        (Some(s), Some(id)) => s.done_points(id)?,
        _ => Default::default(),
    };
    out!(
        "{}{note}",
        crate::report::campaign_text::status(&c, id, &done)
    );
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
    } else if crate::workload::linkbench::is_linkbench(&w.name) {
        if !w.options.contains_key("maxid1") {
            words.extend(["--maxid1".into(), c.data.maxid1.to_string()]);
        }
    } else if crate::workload::dbt3::is_dbt3(&w.name) {
        // its own data (options' scale), its own streams, no time limit
    } else if crate::campaign::own_data(&w.name) {
        // its own tables, sized by its own options
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

/// Server `s`'s agent (`[[server]] agent`, with `[agents]`'s token and
/// TLS): None without one.
fn server_agent(c: &CampaignFile, s: usize) -> Result<Option<crate::lab::agent::ServerAgent>> {
    let def = &c.servers[s];
    let (Some(addr), Some(ag)) = (&def.agent, &c.agents) else {
        return Ok(None);
    };
    let link = super::fleet_plan::link(&ag.token_file, ag.ca_file.as_deref())
        .with_context(|| format!("server '{}': agent, with [agents] token_file", def.label))?;
    crate::lab::agent::ServerAgent::new(addr, link)
        .with_context(|| format!("server '{}': agent", def.label))
        .map(Some)
}

/// A point's plan, from the words its run is described by.
pub(super) fn point_plan(c: &CampaignFile, p: &Point) -> Result<LoadPlan> {
    LoadPlan::from_args(&LoadArgs::from_words(&point_words(c, p))?)
}

/// `--until-interval PCT` after `round`: why the rounds stop (every
/// ratio's interval narrow enough, none to narrow, the runs unreadable),
/// or None to go on; `widest` is the widest interval and where it is.
fn enough_rounds(pct: f64, round: u32, widest: Result<Option<(f64, String)>>) -> Option<String> {
    match widest {
        Ok(Some((w, at))) if w * 100.0 <= pct => Some(format!(
            "--until-interval {pct}%: every ratio's interval is within it after round {round} (the widest, {:.1}%: {at}); stopping",
            w * 100.0
        )),
        Ok(None) => Some(format!(
            "--until-interval {pct}%: no ratio to narrow (one variant); stopping after round {round}"
        )),
        Ok(Some(_)) => None,
        Err(e) => Some(format!("--until-interval: cannot read the runs ({e:#}); stopping")),
    }
}

fn run(r: &CampaignRunArgs) -> Result<i32> {
    let a = &r.campaign;
    let (mut c, text) = load(a)?;
    // --until-interval: the file's repeats first (two at least, for an
    // interval), then rounds up to --max-rounds while a ratio is too wide.
    let min_rounds = c.repeat.max(2);
    if r.until_interval.is_some() {
        c.repeat = r.max_rounds.max(min_rounds);
    }
    // Validate every point's options before starting anything.
    for p in c.points() {
        point_plan(&c, &p)
            .with_context(|| format!("workload '{}' options", c.workloads[p.workload].name))?;
    }
    if let Some(ag) = c.agents.as_ref().filter(|a| a.drive()) {
        super::fleet_plan::agents_plan(
            &ag.spec(),
            &ag.token_file,
            ag.ca_file.as_deref(),
            Vec::new(),
        )
        .context("[agents]")?;
    }
    for s in 0..c.servers.len() {
        server_agent(&c, s)?;
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
    if let Some(pct) = r.until_interval {
        outln!(
            "--until-interval {pct}%: {min_rounds} to {} rounds, until every ratio to '{}' has a 95% interval within {pct}% of it",
            c.repeat,
            c.reference_variant()
        );
    }
    let external = |dsn: &str| {
        let args = ConnArgs {
            dsn: Some(dsn.to_string()),
            ..Default::default()
        };
        resolve(&args, "sbtest")
    };
    // `[agents]`: each point's agents greeted, checked and split anew,
    // shipped the point's own words.
    let config_for = |p: &Point, t: &Target| {
        let plan = point_plan(&c, p)?.with_server_agent(server_agent(&c, p.server)?);
        let cfg = plan.run_config(plan.single_threads()?, &t.opts)?;
        let fleet = match c.agents.as_ref().filter(|a| a.drive()) {
            Some(a) => {
                let fp = super::fleet_plan::agents_plan(
                    &a.spec(),
                    &a.token_file,
                    a.ca_file.as_deref(),
                    point_words(&c, p),
                )?;
                Some(super::agent::gather(&plan, &fp, &cfg, false, false)?)
            }
            None => None,
        };
        Ok((cfg, plan.monitor_for(t), plan.profile_for(t)?, fleet))
    };
    let dbt3 = |w: usize| -> Result<Option<std::sync::Arc<crate::workload::dbt3::Dbt3>>> {
        match c.points().iter().find(|p| p.workload == w) {
            Some(p) if crate::workload::dbt3::is_dbt3(&c.workloads[w].name) => {
                Ok(point_plan(&c, p)?.dbt3())
            }
            _ => Ok(None),
        }
    };
    let own_data = |w: usize| -> Result<Option<std::sync::Arc<dyn crate::workload::Family>>> {
        match c.points().iter().find(|p| p.workload == w) {
            Some(p) if crate::campaign::own_data(&c.workloads[w].name) => {
                Ok(Some(point_plan(&c, p)?.family().clone()))
            }
            _ => Ok(None),
        }
    };
    let reference = c.reference_variant().to_string();
    let widest = || -> Result<Option<(f64, String)>> {
        let mut runs = store.list_runs(&RunFilter {
            campaign: Some(id),
            status: Some("ok".into()),
            ..Default::default()
        })?;
        crate::analyze::counter_diff::leave_out_excluded(&mut runs);
        Ok(crate::analyze::widest_ratio_interval(&runs, &reference))
    };
    let until = |round: u32| -> Option<String> {
        let pct = r.until_interval?;
        (round >= min_rounds)
            .then(|| enough_rounds(pct, round, widest()))
            .flatten()
    };
    let run = CampaignRun {
        file: &c,
        store: &store,
        id,
        command_line: crate::secret::redacted_command_line(),
        keep_servers: r.keep_servers,
        require_quiet: r.require_quiet,
        until: Some(&until),
        dbt3: &dbt3,
        own_data: &own_data,
    };
    let out = run_campaign(
        &run,
        &pending,
        &external,
        config_for,
        |line| outln!("{line}"),
        &mut super::progress_lines::server_printer(),
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
    if let (Some(pct), Some((w, at))) = (r.until_interval, widest()?) {
        if w * 100.0 > pct {
            outln!(
                "--until-interval {pct}%: not reached after {} (the widest interval is {:.1}% of its ratio: {at})",
                crate::out::counted(c.repeat, "round"),
                w * 100.0
            );
        }
    }
    let runs = store.list_runs(&RunFilter {
        campaign: Some(id),
        status: Some("ok".into()),
        ..Default::default()
    })?;
    let mut runs = runs;
    if let Some(l) = crate::analyze::counter_diff::leave_out_excluded(&mut runs) {
        errln!("note: {l}");
    }
    out!("{}", campaign_end(&c, &runs, out.failed, out.degraded));
    out!(
        "{}",
        super::dbt3::campaign_ratios(&store, &runs, c.reference_variant(), false)?
    );
    out!(
        "{}",
        crate::report::campaign_text::host_characterisation(&host_runs(&store, id)?)
    );
    let diffs = crate::lab::variant_diffs(&store, &c, &runs)?;
    out!(
        "{}",
        crate::report::campaign_text::variant_variables(c.reference_variant(), &diffs)
    );
    Ok(match (out.failed, out.degraded) {
        (0, 0) => 0,
        (0, _) => 3,
        _ => 1,
    })
}

/// The campaign's host characterisation runs (`[host]`) with their
/// figures, oldest first.
fn host_runs(
    store: &crate::store::Store,
    id: i64,
) -> Result<Vec<(i64, crate::stats::document::HostTestBlock)>> {
    let rows = store.list_runs(&RunFilter {
        campaign: Some(id),
        status: Some("ok".into()),
        host_tests: true,
        ..Default::default()
    })?;
    let mut out = Vec::new();
    for r in rows
        .iter()
        .filter(|r| crate::store::HOST_TESTS.contains(&r.workload.as_str()))
    {
        if let Some(h) = store.run_detail(r.id)?.and_then(|d| d.host_test) {
            out.push((r.id, h));
        }
    }
    Ok(out)
}
