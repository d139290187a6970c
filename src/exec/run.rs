//! The coordinator: starts the shards, waits until every connection is
//! ready, starts the clock, merges the shards' intervals into samples, stops
//! the run on time, event count, fatal error or Ctrl-C, and collects totals.

use super::config::RunConfig;
use super::shard::{run_shard, Msg};
use super::state::Shared;
use crate::interrupt::interrupted;
use crate::stats::{CpuSnapshot, Hist, Interval, KindStats, RunResult, RunStatus, Sample};
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Unreachable seconds (summed over spells) that make a run degraded.
const DEGRADED_UNREACHABLE_S: f64 = 1.0;

/// Connections that get a thread each on any host whose CPUs the client
/// shares with the server (more where two per CPU is more).
const OWN_THREADS_UP_TO: usize = 16;

/// The client's threading when not set explicitly: (shards, SCHED_BATCH).
///
/// - up to one connection per CPU: a thread per connection, normal
///   scheduling. The client is on the critical path of every query, and a
///   client/server pair that wakes each other stays on one CPU.
/// - up to two connections per CPU, or up to 16 where the client is not
///   pinned (`pinned`: `--client-cpus`, CPUs of its own): still a thread
///   per connection (each on direct I/O), under SCHED_BATCH. Below 16 a
///   shard's reactor among the server's threads seldom finds more than
///   one answer ready a wake, so its epoll_wait and the read that finds
///   nothing cost more than the extra threads' context switches; past it
///   sharing wins. On CPUs of its own a reactor finds answers waiting.
/// - beyond: a shard per CPU up to 4, then one per 4 CPUs, under
///   SCHED_BATCH. The client needs about a quarter of the server's CPU a
///   query, so on many CPUs a quarter of them keeps up with a server on the
///   rest, and more runtimes only sleep and wake more often. On few CPUs
///   the scheduler gives each runnable thread an equal share, so a single
///   client thread among dozens of server threads gets too little of it
///   and the server waits on the client: up to 4 CPUs, one shard per CPU.
///
/// The measurements behind each step are in docs/BENCHMARKS.md: "Client
/// shards on 16 CPUs, and the rule changed", "A thread per connection up
/// to two connections per CPU", "The client floor on this 2-CPU host",
/// "Item 1, peak QPS: a shard per CPU on small hosts" and "Item 1 at stop
/// 55: a thread per connection up to 16".
pub(crate) fn auto_threading(threads: usize, cores: usize, pinned: bool) -> (usize, bool) {
    let cores = cores.max(1);
    let own_threads = if pinned {
        2 * cores
    } else {
        (2 * cores).max(OWN_THREADS_UP_TO)
    };
    if threads <= cores {
        (threads.max(1), false)
    } else if threads <= own_threads {
        (threads, true)
    } else {
        (cores.min(4).max(cores / 4), true)
    }
}

