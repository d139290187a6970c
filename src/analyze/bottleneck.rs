//! Where a run's throughput stopped growing, stated with its evidence.
//!
//! An open-model run that kept up with its `--rate` is "rate-limited": the
//! arrival rate, not the server, set its throughput. Otherwise, in order:
//! iowait over 20% of CPU time or the datadir's disk busy over 80% of the
//! time ("IO-bound"); the client's load threads saturated, each using a
//! CPU's worth (at most the CPUs they could run on): "client-bound", the
//! server waited for queries; the client taking more than a quarter of the
//! CPU the host spent without being saturated: "host-bound" (client and
//! server filled a host too small for both); more than a quarter of the CPU
//! idle while more client threads than CPUs wait ("contention", with the top
//! wait events by share of wait time when Performance Schema is on); idle
//! CPU with no more threads than CPUs ("under-loaded"); otherwise
//! "CPU-bound in the server".

use super::counters::Counters;
use super::efficiency::{CpuSplit, IoRates};
use serde::{Deserialize, Serialize};

pub(crate) const CLIENT_SHARE: f64 = 0.25;
pub(crate) const IOWAIT_SHARE: f64 = 0.20;
pub(crate) const DISK_BUSY: f64 = 0.80;
pub(crate) const IDLE_SHARE: f64 = 0.25;

/// What most likely limited a run, and the figures that say so.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Hint {
    /// The verdict in a few words ("client-stalled", "contention: …").
    pub verdict: String,
    /// The figures behind it, one line each.
    pub evidence: Vec<String>,
    /// (event, share of all non-idle wait time)
    pub top_waits: Vec<(String, f64)>,
    /// Lock families' shares of thread time, when the run was profiled.
    pub locks: Option<super::limiter::LockShares>,
}

/// The verdict of a run during which the load generator itself did not
/// run for `stall_s` of its `elapsed` seconds: whatever the server's
/// counters say of those seconds, the client set them.
pub fn client_stalled(stall_s: f64, elapsed: f64) -> Hint {
    Hint {
        verdict: "client-stalled".into(),
        evidence: vec![format!(
            "qpslab itself did not run for {stall_s:.1} s of {elapsed:.1} s (its process stopped or starved of CPU): the server's idle time then is not contention; rerun on a quiet client"
        )],
        ..Default::default()
    }
}

/// A profiled run's hint names its lock: where a lock family takes
/// `LIMITER_SHARE` of the connection threads' time or more, a
/// "contention", latency-bound or server-CPU verdict becomes
/// "contention: FAMILY", with the family's share and top stack as
/// evidence, and so does a host-bound one when the family takes
/// `DOMINANT_SHARE` or more; other verdicts (client-, IO-bound, a shared
/// host) keep their word and get the share as evidence.
pub fn name_limiter(h: &mut Hint, locks: &super::limiter::LockShares) {
    h.locks = Some(locks.clone());
    let Some((family, share)) = locks.limiter() else {
        if let Some((f, s)) = locks.shares.first() {
            h.evidence.push(format!(
                "profile: the most waited-on lock, {f}, takes {:.1}% of connection-thread time (below {:.0}%: no lock limits)",
                100.0 * s,
                100.0 * super::limiter::LIMITER_SHARE
            ));
        }
        return;
    };
    h.evidence.push(format!(
        "profile ({}): {family} takes {:.0}% of connection-thread time",
        locks.source,
        100.0 * share
    ));
    if let Some(stack) = &locks.top_stack {
        let tail: Vec<&str> = stack.rsplit(';').take(6).collect();
        h.evidence.push(format!(
            "its top stack (innermost first): {}",
            tail.join(" < ")
        ));
    }
    // The verdict without its notes ("(host shared: …)", "; unstable: …"),
    // which are kept.
    let cut = [" (host shared", "; unstable"]
        .iter()
        .filter_map(|m| h.verdict.find(m))
        .min();
    let (base, note) = match cut {
        Some(i) => h.verdict.split_at(i),
        None => (h.verdict.as_str(), ""),
    };
    let own = matches!(
        base,
        "contention" | LATENCY_BOUND | "CPU-bound in the server" | "unknown" | ""
    );
    // A host used up by client and server while most of the connections'
    // time went to one lock: the lock set the throughput (the CPU went to
    // handing it over), and the busy host is kept as evidence.
    let host_bound_under_a_lock = base.starts_with(HOST_BOUND) && share >= DOMINANT_SHARE;
    if host_bound_under_a_lock {
        h.evidence.push(format!(
            "the host's CPU was used up too ({base}), but {family} held the connections for {:.0}% of their time: the lock, not the host, limits this step",
            100.0 * share
        ));
    }
    if own || host_bound_under_a_lock {
        h.verdict = format!("contention: {family}{note}");
    }
}

