//! What each command does, end to end.

use super::args::{
    parse_pct_list, AnalysisArgs, Cli, Cmd, CompareArgs, LoadArgs, QuickArgs, RunFormat, RunsArgs,
    SandboxArgs, ServerCmd, ShowArgs, SweepArgs,
};
use super::monitor_args::monitor_for;
use super::target::resolve;
use crate::analyze::compare::compare_runs as compare_runs_intervals;
use crate::analyze::run_figures::MonitorFigures;
use crate::lab::{block_on, open_store, read_store, ready, stored_run, RunTags};
use crate::report;
use crate::secret::redacted_command_line;
use crate::server::{render_profiles_help, Sandbox};
use crate::stats::{RunResult, RunStatus};
use crate::workload::Workload;
use anyhow::{bail, Context, Result};
use std::time::Duration;

/// Runs the command; returns the process exit code.
use super::load_config::{
    check_load_args, family, recording_store, run_config, script, seed, single_threads, thread_list,
};

pub fn dispatch(cli: Cli) -> Result<i32> {
    check_state_dir()?;
    match cli.cmd {
        Cmd::Server { cmd } => server(cmd).map(|_| 0),
        Cmd::Prepare(a) => cmd_prepare(&a).map(|_| 0),
        Cmd::Run(a) => cmd_run(&a),
        Cmd::Cleanup(a) => cmd_cleanup(&a).map(|_| 0),
        Cmd::Check(a) => super::tpcc::check(&a),
        Cmd::Command(c) => cmd_script_command(&c).map(|_| 0),
        Cmd::Help(h) => super::help_topics::help(&h).map(|_| 0),
        Cmd::Workloads => {
            out!("{}", report::sysbench::workloads_text());
            Ok(0)
        }
        Cmd::Quickstart(a) => quickstart(&a),
        Cmd::Runs(a) => cmd_runs(&a).map(|_| 0),
        Cmd::Sweep(a) => sweep(&a),
        Cmd::Scalability(a) => analysis(&a, None).map(|_| 0),
        Cmd::Best(a) => {
            let f = report::table::Format::from(a.format.format);
            out!("{}", report::analysis::best_table(&finished_runs(&a)?, f));
            Ok(0)
        }
        Cmd::Compare(a) => compare_runs(&a).map(|_| 0),
        Cmd::Ratio(a) => analysis(&a.filter, Some(&a)).map(|_| 0),
        Cmd::Campaign { cmd } => super::campaign::campaign(cmd),
        Cmd::Show(a) => cmd_show(&a).map(|_| 0),
        Cmd::Monitor(a) => super::live::monitor(&a),
        Cmd::Iostat(a) => super::live::iostat(&a),
        Cmd::Top(a) => super::live::top(&a),
        Cmd::Metrics(a) => super::live::metrics(&a).map(|_| 0),
        Cmd::Ui(a) => super::pages::ui(&a).map(|_| 0),
        Cmd::Report(a) => super::pages::report(&a).map(|_| 0),
        Cmd::Profile(a) => super::profile::profile(&a),
        Cmd::Flamegraph(a) => super::profile::flamegraph(&a).map(|_| 0),
        Cmd::Chart(a) => super::pages::chart(&a).map(|_| 0),
    }
}

/// A sandbox that exists, or an error saying how to list them.
fn existing(name: &str) -> Result<Sandbox> {
    Sandbox::open(name)?
        .with_context(|| format!("no sandbox named '{name}' (see `qpslab server list`)"))
}

