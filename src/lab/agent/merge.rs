//! Exact merging of the agents' figures: interval k of every agent added
//! together (histograms by addition, never averaged percentiles), the
//! whole run's totals from each agent's own, latency by statement kind and
//! event class by name; each agent's row (QPS, p99, load CPU per query,
//! host CPU busy, client-bound), the run's status naming a lost agent and
//! its share, and the clients' transactions beside the server's
//! Com_commit. Pure: no I/O.

use super::controller::{Member, MAX_OFFSET_MS};
use super::wire::{Poll, WireFinal, WireInterval, WireSample};
use crate::exec::RunConfig;
use crate::stats::document::{AgentRow, AgentsBlock};
use crate::stats::{Hist, Interval, KindStats, RunResult, RunStatus, Sample};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// An agent whose host's CPU was this busy over the run is client-bound:
/// its figures measure its own host as much as the server.
pub const CLIENT_BOUND_BUSY: f64 = 0.95;

/// What the controller has from one agent.
pub(crate) struct Seen {
    pub member: Member,
    pub run: u64,
    samples: BTreeMap<u64, WireSample>,
    done: Option<WireFinal>,
    failed: Option<String>,
    lost: Option<String>,
    last_heard: Instant,
}

impl Seen {
    pub fn new(member: Member, run: u64) -> Seen {
        Seen {
            member,
            run,
            samples: BTreeMap::new(),
            done: None,
            failed: None,
            lost: None,
            last_heard: Instant::now(),
        }
    }

    /// Still expected to send more.
    pub fn running(&self) -> bool {
        self.done.is_none() && self.failed.is_none() && self.lost.is_none()
    }

    /// The number of the first sample not received yet.
    pub fn next_k(&self) -> u64 {
        self.samples.keys().next_back().map_or(0, |k| k + 1)
    }

    pub fn absorb(&mut self, p: Poll) {
        self.last_heard = Instant::now();
        for s in p.samples {
            self.samples.insert(s.k, s);
        }
        if p.done.is_some() {
            self.done = p.done;
        }
        if p.failed.is_some() {
            self.failed = p.failed;
        }
    }

    pub fn silent_for(&self) -> Duration {
        self.last_heard.elapsed()
    }

    /// The agent is gone (died, cut off): the run goes on without it.
    pub fn lose(&mut self, why: String) {
        log::warn!("agent {} lost: {why}", self.member.addr);
        self.lost = Some(why);
    }
}

fn decoded(w: &WireInterval, who: &str) -> Interval {
    w.to_interval().unwrap_or_else(|e| {
        log::warn!("agent {who}: an interval does not decode ({e}); left out");
        Interval::default()
    })
}

/// Interval `k` merged over the agents, once every agent still running
/// has sent it (`flush`: the run is over, whatever is there); None when
/// it is not complete yet, or no agent has it.
pub(crate) fn merge_sample(cfg: &RunConfig, seen: &[Seen], k: u64, flush: bool) -> Option<Sample> {
    let ready = seen
        .iter()
        .all(|s| s.samples.contains_key(&k) || !s.running());
    if !ready && !flush {
        return None;
    }
    let parts: Vec<(&Seen, &WireSample)> = seen
        .iter()
        .filter_map(|s| s.samples.get(&k).map(|w| (s, w)))
        .collect();
    let first = parts.first()?.1;
    // (a kind gets its buckets when an agent's part has values for it)
    let mut iv = Interval::with_unallocated_kinds(cfg.latency_kinds());
    let (mut client, mut host, mut busy) = (0.0, 0.0, 0.0);
    let (mut t, mut dur, mut sliver) = (first.t, first.dur, true);
    for (s, w) in &parts {
        iv.merge(&decoded(&w.iv, &s.member.addr));
        client += w.client_cpu_s;
        host += w.host_cpu_s;
        busy += w.host_busy * w.host_cpu_s;
        t = t.max(w.t);
        dur = dur.max(w.dur);
        sliver &= w.sliver;
    }
    Some(Sample {
        t,
        dur,
        warmup: first.warmup,
        sliver,
        iv,
        client_cpu_s: client,
        host_cpu_s: host,
        host_busy: if host > 0.0 { busy / host } else { 0.0 },
    })
}

