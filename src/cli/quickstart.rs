//! `quickstart`: a sandbox, its data and a short sweep in one command.

use super::args::{LoadArgs, QuickArgs};
use super::plan::{thread_list, LoadPlan};
use super::target::resolve;
use crate::campaign::{SweepDefinition, SWEEP_DEFINITION_VERSION};
use crate::lab::open_store;
use crate::report;
use crate::secret::redacted_command_line;
use crate::workload::Workload;
use anyhow::{bail, Context, Result};

/// The plan of one quickstart workload: its data's size, no interval lines.
fn plan_for(a: &QuickArgs, w: Workload) -> Result<LoadPlan> {
    let mut load = LoadArgs::from_words(&[
        w.name().into(),
        "--report-interval".into(),
        "0".into(),
        "--tables".into(),
        a.tables.to_string(),
        "--table-size".into(),
        a.table_size.to_string(),
    ])?;
    load.conn = a.conn.clone();
    load.time = a.time;
    LoadPlan::from_args(&load)
}

pub(super) fn quickstart(a: &QuickArgs) -> Result<i32> {
    let threads = thread_list(&a.threads)?;
    if a.tables == 0 || a.table_size == 0 {
        bail!("--tables and --table-size must be at least 1");
    }
    let workloads: Vec<Workload> = a
        .workloads
        .split(',')
        .map(|w| Workload::parse(w.trim()))
        .collect::<Result<_>>()?;
    let plans: Vec<(Workload, LoadPlan)> = workloads
        .iter()
        .map(|&w| Ok((w, plan_for(a, w)?)))
        .collect::<Result<_>>()?;
    let t = resolve(&a.conn, "sbtest")?;
    let store = open_store(a.store.path())?;
    outln!("Target: {}", t.describe());
    let data = plan_for(a, Workload::PointSelect)?.oltp()?;
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
        definition: SweepDefinition {
            version: SWEEP_DEFINITION_VERSION,
            workloads: Some(workloads.iter().map(|w| w.name().to_string()).collect()),
            threads: threads.clone(),
            time: a.time,
            tables: Some(o.tables),
            table_size: Some(o.table_size),
            command_line: redacted_command_line(),
            ..Default::default()
        },
        command_line: redacted_command_line(),
    };
    let config_for = |w: Workload, th: u32| {
        let Some((_, plan)) = plans.iter().find(|(pw, _)| *pw == w) else {
            bail!("{} is not among the quickstart's workloads", w.name());
        };
        Ok((plan.run_config(th, &t.opts)?, plan.monitor_for(&t)))
    };
    let mut rows = Vec::new();
    let out = crate::lab::quickstart(
        &plan,
        config_for,
        |w, th| errout!("running {} with {th} users for {} s... ", w.name(), a.time),
        |s| {
            errln!("{:.0} qps", s.figures.qps);
            let name = s.workload.name();
            rows.push(report::campaign_text::quick_row(
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
    let end = report::campaign_text::quickstart_end(campaign, written, t.sandbox.as_deref());
    out!("{end}");
    Ok(code)
}
