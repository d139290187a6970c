//! A load command's `--agents`, `--token-file` and `--agent-ca`, checked,
//! as lab's `FleetPlan`: the agents with their weights, the link (token,
//! TLS), and the words of this command line to ship (without those
//! options). Parses only.

use super::args::{AgentLinkArgs, LoadArgs};
use crate::lab::agent::{resolve_agents, token_of, FleetPlan, Link, ServerAgent};
use anyhow::{anyhow, bail, Context, Result};
use std::sync::OnceLock;

/// The command line as given, kept before the process title is scrubbed
/// (which rewrites what `std::env::args` reads).
static ARGV: OnceLock<Vec<String>> = OnceLock::new();

/// Keeps `argv` (called by `cli::main` before the scrub).
pub(super) fn keep_argv(argv: &[String]) {
    let _ = ARGV.set(argv.to_vec());
}

/// The token in `path` (its first line).
pub(super) fn read_token(path: &std::path::Path, what: &str) -> Result<String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{what}: cannot read {}", path.display()))?;
    token_of(&text).ok_or_else(|| anyhow!("{what}: {} holds no token", path.display()))
}

/// The token of `token_file`, over TLS trusting `ca` when given.
pub(super) fn link(token_file: &std::path::Path, ca: Option<&std::path::Path>) -> Result<Link> {
    let token = read_token(token_file, "--token-file")?;
    match ca {
        Some(ca) => Link::with_ca(&token, ca).map_err(|e| anyhow!(e)),
        None => Ok(Link::plain(&token)),
    }
}

/// `--server-agent` with `--token-file`'s token (and `--agent-ca`'s
/// TLS): None without it.
pub(super) fn server_agent(a: &AgentLinkArgs) -> Result<Option<ServerAgent>> {
    let Some(addr) = &a.server_agent else {
        return Ok(None);
    };
    let Some(file) = &a.token_file else {
        bail!("--server-agent needs --token-file (the token the agent was started with)");
    };
    ServerAgent::new(addr, link(file, a.agent_ca.as_deref())?).map(Some)
}

/// `--token-file` and `--agent-ca` are refused without an agent to reach
/// (`with`: the options that name one, in words).
fn no_lone_link(a: &AgentLinkArgs, with: &str) -> Result<()> {
    if a.token_file.is_some() {
        bail!("--token-file goes with {with}: name the agent it is the token of");
    }
    if a.agent_ca.is_some() {
        bail!("--agent-ca goes with {with} (the agents' certificate or their CA's)");
    }
    Ok(())
}

/// `--server-agent` of a command without load agents (`monitor`,
/// `iostat`, `top`, `profile`): None without it (`--token-file` or
/// `--agent-ca` alone refused).
pub(super) fn server_agent_alone(a: &AgentLinkArgs) -> Result<Option<ServerAgent>> {
    if a.server_agent.is_none() {
        no_lone_link(a, "--server-agent")?;
    }
    server_agent(a)
}

/// `--agents` and `--token-file` of a load command: None without
/// `--agents`. The words shipped are this command line's after `run` (or
/// `sweep`: without its own options), without those two options (a
/// campaign's points ship their own: `agents_plan`).
pub(super) fn fleet_plan(a: &LoadArgs) -> Result<Option<FleetPlan>> {
    let link = &a.agent_link;
    let Some(list) = &a.agents else {
        if link.server_agent.is_none() {
            no_lone_link(link, "--agents or --server-agent")?;
        }
        return Ok(None);
    };
    let Some(file) = &link.token_file else {
        bail!("--agents needs --token-file (the token the agents were started with)");
    };
    let argv = ARGV.get().cloned().unwrap_or_default();
    let Some(at) = argv.iter().skip(1).position(|w| w == "run" || w == "sweep") else {
        bail!("--agents works with `qpslab run WORKLOAD …` and `qpslab sweep WORKLOAD …` (a campaign takes them from its file's [agents])");
    };
    let words = shipped_words(&argv[at + 2..]);
    agents_plan(list, file, link.agent_ca.as_deref(), words).map(Some)
}

/// The agents named by `list` (a list, `@FILE`, `dns:NAME:PORT`) with the
/// token of `token_file` (over TLS trusting `ca` when given), shipping
/// `words` (a campaign point's).
pub(super) fn agents_plan(
    list: &str,
    token_file: &std::path::Path,
    ca: Option<&std::path::Path>,
    words: Vec<String>,
) -> Result<FleetPlan> {
    Ok(FleetPlan {
        agents: resolve_agents(list)?,
        link: link(token_file, ca)?,
        words,
        script: None,
    })
}

/// Options of the controller's command that the agents' `run` does not
/// take: they are not shipped (with their values).
const NOT_SHIPPED: [&str; 6] = [
    "--agents",
    "--token-file",
    "--agent-ca",
    "--server-agent",
    "--repeat",
    "--cooldown",
];

/// `words` without `NOT_SHIPPED` (and their values).
fn shipped_words(words: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip = false;
    for w in words {
        if skip {
            skip = false;
            continue;
        }
        if NOT_SHIPPED.contains(&w.as_str()) {
            skip = true;
            continue;
        }
        // (an empty word is what scrubbing the process title leaves)
        let with_value = |o: &&str| w.starts_with(&format!("{o}="));
        if w.is_empty() || NOT_SHIPPED.iter().any(with_value) {
            continue;
        }
        out.push(w.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_agents_options_are_not_shipped() {
        let w: Vec<String> = [
            "oltp_read_only",
            "--agents",
            "a:1",
            "--time=3",
            "--token-file=/t",
            "--agent-ca",
            "/ca.pem",
            "--repeat",
            "2",
            "--cooldown=1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(super::shipped_words(&w), vec!["oltp_read_only", "--time=3"]);
    }
}
