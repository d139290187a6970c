//! A campaign file's `[agents]`: the client hosts that drive every point
//! (as `run --agents`), their weights and the token's file. The file's
//! format only: the cli resolves the addresses and lab drives them. Not
//! part of a point's identity (the same point driven from elsewhere
//! resumes as done).

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// `[agents]`: `addresses` as `--agents` takes them (`HOST:PORT`,
/// `@FILE`, `dns:NAME:PORT`), optional `weights` (one per address),
/// `token_file`, and `ca_file` for HTTPS. The token and TLS are also the
/// servers' agents' (`[[server]] agent`); without addresses the load runs
/// here.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AgentsDef {
    /// The agents, one entry each (an entry may be `@FILE` or
    /// `dns:NAME:PORT`, which name several); none: the load runs here
    /// (the section then gives a `[[server]] agent`'s token).
    #[serde(default)]
    pub addresses: Vec<String>,
    /// Each address's share of the connections, relative to the others
    /// (1 each by default); as many as `addresses`.
    #[serde(default)]
    pub weights: Vec<f64>,
    /// The shared token's file (its first line), as each agent's.
    pub token_file: PathBuf,
    /// HTTPS to the agents, trusting this PEM file's certificates (as
    /// `--agent-ca`); plain HTTP without it.
    #[serde(default)]
    pub ca_file: Option<PathBuf>,
}

impl AgentsDef {
    /// Checks the section: addresses given (unless `server_agents`: a
    /// server's agent takes its token), one weight each when any.
    pub fn validate(&self, server_agents: bool) -> Result<()> {
        if self.addresses.is_empty() && !server_agents {
            bail!("[agents] addresses must name at least one agent (\"HOST:PORT\"), or a [[server]] agent = \"HOST:PORT\" the section gives the token of");
        }
        if !self.weights.is_empty() && self.weights.len() != self.addresses.len() {
            bail!(
                "[agents] weights: give one weight per address ({} addresses, {} weights), or none",
                self.addresses.len(),
                self.weights.len()
            );
        }
        if let Some(w) = self.weights.iter().find(|w| !(w.is_finite() && **w > 0.0)) {
            bail!("[agents] weights: {w} is not a positive number");
        }
        Ok(())
    }

    /// Whether the load runs on agents (addresses given).
    pub fn drive(&self) -> bool {
        !self.addresses.is_empty()
    }

    /// The section as one `--agents` value.
    pub fn spec(&self) -> String {
        self.addresses
            .iter()
            .enumerate()
            .map(|(i, a)| match self.weights.get(i) {
                Some(w) => format!("{a}={w}"),
                None => a.clone(),
            })
            .collect::<Vec<_>>()
            .join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_section_as_one_list() {
        let a: AgentsDef = toml::from_str(
            "addresses = [\"c1:7070\", \"c2:7070\"]\nweights = [1, 3]\ntoken_file = \"/etc/qpslab/token\"",
        )
        .unwrap();
        a.validate(false).unwrap();
        assert_eq!(a.spec(), "c1:7070=1,c2:7070=3");
        let b = AgentsDef {
            weights: vec![1.0],
            ..a.clone()
        };
        assert!(b.validate(false).is_err());
        let c = AgentsDef {
            weights: vec![],
            ..a
        };
        assert_eq!(c.spec(), "c1:7070,c2:7070");
        // the token of a server's agent only: the load runs here
        let d: AgentsDef = toml::from_str("token_file = \"/t\"").unwrap();
        assert!(d.validate(false).is_err());
        d.validate(true).unwrap();
        assert!(!d.drive());
    }
}
