//! The controller's side before a run: `--agents` parsed (weights), each
//! agent greeted with the token, its clock offset measured (round-trip
//! midpoint, best of a few samples), the connections split by weight, and
//! every agent asked to reach the target; any agent that cannot is named
//! with its reason and the run is refused before it starts. The run
//! itself is `drive.rs`. HTTP(S) through ureq (link.rs), JSON bodies
//! (wire.rs).

use super::wire::{CheckAnswer, Hello, ScriptText, TargetSpec, PROTOCOL};
use crate::exec::RunConfig;
use crate::protocol::{ConnOpts, Endpoint};
use anyhow::{anyhow, bail, Context, Result};
use std::time::{Duration, Instant};

/// The largest clock offset a run accepts: a sample shifted by more
/// than a quarter of a one-second interval lands in the wrong second too
/// often to be merged by number (docs/AGENTS.md).
pub const MAX_OFFSET_MS: f64 = 250.0;

/// Clock samples per agent (the one with the shortest round trip wins).
const CLOCK_SAMPLES: usize = 5;

/// How long one request may take before the agent counts as unreachable.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);

/// One `--agents` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentAddr {
    /// host:port.
    pub addr: String,
    /// Its share of the connections, relative to the others (1 by default).
    pub weight: f64,
}

/// `host1:port,host2:port[=weight]`: the agents, weight 1 by default.
pub fn parse_agents(s: &str) -> Result<Vec<AgentAddr>> {
    let mut v = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (addr, weight) = match part.split_once('=') {
            Some((a, w)) => (
                a.trim(),
                w.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|w| w.is_finite() && *w > 0.0)
                    .ok_or_else(|| {
                        anyhow!("--agents: weight '{w}' of {a} is not a positive number")
                    })?,
            ),
            None => (part, 1.0),
        };
        match addr.rsplit_once(':') {
            Some((h, p)) if !h.is_empty() && p.parse::<u16>().is_ok() => {}
            _ => bail!("--agents: '{addr}' is not HOST:PORT"),
        }
        v.push(AgentAddr {
            addr: addr.to_string(),
            weight,
        });
    }
    if v.is_empty() {
        bail!("--agents: name at least one agent as HOST:PORT");
    }
    Ok(v)
}

/// What the controller needs to drive agents.
#[derive(Clone)]
pub struct FleetPlan {
    /// The agents, in the order given.
    pub agents: Vec<AgentAddr>,
    /// The token, and TLS when asked (link.rs).
    pub link: super::Link,
    /// The workload as `qpslab run` words (workload first).
    pub words: Vec<String>,
    /// A script's text and digest, when the workload is one.
    pub script: Option<ScriptText>,
}

/// An agent ready for the run: its share, and its clock against ours.
#[derive(Clone, Debug)]
pub struct Member {
    /// host:port.
    pub addr: String,
    /// Its connections.
    pub threads: u32,
    /// Its share of `--events` (0: none).
    pub events: u64,
    /// Its share of `--rate`, events/s (0: closed loop).
    pub rate: f64,
    /// Its clock minus ours, seconds.
    pub offset_s: f64,
    /// The round trip of the best clock sample, seconds.
    pub rtt_s: f64,
}

/// The agents of a run, greeted and checked.
pub struct Fleet {
    /// The agents that take part, with their shares and clocks.
    pub members: Vec<Member>,
    pub(crate) plan: FleetPlan,
    pub(crate) target: TargetSpec,
    pub(crate) http: ureq::Agent,
}

/// A script's text and digest for the agents.
pub fn script_text(path: &std::path::Path) -> Result<ScriptText> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading {} to ship it to the agents", path.display()))?;
    let digest = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
    Ok(ScriptText {
        name: path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "script.lua".into()),
        sha256: hex(digest.as_ref()),
        text,
    })
}

/// Lower-case hex.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// `threads` split by weight (largest remainders), every agent at least
/// one; None when there are fewer connections than agents.
pub fn split(threads: u32, weights: &[f64]) -> Option<Vec<u32>> {
    if (threads as usize) < weights.len() {
        return None;
    }
    let sum: f64 = weights.iter().sum();
    let exact: Vec<f64> = weights
        .iter()
        .map(|w| f64::from(threads) * w / sum)
        .collect();
    let mut v: Vec<u32> = exact.iter().map(|e| (e.floor() as u32).max(1)).collect();
    while v.iter().sum::<u32>() > threads {
        let i = (0..v.len()).filter(|&i| v[i] > 1).max_by(|&a, &b| {
            (f64::from(v[a]) - exact[a]).total_cmp(&(f64::from(v[b]) - exact[b]))
        })?;
        v[i] -= 1;
    }
    while v.iter().sum::<u32>() < threads {
        // the largest remainder, the first agent on a tie
        let short = |i: usize| exact[i] - f64::from(v[i]);
        let i = (0..v.len()).fold(0, |b, i| if short(i) > short(b) { i } else { b });
        v[i] += 1;
    }
    Some(v)
}