/// The share of connection-thread time in one lock family from which the
/// lock names the verdict even on a used-up host.
pub const DOMINANT_SHARE: f64 = 0.5;

/// What the hint looks at.
pub struct Inputs<'a> {
    /// The monitor's counters.
    pub counters: &'a Counters,
    /// Queries completed in the window: with none, nothing is attributed.
    pub queries: f64,
    /// Transactions (events) completed in the window.
    pub transactions: f64,
    /// The transactions a second an open-model run asked for (`--rate`).
    pub target_rate: Option<f64>,
    /// Window start, seconds since measuring began.
    pub a: f64,
    /// Window end.
    pub b: f64,
    /// Connections.
    pub threads: u32,
    /// CPUs on the host.
    pub cpus: usize,
    /// Where the host's CPU went in the window.
    pub cpu: Option<CpuSplit>,
    /// The client's share of the host's busy CPU, measured by the run
    /// itself (used when the monitor has no CPU split).
    pub client_share_fallback: Option<f64>,
    /// IO by class in the window, per second.
    pub io: &'a IoRates,
    /// Whether performance_schema was on.
    pub ps_on: bool,
    /// Whether mutex/rwlock waits are instrumented.
    pub ps_synch: bool,
    /// The client's load threads (shards) and the CPUs they may run on,
    /// when known: what "the client's threads were saturated" is judged
    /// against. None (older runs): judged from CPU shares alone.
    pub client_threads: Option<ClientThreads>,
}

/// The client's load threads and the CPUs they could use.
#[derive(Debug, Clone, Copy)]
pub struct ClientThreads {
    /// Load threads (shards).
    pub threads: usize,
    /// CPUs the client could run on (its --client-cpus set, else the host's).
    pub cpus: usize,
}

/// The share of what its threads could use (one CPU each, at most its
/// CPUs) above which the client counts as saturated: the monitor's and
/// the collectors' own threads are in the client's CPU too, so the mark
/// sits a little below full.
pub(crate) const CLIENT_SATURATED: f64 = 0.85;

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// Wait events left out of "top waits": idle; table IO, which times every
/// row operation inside the engine (work, not waiting); and condition
/// waits, in the global summary mostly background threads sleeping until
/// their next round. All would swamp the waits that hold queries up.
pub const NOT_WAITING: [&str; 3] = ["idle", "wait/io/table/", "wait/synch/cond/"];

/// Whether a Performance Schema event counts as waiting (see `NOT_WAITING`).
pub(crate) fn is_waiting(event: &str) -> bool {
    !NOT_WAITING.iter().any(|p| event.starts_with(p))
}

/// The wait events that took the most time over [a, b], as shares.
pub fn top_waits(c: &Counters, a: f64, b: f64, n: usize) -> Vec<(String, f64)> {
    let mut w: Vec<(String, f64)> = c
        .keys_with_prefix("ps_waits.")
        .filter(|k| is_waiting(k.trim_start_matches("ps_waits.")))
        .filter_map(|k| {
            let d = c.delta(k, a, b)?;
            let name = k.strip_prefix("ps_waits.")?.strip_suffix(".wait_ps")?;
            (d > 0.0).then(|| (name.to_string(), d))
        })
        .collect();
    let total: f64 = w.iter().map(|(_, d)| d).sum();
    w.sort_by(|x, y| y.1.total_cmp(&x.1));
    w.truncate(n);
    w.into_iter()
        .map(|(k, d)| (k, d / total))
        .filter(|(_, share)| *share >= 0.005)
        .collect()
}

