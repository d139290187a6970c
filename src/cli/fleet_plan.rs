//! A load command's `--agents` and `--token-file`, checked, as lab's
//! `FleetPlan`: the agents with their weights, the token, and the words of
//! this command line to ship (without those two options). Parses only.

use super::args::LoadArgs;
use crate::lab::agent::{parse_agents, token_of, FleetPlan};
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

/// `--agents` and `--token-file` of a load command: None without
/// `--agents`. The words shipped are this command line's after `run`,
/// without those two options.
pub(super) fn fleet_plan(a: &LoadArgs) -> Result<Option<FleetPlan>> {
    let Some(list) = &a.agents else {
        if a.token_file.is_some() {
            bail!("--token-file goes with --agents");
        }
        return Ok(None);
    };
    let agents = parse_agents(list)?;
    let Some(file) = &a.token_file else {
        bail!("--agents needs --token-file (the token the agents were started with)");
    };
    let token = read_token(file, "--token-file")?;
    let argv = ARGV.get().cloned().unwrap_or_default();
    let Some(at) = argv.iter().position(|w| w == "run") else {
        bail!("--agents works with `qpslab run WORKLOAD …`");
    };
    Ok(Some(FleetPlan {
        agents,
        token,
        words: shipped_words(&argv[at + 1..]),
        script: None,
    }))
}

/// `words` without `--agents` and `--token-file` (and their values).
fn shipped_words(words: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip = false;
    for w in words {
        if skip {
            skip = false;
            continue;
        }
        if w == "--agents" || w == "--token-file" {
            skip = true;
            continue;
        }
        // (an empty word is what scrubbing the process title leaves)
        if w.is_empty() || w.starts_with("--agents=") || w.starts_with("--token-file=") {
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
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(super::shipped_words(&w), vec!["oltp_read_only", "--time=3"]);
    }
}