/// `events` split in proportion to each agent's `threads` (the floor of
/// its share), the remainder one each to the first agents: the shares add
/// up to `events` exactly. 0 stays 0 for all (no limit).
pub fn split_events(events: u64, threads: &[u32]) -> Vec<u64> {
    let total: u64 = threads.iter().map(|&t| u64::from(t)).sum();
    if events == 0 || total == 0 {
        return vec![0; threads.len()];
    }
    let mut v: Vec<u64> = threads
        .iter()
        .map(|&t| (u128::from(events) * u128::from(t) / u128::from(total)) as u64)
        .collect();
    let short = events - v.iter().sum::<u64>();
    // (each floor loses less than one: fewer than one an agent are left)
    for x in v.iter_mut().take(short as usize) {
        *x += 1;
    }
    v
}

/// `rate` split in proportion to each agent's `threads`: each agent's
/// schedule is its share of the Poisson arrivals (independent Poisson
/// processes add up to one at the sum of their rates).
pub fn split_rate(rate: f64, threads: &[u32]) -> Vec<f64> {
    let total: f64 = threads.iter().map(|&t| f64::from(t)).sum();
    threads
        .iter()
        .map(|&t| {
            if total > 0.0 {
                rate * f64::from(t) / total
            } else {
                0.0
            }
        })
        .collect()
}

/// The largest answer read from an agent (a long run's profile).
const ANSWER_LIMIT: u64 = 1 << 30;

/// A request's answer: the body on success, else the agent's one-line
/// refusal (or the transport's error).
pub(crate) fn call(
    http: &ureq::Agent,
    link: &super::Link,
    addr: &str,
    path: &str,
    body: Option<String>,
) -> Result<String, String> {
    let url = link.url(addr, path);
    let auth = format!("Bearer {}", link.token);
    let answer = match body {
        Some(b) => http
            .post(&url)
            .header("Authorization", &auth)
            .header("Content-Type", "application/json")
            .send(b),
        None => http.get(&url).header("Authorization", &auth).call(),
    };
    match answer {
        Ok(mut r) => {
            let ok = r.status().is_success();
            // A profile's folded stacks can pass ureq's default 10 MB
            // limit on a busy server; an unreadable answer is said, not
            // taken for an empty one.
            let text = r
                .body_mut()
                .with_config()
                .limit(ANSWER_LIMIT)
                .read_to_string()
                .map_err(|e| format!("its answer to {path} could not be read: {e}"))?;
            if ok {
                Ok(text)
            } else {
                Err(text.lines().next().unwrap_or("").trim().to_string())
            }
        }
        Err(e) => Err(link.unreachable(&e)),
    }
}

/// The target as the agents see it: TCP only.
fn target_spec(conn: &ConnOpts) -> Result<TargetSpec> {
    let Endpoint::Tcp { host, port } = &conn.endpoint else {
        bail!("--agents needs a target they can reach over TCP (--mysql-host and --mysql-port), not the unix socket {}", conn.endpoint);
    };
    if matches!(host.as_str(), "127.0.0.1" | "localhost" | "::1") {
        log::warn!("the target is {host}: each agent connects to its own host's {host}");
    }
    Ok(TargetSpec {
        host: host.clone(),
        port: *port,
        user: conn.user.clone(),
        password: conn.password.clone(),
        db: conn.db.clone(),
        connect_timeout_ms: conn.connect_timeout.as_millis() as u64,
        read_timeout_ms: conn.read_timeout.as_millis() as u64,
    })
}

/// The offset of `addr`'s clock against ours: the sample with the
/// shortest round trip, its reading against the round trip's midpoint.
fn clock_of(http: &ureq::Agent, link: &super::Link, addr: &str) -> Result<(f64, f64), String> {
    let mut best: Option<(f64, f64)> = None;
    for _ in 0..CLOCK_SAMPLES {
        let sent = super::worker::unix_now();
        let t0 = Instant::now();
        let text = call(http, link, addr, "/v1/hello", None)?;
        let rtt = t0.elapsed().as_secs_f64();
        let hello: Hello =
            serde_json::from_str(&text).map_err(|e| format!("its hello does not parse: {e}"))?;
        if hello.protocol != PROTOCOL {
            return Err(format!(
                "it speaks agent protocol {} (qpslab {}), this controller {PROTOCOL}: run the same qpslab on both",
                hello.protocol, hello.version
            ));
        }
        if hello.busy {
            return Err("refused: busy with another controller's run".into());
        }
        let offset = hello.unix_s - (sent + rtt / 2.0);
        if best.is_none_or(|(_, r)| rtt < r) {
            best = Some((offset, rtt));
        }
    }
    best.ok_or_else(|| "no clock sample".into())
}