/// SHOW ENGINE INNODB MUTEX over [a, b] (MySQL 5.5–5.7): OS waits per
/// second on InnoDB latches and the latch with the most, as evidence.
pub(crate) fn latch_waits(c: &Counters, a: f64, b: f64) -> Option<String> {
    let total = c.delta("innodb_mutex.total.os_waits", a, b)?;
    if total <= 0.0 || b <= a {
        return None;
    }
    let top = c
        .keys_with_prefix("innodb_mutex.")
        .filter(|k| *k != "innodb_mutex.total.os_waits" && k.ends_with(".os_waits"))
        .filter_map(|k| Some((k, c.delta(k, a, b)?)))
        .max_by(|x, y| x.1.total_cmp(&y.1))?;
    let name = top
        .0
        .trim_start_matches("innodb_mutex.")
        .trim_end_matches(".os_waits");
    Some(format!(
        "InnoDB latches: {:.0} OS waits/s, {} of them at {name} (SHOW ENGINE INNODB MUTEX)",
        total / (b - a),
        pct(top.1 / total)
    ))
}

/// Few users on an idle CPU: each query waits for its round trip.
pub(crate) const LATENCY_BOUND: &str = "latency-bound (round trips)";

/// An open-model run that completed its arrivals: `--rate` set the
/// throughput.
pub(crate) const RATE_LIMITED: &str = "rate-limited (--rate)";

/// Share of `--rate`'s arrivals a run must complete to count as keeping
/// up with it. Arrivals are random (a Poisson stream of n arrivals varies
/// by √n), so a shortfall within three times that also counts as kept:
/// a short run at a low rate is not said to fall behind for its dice.
pub(crate) const RATE_KEPT: f64 = 0.95;

/// Other processes' share of the host's busy CPU above which a run is
/// marked "host shared"; steal above `STEAL_SHARE` of all CPU time too.
pub(crate) const OTHER_SHARE: f64 = 0.10;
pub(crate) const STEAL_SHARE: f64 = 0.02;

/// "host shared: other processes 68% of busy CPU, steal 3%" when the host
/// was not the run's alone (see `OTHER_SHARE`), else None.
pub(crate) fn host_shared(cpu: &CpuSplit) -> Option<String> {
    let busy = cpu.server + cpu.client + cpu.other;
    let other = if busy > 0.0 { cpu.other / busy } else { 0.0 };
    if other <= OTHER_SHARE && cpu.steal <= STEAL_SHARE {
        return None;
    }
    let mut s = format!("host shared: other processes {} of busy CPU", pct(other));
    if cpu.steal > STEAL_SHARE {
        s.push_str(&format!(", steal {}", pct(cpu.steal)));
    }
    Some(s)
}

/// The bottleneck verdict with its evidence. The same evidence gives the
/// same verdict wherever it is asked (run, sweep step, campaign point):
/// no queries → unknown; an open-model run that kept up with its rate →
/// rate-limited (one that fell behind gets the verdict below, with the
/// shortfall as evidence); IO waits → IO-bound; an idle CPU → latency-bound
/// (users ≤ CPUs) or contention (more users than CPUs), unless the
/// client's threads were saturated (→ client-bound, checked first); the
/// client's share over a quarter → host-bound; other processes' CPU →
/// "CPU-bound: other processes";
/// else CPU-bound in the server. A host that was not the run's alone is
/// said first in the evidence and appended to the verdict.
pub fn hint(i: &Inputs) -> Hint {
    let mut h = verdict(i);
    if let Some(shared) = i.cpu.as_ref().and_then(host_shared) {
        if h.verdict != "unknown" {
            h.verdict = format!("{} ({shared})", h.verdict);
        }
        h.evidence.insert(0, shared);
    }
    h
}

fn verdict(i: &Inputs) -> Hint {
    if i.queries <= 0.0 {
        return Hint {
            verdict: "unknown".into(),
            evidence: vec![
                "no query completed in the measured window: there is no throughput to explain"
                    .into(),
            ],
            top_waits: vec![],
            locks: None,
        };
    }
    let Some(target) = i.target_rate.filter(|r| *r > 0.0 && i.b > i.a) else {
        return closed_verdict(i, Vec::new());
    };
    let done = i.transactions / (i.b - i.a);
    let asked = target * (i.b - i.a);
    let short = asked - i.transactions;
    if short > (1.0 - RATE_KEPT) * asked && short > 3.0 * asked.sqrt() {
        let behind = format!(
            "completed {done:.0} of the {target:.0} transactions a second asked for (--rate): the step fell behind its arrivals"
        );
        return closed_verdict(i, vec![behind]);
    }
    let mut ev = vec![format!(
        "completed {done:.0} of the {target:.0} transactions a second asked for (--rate): the arrival rate, not the server, set the throughput; raise --rate or drop it to find the peak"
    )];
    if let Some(c) = i.cpu {
        ev.push(format!(
            "at this rate: server {} of CPU, client {}, other {}, idle {}",
            pct(c.server),
            pct(c.client),
            pct(c.other),
            pct(c.idle)
        ));
    }
    Hint {
        verdict: RATE_LIMITED.into(),
        evidence: ev,
        top_waits: vec![],
        locks: None,
    }
}

