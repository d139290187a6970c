//! `qpslab campaign run|status|presets`: drives a campaign file's points
//! through sandboxes (or external servers), runs and the store. Resumable:
//! points with a finished run in the store are skipped.

use super::args::{CampaignArgs, CampaignCmd, ConnArgs, LoadArgs};
use super::commands::{run_config, thread_list};
use super::monitor_args::monitor_for;
use super::target::resolve;
use crate::campaign::{presets, value_text, CampaignFile, Point, Restart};
use crate::lab::{block_on, check, open_store, record_run, sandbox_target, RunTags, Target};
use crate::protocol::Conn;
use crate::server::{Profile, Sandbox};
use crate::stats::RunStatus;
use crate::store::{RunFilter, Store};
use crate::workload::{prepare, Oltp, Workload};
use anyhow::{bail, Context, Result};
use std::time::Duration;

pub fn campaign(cmd: CampaignCmd) -> Result<i32> {
    match cmd {
        CampaignCmd::Presets => {
            for (name, what, _) in presets::PRESETS {
                println!("{name:<14} {what}");
            }
            println!(
                "\nRun one with `qpslab campaign run --preset NAME [--threads 1,4,16 --time 10]`."
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
    if let Some(ws) = &a.workloads {
        let names: Vec<&str> = ws.split(',').map(str::trim).collect();
        for n in &names {
            Workload::parse(n)?;
        }
        c.workloads.retain(|w| {
            names
                .iter()
                .any(|n| Workload::parse(n).ok() == Workload::parse(&w.name).ok())
        });
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
    // The file may hold DSN passwords: they never reach the store.
    let id =
        store.find_or_create_campaign(&c.name, "campaign", &super::secret::redact_dsns(text))?;
    Ok((store, id))
}

fn describe(c: &CampaignFile, p: &Point) -> String {
    format!(
        "{} / {} / {} / {} threads / repeat {}",
        c.servers[p.server].label,
        c.variants[p.variant].name,
        c.workloads[p.workload].name,
        p.threads,
        p.repeat
    )
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
    let id = found
        .as_ref()
        .map_or("not started".to_string(), |(id, _)| format!("id {id}"));
    let done = found.map(|(_, d)| d).unwrap_or_default();
    let points = c.points();
    let mut t = crate::report::table::Table::new(&[
        "server", "variant", "workload", "threads", "repeat", "state",
    ]);
    for p in &points {
        t.push(vec![
            c.servers[p.server].label.clone(),
            c.variants[p.variant].name.clone(),
            c.workloads[p.workload].name.clone(),
            p.threads.to_string(),
            p.repeat.to_string(),
            match done.get(&p.hash) {
                Some(run) => format!("done (run {run})"),
                None => "pending".into(),
            },
        ]);
    }
    print!("{}", t.render(crate::report::table::Format::Text));
    let n_done = points.iter().filter(|p| done.contains_key(&p.hash)).count();
    println!(
        "\ncampaign '{}' ({id}): {} points, {n_done} done, {} pending",
        c.name,
        points.len(),
        points.len() - n_done
    );
    Ok(())
}

/// Makes the server of point `p` ready for its variant; returns the target.
fn setup_server(c: &CampaignFile, s: usize, v: usize, restart: bool) -> Result<Target> {
    let server = &c.servers[s];
    let variant = &c.variants[v];
    let Some(name) = c.sandbox_name(s) else {
        // An external server: variants are applied with SET GLOBAL and SQL.
        let args = ConnArgs {
            dsn: server.dsn.clone(),
            ..Default::default()
        };
        let t = resolve(&args, "sbtest")?;
        block_on(async {
            let mut conn = check(&t).await?;
            for (k, val) in &variant.set {
                let v = value_text(val);
                let lit = if v.parse::<f64>().is_ok() {
                    v
                } else {
                    format!("'{}'", v.replace('\'', "''"))
                };
                conn.exec(&format!("SET GLOBAL {k} = {lit}"))
                    .await
                    .with_context(|| format!("variant '{}': SET GLOBAL {k}", variant.name))?;
            }
            run_sql(&mut conn, &variant.sql, &variant.name).await?;
            conn.quit().await;
            Ok::<_, anyhow::Error>(())
        })??;
        ensure_data(c, &t)?;
        return Ok(t);
    };
    let mut sb = Sandbox::open_or_new(&name)?;
    let base_sets: Vec<(String, String)> = server
        .set
        .iter()
        .map(|(k, v)| (k.clone(), value_text(v)))
        .collect();
    let mut spec = sb.spec.clone();
    spec.basedir = match &server.basedir {
        Some(b) => Some(std::fs::canonicalize(b).with_context(|| {
            format!(
                "server '{}': basedir {} does not exist",
                server.label,
                b.display()
            )
        })?),
        None => None,
    };
    spec.profile = Profile::parse(server.profile.as_deref().unwrap_or("default"))?;
    spec.cpus = server.cpus.clone();
    spec.sets = base_sets.clone();
    let marker = sb.dir.join("template.json");
    let data_id = serde_json::json!({"tables": c.data.tables, "table_size": c.data.table_size, "basedir": spec.basedir}).to_string();
    let template_ok = sb.has_template()
        && std::fs::read_to_string(&marker).ok().as_deref() == Some(data_id.as_str());
    if !template_ok {
        println!("Preparing the data of '{}' once ({} x {} rows) and keeping it as a template datadir...", server.label, c.data.tables, c.data.table_size);
        sb.stop(Duration::from_secs(120))?;
        sb.spec = spec.clone();
        sb.start(Duration::from_secs(120))?;
        let t = sandbox_target(&sb, "sbtest")?;
        let data = Oltp::new(Workload::ReadWrite, data_opts(c)?, 1);
        crate::lab::cleanup(&t, &data, |_| {})?;
        load_data(&t, c)?;
        sb.stop(Duration::from_secs(300))?;
        sb.save_template()?;
        std::fs::write(&marker, &data_id)?;
    }
    spec.sets
        .extend(variant.set.iter().map(|(k, v)| (k.clone(), value_text(v))));
    if restart || spec != sb.spec || sb.running_pid().is_none() {
        sb.stop(Duration::from_secs(300))?;
        sb.spec = spec;
        if restart || !template_ok {
            sb.restore_template()?;
        }
        sb.start(Duration::from_secs(300))?;
    }
    let t = sandbox_target(&sb, "sbtest")?;
    block_on(async {
        let mut conn = check(&t).await?;
        run_sql(&mut conn, &variant.sql, &variant.name).await?;
        conn.quit().await;
        Ok::<_, anyhow::Error>(())
    })??;
    Ok(t)
}

async fn run_sql(conn: &mut Conn, sql: &[String], variant: &str) -> Result<()> {
    for q in sql {
        conn.exec(q)
            .await
            .with_context(|| format!("variant '{variant}': {q}"))?;
    }
    Ok(())
}

/// Loads a campaign's data: same seed every time, quiet, stops on Ctrl-C.
fn load_data(t: &Target, c: &CampaignFile) -> Result<()> {
    let data = Oltp::new(Workload::ReadWrite, data_opts(c)?, 1);
    crate::lab::prepare(t, &data, prepare::default_loaders(), true)?;
    Ok(())
}

/// External servers: prepare the tables when they are missing.
fn ensure_data(c: &CampaignFile, t: &Target) -> Result<()> {
    let data = Oltp::new(Workload::ReadWrite, data_opts(c)?, 1);
    if block_on(crate::lab::ready(t, &data))?.is_err() {
        load_data(t, c)?;
    }
    Ok(())
}

/// The workload options of a campaign's data (sysbench's defaults otherwise).
fn data_opts(c: &CampaignFile) -> Result<crate::workload::OltpOpts> {
    let words: Vec<String> = [
        "oltp_read_write",
        "--tables",
        &c.data.tables.to_string(),
        "--table-size",
        &c.data.table_size.to_string(),
    ]
    .iter()
    .map(|w| w.to_string())
    .collect();
    super::commands::oltp_opts(&LoadArgs::from_words(&words)?)
}

/// The run options of a point, as command-line words.
pub(super) fn point_words(c: &CampaignFile, p: &Point) -> Vec<String> {
    let w = &c.workloads[p.workload];
    let mut words = vec![
        w.name.clone(),
        "--tables".into(),
        c.data.tables.to_string(),
        "--table-size".into(),
        c.data.table_size.to_string(),
        "--threads".into(),
        p.threads.to_string(),
        "--time".into(),
        c.time.to_string(),
        "--warmup-time".into(),
        c.warmup.to_string(),
    ];
    for (k, v) in &w.options {
        words.push(format!("--{}", k.replace('_', "-")));
        words.push(value_text(v));
    }
    words
}

fn run(a: &CampaignArgs) -> Result<i32> {
    let (c, text) = load(a)?;
    // Validate every point's options before starting anything.
    for p in c.points() {
        LoadArgs::from_words(&point_words(&c, &p))
            .and_then(|l| super::commands::check_load_args(&l))
            .with_context(|| format!("workload '{}' options", c.workloads[p.workload].name))?;
    }
    let (store, id) = open(a, &c, &text)?;
    let _ctrl_c = crate::exec::Cooperative::enter();
    let done = store.done_points(id)?;
    let points = c.points();
    let pending: Vec<&Point> = points
        .iter()
        .filter(|p| !done.contains_key(&p.hash))
        .collect();
    println!(
        "Campaign '{}' (id {id}): {} points, {} done, {} to run, about {:.0} min.",
        c.name,
        points.len(),
        points.len() - pending.len(),
        pending.len(),
        pending.len() as f64 * (c.time + c.warmup + c.cooldown) / 60.0
    );
    let mut current: Option<(usize, usize)> = None;
    let mut target: Option<Target> = None;
    let (mut failed, mut degraded) = (0, 0);
    let mut code = 0;
    for (i, p) in pending.iter().enumerate() {
        if crate::exec::interrupted() {
            code = 130;
            break;
        }
        let switch = current != Some((p.server, p.variant));
        if switch || c.restart == Restart::Step || target.is_none() {
            let restart = c.restart != Restart::Never && (switch || c.restart == Restart::Step);
            target = Some(setup_server(&c, p.server, p.variant, restart)?);
            current = Some((p.server, p.variant));
        } else if i > 0
            && c.cooldown > 0.0
            && !crate::exec::sleep_unless_interrupted(Duration::from_secs_f64(c.cooldown))
        {
            code = 130;
            break;
        }
        let t = target.as_ref().context("no server")?;
        let load = LoadArgs::from_words(&point_words(&c, p))?;
        let cfg = run_config(&load, &t.opts)?;
        let env = block_on(crate::lab::ready(t, cfg.workload.as_ref()))??;
        let tags = RunTags {
            label: Some(c.servers[p.server].label.clone()),
            variant: Some(c.variants[p.variant].name.clone()),
            campaign_id: Some(id),
            point_hash: Some(p.hash.clone()),
            command_line: super::secret::redacted_command_line(),
        };
        let mon = monitor_for(&load, t)?;
        let rec = record_run(&store, &cfg, mon, &env, &tags)?;
        let (r, run_id) = (rec.result, rec.run_id);
        let qps = r.qps();
        let state = match &r.status {
            RunStatus::Ok => "ok".to_string(),
            RunStatus::Failed(m) => {
                failed += 1;
                format!("FAILED: {m}")
            }
            RunStatus::Degraded(m) => {
                degraded += 1;
                format!("DEGRADED: {m}")
            }
            RunStatus::Aborted(_) => {
                code = 130;
                "aborted".to_string()
            }
        };
        println!(
            "[{}/{}] {}: {qps:.0} qps, run {run_id} {state}",
            i + 1,
            pending.len(),
            describe(&c, p)
        );
        if code == 130 {
            break;
        }
    }
    if code == 130 {
        println!(
            "\nStopped. Rerun the same command to resume: finished points are kept and skipped."
        );
        return Ok(130);
    }
    let runs = store.list_runs(&RunFilter {
        campaign: Some(id),
        status: Some("ok".into()),
        ..Default::default()
    })?;
    print!(
        "\n{}",
        crate::report::analysis::scalability_table(&runs, crate::report::table::Format::Text)
    );
    if c.variants.len() > 1 {
        print!(
            "\n{}",
            crate::report::analysis::ratio_matrix(
                &runs,
                c.reference_variant(),
                crate::report::table::Format::Text
            )
        );
    }
    if failed + degraded > 0 {
        println!("\n{failed} point(s) failed, {degraded} degraded (left out of the tables); rerun to retry them.");
        return Ok(if failed > 0 { 1 } else { 3 });
    }
    Ok(0)
}
