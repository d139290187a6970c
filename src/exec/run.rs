//! The coordinator: starts the shards, waits until every connection is
//! ready, starts the clock, merges the shards' intervals into samples, stops
//! the run on time, event count, fatal error or Ctrl-C, and collects totals.

use super::config::RunConfig;
use super::shard::{run_shard, Msg};
use super::state::{KindAcc, Shared};
use crate::interrupt::interrupted;
use crate::stats::{CpuSnapshot, Interval, KindStats, RunResult, RunStatus, Sample};
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Unreachable seconds (summed over spells) that make a run degraded.
const DEGRADED_UNREACHABLE_S: f64 = 1.0;

/// The client's threading when not set explicitly: (shards, SCHED_BATCH).
///
/// - up to one connection per CPU: a thread per connection, normal
///   scheduling. The client is on the critical path of every query, and a
///   client/server pair that wakes each other stays on one CPU.
/// - up to two connections per CPU: still a thread per connection (each on
///   direct I/O), under SCHED_BATCH. Measured on the 2-CPU host (medians
///   of 3 interleaved rounds, µs a query, QPS): 3 users 12.8 / 34.4k
///   against 15.0 / 31.9k for a shard per CPU (sysbench 17.2 / 31.2k);
///   4 users 15.0 / 31.0k against 18.6 / 29.4k (sysbench 15.9 / 34.6k);
///   past that sharing wins (6 users: 12.6 shared, 15.9 one a thread).
/// - beyond: one shard per 4 CPUs under SCHED_BATCH. The client needs
///   about 0.6 of a core per 100k queries/s (6 µs a query, a quarter of
///   the server's ~25 µs), so a quarter of the CPUs keeps up with a server
///   on the rest; more runtimes only sleep and wake more often and take
///   CPU from the server.
///
/// Measured on a 16-CPU host (docs/BENCHMARKS.md, "The client floor on 16
/// CPUs"), point selects, medians of 3 rounds (QPS, µs/query; sysbench
/// 559k/6.4 at 64 threads, 464k/9.3 at 256): 64 threads: 2 shards (one per
/// 8 CPUs, the rule before) 354k/5.7, 4 shards 483k/6.0, 8 shards
/// 463k/6.9, 16 shards 479k/7.5; 256 threads: 2 shards 297k/6.1, 4 shards
/// 425k/6.0, 8 shards 446k/6.7, 16 shards 448k/7.6.
///
/// Measured on a 2-core host, MariaDB 10.11, point selects (QPS, client
/// µs/query): 2 threads: 2 shards 38.6k/10.0 vs 1 shard 16.0k/14.3;
/// 4 threads: 2–4 shards 32–39k/9.5–14 vs 1 shard 24.9k/9.9;
/// 16 threads: 1 shard 51.0k/6.5 vs 2 shards 43.9k/11.5;
/// 16 threads: SCHED_BATCH 10.3 vs normal 17.1 µs/query.
pub fn auto_threading(threads: usize, cores: usize) -> (usize, bool) {
    let cores = cores.max(1);
    if threads <= cores {
        (threads.max(1), false)
    } else if threads <= 2 * cores {
        (threads, true)
    } else {
        ((cores / 4).max(1), true)
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
    let threads = cfg.threads.max(1);
    let cores = if cfg.client_cpus.is_empty() {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    } else {
        cfg.client_cpus.len()
    };
    let (auto_shards, auto_batch) = auto_threading(threads as usize, cores);
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
    let cfg = Arc::new(cfg);
    let shared = Arc::new(Shared::new(cfg.events));
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
    drop(tx);

    let mut status = RunStatus::Ok;
    if let Some(Err(e)) = joins.iter().find(|j| j.is_err()) {
        // Its connections would never be ready: fail now, not wait.
        status = RunStatus::Failed(format!("cannot start a client thread: {e}"));
        shared.stop.store(true, Ordering::SeqCst);
    }
    // Wait for every connection to be connected and prepared (or for a
    // client thread that ended before its connections were: a panic).
    while shared.ready.load(Ordering::SeqCst) < threads as usize && !shared.stopping() {
        if let Ok(Msg::Fatal(m)) = rx.try_recv() {
            status = RunStatus::Failed(m);
            shared.stop.store(true, Ordering::SeqCst);
            break;
        }
        if interrupted() {
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
    let t0 = Instant::now();
    let _ = shared.t0.set(t0);
    let _ = clock.set(t0);
    let cpu0 = CpuSnapshot::now();
    let mut cpu_prev = cpu0;
    let mut cpu_measure = cpu0;
    shared.go.store(true, Ordering::SeqCst);

    let end_at = (cfg.time > 0.0).then(|| t0 + Duration::from_secs_f64(cfg.warmup + cfg.time));
    let warmup_ticks = (cfg.warmup / cfg.interval).round() as u64;
    let mut pending: BTreeMap<u64, (usize, Interval)> = BTreeMap::new();
    let mut samples = Vec::new();
    let mut total = Interval::default();
    let stat_names = cfg.workload.stat_names();
    let class_names = cfg.workload.event_classes();
    let mut kinds: Vec<KindAcc> = vec![KindAcc::default(); stat_names.len() + class_names.len()];
    let (mut thread_events, mut thread_time) = (Vec::new(), Vec::new());
    let mut finals = 0;
    let mut text_fallbacks = 0;
    let mut server_version = String::new();
    let mut last_k: Option<u64> = None;
    let stall_watch = super::stall::StallWatch::start();

    let mut emit = |k: u64,
                    iv: Interval,
                    last: bool,
                    samples: &mut Vec<Sample>,
                    total: &mut Interval,
                    cpu_prev: &mut CpuSnapshot,
                    cpu_measure: &mut CpuSnapshot| {
        let now = CpuSnapshot::now();
        let (client, host, busy) = now.since(cpu_prev);
        *cpu_prev = now;
        let warmup = k < warmup_ticks;
        let start = k as f64 * cfg.interval;
        let end = if last {
            t0.elapsed().as_secs_f64().max(start)
        } else {
            start + cfg.interval
        };
        if !warmup {
            total.merge(&iv);
        } else if k + 1 == warmup_ticks {
            *cpu_measure = now;
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
        on_sample(&s);
        // Kept for the run's length: its counters and latency summary only.
        let mut s = s;
        s.iv.compact(&cfg.sample_quantiles);
        samples.push(s);
    };

    loop {
        let timeout = match end_at {
            Some(e) => e
                .saturating_duration_since(Instant::now())
                .min(Duration::from_millis(50)),
            None => Duration::from_millis(50),
        };
        match rx.recv_timeout(timeout) {
            Ok(Msg::Tick { shard, k, mut iv }) => {
                let e = pending.entry(k).or_insert_with(|| (0, Interval::default()));
                e.0 += 1;
                e.1.merge(&iv);
                iv.reset();
                let _ = recycle[shard].send(iv);
                // Intervals are complete when every shard has sent them.
                while let Some((&k0, (n, _))) = pending.iter().next() {
                    if *n < nshards {
                        break;
                    }
                    let (_, iv) = pending.remove(&k0).unwrap_or_default();
                    let last = shared.stopping();
                    emit(
                        k0,
                        iv,
                        last,
                        &mut samples,
                        &mut total,
                        &mut cpu_prev,
                        &mut cpu_measure,
                    );
                    last_k = Some(k0);
                }
            }
            Ok(Msg::Final {
                kinds: ks,
                thread_events: te,
                thread_time: tt,
                text_fallbacks: tf,
                server_version: sv,
            }) => {
                for (a, b) in kinds.iter_mut().zip(ks.iter()) {
                    a.count += b.count;
                    a.hist.merge(&b.hist);
                }
                thread_events.extend(te);
                thread_time.extend(tt);
                text_fallbacks += tf;
                if !sv.is_empty() {
                    server_version = sv;
                }
                finals += 1;
                if finals == nshards {
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
            let (_, spell) = shared.unreachable();
            if interrupted() {
                status = RunStatus::Aborted("interrupted (Ctrl-C)".into());
                shared.stop.store(true, Ordering::SeqCst);
            } else if end_at.is_some_and(|e| Instant::now() >= e) {
                shared.stop.store(true, Ordering::SeqCst);
            } else if spell > cfg.max_unreachable {
                let why = shared
                    .last_connect_error
                    .lock()
                    .map(|e| e.clone())
                    .unwrap_or_default();
                status = RunStatus::Failed(format!(
                    "the server has been unreachable for {spell:.1} s (last error: {why}); \
                     stopped (--max-unreachable {})",
                    cfg.max_unreachable
                ));
                shared.stop.store(true, Ordering::SeqCst);
            }
        }
    }
    let elapsed_all = t0.elapsed().as_secs_f64();
    // Partial intervals left (a shard that ended early).
    let rest: Vec<(u64, Interval)> = std::mem::take(&mut pending)
        .into_iter()
        .map(|(k, (_, iv))| (k, iv))
        .collect();
    for (k, iv) in rest {
        if last_k.is_some_and(|l| k <= l) {
            // Late part of an interval already emitted: fold into totals only.
            if k >= warmup_ticks {
                total.merge(&iv);
            }
            continue;
        }
        emit(
            k,
            iv,
            true,
            &mut samples,
            &mut total,
            &mut cpu_prev,
            &mut cpu_measure,
        );
    }
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
    if finals < nshards && matches!(status, RunStatus::Ok | RunStatus::Degraded(_)) {
        // Figures a shard never sent cannot be vouched for: the run is
        // kept, marked failed, with what was received.
        if lost.is_empty() {
            lost.push(format!("{} client thread(s) ended early", nshards - finals));
        }
        status = RunStatus::Failed(format!(
            "{} of {nshards} client threads lost their final figures ({}); the totals are incomplete",
            nshards - finals,
            lost.join("; ")
        ));
    }
    let cpu_end = CpuSnapshot::now();
    let (client_cpu_s, host_cpu_s, host_busy) = cpu_end.since(&cpu_measure);
    let (unreachable_s, _) = shared.unreachable();
    let client_stall_s = stall_watch.stop();
    if status == RunStatus::Ok {
        status = degraded(&total, unreachable_s, client_stall_s);
    }
    RunResult {
        status,
        total,
        elapsed: (elapsed_all - cfg.warmup).max(1e-9),
        classes: class_names
            .into_iter()
            .zip(kinds.split_off(stat_names.len()))
            .map(|(name, a)| KindStats {
                name,
                count: a.count,
                hist: a.hist,
            })
            .collect(),
        kinds: stat_names
            .into_iter()
            .zip(kinds)
            .filter(|(_, a)| a.count > 0)
            .map(|(name, a)| KindStats {
                name,
                count: a.count,
                hist: a.hist,
            })
            .collect(),
        thread_events,
        thread_time,
        client_cpu_s,
        host_cpu_s,
        host_busy,
        samples,
        server_version,
        text_fallbacks,
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
    }
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
        assert_eq!(auto_threading(1, 2), (1, false));
        assert_eq!(auto_threading(2, 2), (2, false));
        assert_eq!(auto_threading(3, 2), (3, true));
        assert_eq!(auto_threading(4, 2), (4, true));
        assert_eq!(auto_threading(5, 2), (1, true));
        assert_eq!(auto_threading(1024, 2), (1, true));
        assert_eq!(auto_threading(32, 16), (32, true));
        assert_eq!(auto_threading(64, 16), (4, true));
        assert_eq!(auto_threading(1024, 16), (4, true));
        assert_eq!(auto_threading(1024, 4), (1, true));
    }
}