/// Runs `cfg`; `on_sample` sees each interval as soon as every shard has
/// reported it.
/// `clock` is set to the instant the clock starts (warm-up included), for
/// whatever runs beside the load on the same time line.
pub fn run_clocked(
    cfg: &RunConfig,
    clock: &Arc<OnceLock<Instant>>,
    mut on_sample: impl FnMut(&Sample),
) -> RunResult {
    let _ctrl_c = crate::interrupt::Cooperative::enter();
    let cfg = resolve_threading(cfg);
    let threads = cfg.threads.max(1);
    let nshards = cfg.shards;
    let shared = Arc::new(Shared::new(cfg.events));
    let (joins, recycle, rx) = spawn_shards(&cfg, &shared);
    let mut status = wait_ready(&shared, &rx, &joins, threads as usize, &cfg);
    if let (RunStatus::Ok, Some(started)) = (&status, &cfg.on_started) {
        started();
    }
    let t0 = Instant::now();
    let _ = shared.t0.set(t0);
    let _ = clock.set(t0);
    let mut merge = Merge::new(&cfg, t0, &mut on_sample);
    shared.go.store(true, Ordering::SeqCst);

    let end_at = (cfg.time > 0.0).then(|| t0 + Duration::from_secs_f64(cfg.warmup + cfg.time));
    let mut finals = Finals::new();
    let stall_watch = super::stall::StallWatch::start();
    loop {
        // Until the end, wakes at it; once stopping, waits for the shards'
        // last words (a message ends the wait at once): a timeout of zero
        // past the end would spin a CPU while the events in flight finish.
        let timeout = match end_at {
            Some(e) if !shared.stopping() => e
                .saturating_duration_since(Instant::now())
                .min(Duration::from_millis(50)),
            _ => Duration::from_millis(50),
        };
        match rx.recv_timeout(timeout) {
            Ok(Msg::Tick { shard, k, mut iv }) => {
                merge.add(k, &iv, nshards, &shared);
                iv.reset();
                let _ = recycle[shard].send(iv);
            }
            Ok(Msg::Final {
                thread_events,
                thread_time,
                text_fallbacks,
                server_version,
            }) => {
                finals.add(thread_events, thread_time, text_fallbacks, server_version);
                if finals.count == nshards {
                    break;
                }
            }
            Ok(Msg::Fatal(m)) => {
                if status == RunStatus::Ok {
                    status = RunStatus::Failed(m);
                }
                shared.stop.store(true, Ordering::SeqCst);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        if !shared.stopping() {
            if let Some(why) = stop_reason(&cfg, &shared, end_at) {
                if let Some(s) = why {
                    status = s;
                }
                shared.stop.store(true, Ordering::SeqCst);
            }
        }
    }
    let elapsed_all = measured(t0, end_at);
    merge.flush();
    let lost = join_shards(joins);
    if finals.count < nshards && matches!(status, RunStatus::Ok | RunStatus::Degraded(_)) {
        status = lost_figures(nshards, finals.count, lost);
    }
    let Merge {
        samples,
        mut total,
        cpu_measure,
        ..
    } = merge;
    let cpu_end = CpuSnapshot::now();
    let (client_cpu_s, host_cpu_s, host_busy) = cpu_end.since(&cpu_measure);
    let (unreachable_s, _) = shared.unreachable();
    let client_stall_s = stall_watch.stop();
    if status == RunStatus::Ok {
        status = degraded(&total, unreachable_s, client_stall_s);
    }
    let (classes, kinds) = kind_stats(&cfg, &mut total);
    RunResult {
        status,
        total,
        elapsed: (elapsed_all - cfg.warmup).max(1e-9),
        classes,
        kinds,
        thread_events: finals.thread_events,
        thread_time: finals.thread_time,
        client_cpu_s,
        host_cpu_s,
        host_busy,
        samples,
        server_version: finals.server_version,
        text_fallbacks: finals.text_fallbacks,
        client_shards: cfg.shards,
        direct_connections: shared.direct.load(Ordering::Relaxed),
        uring_connections: shared.uring.load(Ordering::Relaxed),
        direct_ring_connections: shared.direct_ring.load(Ordering::Relaxed),
        metadata_off_connections: shared.metadata_off.load(Ordering::Relaxed),
        client_cpus: cfg.client_cpus.clone(),
        client_sched_batch: cfg.sched_batch == Some(true),
        unreachable_s,
        client_stall_s,
        server_tally: None,
        headline: None,
        agents: None,
    }
}

/// The configuration with its shard count and scheduling class settled
/// (`auto_threading` where not set).
fn resolve_threading(cfg: &RunConfig) -> Arc<RunConfig> {
    let threads = cfg.threads.max(1);
    let pinned = !cfg.client_cpus.is_empty();
    let cores = if pinned {
        cfg.client_cpus.len()
    } else {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    };
    let (auto_shards, auto_batch) = auto_threading(threads as usize, cores, pinned);
    let nshards = if cfg.shards == 0 {
        auto_shards
    } else {
        cfg.shards
    }
    .min(threads as usize)
    .max(1);
    let mut cfg = cfg.clone();
    cfg.shards = nshards;
    cfg.sched_batch = Some(cfg.sched_batch.unwrap_or(auto_batch));
    Arc::new(cfg)
}

/// The shards' threads (each with its connections, round robin), the
/// channels that give each its emptied intervals back, and the channel
/// their messages come on.
type Shards = (
    Vec<std::io::Result<std::thread::JoinHandle<()>>>,
    Vec<Sender<Interval>>,
    Receiver<Msg>,
);

fn spawn_shards(cfg: &Arc<RunConfig>, shared: &Arc<Shared>) -> Shards {
    let threads = cfg.threads.max(1);
    let nshards = cfg.shards;
    let (tx, rx) = channel::<Msg>();
    let mut joins = Vec::new();
    // Each shard's intervals come back emptied, for its ticker to reuse.
    let mut recycle = Vec::with_capacity(nshards);
    for s in 0..nshards {
        let (back, recycled) = channel::<Interval>();
        recycle.push(back);
        let workers: Vec<u32> = (0..threads)
            .filter(|w| *w as usize % nshards == s)
            .collect();
        let (cfg, shared, tx) = (cfg.clone(), shared.clone(), tx.clone());
        joins.push(
            std::thread::Builder::new()
                .name(format!("qpslab-shard-{s}"))
                .spawn(move || run_shard(s, workers, cfg, shared, tx, recycled)),
        );
    }
    (joins, recycle, rx)
}

/// Waits for every connection to be connected and prepared; a client
/// thread that could not start or ended before its connections were (a
/// panic), a fatal error or Ctrl-C stops the run first, with why.
fn wait_ready(
    shared: &Shared,
    rx: &Receiver<Msg>,
    joins: &[std::io::Result<std::thread::JoinHandle<()>>],
    threads: usize,
    cfg: &RunConfig,
) -> RunStatus {
    let mut status = RunStatus::Ok;
    if let Some(Err(e)) = joins.iter().find(|j| j.is_err()) {
        // Its connections would never be ready: fail now, not wait.
        status = RunStatus::Failed(format!("cannot start a client thread: {e}"));
        shared.stop.store(true, Ordering::SeqCst);
    }
    while shared.ready.load(Ordering::SeqCst) < threads && !shared.stopping() {
        if let Ok(Msg::Fatal(m)) = rx.try_recv() {
            status = RunStatus::Failed(m);
            shared.stop.store(true, Ordering::SeqCst);
            break;
        }
        if interrupted() || halted(cfg) {
            status = RunStatus::Aborted("interrupted before the start".into());
            shared.stop.store(true, Ordering::SeqCst);
            break;
        }
        if joins.iter().flatten().any(|j| j.is_finished()) {
            // Its last word, if it sent one (a Fatal precedes its return).
            status = RunStatus::Failed(match rx.try_recv() {
                Ok(Msg::Fatal(m)) => m,
                _ => "a client thread ended before its connections were ready".into(),
            });
            shared.stop.store(true, Ordering::SeqCst);
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    if status == RunStatus::Ok && shared.stopping() && !interrupted() {
        // A connection failed to set up: it stops the run, then says why.
        if let Ok(Msg::Fatal(m)) = rx.recv_timeout(Duration::from_millis(200)) {
            status = RunStatus::Failed(m);
        }
    }
    status
}

/// Whether the running load must stop now: `Some(None)` at its end,
/// `Some(Some(status))` on Ctrl-C or a server unreachable too long.
fn stop_reason(
    cfg: &RunConfig,
    shared: &Shared,
    end_at: Option<Instant>,
) -> Option<Option<RunStatus>> {
    let (_, spell) = shared.unreachable();
    if interrupted() {
        Some(Some(RunStatus::Aborted("interrupted (Ctrl-C)".into())))
    } else if halted(cfg) {
        Some(Some(RunStatus::Aborted("stopped by the controller".into())))
    } else if end_at.is_some_and(|e| Instant::now() >= e) {
        Some(None)
    } else if spell > cfg.max_unreachable {
        let why = shared
            .last_connect_error
            .lock()
            .map(|e| e.clone())
            .unwrap_or_default();
        Some(Some(RunStatus::Failed(format!(
            "the server has been unreachable for {spell:.1} s (last error: {why}); \
             stopped (--max-unreachable {})",
            cfg.max_unreachable
        ))))
    } else {
        None
    }
}

/// Whether the run's outside stop (`RunConfig::halt`) was set.
fn halted(cfg: &RunConfig) -> bool {
    cfg.halt.as_ref().is_some_and(|h| h.load(Ordering::SeqCst))
}

/// Seconds measured since `t0`: a timed run measures its planned length
/// (`end_at`), as the connections' grace after it (at most `STOP_GRACE`, a
/// stalled server's) finishes only the events in flight at the end and is
/// no measured time.
fn measured(t0: Instant, end_at: Option<Instant>) -> f64 {
    match end_at {
        Some(e) => t0.elapsed().min(e - t0).as_secs_f64(),
        None => t0.elapsed().as_secs_f64(),
    }
}

/// Merges the shards' intervals into samples: an interval is complete when
/// every shard has sent it; each one is shown to `on_sample`, folded into
/// the totals past the warm-up, and kept compacted.
struct Merge<'a> {
    cfg: &'a RunConfig,
    t0: Instant,
    warmup_ticks: u64,
    /// Intervals not complete yet: how many shards sent each, merged.
    pending: BTreeMap<u64, (usize, Interval)>,
    /// Emptied per-kind histograms of emitted intervals, for the next
    /// pending ones (merging allocates none once a few have gone round).
    spare_kinds: Vec<Vec<Hist>>,
    last_k: Option<u64>,
    samples: Vec<Sample>,
    total: Interval,
    cpu_prev: CpuSnapshot,
    /// The CPU figures at the end of the warm-up.
    cpu_measure: CpuSnapshot,
    on_sample: &'a mut dyn FnMut(&Sample),
}

impl<'a> Merge<'a> {
    fn new(cfg: &'a RunConfig, t0: Instant, on_sample: &'a mut dyn FnMut(&Sample)) -> Self {
        let cpu0 = CpuSnapshot::now();
        Merge {
            cfg,
            t0,
            warmup_ticks: (cfg.warmup / cfg.interval).round() as u64,
            pending: BTreeMap::new(),
            spare_kinds: Vec::new(),
            last_k: None,
            samples: Vec::new(),
            total: Interval::default(),
            cpu_prev: cpu0,
            cpu_measure: cpu0,
            on_sample,
        }
    }

    /// Shard's interval `k` arrives; complete intervals are emitted, as
    /// the run's last when it is stopping.
    fn add(&mut self, k: u64, iv: &Interval, nshards: usize, shared: &Shared) {
        let spare = &mut self.spare_kinds;
        let e = self.pending.entry(k).or_insert_with(|| {
            let kinds = spare.pop().unwrap_or_default();
            (
                0,
                Interval {
                    kinds,
                    ..Interval::default()
                },
            )
        });
        e.0 += 1;
        e.1.merge(iv);
        while let Some((&k0, (n, _))) = self.pending.iter().next() {
            if *n < nshards {
                break;
            }
            let (_, iv) = self.pending.remove(&k0).unwrap_or_default();
            self.emit(k0, iv, shared.stopping());
            self.last_k = Some(k0);
        }
    }

    /// The partial intervals left (a shard that ended early): emitted as
    /// last, or folded into the totals when their interval was emitted.
    fn flush(&mut self) {
        let rest = std::mem::take(&mut self.pending);
        for (k, (_, iv)) in rest {
            if self.last_k.is_some_and(|l| k <= l) {
                // Late part of an interval already emitted: fold into totals only.
                if k >= self.warmup_ticks {
                    self.total.merge(&iv);
                }
                continue;
            }
            self.emit(k, iv, true);
        }
    }

    fn emit(&mut self, k: u64, iv: Interval, last: bool) {
        let cfg = self.cfg;
        let now = CpuSnapshot::now();
        let (client, host, busy) = now.since(&self.cpu_prev);
        self.cpu_prev = now;
        let warmup = k < self.warmup_ticks;
        let start = k as f64 * cfg.interval;
        let end = if last {
            self.t0.elapsed().as_secs_f64().max(start)
        } else {
            start + cfg.interval
        };
        if !warmup {
            self.total.merge(&iv);
        } else if k + 1 == self.warmup_ticks {
            self.cpu_measure = now;
        }
        let s = Sample {
            t: end - cfg.warmup,
            dur: end - start,
            warmup,
            iv,
            client_cpu_s: client,
            host_cpu_s: host,
            host_busy: busy,
            sliver: last && end - start < cfg.interval * 0.5,
        };
        (self.on_sample)(&s);
        // Kept for the run's length: its counters and latency summary only;
        // its per-kind histograms go back to the spares.
        let mut s = s;
        let mut kinds = std::mem::take(&mut s.iv.kinds);
        kinds.iter_mut().for_each(Hist::reset);
        self.spare_kinds.push(kinds);
        s.iv.compact(&cfg.sample_quantiles);
        self.samples.push(s);
    }
}

/// What the shards send when they end, gathered.
struct Finals {
    count: usize,
    thread_events: Vec<u64>,
    thread_time: Vec<f64>,
    text_fallbacks: u64,
    server_version: String,
}

impl Finals {
    fn new() -> Self {
        Finals {
            count: 0,
            thread_events: Vec::new(),
            thread_time: Vec::new(),
            text_fallbacks: 0,
            server_version: String::new(),
        }
    }

    fn add(
        &mut self,
        thread_events: Vec<u64>,
        thread_time: Vec<f64>,
        text_fallbacks: u64,
        server_version: String,
    ) {
        self.thread_events.extend(thread_events);
        self.thread_time.extend(thread_time);
        self.text_fallbacks += text_fallbacks;
        if !server_version.is_empty() {
            self.server_version = server_version;
        }
        self.count += 1;
    }
}

/// The event classes' and the statement kinds' figures over the measured
/// time, taken out of `total`'s per-kind histograms (kinds never run left
/// out; every class kept).
fn kind_stats(cfg: &RunConfig, total: &mut Interval) -> (Vec<KindStats>, Vec<KindStats>) {
    let stat_names = cfg.workload.stat_names();
    let class_names = cfg.workload.event_classes();
    let mut hists = std::mem::take(&mut total.kinds);
    hists.resize_with(stat_names.len() + class_names.len(), Hist::new);
    let class_hists = hists.split_off(stat_names.len());
    let stats = |(name, hist): (String, Hist)| KindStats {
        name,
        count: hist.count(),
        hist,
    };
    let classes = class_names
        .into_iter()
        .zip(class_hists)
        .map(stats)
        .collect();
    let kinds = stat_names
        .into_iter()
        .zip(hists)
        .filter(|(_, h)| h.count() > 0)
        .map(stats)
        .collect();
    (classes, kinds)
}

/// Joins the shards' threads; what each that panicked or never started
/// said.
fn join_shards(joins: Vec<std::io::Result<std::thread::JoinHandle<()>>>) -> Vec<String> {
    let mut lost = Vec::new();
    for (s, j) in joins.into_iter().enumerate() {
        match j {
            Ok(j) => {
                if let Err(panic) = j.join() {
                    lost.push(format!(
                        "client thread {s} panicked: {}",
                        panic_text(&panic)
                    ));
                }
            }
            Err(e) => lost.push(format!("client thread {s} could not start: {e}")),
        }
    }
    lost
}

/// Figures a shard never sent cannot be vouched for: the run is kept,
/// marked failed, with what was received.
fn lost_figures(nshards: usize, finals: usize, mut lost: Vec<String>) -> RunStatus {
    if lost.is_empty() {
        lost.push(format!("{} client thread(s) ended early", nshards - finals));
    }
    RunStatus::Failed(format!(
        "{} of {nshards} client threads lost their final figures ({}); the totals are incomplete",
        nshards - finals,
        lost.join("; ")
    ))
}

/// A panic's message, as far as it is text.
fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into())
}

/// Ok, or degraded with what went wrong, for a run that reached its end.
fn degraded(total: &Interval, unreachable_s: f64, client_stall_s: f64) -> RunStatus {
    let mut why = Vec::new();
    if client_stall_s > 0.0 {
        why.push(format!(
            "the load generator itself was stalled for {client_stall_s:.1} s (the qpslab process stopped or not scheduled): those seconds measure the client, not the server"
        ));
    }
    if unreachable_s >= DEGRADED_UNREACHABLE_S {
        why.push(format!(
            "the server was unreachable for {unreachable_s:.1} s ({} failed reconnect attempts)",
            total.failed_connects
        ));
    }
    if total.failed > 0 {
        why.push(format!(
            "{} events failed (connection lost, no answer within --read-timeout, or still running {} s after the run's end)",
            total.failed,
            super::state::STOP_GRACE.as_secs()
        ));
    }
    if why.is_empty() {
        RunStatus::Ok
    } else {
        RunStatus::Degraded(why.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::auto_threading;

    #[test]
    fn threading_regimes() {
        assert_eq!(auto_threading(1, 2, false), (1, false));
        assert_eq!(auto_threading(2, 2, false), (2, false));
        assert_eq!(auto_threading(3, 2, false), (3, true));
        assert_eq!(auto_threading(4, 2, false), (4, true));
        assert_eq!(auto_threading(5, 2, false), (5, true));
        assert_eq!(auto_threading(16, 2, false), (16, true));
        assert_eq!(auto_threading(17, 2, false), (2, true));
        assert_eq!(auto_threading(1024, 2, false), (2, true));
        assert_eq!(auto_threading(3, 1, false), (3, true));
        assert_eq!(auto_threading(17, 1, false), (1, true));
        assert_eq!(auto_threading(16, 4, false), (16, true));
        assert_eq!(auto_threading(17, 4, false), (4, true));
        // on CPUs of its own, two connections per CPU as before
        assert_eq!(auto_threading(4, 2, true), (4, true));
        assert_eq!(auto_threading(5, 2, true), (2, true));
        assert_eq!(auto_threading(4, 1, true), (1, true));
        assert_eq!(auto_threading(64, 16, true), (4, true));
        assert_eq!(auto_threading(32, 16, false), (32, true));
        assert_eq!(auto_threading(64, 16, false), (4, true));
        assert_eq!(auto_threading(1024, 16, false), (4, true));
        assert_eq!(auto_threading(1024, 4, false), (4, true));
        assert_eq!(auto_threading(64, 8, false), (4, true));
        assert_eq!(auto_threading(1024, 64, false), (16, true));
    }
}
