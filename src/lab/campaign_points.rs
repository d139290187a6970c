//! Running a campaign's points: each point's server made ready for its
//! variant (sandboxes from a template datadir with the campaign's data,
//! external servers by SQL), cooldowns, each point recorded under the
//! campaign. What a campaign is (file, points, identities) is `campaign`'s;
//! reading the file and printing is cli's.

use super::host_characterisation::{characterise, Keep};
use super::run::{record_step, Recorded};
use super::runtime::block_on;
use super::tags::RunTags;
use super::target::{check, sandbox_target, Target};
use crate::campaign::{value_text, CampaignFile, Point, Restart};
use crate::protocol::Conn;
use crate::server::{CnfPreset, Sandbox};
use crate::stats::RunStatus;
use crate::store::Store;
use crate::workload::dbt3::Dbt3;
use crate::workload::prepare::default_loaders;
use crate::workload::tpcc::{is_tpcc, Tpcc, TpccOpts};
use crate::workload::{Family, Oltp, OltpOpts, Workload};
use anyhow::{Context, Result};
use std::sync::Arc;
use std::time::Duration;

/// A campaign being run: its file, and its row in the store.
pub struct CampaignRun<'a> {
    /// The parsed campaign file.
    pub file: &'a CampaignFile,
    /// Where its runs are recorded.
    pub store: &'a Store,
    /// The campaign's row in the store.
    pub id: i64,
    /// The command line as it may be recorded (secrets removed).
    pub command_line: String,
    /// Leave the sandboxes the campaign started running at its end.
    pub keep_servers: bool,
    /// Wait (bounded) for a quiet host before each round: see
    /// [`QUIET_TRIES`].
    pub require_quiet: bool,
    /// Asked when a round ends (its number): a reason to stop here, or
    /// None to go on (`--until-interval`: every ratio narrow enough).
    pub until: Option<&'a dyn Fn(u32) -> Option<String>>,
    /// The DBT3 family of a workload (by its index in the file), None
    /// for the other workloads: its data is prepared with the others',
    /// and its points run through DBT3's own driver.
    pub dbt3: &'a dyn Fn(usize) -> Result<Option<Arc<Dbt3>>>,
    /// The family of a workload whose tables come from its own options
    /// (dbSTRESS, the insert benchmark: `campaign::own_data`), None for
    /// the others: prepared with the campaign's other data.
    pub own_data: &'a dyn Fn(usize) -> Result<Option<Arc<dyn Family>>>,
}

/// Pre-flight checks a round waits through for a quiet host with
/// `require_quiet`, [`QUIET_WAIT`] apart, before it runs anyway (noted).
pub const QUIET_TRIES: u32 = 6;
/// The pause between two of those checks.
pub const QUIET_WAIT: Duration = Duration::from_secs(10);

/// The campaign's row in the store, created on its first run; `text` is
/// the file as read (its DSN passwords never reach the store).
pub fn open_campaign(store: &Store, c: &CampaignFile, text: &str) -> Result<i64> {
    store.find_or_create_campaign(&c.name, "campaign", &crate::secret::redact_dsns(text))
}

/// Held while a campaign runs: an exclusive lock on a file beside the
/// store (`<store>.campaign-<id>.lock`, holding the runner's pid). The
/// kernel drops the lock when the process ends, however it ends, so a
/// crashed run never leaves the campaign locked.
pub struct CampaignLock {
    _file: std::fs::File,
}