/// The verdict of a run whose throughput its users and the server set
/// (a closed model, or an open one that fell behind), after `ev`.
fn closed_verdict(i: &Inputs, mut ev: Vec<String>) -> Hint {
    let busy_share = i.cpu.map(|c| 1.0 - c.idle - c.iowait - c.steal);
    let client = match (i.cpu, busy_share) {
        (Some(c), Some(b)) if b > 0.0 => Some(c.client / b),
        _ => i.client_share_fallback,
    };
    let iowait = i.cpu.map(|c| c.iowait).unwrap_or(0.0);
    let busy = i.io.disk_busy.unwrap_or(0.0);
    if iowait > IOWAIT_SHARE || busy > DISK_BUSY {
        ev.push(format!(
            "iowait {} of CPU time, disk busy {} of the time",
            pct(iowait),
            pct(busy)
        ));
        if let (Some(r), Some(w)) = (i.io.phys_r, i.io.phys_w) {
            ev.push(format!("{r:.0} reads/s and {w:.0} writes/s on the device"));
        }
        return Hint {
            verdict: "IO-bound".into(),
            evidence: ev,
            top_waits: vec![],
            locks: None,
        };
    }
    let Some(cpu) = i.cpu else {
        return Hint {
            verdict: "unknown".into(),
            evidence: vec!["no CPU figures from the monitor (--no-monitor, or the host's /proc is not readable)".into()],
            top_waits: vec![],
            locks: None,
        };
    };
    let waits = if i.ps_on {
        top_waits(i.counters, i.a, i.b, 5)
    } else {
        vec![]
    };
    if let Some(sat) = client_saturated(i, &cpu) {
        return client_bound(ev, sat);
    }
    if cpu.idle > IDLE_SHARE {
        return idle_verdict(i, ev, cpu, waits);
    }
    if let Some(cs) = client.filter(|s| *s > CLIENT_SHARE) {
        return shared_cpu_verdict(i, ev, cpu, cs);
    }
    cpu_verdict(i, ev, cpu, waits)
}

/// The client's load threads, when they ran flat out: the CPU they used
/// (in CPUs) and what they could use (one CPU a thread, at most the CPUs
/// they could run on). Then the server waited for queries the client
/// could not send faster, whatever else the host did.
#[derive(Debug, Clone, Copy)]
struct Saturated {
    used: f64,
    limit: usize,
    threads: usize,
}

fn client_saturated(i: &Inputs, cpu: &CpuSplit) -> Option<Saturated> {
    let t = i.client_threads?;
    let limit = t.threads.min(t.cpus).max(1);
    let used = cpu.client * i.cpus as f64;
    (used >= CLIENT_SATURATED * limit as f64).then_some(Saturated {
        used,
        limit,
        threads: t.threads,
    })
}

/// "client-bound": the client's threads were saturated (see
/// `client_saturated`).
fn client_bound(mut ev: Vec<String>, s: Saturated) -> Hint {
    ev.push(format!(
        "qpslab's {} used {:.2} of the {} {} could use: the client's threads were saturated and the server waited for queries; give the client more threads (--client-shards) or CPUs (--client-cpus), or load from another host",
        crate::out::counted(s.threads, "load thread"),
        s.used,
        crate::out::counted(s.limit, "CPU"),
        if s.threads == 1 { "it" } else { "they" },
    ));
    Hint {
        verdict: "client-bound".into(),
        evidence: ev,
        top_waits: vec![],
        locks: None,
    }
}