/// One agent's measured figures: its totals (counters and event
/// latency), its latency by name, elapsed seconds, host busy share.
struct AgentTotals {
    total: Interval,
    named: Vec<(String, Hist)>,
    elapsed: f64,
    host_cpu_s: f64,
    host_busy: f64,
    client_cpu_s: f64,
}

fn totals_of(cfg: &RunConfig, s: &Seen) -> AgentTotals {
    let who = &s.member.addr;
    if let Some(f) = &s.done {
        let named = f
            .kinds
            .iter()
            .chain(&f.classes)
            .map(|(n, h)| {
                let w = WireInterval {
                    hist: h.clone(),
                    ..WireInterval::default()
                };
                (n.clone(), decoded(&w, who).hist)
            })
            .collect();
        return AgentTotals {
            total: decoded(&f.total, who),
            named,
            elapsed: f.elapsed,
            host_cpu_s: f.host_cpu_s,
            host_busy: f.host_busy,
            client_cpu_s: f.client_cpu_s,
        };
    }
    // Lost or failed: what it sent of the measured time.
    let names: Vec<String> = cfg
        .workload
        .stat_names()
        .into_iter()
        .chain(cfg.workload.event_classes())
        .collect();
    let mut total = Interval::default();
    let (mut elapsed, mut host, mut busy, mut client) = (0.0, 0.0, 0.0, 0.0);
    for w in s.samples.values().filter(|w| !w.warmup) {
        total.merge(&decoded(&w.iv, who));
        elapsed += w.dur;
        host += w.host_cpu_s;
        busy += w.host_busy * w.host_cpu_s;
        client += w.client_cpu_s;
    }
    let kinds = std::mem::take(&mut total.kinds);
    AgentTotals {
        named: names.into_iter().zip(kinds).collect(),
        total,
        elapsed,
        host_cpu_s: host,
        host_busy: if host > 0.0 { busy / host } else { 0.0 },
        client_cpu_s: client,
    }
}

/// The run the agents made together, as exec would give it for one
/// process with all their connections, plus the per-agent block.
pub(crate) fn result_of(cfg: &RunConfig, seen: &[Seen], samples: Vec<Sample>) -> RunResult {
    let all: Vec<AgentTotals> = seen.iter().map(|s| totals_of(cfg, s)).collect();
    let mut total = Interval::default();
    let mut by_name: BTreeMap<String, Hist> = BTreeMap::new();
    for a in &all {
        total.merge(&a.total);
        for (n, h) in &a.named {
            by_name.entry(n.clone()).or_default().merge(h);
        }
    }
    total.kinds = Vec::new();
    let mut take = |name: String| {
        let hist = by_name.remove(&name).unwrap_or_default();
        KindStats {
            name,
            count: hist.count(),
            hist,
        }
    };
    let classes = cfg
        .workload
        .event_classes()
        .into_iter()
        .map(&mut take)
        .collect();
    let kinds: Vec<KindStats> = cfg
        .workload
        .stat_names()
        .into_iter()
        .map(&mut take)
        .filter(|k| k.count > 0)
        .collect();
    let finals: Vec<&WireFinal> = seen.iter().filter_map(|s| s.done.as_ref()).collect();
    let host: f64 = all.iter().map(|a| a.host_cpu_s).sum();
    let busy: f64 = all.iter().map(|a| a.host_busy * a.host_cpu_s).sum();
    let max = |f: fn(&WireFinal) -> f64| finals.iter().map(|x| f(x)).fold(0.0, f64::max);
    let elapsed = if finals.is_empty() {
        cfg.time.max(1e-9)
    } else {
        max(|f| f.elapsed)
    };
    RunResult {
        status: status_of(seen),
        total,
        elapsed,
        classes,
        kinds,
        thread_events: finals
            .iter()
            .flat_map(|f| f.thread_events.clone())
            .collect(),
        thread_time: finals.iter().flat_map(|f| f.thread_time.clone()).collect(),
        client_cpu_s: all.iter().map(|a| a.client_cpu_s).sum(),
        host_cpu_s: host,
        host_busy: if host > 0.0 { busy / host } else { 0.0 },
        samples,
        server_version: finals
            .first()
            .map(|f| f.server_version.clone())
            .unwrap_or_default(),
        text_fallbacks: finals.iter().map(|f| f.text_fallbacks).sum(),
        client_shards: finals.iter().map(|f| f.client_shards).sum(),
        unreachable_s: max(|f| f.unreachable_s),
        client_stall_s: max(|f| f.client_stall_s),
        agents: Some(block(cfg, seen, &all)),
        ..RunResult::empty(RunStatus::Ok)
    }
}

