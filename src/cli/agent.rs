//! `qpslab agent` and the cli's half of `run … --agents`: the agent's
//! options become lab's `AgentCore` (with the builder that parses shipped
//! workload words as `qpslab run` does), served by ui/agent_api.rs; a
//! run's fleet is gathered (a script's text with its digest, the
//! offsets printed). The options themselves are fleet_plan.rs's.

use super::args::{AgentArgs, LoadArgs};
use super::fleet_plan::read_token;
use super::plan::LoadPlan;
use crate::exec::RunConfig;
use crate::lab::agent::wire::Work;
use crate::lab::agent::{AgentCore, FleetPlan};
use crate::protocol::ConnOpts;
use anyhow::{anyhow, bail, Result};
use std::sync::Arc;

/// `qpslab agent`: serves until killed.
pub(super) fn agent(a: &AgentArgs) -> Result<i32> {
    let token = read_token(&a.token_file, "--token-file")?;
    let addr = crate::ui::metrics_endpoint::parse_listen(&a.listen)
        .map_err(|_| anyhow!("--listen {:?}: give PORT, IP:PORT or [IPV6]:PORT", a.listen))?;
    let mut core = AgentCore::new(&token, a.fake_clock_offset_ms, Arc::new(build));
    if let Some(d) = &a.dump {
        core = core.dumping_to(d.clone());
    }
    let tls = match (&a.tls_cert, &a.tls_key) {
        (Some(c), Some(k)) => Some(crate::ui::tls_acceptor(c, k).map_err(|e| anyhow!(e))?),
        _ => None,
    };
    let over = if tls.is_some() { " (TLS)" } else { "" };
    crate::ui::agent_api::serve_agent(addr, core, tls, |bound| {
        outln!("qpslab agent listening on {bound}{over}");
        crate::out::flush();
    })?;
    Ok(0)
}

/// An agent's run configuration from the shipped work: the words parsed
/// as `qpslab run` parses them, a script's text checked against its
/// digest and run from a private copy.
fn build(work: &Work, conn: ConnOpts) -> Result<RunConfig> {
    let mut words = work.words.clone();
    if let Some(s) = &work.script {
        let digest = ring::digest::digest(&ring::digest::SHA256, s.text.as_bytes());
        if crate::lab::agent::hex(digest.as_ref()) != s.sha256 {
            bail!("the script {}'s text does not match its sha256", s.name);
        }
        let dir = std::env::temp_dir().join(format!("qpslab-agent-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let name = std::path::Path::new(&s.name)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "script.lua".into());
        let path = dir.join(name);
        std::fs::write(&path, &s.text)?;
        if let Some(w) = words.first_mut() {
            *w = path.display().to_string();
        }
    }
    let args = LoadArgs::from_words(&words)?;
    let plan = LoadPlan::from_args(&args)?;
    let cfg = plan.run_config_seeded(work.threads, &conn, work.seed)?;
    cfg.workload
        .begin_run()
        .map_err(|m| anyhow!("the workload's start failed: {m}"))?;
    Ok(cfg)
}

/// The agents of `p`'s run greeted, checked and split (refused, naming
/// each agent that cannot take part); their clock offsets printed.
pub(super) fn gather(
    p: &LoadPlan,
    plan: &FleetPlan,
    cfg: &RunConfig,
    sysbench_style: bool,
    resized: bool,
) -> Result<crate::lab::agent::Fleet> {
    if sysbench_style {
        bail!("--agents is qpslab's own: use `qpslab run WORKLOAD … --agents …`");
    }
    if cfg.time <= 0.0 {
        bail!("--agents needs --time above 0: each agent ends on its own at the run's deadline, should the controller vanish (with --events, give a --time the events fit in)");
    }
    let mut plan = plan.clone();
    if let Some(path) = p.script_path() {
        plan.script = Some(crate::lab::agent::script_text(path)?);
    }
    if let (true, Some(rows)) = (resized, p.oltp_table_size()) {
        plan.words.push(format!("--table-size={rows}"));
    }
    let fleet = crate::lab::agent::Fleet::gather(plan, cfg)?;
    for m in &fleet.members {
        let mut share = String::new();
        if m.events > 0 {
            share += &format!(", {} events", m.events);
        }
        if m.rate > 0.0 {
            share += &format!(", {:.1} events/s", m.rate);
        }
        errln!(
            "agent {}: {} connections{share}, clock offset {:+.1} ms (round trip {:.1} ms)",
            m.addr,
            m.threads,
            m.offset_s * 1e3,
            m.rtt_s * 1e3
        );
    }
    Ok(fleet)
}