/// A busy host where the load generator took more than `CLIENT_SHARE` of
/// the CPU spent (`client` of it), its threads not saturated: client and
/// server together used up a host too small for both ("host-bound: server
/// 75%, qpslab 25% of 2 CPUs"), which says nothing against the server's
/// figures per query, only that a bigger host (or the client elsewhere)
/// would carry more. Without the client's thread count (older runs) the
/// client is said to limit the step when it took more than the server.
fn shared_cpu_verdict(i: &Inputs, mut ev: Vec<String>, cpu: CpuSplit, client: f64) -> Hint {
    let busy = (1.0 - cpu.idle - cpu.iowait - cpu.steal).max(f64::EPSILON);
    let server = cpu.server / busy;
    if i.client_threads.is_none() && cpu.client > cpu.server {
        ev.push(format!(
            "the load generator used {} of the CPU the host spent, more than the server's {}: the client, not the server, limits this step",
            pct(client),
            pct(server)
        ));
        return Hint {
            verdict: "client-bound".into(),
            evidence: ev,
            top_waits: vec![],
            locks: None,
        };
    }
    ev.push(format!(
        "the host's {} were busy: the server took {} and the load generator {} of the CPU spent; client and server share a host too small for both (pin them apart with --client-cpus and `server start --cpus`, or load from another host, to see the server's own limit)",
        crate::out::counted(i.cpus, "CPU"),
        pct(server),
        pct(client)
    ));
    Hint {
        verdict: format!(
            "{HOST_BOUND}: server {}, qpslab {} of {}",
            pct(server),
            pct(client),
            crate::out::counted(i.cpus, "CPU")
        ),
        evidence: ev,
        top_waits: vec![],
        locks: None,
    }
}

/// The verdict's first word when client and server used up a host that
/// both run on (see `shared_cpu_verdict`).
pub const HOST_BOUND: &str = "host-bound";

/// A run whose CPUs were mostly idle: contention when more threads than
/// CPUs waited on each other, else every query waiting for its round trip.
fn idle_verdict(i: &Inputs, mut ev: Vec<String>, cpu: CpuSplit, waits: Vec<(String, f64)>) -> Hint {
    if i.threads as usize > i.cpus {
        ev.push(format!(
            "{} of CPU idle while {} client threads share {} CPUs: threads wait on each other",
            pct(cpu.idle),
            i.threads,
            i.cpus
        ));
        if let Some(lt) = i.counters.delta("status.Innodb_row_lock_time", i.a, i.b) {
            if lt > 0.0 {
                ev.push(format!(
                    "row lock waits: {:.0} ms per second",
                    lt / (i.b - i.a)
                ));
            }
        }
        if !i.ps_on {
            ev.push("performance_schema is off: turn it on to see which waits".into());
        } else if !i.ps_synch {
            ev.push("mutex and rwlock waits are not instrumented: performance-schema-instrument='wait/synch/%=ON' shows them".into());
        }
        for (name, share) in &waits {
            ev.push(format!("{} of wait time in {name}", pct(*share)));
        }
        ev.extend(latch_waits(i.counters, i.a, i.b));
        return Hint {
            verdict: "contention".into(),
            evidence: ev,
            top_waits: waits,
            locks: None,
        };
    }
    ev.push(format!(
        "{} of CPU idle with {} client threads on {} CPUs: every query waits for its round trip; more users would find the peak",
        pct(cpu.idle),
        i.threads,
        i.cpus
    ));
    Hint {
        verdict: LATENCY_BOUND.into(),
        evidence: ev,
        top_waits: waits,
        locks: None,
    }
}