/// Takes the campaign's lock, or says who holds it: two processes running
/// the same campaign would run every point twice and restart each other's
/// sandboxes.
pub fn lock_campaign(store: &Store, id: i64, name: &str) -> Result<CampaignLock> {
    use std::io::{Read, Seek, Write};
    let mut path = store.path().as_os_str().to_owned();
    path.push(format!(".campaign-{id}.lock"));
    let path = std::path::PathBuf::from(path);
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("cannot open the campaign's lock file {}", path.display()))?;
    match f.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = f.read_to_string(&mut holder);
            let holder = holder.trim();
            anyhow::bail!(
                "campaign '{name}' is already running (pid {}); wait for it to end, or stop it, then run this again (it resumes)",
                if holder.is_empty() { "unknown" } else { holder }
            );
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(e).with_context(|| format!("cannot lock {}", path.display()));
        }
    }
    f.set_len(0)
        .and_then(|_| f.rewind())
        .and_then(|_| write!(f, "{}", std::process::id()))
        .and_then(|_| f.flush())
        .with_context(|| format!("cannot write the campaign's lock file {}", path.display()))?;
    Ok(CampaignLock { _file: f })
}

/// How a campaign run ended.
pub struct CampaignOutcome {
    /// 0, or 130 when Ctrl-C stopped it (finished points are kept).
    pub code: i32,
    pub failed: usize,
    pub degraded: usize,
}

/// Runs the points of `r` not done yet, in order: the server of each point
/// set up for its variant (sandboxes restarted from the template datadir as
/// `restart` says, external servers given `SET GLOBAL`s and SQL), cooldowns
/// between points, each point recorded. `external` resolves an external
/// server's DSN; `config_for` says how a point runs; `say` gets progress
/// lines, `server` the sandboxes' and builds' progress, `done` each
/// recorded point with its position among `pending`.
pub fn run_campaign(
    r: &CampaignRun,
    pending: &[&Point],
    external: &dyn Fn(&str) -> Result<Target>,
    config_for: impl Fn(&Point, &Target) -> Result<super::StepRun>,
    mut say: impl FnMut(&str),
    server: &mut dyn FnMut(crate::server::Progress),
    mut done: impl FnMut(usize, &Point, &Recorded),
) -> Result<CampaignOutcome> {
    let mut started = Vec::new();
    let hooks = Hooks {
        external,
        config_for: &config_for,
        say: &mut say,
        server,
        done: &mut done,
    };
    let out = run_points(r, pending, hooks, &mut started);
    if !r.keep_servers {
        for name in &started {
            let stopped = Sandbox::open(name).and_then(|sb| match sb {
                Some(sb) => sb.stop(Duration::from_secs(300)),
                None => Ok(false),
            });
            match stopped {
                Ok(true) => say(&format!("Stopped sandbox '{name}' (--keep-servers leaves the campaign's sandboxes running).")),
                Ok(false) => {}
                Err(e) => say(&format!("note: could not stop sandbox '{name}': {e:#}")),
            }
        }
    }
    out
}

/// How a point runs: run_campaign's callbacks, passed on.
type PointConfig = Result<super::StepRun>;
struct Hooks<'a> {
    external: &'a dyn Fn(&str) -> Result<Target>,
    config_for: &'a dyn Fn(&Point, &Target) -> PointConfig,
    say: &'a mut dyn FnMut(&str),
    server: &'a mut dyn FnMut(crate::server::Progress),
    done: &'a mut dyn FnMut(usize, &Point, &Recorded),
}