fn server(cmd: ServerCmd) -> Result<()> {
    match cmd {
        ServerCmd::Start(a) => server_start(&a),
        ServerCmd::Stop(n) => {
            let sb = existing(&n.name)?;
            if sb.stop(Duration::from_secs(120))? {
                outln!("sandbox '{}' stopped", n.name);
            } else {
                outln!("sandbox '{}' was not running", n.name);
            }
            Ok(())
        }
        ServerCmd::Status(n) => {
            let sb = existing(&n.name)?;
            outln!("{}\n{}", sb.describe(), sb.paths());
            Ok(())
        }
        ServerCmd::List => {
            let all = Sandbox::list()?;
            if all.is_empty() {
                outln!(
                    "no sandboxes (state directory {})",
                    crate::server::state_dir().display()
                );
            }
            for sb in all {
                outln!("{}", sb.describe());
            }
            Ok(())
        }
        ServerCmd::Destroy(n) => {
            let sb = existing(&n.name)?;
            sb.destroy()?;
            outln!("sandbox '{}' destroyed", n.name);
            Ok(())
        }
        ServerCmd::Profiles => {
            out!("{}", render_profiles_help());
            Ok(())
        }
        ServerCmd::Get(g) => {
            let b = crate::server::BuildName::parse(&g.name)?;
            let tree = crate::server::get(
                &b,
                &crate::server::GetOptions {
                    from: g.from.clone(),
                    url: g.url.clone(),
                    checksum: g.checksum.clone(),
                    force: g.force,
                },
                &mut super::progress::server_printer(),
            )?;
            errln!(
                "{} is ready: qpslab server start --name NAME --version {}",
                b.name(),
                b.name()
            );
            outln!("{}", tree.display());
            Ok(())
        }
        ServerCmd::Builds => {
            let cached = crate::server::list_cached();
            outln!(
                "fetched (in {}):",
                crate::server::state_dir().join("servers").display()
            );
            if cached.is_empty() {
                outln!("  none");
            }
            for (name, dir, source) in &cached {
                outln!("  {name:<22} {}  ({source})", dir.display());
            }
            outln!("on Maven Central (qpslab server get NAME):");
            for n in crate::server::maven_names() {
                outln!("  {n}");
            }
            outln!("other versions: qpslab server get FLAVOR-VERSION [--checksum ALGO:HEX | --from FILE] from the official tarballs");
            Ok(())
        }
    }
}

fn server_start(a: &SandboxArgs) -> Result<()> {
    let mut change = crate::lab::SandboxChange {
        profile: a.profile.clone(),
        cpus: a.cpus.clone(),
        ..Default::default()
    };
    if let Some(b) = &a.basedir {
        change.basedir = Some(
            std::fs::canonicalize(b)
                .with_context(|| format!("--basedir {} does not exist", b.display()))?,
        );
    }
    if let Some(v) = &a.version {
        change.basedir = Some(crate::server::build_tree(
            v,
            &mut super::progress::server_printer(),
        )?);
    }
    for s in &a.sets {
        let Some((k, v)) = s.split_once('=') else {
            bail!("--set '{s}' is not VAR=VALUE; e.g. --set innodb_buffer_pool_size=2G");
        };
        change
            .sets
            .push((k.trim().to_string(), v.trim().to_string()));
    }
    let sb = crate::lab::start_sandbox(
        &a.name,
        &change,
        Duration::from_secs(a.timeout),
        &mut super::progress::server_printer(),
    )?;
    outln!("{}", sb.describe());
    Ok(())
}