fn block(cfg: &RunConfig, seen: &[Seen], all: &[AgentTotals]) -> AgentsBlock {
    let threads: u32 = seen.iter().map(|s| s.member.threads).sum::<u32>().max(1);
    let agents = seen
        .iter()
        .zip(all)
        .map(|(s, a)| {
            let q = a.total.queries();
            let secs = a.elapsed.max(1e-9);
            AgentRow {
                agent: s.member.addr.clone(),
                connections: s.member.threads,
                share: f64::from(s.member.threads) / f64::from(threads),
                qps: q as f64 / secs,
                tps: a.total.events as f64 / secs,
                p99_ms: a.total.hist.quantile_ms(0.99),
                load_us_per_query: if q > 0 {
                    a.total.load_cpu_s * 1e6 / q as f64
                } else {
                    0.0
                },
                host_busy: a.host_busy,
                client_bound: a.host_busy >= CLIENT_BOUND_BUSY,
                offset_ms: s.member.offset_s * 1e3,
                rtt_ms: s.member.rtt_s * 1e3,
                status: match (&s.done, &s.lost) {
                    (Some(f), _) => f.status.word().to_string(),
                    (None, Some(_)) => "lost".into(),
                    (None, None) => "failed".into(),
                },
                lost: s.lost.clone().or_else(|| s.failed.clone()),
            }
        })
        .collect();
    let client_transactions = seen
        .iter()
        .map(|s| match &s.done {
            Some(f) => f.events_all,
            None => s.samples.values().map(|w| w.iv.events).sum(),
        })
        .sum();
    let _ = cfg;
    AgentsBlock {
        agents,
        offset_limit_ms: MAX_OFFSET_MS,
        client_transactions,
        server_commits: None,
        commit_mismatch: None,
    }
}

/// The run's status: the worst of the agents', each reason naming its
/// agent; a lost agent makes it degraded, with its share.
fn status_of(seen: &[Seen]) -> RunStatus {
    let threads: u32 = seen.iter().map(|s| s.member.threads).sum::<u32>().max(1);
    let (mut failed, mut aborted, mut degraded) = (Vec::new(), Vec::new(), Vec::new());
    for s in seen {
        let who = &s.member.addr;
        let share = 100.0 * f64::from(s.member.threads) / f64::from(threads);
        if let Some(why) = &s.lost {
            let last = s.samples.values().next_back().map_or(0.0, |w| w.t);
            degraded.push(format!(
                "agent {who} ({share:.0}% of the connections) was lost after t={last:.0} s ({why}); what it sent until then is kept"
            ));
        } else if let Some(why) = &s.failed {
            failed.push(format!("agent {who}: {why}"));
        } else if let Some(f) = &s.done {
            match &f.status {
                RunStatus::Ok => {}
                RunStatus::Failed(m) => failed.push(format!("agent {who}: {m}")),
                RunStatus::Aborted(m) => aborted.push(format!("agent {who}: {m}")),
                RunStatus::Degraded(m) => degraded.push(format!("agent {who}: {m}")),
            }
        }
    }
    if !failed.is_empty() {
        failed.extend(degraded);
        RunStatus::Failed(failed.join("; "))
    } else if !aborted.is_empty() {
        RunStatus::Aborted(aborted.join("; "))
    } else if !degraded.is_empty() {
        RunStatus::Degraded(degraded.join("; "))
    } else {
        RunStatus::Ok
    }
}

/// Fills the block's server side: Com_commit over the run against the
/// clients' transactions, a mismatch beyond the events in flight (two per
/// connection: one at each end) said in words.
pub(crate) fn commits(a: &mut AgentsBlock, before: Option<i64>, after: Option<i64>, threads: u32) {
    let (Some(b), Some(e)) = (before, after) else {
        return;
    };
    let server = e - b;
    a.server_commits = Some(server);
    let client = a.client_transactions as i64;
    let in_flight = 2 * i64::from(threads);
    if server > 0 && (server - client).abs() > in_flight {
        a.commit_mismatch = Some(format!(
            "the agents counted {client} transactions, the server's Com_commit rose by {server}: more apart than the {in_flight} events that may be in flight"
        ));
    }
}