/// The points in order; `started` collects the sandboxes (re)started.
fn run_points(
    r: &CampaignRun,
    pending: &[&Point],
    h: Hooks,
    started: &mut Vec<String>,
) -> Result<CampaignOutcome> {
    let Hooks {
        external,
        config_for,
        say,
        server,
        done,
    } = h;
    let c = r.file;
    let families = data(c, r.dbt3, r.own_data)?;
    let _ctrl_c = crate::exec::Cooperative::enter();
    let mut current: Option<(usize, usize)> = None;
    // Before each round of repeats: how quiet the host is.
    let mut round = 0;
    let mut preflight: Option<crate::stats::document::Preflight> = None;
    let mut target: Option<Target> = None;
    let mut characterised = false;
    let mut out = CampaignOutcome {
        code: 0,
        failed: 0,
        degraded: 0,
    };
    for (i, p) in pending.iter().enumerate() {
        if crate::exec::interrupted() {
            out.code = 130;
            break;
        }
        if p.repeat != round {
            if let Some(why) = (round > 0)
                .then_some(r.until)
                .flatten()
                .and_then(|f| f(round))
            {
                say(&why);
                break;
            }
            round = p.repeat;
            let mut v = super::preflight::host_noise();
            say(&super::preflight::describe(round, &v));
            let mut tries = 1;
            while r.require_quiet && super::preflight::noisy(&v) && tries < QUIET_TRIES {
                say(&format!(
                    "--require-quiet: waiting {} s for the host to quiet down (check {} of {QUIET_TRIES})",
                    QUIET_WAIT.as_secs(),
                    tries + 1
                ));
                if !crate::exec::sleep_unless_interrupted(QUIET_WAIT) {
                    out.code = 130;
                    return Ok(out);
                }
                v = super::preflight::host_noise();
                say(&super::preflight::describe(round, &v));
                tries += 1;
            }
            if r.require_quiet && super::preflight::noisy(&v) {
                say(&format!(
                    "--require-quiet: the host did not quiet down in {QUIET_TRIES} checks; round {round} runs anyway, its pre-flight kept with each run"
                ));
            }
            preflight = Some(v);
        }
        let switch = current != Some((p.server, p.variant));
        if switch || c.restart == Restart::Step || target.is_none() {
            let restart = c.restart != Restart::Never && (switch || c.restart == Restart::Step);
            target = Some(setup_server(
                c,
                p.server,
                p.variant,
                restart,
                (external, &families),
                (say, server),
                started,
            )?);
            current = Some((p.server, p.variant));
        } else if i > 0
            && c.cooldown > 0.0
            && !crate::exec::sleep_unless_interrupted(Duration::from_secs_f64(c.cooldown))
        {
            out.code = 130;
            break;
        }
        if let (false, Some(h)) = (characterised, &c.host) {
            characterised = true;
            let dir = host_dir(c, p.server)?;
            let keep = Keep {
                store: r.store,
                id: r.id,
            };
            if !characterise(h, &keep, &dir, say)? {
                out.code = 130;
                break;
            }
        }
        let t = target.as_ref().context("no server")?;
        let tags = RunTags {
            label: Some(c.servers[p.server].label.clone()),
            variant: Some(c.variants[p.variant].name.clone()),
            campaign_id: Some(r.id),
            point_hash: Some(p.hash.clone()),
            command_line: r.command_line.clone(),
            preflight: preflight.clone(),
        };
        let rec = match (r.dbt3)(p.workload)? {
            Some(f) => super::dbt3_record::dbt3_point(r.store, t, &f, &tags)?,
            None => {
                let (cfg, mon, profile, agents) = config_for(p, t)?;
                let env = block_on(super::data::ready(t, cfg.workload.as_ref()))??;
                let step = (&cfg, mon, profile.as_ref(), agents.as_ref());
                record_step(r.store, step, &env, &tags)?
            }
        };
        match &rec.result.status {
            RunStatus::Ok => {}
            RunStatus::Failed(_) => out.failed += 1,
            RunStatus::Degraded(_) => out.degraded += 1,
            RunStatus::Aborted(_) => out.code = 130,
        }
        done(i, p, &rec);
        if out.code == 130 {
            break;
        }
    }
    Ok(out)
}

/// Where the host characterisation's fileio writes: `[host] dir`, else
/// beside server `s`'s datadir (the filesystem the server writes on),
/// else (an external server) the state directory.
fn host_dir(c: &CampaignFile, s: usize) -> Result<std::path::PathBuf> {
    if let Some(d) = c.host.as_ref().and_then(|h| h.dir.clone()) {
        return Ok(d);
    }
    let datadir = match c.sandbox_name(s) {
        Some(name) => Sandbox::open(&name)?.map(|sb| sb.datadir()),
        None => None,
    };
    Ok(datadir
        .and_then(|d| d.parent().map(std::path::Path::to_path_buf))
        .unwrap_or_else(crate::server::state_dir))
}