impl Fleet {
    /// Greets every agent, measures its clock, splits `cfg`'s threads
    /// (and its events and rate in proportion) and has each reach its
    /// server: refused (naming each agent that failed, and why) unless all
    /// can, and unless every offset is within `MAX_OFFSET_MS`.
    pub fn gather(plan: FleetPlan, cfg: &RunConfig) -> Result<Fleet> {
        let (conn, threads) = (&cfg.conn, cfg.threads);
        let target = target_spec(conn)?;
        let weights: Vec<f64> = plan.agents.iter().map(|a| a.weight).collect();
        let shares = split(threads, &weights).ok_or_else(|| {
            anyhow!(
                "--threads {threads} is fewer than the {} agents: give each at least one connection",
                weights.len()
            )
        })?;
        let events = split_events(cfg.events, &shares);
        if let Some(i) = (0..shares.len()).find(|&i| cfg.events > 0 && events[i] == 0) {
            bail!(
                "--events {} is too few for the agents: agent {} ({} of the {threads} connections) would get none; give --events {threads} or more",
                cfg.events,
                plan.agents[i].addr,
                shares[i]
            );
        }
        let rates = split_rate(cfg.rate, &shares);
        let http = plan.link.client(REQUEST_TIMEOUT);
        let body = serde_json::to_string(&target)?;
        let mut members = Vec::new();
        let mut refused = Vec::new();
        for (i, (a, n)) in plan.agents.iter().zip(shares).enumerate() {
            let checked = clock_of(&http, &plan.link, &a.addr).and_then(|(offset_s, rtt_s)| {
                let text = call(&http, &plan.link, &a.addr, "/v1/check", Some(body.clone()))?;
                let c: CheckAnswer = serde_json::from_str(&text)
                    .map_err(|e| format!("its check does not parse: {e}"))?;
                match c.error {
                    Some(e) => Err(format!(
                        "cannot reach the target {}:{}: {e}",
                        target.host, target.port
                    )),
                    None => Ok((offset_s, rtt_s)),
                }
            });
            match checked {
                Ok((offset_s, rtt_s)) if offset_s.abs() * 1e3 > MAX_OFFSET_MS => refused.push(format!(
                    "agent {}: its clock is {:+.0} ms off the controller's (more than {MAX_OFFSET_MS} ms, which a 1-s interval cannot absorb; round trip {:.1} ms): synchronise its clock (chrony, NTP)",
                    a.addr,
                    offset_s * 1e3,
                    rtt_s * 1e3
                )),
                Ok((offset_s, rtt_s)) => members.push(Member {
                    addr: a.addr.clone(),
                    threads: n,
                    events: events[i],
                    rate: rates[i],
                    offset_s,
                    rtt_s,
                }),
                Err(why) => refused.push(format!("agent {}: {why}", a.addr)),
            }
        }
        if !refused.is_empty() {
            bail!(
                "the run is refused before it starts: {}",
                refused.join("; ")
            );
        }
        Ok(Fleet {
            members,
            plan,
            target,
            http,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_and_weights_parse() {
        let a = parse_agents("h1:7000, 10.0.0.2:7001=3").unwrap();
        assert_eq!(a[1].addr, "10.0.0.2:7001");
        assert_eq!((a[0].weight, a[1].weight), (1.0, 3.0));
        assert!(parse_agents("h1").is_err());
        assert!(parse_agents("h1:1=0").is_err());
    }

    #[test]
    fn connections_split_by_weight() {
        assert_eq!(split(10, &[1.0, 1.0, 1.0]), Some(vec![4, 3, 3]));
        assert_eq!(split(8, &[1.0, 3.0]), Some(vec![2, 6]));
        assert_eq!(split(3, &[1.0, 100.0, 1.0]), Some(vec![1, 1, 1]));
        assert_eq!(split(2, &[1.0, 1.0, 1.0]), None);
        assert_eq!(split(256, &[1.0; 4]), Some(vec![64; 4]));
    }

    #[test]
    fn events_and_rate_split_by_connections() {
        // the remainder to the first agents; the total exact
        assert_eq!(split_events(301, &[2, 2, 2]), vec![101, 100, 100]);
        assert_eq!(split_events(302, &[2, 2, 2]), vec![101, 101, 100]);
        assert_eq!(split_events(10, &[1, 3]), vec![3, 7]);
        assert_eq!(split_events(7, &[1, 1, 2]), vec![2, 2, 3]);
        assert_eq!(split_events(0, &[1, 1]), vec![0, 0]);
        for (n, t) in [(1_000_003u64, vec![3u32, 5, 7]), (5, vec![1, 1, 100])] {
            assert_eq!(split_events(n, &t).iter().sum::<u64>(), n);
        }
        assert_eq!(split_events(2, &[1, 1, 100]), vec![1, 0, 1]);
        assert_eq!(split_rate(300.0, &[1, 1, 2]), vec![75.0, 75.0, 150.0]);
        assert_eq!(split_rate(0.0, &[1, 1]), vec![0.0, 0.0]);
    }
}
