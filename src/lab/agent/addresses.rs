//! Where the agents are: `--agents` as a list (`HOST:PORT[=WEIGHT],…`),
//! a file of them (`@FILE`: one or more a line, `#` comments) or a DNS
//! name whose every address is one agent (`dns:NAME:PORT[=WEIGHT]`, e.g.
//! a Kubernetes headless Service). Reads that file and asks the resolver;
//! talks to no agent.

use super::controller::{parse_agents, AgentAddr};
use anyhow::{bail, Context, Result};
use std::net::{SocketAddr, ToSocketAddrs};

/// The agents named by `spec` (a list, `@FILE` or `dns:` entries), in
/// order; an agent named twice is refused (it would take two shares of
/// one host).
pub fn resolve_agents(spec: &str) -> Result<Vec<AgentAddr>> {
    let spec = spec.trim();
    let entries: Vec<String> = match spec.strip_prefix('@') {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--agents @{path}: cannot read the file"))?;
            let v = file_entries(&text);
            if v.is_empty() {
                bail!("--agents @{path}: the file names no agent (one HOST:PORT[=WEIGHT] a line, # comments)");
            }
            v
        }
        None => list_entries(spec),
    };
    let mut out: Vec<AgentAddr> = Vec::new();
    for e in entries {
        let more = match e.strip_prefix("dns:") {
            Some(rest) => resolved(rest)?,
            None => parse_agents(&e)?,
        };
        for a in more {
            if out.iter().any(|o| o.addr == a.addr) {
                bail!(
                    "--agents: {} is named twice: name each agent once (give it a weight, HOST:PORT=2, for a larger share)",
                    a.addr
                );
            }
            out.push(a);
        }
    }
    if out.is_empty() {
        bail!("--agents: name at least one agent as HOST:PORT");
    }
    Ok(out)
}

fn list_entries(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(String::from)
        .collect()
}

/// A file's entries: `#` starts a comment; blank lines are skipped.
fn file_entries(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .flat_map(list_entries)
        .collect()
}

/// `NAME:PORT[=WEIGHT]`: one agent per address the name resolves to (its
/// IPv4 addresses, or its IPv6 ones when it has none), sorted.
fn resolved(rest: &str) -> Result<Vec<AgentAddr>> {
    let (target, weight) = match rest.split_once('=') {
        Some((t, w)) => (t.trim(), Some(w.trim())),
        None => (rest.trim(), None),
    };
    let Some((name, port)) = target
        .rsplit_once(':')
        .and_then(|(n, p)| Some((n, p.parse::<u16>().ok()?)))
        .filter(|(n, _)| !n.is_empty())
    else {
        bail!(
            "--agents dns:{rest}: give dns:NAME:PORT (every address of NAME is an agent on PORT)"
        );
    };
    let all: Vec<SocketAddr> = (name, port)
        .to_socket_addrs()
        .with_context(|| format!("--agents dns:{name}:{port}: {name} does not resolve"))?
        .collect();
    let mut v: Vec<SocketAddr> = all.iter().copied().filter(SocketAddr::is_ipv4).collect();
    if v.is_empty() {
        v = all;
    }
    v.sort();
    v.dedup();
    if v.is_empty() {
        bail!("--agents dns:{name}:{port}: {name} resolves to no address");
    }
    let mut out = Vec::new();
    for a in v {
        let one = match weight {
            Some(w) => format!("{a}={w}"),
            None => a.to_string(),
        };
        out.extend(parse_agents(&one)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_agents_with_comments() {
        let dir = std::env::temp_dir().join(format!("qpslab-agents-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("agents");
        std::fs::write(
            &f,
            "# the client hosts\nc1:7070\n\n c2:7070=2  # the big one\nc3:7070,c4:7070\n",
        )
        .unwrap();
        let a = resolve_agents(&format!("@{}", f.display())).unwrap();
        let names: Vec<&str> = a.iter().map(|a| a.addr.as_str()).collect();
        assert_eq!(names, ["c1:7070", "c2:7070", "c3:7070", "c4:7070"]);
        assert_eq!(a[1].weight, 2.0);
        std::fs::write(&f, "# nobody\n").unwrap();
        let e = resolve_agents(&format!("@{}", f.display())).unwrap_err();
        assert!(e.to_string().contains("names no agent"), "{e}");
        assert!(resolve_agents("@/nonexistent/agents").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_dns_name_gives_one_agent_per_address() {
        let a = resolve_agents("dns:localhost:7070=3").unwrap();
        assert_eq!(a[0].addr, "127.0.0.1:7070");
        assert_eq!(a[0].weight, 3.0);
        let a = resolve_agents("c1:1,dns:127.0.0.1:7070").unwrap();
        assert_eq!(a.len(), 2);
        assert!(resolve_agents("dns:localhost").is_err());
        let e = resolve_agents("127.0.0.1:7070,dns:localhost:7070").unwrap_err();
        assert!(e.to_string().contains("named twice"), "{e}");
    }
}