fn cmd_prepare(a: &LoadArgs) -> Result<()> {
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

fn cmd_script_command(c: &super::args::ScriptCommandArgs) -> Result<()> {
    let Some(script) = script(&c.load, seed(c.load.rand_seed))? else {
        bail!(
            "'{}' is not a qpslab command, and {} is not a sysbench script that could define it (see qpslab --help)",
            c.name,
            c.load.workload
        );
    };
    script_command(&c.load, &script, &c.name)
}

fn cmd_cleanup(a: &LoadArgs) -> Result<()> {
    if let Some(script) = script(a, seed(a.rand_seed))? {
        return script_command(a, &script, "cleanup");
    }
    let family = super::load_config::workload_family(a, seed(a.rand_seed))?;
    let t = resolve(&a.conn, "sbtest")?;
    crate::lab::cleanup(&t, family.as_ref(), |table| {
        outln!("Dropping table '{table}'...")
    })
}

fn cmd_run(a: &LoadArgs) -> Result<i32> {
    // Validate everything that does not need the server first.
    check_load_args(a)?;
    single_threads(a)?;
    if a.time == 0.0 && a.events == 0 && a.rate == 0.0 {
        errln!("note: no --time and no --events: running until Ctrl-C");
    }
    let t = resolve(&a.conn, "sbtest")?;
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
        out!("{}", report::sysbench::run_header(&cfg, a.report_interval));
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
        let mut doc = crate::lab::run_document(&cfg, &run, &pcts, &redacted_command_line());
        if let Some(p) = &run.profile {
            doc["profile"] = crate::lab::profile_json(p);
        }
        outln!("{}", serde_json::to_string_pretty(&doc)?);
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

/// The state directory, when it exists, must be a directory: said once
/// here, with its path, rather than as a bare "Not a directory" from
/// whichever command first creates something in it.
fn check_state_dir() -> Result<()> {
    let dir = crate::server::state_dir();
    if dir.exists() && !dir.is_dir() {
        let from = if std::env::var_os("QPSLAB_HOME").is_some_and(|h| !h.is_empty()) {
            "QPSLAB_HOME"
        } else {
            "the state directory"
        };
        bail!(
            "{from} {} is not a directory: point QPSLAB_HOME at a directory (it is created if missing)",
            dir.display()
        );
    }
    Ok(())
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

/// One step per concurrency (and repeat), each stored as a run of one
/// campaign (lab::sweep), then the scalability table (medians over repeats).
/// `sweep W1,W2,…`: each workload swept in turn, all in one campaign
/// (its page charts them together); one workload is a sweep of its own.
fn sweep(a: &SweepArgs) -> Result<i32> {
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
    let definition = serde_json::json!({
        "workloads": names, "threads": thread_list(&load.threads)?, "repeat": a.repeat,
        "time": load.time, "warmup_time": load.warmup(), "cooldown": a.cooldown,
        "command_line": redacted_command_line(),
    });
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
    let mut first = l.clone();
    first.threads = threads[0].to_string();
    let cfg0 = run_config(&first, &t.opts)?;
    let name = cfg0.workload.name().to_string();
    let env = block_on(ready(&t, cfg0.workload.as_ref()))??;
    let store = open_store(l.record.store.path())?;
    let definition = serde_json::json!({
        "workload": name.as_str(), "threads": threads, "repeat": a.repeat, "time": l.time,
        "warmup_time": l.warmup(), "cooldown": a.cooldown, "command_line": redacted_command_line(),
    });
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

/// The finished ("ok") runs an analysis reads.
/// The finished runs an analysis reads; runs of other workload options
/// are kept apart, and what was pooled is said (on stderr, so tables stay
/// machine-readable).
fn finished_runs(a: &AnalysisArgs) -> Result<Vec<crate::store::RunRow>> {
    let mut runs = read_store(a.store.path())?.list_runs(&a.select.filter(Some("ok"), None))?;
    if runs.is_empty() {
        bail!("no finished runs match; see `qpslab runs`");
    }
    if let Some(pooled) = crate::analyze::keep_apart(&mut runs) {
        errln!("note: {pooled}");
    }
    Ok(runs)
}

/// `scalability` (ratio = None) and `ratio` over the stored ok runs.
fn analysis(a: &AnalysisArgs, ratio: Option<&super::args::RatioArgs>) -> Result<()> {
    let f = report::table::Format::from(a.format.format);
    let mut runs = finished_runs(a)?;
    match ratio {
        None => out!("{}", report::analysis::scalability_table(&runs, f)),
        Some(r) => {
            let pair = (r.a.as_deref(), r.b.as_deref());
            let reference = crate::analyze::ratio_runs(&mut runs, pair, r.reference.clone())
                .map_err(anyhow::Error::msg)?;
            let out = report::analysis::ratio_matrix_as(&runs, &reference, r.slowdown, f);
            if out.trim().is_empty() || out.trim() == "[]" {
                bail!("no runs of '{reference}' to compare with");
            }
            out!("{out}");
        }
    }
    Ok(())
}

fn compare_runs(a: &CompareArgs) -> Result<()> {
    let store = read_store(a.store.path())?;
    let (da, db) = (stored_run(&store, a.run_a)?, stored_run(&store, a.run_b)?);
    let (cq, ct) = compare_runs_intervals(&da, &db).map_err(anyhow::Error::msg)?;
    let f = report::table::Format::from(a.format.format);
    let qps = |id: i64| -> Result<Vec<f64>> {
        Ok(store.repeats_of(id)?.iter().filter_map(|r| r.qps).collect())
    };
    let (ra, rb) = (qps(a.run_a)?, qps(a.run_b)?);
    let ctx = report::analysis::ComparisonContext {
        across_repeats: crate::analyze::spread::ratio(&rb, &ra).filter(|c| c.lo.is_some()),
        differences: crate::analyze::compare::differences(&da, &db),
    };
    out!(
        "{}",
        report::analysis::run_comparison(&da, &db, (&cq, &ct), &ctx, f)
    );
    Ok(())
}

fn cmd_runs(a: &RunsArgs) -> Result<()> {
    let store = read_store(a.store.path())?;
    let f = report::table::Format::from(a.format.format);
    let rows = store.list_runs(&a.select.filter(a.status.as_deref(), a.limit))?;
    out!("{}", report::runs::runs_table(&rows, f));
    Ok(())
}

fn cmd_show(a: &ShowArgs) -> Result<()> {
    let store = read_store(a.store.path())?;
    let f = report::table::Format::from(a.format.format);
    let d = stored_run(&store, a.run)?;
    out!("{}", report::runs::show(&d, f));
    if f == report::table::Format::Text {
        if let Some(m) = MonitorFigures::load(&store, a.run)?.filter(|m| m.bottleneck.is_some()) {
            out!("{}", report::monitor::run_text(&m));
        }
    }
    Ok(())
}

fn quickstart(a: &QuickArgs) -> Result<i32> {
    let threads = thread_list(&a.threads)?;
    if a.tables == 0 || a.table_size == 0 {
        bail!("--tables and --table-size must be at least 1");
    }
    let workloads: Vec<Workload> = a
        .workloads
        .split(',')
        .map(|w| Workload::parse(w.trim()))
        .collect::<Result<_>>()?;
    let t = resolve(&a.conn, "sbtest")?;
    let store = open_store(a.store.path())?;
    outln!("Target: {}", t.describe());
    let mut load = LoadArgs::from_words(&[
        "oltp_point_select".into(),
        "--report-interval".into(),
        "0".into(),
        "--tables".into(),
        a.tables.to_string(),
        "--table-size".into(),
        a.table_size.to_string(),
    ])?;
    load.conn = a.conn.clone();
    load.time = a.time;
    let data = family(&load)?;
    let o = data.opts();
    outln!("Preparing {} tables x {} rows...", o.tables, o.table_size);
    let rep = crate::lab::fresh_data(&t, &data)?;
    outln!(
        "prepared in {:.1} s ({:.0} rows/s)\n",
        rep.seconds,
        rep.rows as f64 / rep.seconds.max(1e-9)
    );
    let plan = crate::lab::QuickPlan {
        target: &t,
        store: &store,
        workloads: &workloads,
        threads: &threads,
        definition: serde_json::json!({"workloads": a.workloads, "threads": threads, "time": a.time,
            "tables": o.tables, "table_size": o.table_size, "command_line": redacted_command_line()}),
        command_line: redacted_command_line(),
    };
    let config_for = |w: Workload, th: u32| {
        let mut step = load.clone();
        step.workload = w.name().to_string();
        step.threads = th.to_string();
        Ok((run_config(&step, &t.opts)?, monitor_for(&step, &t)?))
    };
    let mut rows = Vec::new();
    let out = crate::lab::quickstart(
        &plan,
        config_for,
        |w, th| errout!("running {} with {th} users for {} s... ", w.name(), a.time),
        |s| {
            errln!("{:.0} qps", s.figures.qps);
            let name = s.workload.name();
            rows.push(report::campaign::quick_row(
                name, s.threads, &s.figures, s.status,
            ));
        },
    )?;
    let (campaign, code) = (out.campaign, out.code);
    if code == 130 {
        outln!("\n{}", report::table::render(&rows));
        return Ok(130);
    }
    outln!("\n{}", report::table::render(&rows));
    let reports = crate::server::state_dir().join("reports");
    std::fs::create_dir_all(&reports)
        .with_context(|| format!("cannot create {}", reports.display()))?;
    let file = reports.join(format!("quickstart-{campaign}.html"));
    let html = crate::ui::campaign_page(&store, campaign, crate::ui::Mode::Report)?;
    if let Some(html) = &html {
        std::fs::write(&file, html).with_context(|| format!("cannot write {}", file.display()))?;
    }
    let written = html.is_some().then_some(file.as_path());
    let end = report::campaign::quickstart_end(campaign, written, t.sandbox.as_deref());
    out!("{end}");
    Ok(code)
}