/// Where setup_server's progress goes: lines, and the sandboxes' and
/// builds' events.
type Tell<'a, 'b> = (
    &'a mut dyn FnMut(&str),
    &'b mut dyn FnMut(crate::server::Progress),
);

/// Where setup_server's servers and data come from: an external server's
/// target by its DSN, and the families whose data the points need.
type Sources<'a, 'b> = (&'a dyn Fn(&str) -> Result<Target>, &'b [Arc<dyn Family>]);

/// Makes the server of point `p` ready for its variant; returns the target.
fn setup_server(
    c: &CampaignFile,
    s: usize,
    v: usize,
    restart: bool,
    (external, families): Sources,
    (say, progress): Tell,
    started: &mut Vec<String>,
) -> Result<Target> {
    let server = &c.servers[s];
    let variant = &c.variants[v];
    let Some(name) = c.sandbox_name(s) else {
        // An external server: variants are applied with SET GLOBAL and SQL.
        let t = external(server.dsn.as_deref().unwrap_or_default())?;
        block_on(async {
            let mut conn = check(&t).await?;
            for (k, val) in &variant.set {
                let v = value_text(val);
                let lit = if v.parse::<f64>().is_ok() {
                    v
                } else {
                    crate::protocol::string_literal(&v)
                };
                conn.exec(&format!("SET GLOBAL {k} = {lit}"))
                    .await
                    .with_context(|| format!("variant '{}': SET GLOBAL {k}", variant.name))?;
            }
            run_sql(&mut conn, &variant.sql, &variant.name).await?;
            conn.quit().await;
            Ok::<_, anyhow::Error>(())
        })??;
        ensure_data(families, &t)?;
        return Ok(t);
    };
    let mut sb = Sandbox::open_or_new(&name)?;
    let base_sets: Vec<(String, String)> = server
        .set
        .iter()
        .map(|(k, v)| (k.clone(), value_text(v)))
        .collect();
    let mut spec = sb.spec.clone();
    spec.basedir = match (&server.basedir, &server.version) {
        (Some(b), _) => Some(std::fs::canonicalize(b).with_context(|| {
            format!(
                "server '{}': basedir {} does not exist",
                server.label,
                b.display()
            )
        })?),
        (None, Some(v)) => Some(
            crate::server::build_tree(v, progress)
                .with_context(|| format!("server '{}'", server.label))?,
        ),
        (None, None) => None,
    };
    spec.preset = CnfPreset::parse(server.preset.as_deref().unwrap_or("default"))?;
    spec.cpus = server.cpus.clone();
    spec.sets = base_sets.clone();
    let marker = sb.dir.join("template.json");
    let mut data_id = serde_json::json!({"tables": c.data.tables, "table_size": c.data.table_size,
        "warehouses": c.data.warehouses, "basedir": spec.basedir});
    let dbt3: Vec<&str> = families
        .iter()
        .map(|f| f.name())
        .filter(|n| n.starts_with(crate::workload::dbt3::NAME))
        .collect();
    if !dbt3.is_empty() {
        data_id["dbt3"] = serde_json::json!(dbt3);
    }
    // The workloads that size their own tables, with the options that do.
    let own: Vec<_> = c
        .workloads
        .iter()
        .filter(|w| crate::campaign::own_data(&w.name))
        .map(|w| serde_json::json!([w.name, w.options]))
        .collect();
    if !own.is_empty() {
        data_id["own"] = serde_json::json!(own);
    }
    let data_id = data_id.to_string();
    let template_ok = sb.has_template()
        && std::fs::read_to_string(&marker).ok().as_deref() == Some(data_id.as_str());
    if !template_ok {
        say(&format!("Preparing the data of '{}' once ({} x {} rows) and keeping it as a template datadir...", server.label, c.data.tables, c.data.table_size));
        sb.stop(Duration::from_secs(120))?;
        sb.spec = spec.clone();
        sb.start(Duration::from_secs(120), progress)?;
        let t = sandbox_target(&sb, "sbtest")?;
        for f in families {
            super::data::cleanup(&t, f.as_ref(), |_| {})?;
        }
        load_data(&t, families)?;
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
        sb.start(Duration::from_secs(300), progress)?;
        if !started.contains(&name) {
            started.push(name.clone());
        }
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
fn load_data(t: &Target, families: &[Arc<dyn Family>]) -> Result<()> {
    for f in families {
        super::data::prepare(t, f.as_ref(), default_loaders(), &mut |_| {})?;
    }
    Ok(())
}

/// External servers: prepare the tables when they are missing.
fn ensure_data(families: &[Arc<dyn Family>], t: &Target) -> Result<()> {
    for f in families {
        if block_on(super::data::ready(t, f.as_ref()))?.is_err() {
            super::data::prepare(t, f.as_ref(), default_loaders(), &mut |_| {})?;
        }
    }
    Ok(())
}

/// A campaign's data: the oltp tables (sysbench's defaults otherwise)
/// when a workload other than tpcc and linkbench needs them, TPC-C's
/// warehouses and LinkBench's graph when [data] asks for them, DBT3's
/// tables at each scale its workloads name (`dbt3` says which family a
/// workload index is), and the tables of the workloads that size their
/// own (`own_data`: dbSTRESS, the insert benchmark).
fn data(
    c: &CampaignFile,
    dbt3: &dyn Fn(usize) -> Result<Option<Arc<Dbt3>>>,
    own_data: &dyn Fn(usize) -> Result<Option<Arc<dyn Family>>>,
) -> Result<Vec<Arc<dyn Family>>> {
    let mut v: Vec<Arc<dyn Family>> = Vec::new();
    let linkbench = crate::workload::linkbench::is_linkbench;
    let is_dbt3 = crate::workload::dbt3::is_dbt3;
    let own = crate::campaign::own_data;
    if c.workloads
        .iter()
        .any(|w| !is_tpcc(&w.name) && !linkbench(&w.name) && !is_dbt3(&w.name) && !own(&w.name))
    {
        let o = OltpOpts {
            tables: c.data.tables,
            table_size: c.data.table_size,
            ..Default::default()
        };
        v.push(Arc::new(Oltp::new(Workload::ReadWrite, o, 1)));
    }
    if c.data.warehouses > 0 {
        let o = TpccOpts {
            warehouses: c.data.warehouses,
            tables: 1,
            storage_engine: "InnoDB".into(),
            table_options: String::new(),
            isolation: String::new(),
            keying: false,
            procedures: false,
        };
        v.push(Arc::new(Tpcc::new(o, 1)));
    }
    if c.data.maxid1 > 0 {
        if let Ok(o) = crate::workload::linkbench::LinkBenchOpts::with_maxid1(c.data.maxid1) {
            v.push(Arc::new(crate::workload::linkbench::LinkBench::new(o, 1)));
        }
    }
    for i in 0..c.workloads.len() {
        if let Some(f) = dbt3(i)? {
            if !v.iter().any(|x| x.name() == f.name()) {
                v.push(f);
            }
        }
        if let Some(f) = own_data(i)? {
            let tables = f.required_tables();
            let shares =
                |x: &Arc<dyn Family>| x.required_tables().iter().any(|t| tables.contains(t));
            match v.iter().find(|x| shares(x)) {
                None => v.push(f),
                Some(x) if x.prepare_command() == f.prepare_command() => {}
                // One data set per set of tables: a second size would run
                // the first's points on the second's data.
                Some(x) => anyhow::bail!(
                    "campaign: {} and {} share tables but size them differently (`{}` and `{}`): give both entries the same data options, or run them in two campaigns",
                    x.name(),
                    f.name(),
                    x.prepare_command(),
                    f.prepare_command()
                ),
            }
        }
    }
    Ok(v)
}