/// A run whose CPUs were busy, not with the client: the server's, or other
/// processes' (a shared host); with the top waits.
fn cpu_verdict(i: &Inputs, mut ev: Vec<String>, cpu: CpuSplit, waits: Vec<(String, f64)>) -> Hint {
    ev.push(format!(
        "server {} of CPU, client {}, other {}, idle {}",
        pct(cpu.server),
        pct(cpu.client),
        pct(cpu.other),
        pct(cpu.idle)
    ));
    if cpu.server < cpu.other {
        // The CPU is busy, but not mostly with the server: never call that
        // "CPU-bound in the server" next to a split that says otherwise.
        ev.push("the CPU went mostly to other processes (or to a server process qpslab cannot see): the host is shared; measure on a quiet host".into());
        return Hint {
            verdict: "CPU-bound: other processes".into(),
            evidence: ev,
            top_waits: waits,
            locks: None,
        };
    }
    for (name, share) in waits.iter().take(3) {
        ev.push(format!("{} of wait time in {name}", pct(*share)));
    }
    ev.extend(latch_waits(i.counters, i.a, i.b));
    Hint {
        verdict: "CPU-bound in the server".into(),
        evidence: ev,
        top_waits: waits,
        locks: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::counters::Keep;

    fn inputs<'a>(c: &'a Counters, io: &'a IoRates, cpu: CpuSplit, threads: u32) -> Inputs<'a> {
        Inputs {
            counters: c,
            queries: 1000.0,
            transactions: 1000.0,
            target_rate: None,
            a: 0.0,
            b: 10.0,
            threads,
            cpus: 2,
            cpu: Some(cpu),
            client_share_fallback: None,
            io,
            ps_on: false,
            ps_synch: false,
            client_threads: None,
        }
    }

    #[test]
    fn latch_waits_name_the_busiest_latch() {
        let mut c = Counters::default();
        for (k, a, b) in [
            ("innodb_mutex.total.os_waits", 100.0, 600.0),
            ("innodb_mutex.log0log.c:832.os_waits", 0.0, 400.0),
            ("innodb_mutex.&dict_sys->mutex.os_waits", 100.0, 200.0),
        ] {
            c.push(k.into(), Keep::Ends, 0.0, a);
            c.push(k.into(), Keep::Ends, 10.0, b);
        }
        let s = latch_waits(&c, 0.0, 10.0).unwrap();
        assert!(
            s.contains("50 OS waits/s") && s.contains("80% of them at log0log.c:832"),
            "{s}"
        );
        assert!(latch_waits(&Counters::default(), 0.0, 10.0).is_none());
    }

    /// "client-bound" only when the client's threads ran flat out; a client
    /// that took more CPU than the server with threads to spare shares a
    /// small host (host-bound), and a saturated client on a half-idle host
    /// is client-bound, not latency-bound or contention.
    #[test]
    fn client_bound_only_when_its_threads_are_saturated() {
        let c = Counters::default();
        let io = IoRates::default();
        let cpu = |server: f64, client: f64, idle: f64| CpuSplit {
            server,
            client,
            idle,
            ..Default::default()
        };
        let with = |split: CpuSplit, threads: usize, users: u32| {
            let mut i = inputs(&c, &io, split, users);
            i.client_threads = Some(ClientThreads { threads, cpus: 2 });
            hint(&i)
        };
        // 4 load threads on 2 CPUs used 1.0 of the 2 CPUs: not saturated,
        // though more than the server's 0.9.
        assert!(with(cpu(0.45, 0.5, 0.05), 4, 4)
            .verdict
            .starts_with(HOST_BOUND));
        // One load thread using a whole CPU while the server idles half
        // of the other: the client held the server back.
        let h = with(cpu(0.3, 0.46, 0.24), 1, 64);
        assert_eq!(h.verdict, "client-bound", "{:?}", h.evidence);
        assert!(
            h.evidence[0].contains("1 load thread used 0.92 of the 1 CPU it could use"),
            "{:?}",
            h.evidence
        );
        // Idle CPU and a client far from saturated: contention, as before.
        assert_eq!(with(cpu(0.4, 0.05, 0.55), 1, 64).verdict, "contention");
        // Two threads at 1.8 of 2 CPUs: saturated.
        assert_eq!(with(cpu(0.05, 0.9, 0.05), 2, 2).verdict, "client-bound");
    }

    /// A used-up host keeps its verdict under a lock that takes a modest
    /// share; a lock that holds most of the connections' time names it.
    #[test]
    fn a_dominant_lock_names_a_host_bound_step() {
        let c = Counters::default();
        let io = IoRates::default();
        let split = CpuSplit {
            server: 0.66,
            client: 0.25,
            idle: 0.04,
            ..Default::default()
        };
        let locks = |share: f64| crate::stats::document::LockShares {
            source: "stacks".into(),
            shares: vec![("THR_LOCK (table lock)".into(), share)],
            top_stack: Some("mysql_update;lock_tables;thr_multi_lock".into()),
        };
        let mut h = hint(&inputs(&c, &io, split, 16));
        assert!(h.verdict.starts_with(HOST_BOUND), "{}", h.verdict);
        name_limiter(&mut h, &locks(0.3));
        assert!(h.verdict.starts_with(HOST_BOUND), "{}", h.verdict);
        let mut h = hint(&inputs(&c, &io, split, 16));
        name_limiter(&mut h, &locks(0.83));
        assert_eq!(h.verdict, "contention: THR_LOCK (table lock)");
        assert!(
            h.evidence
                .iter()
                .any(|e| e.contains("used up too (host-bound")),
            "{:?}",
            h.evidence
        );
    }

    #[test]
    fn verdicts() {
        let c = Counters::default();
        let io = IoRates::default();
        let split = |server: f64, client: f64, idle: f64, iowait: f64| CpuSplit {
            server,
            client,
            idle,
            iowait,
            other: (1.0 - server - client - idle - iowait).max(0.0),
            ..Default::default()
        };
        // Client and server filled a 2-CPU host, the server most: the
        // host, not the client, is what ran out.
        assert_eq!(
            hint(&inputs(&c, &io, split(0.5, 0.4, 0.05, 0.0), 16)).verdict,
            "host-bound: server 53%, qpslab 42% of 2 CPUs"
        );
        // The client took more than the server: client-bound, when its
        // threads are not known (runs stored before they were).
        assert_eq!(
            hint(&inputs(&c, &io, split(0.4, 0.5, 0.05, 0.0), 16)).verdict,
            "client-bound"
        );
        assert_eq!(
            hint(&inputs(&c, &io, split(0.35, 0.05, 0.2, 0.4), 16)).verdict,
            "IO-bound"
        );
        assert_eq!(
            hint(&inputs(&c, &io, split(0.4, 0.05, 0.5, 0.0), 64)).verdict,
            "contention"
        );
        assert_eq!(
            hint(&inputs(&c, &io, split(0.4, 0.05, 0.5, 0.0), 1)).verdict,
            LATENCY_BOUND
        );
        // One user on an idle CPU is latency-bound even when the client
        // takes a large share of the little CPU used (not "client-bound").
        assert_eq!(
            hint(&inputs(&c, &io, split(0.3, 0.2, 0.5, 0.0), 1)).verdict,
            LATENCY_BOUND
        );
        // Another process's CPU marks the host shared, first in the evidence.
        let h = hint(&inputs(&c, &io, split(0.5, 0.1, 0.1, 0.0), 64));
        assert_eq!(
            h.verdict,
            "CPU-bound in the server (host shared: other processes 33% of busy CPU)"
        );
        assert!(h.evidence[0].starts_with("host shared"), "{:?}", h.evidence);
        let mut steal = split(0.85, 0.1, 0.02, 0.0);
        steal.steal = 0.03;
        steal.other = 0.0;
        assert!(hint(&inputs(&c, &io, steal, 64))
            .verdict
            .contains("steal 3%"));
        // An open-model run on an idle host that kept up with its rate
        // (100 a second over 10 s; 96 is within RATE_KEPT) is held by the
        // rate, not by contention among its 64 users.
        let idle = split(0.1, 0.05, 0.85, 0.0);
        let mut rated = inputs(&c, &io, idle, 64);
        rated.target_rate = Some(104.0);
        rated.transactions = 1000.0;
        let h = hint(&rated);
        assert_eq!(h.verdict, RATE_LIMITED, "{:?}", h.evidence);
        assert!(
            h.evidence[0].contains("completed 100 of the 104"),
            "{:?}",
            h.evidence
        );
        // One that fell behind gets the closed-model verdict and the
        // shortfall first.
        rated.target_rate = Some(200.0);
        let h = hint(&rated);
        assert_eq!(h.verdict, "contention");
        assert!(h.evidence[0].contains("fell behind"), "{:?}", h.evidence);
        // 100 of 120 arrivals in a 1 s window: 17% short, but within the
        // arrivals' own noise (3 x sqrt(120) = 33): kept.
        rated.b = 1.0;
        rated.transactions = 100.0;
        rated.target_rate = Some(120.0);
        assert_eq!(hint(&rated).verdict, RATE_LIMITED);
        assert_eq!(
            hint(&inputs(&c, &io, split(0.85, 0.1, 0.03, 0.0), 64)).verdict,
            "CPU-bound in the server"
        );
        // A busy host whose CPU went elsewhere is not server-bound.
        assert!(hint(&inputs(&c, &io, split(0.0, 0.1, 0.03, 0.0), 64))
            .verdict
            .starts_with("CPU-bound: other processes (host shared: other processes 90%"));
        let mut none = inputs(&c, &io, split(0.0, 0.5, 0.4, 0.0), 4);
        none.queries = 0.0;
        assert_eq!(hint(&none).verdict, "unknown");
    }
}
