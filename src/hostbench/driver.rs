//! The shared driver of the built-in tests, as sysbench runs them: one OS
//! thread per `--threads`, each taking events until `--events` are taken,
//! `--time` has passed, the test has no more work, or Ctrl-C; every event
//! timed (the latency histogram and per-thread totals), and, with
//! `--report-interval`, a snapshot handed to the caller every interval.
//! Owns the loop and the figures; what an event does is the test's.

use super::latency::{Buckets, Counts};
use super::HostError;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long a run goes and what it reports (sysbench's general options).
#[derive(Debug, Clone)]
pub struct Limits {
    /// Worker threads.
    pub threads: u32,
    /// Events in all; 0 = no limit.
    pub events: u64,
    /// Seconds; 0 = no limit.
    pub time_s: u64,
    /// Seconds between interval snapshots; 0 = none.
    pub report_interval_s: u64,
    /// The percentile reported (1..=100); 0 = none.
    pub percentile: u32,
}

/// A test's work, one instance per worker thread.
pub trait Worker: Send {
    /// Takes the next event: false when the test has no more work (memory's
    /// total size, fileio's request count). Not timed.
    fn next_event(&mut self) -> bool {
        true
    }
    /// Does one event (timed).
    fn execute(&mut self) -> Result<(), HostError>;
    /// After the thread's last event (fileio's fsync at the end).
    fn finish(&mut self) -> Result<(), HostError> {
        Ok(())
    }
}

/// One interval's figures (sysbench's intermediate report).
#[derive(Debug, Clone)]
pub struct Interval {
    /// Seconds since the start.
    pub at_s: f64,
    /// Seconds this interval lasted.
    pub seconds: f64,
    /// Threads still running.
    pub threads: u32,
    /// Events in the interval.
    pub events: u64,
    /// The interval's percentile latency, ms (0 without a percentile).
    pub latency_pct_ms: f64,
}

/// One thread's totals.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ThreadTotals {
    /// Events it did.
    pub events: u64,
    /// Time inside its events, ns.
    pub busy_ns: u64,
}

/// A finished run's figures.
#[derive(Debug, Clone)]
pub struct RunStats {
    /// Wall time from the start to the last thread's end, s.
    pub total_s: f64,
    /// Events done.
    pub events: u64,
    /// Latency extremes and sum, ms.
    pub min_ms: f64,
    /// The largest latency, ms.
    pub max_ms: f64,
    /// All latencies summed, ms.
    pub sum_ms: f64,
    /// The whole run's histogram.
    pub counts: Counts,
    /// Each thread's totals.
    pub per_thread: Vec<ThreadTotals>,
    /// Whether the run ended on `--time`.
    pub time_limit_hit: bool,
    /// Whether the run ended on `--events`.
    pub event_limit_hit: bool,
}

impl RunStats {
    /// The mean latency, ms.
    pub fn avg_ms(&self) -> f64 {
        if self.events == 0 {
            0.0
        } else {
            self.sum_ms / self.events as f64
        }
    }

    /// Threads fairness: (events avg, events stddev, busy s avg, busy s
    /// stddev), population standard deviations as sysbench computes them.
    pub fn fairness(&self) -> (f64, f64, f64, f64) {
        let ev: Vec<f64> = self.per_thread.iter().map(|t| t.events as f64).collect();
        let busy: Vec<f64> = self
            .per_thread
            .iter()
            .map(|t| t.busy_ns as f64 / 1e9)
            .collect();
        let (ea, es) = mean_stddev(&ev);
        let (ta, ts) = mean_stddev(&busy);
        (ea, es, ta, ts)
    }
}

pub use crate::stats::mean_stddev;

#[derive(Default)]
struct Slot {
    events: AtomicU64,
    busy_ns: AtomicU64,
    buckets: Buckets,
}

struct Shared {
    stop: AtomicBool,
    time_hit: AtomicBool,
    events_hit: AtomicBool,
    taken: AtomicU64,
    finished: AtomicUsize,
    deadline: Option<Instant>,
    events_limit: u64,
}

/// Runs `workers` (one per thread) under `limits`, calling `on_interval`
/// from the calling thread at every report interval. Stops every thread
/// at the first error and returns it.
pub fn drive<W: Worker>(
    limits: &Limits,
    workers: Vec<W>,
    mut on_interval: impl FnMut(&Interval),
) -> Result<RunStats, HostError> {
    let slots: Vec<Slot> = workers.iter().map(|_| Slot::default()).collect();
    let start = Instant::now();
    let shared = Shared {
        stop: AtomicBool::new(false),
        time_hit: AtomicBool::new(false),
        events_hit: AtomicBool::new(false),
        taken: AtomicU64::new(0),
        finished: AtomicUsize::new(0),
        deadline: (limits.time_s > 0).then(|| start + Duration::from_secs(limits.time_s)),
        events_limit: limits.events,
    };
    let n = workers.len();
    let results: Vec<Result<(u64, u64), HostError>> = std::thread::scope(|s| {
        let handles: Vec<_> = workers
            .into_iter()
            .zip(&slots)
            .map(|(w, slot)| {
                let shared = &shared;
                s.spawn(move || worker_loop(w, slot, shared))
            })
            .collect();
        report_loop(limits, start, &slots, &shared, n, &mut on_interval);
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(Err(HostError::WorkerPanicked)))
            .collect()
    });
    let total_s = start.elapsed().as_secs_f64();
    let mut min_ns = u64::MAX;
    let mut max_ns = 0;
    for r in &results {
        match r {
            Ok((mn, mx)) => {
                min_ns = min_ns.min(*mn);
                max_ns = max_ns.max(*mx);
            }
            Err(e) => return Err(e.clone()),
        }
    }
    let mut counts = Counts::default();
    let per_thread: Vec<ThreadTotals> = slots
        .iter()
        .map(|s| {
            s.buckets.add_to(&mut counts);
            ThreadTotals {
                events: s.events.load(Ordering::Relaxed),
                busy_ns: s.busy_ns.load(Ordering::Relaxed),
            }
        })
        .collect();
    let events = per_thread.iter().map(|t| t.events).sum();
    let sum_ns: u64 = per_thread.iter().map(|t| t.busy_ns).sum();
    Ok(RunStats {
        total_s,
        events,
        min_ms: if events == 0 {
            0.0
        } else {
            min_ns as f64 / 1e6
        },
        max_ms: max_ns as f64 / 1e6,
        sum_ms: sum_ns as f64 / 1e6,
        counts,
        per_thread,
        time_limit_hit: shared.time_hit.load(Ordering::Relaxed),
        event_limit_hit: shared.events_hit.load(Ordering::Relaxed),
    })
}

/// One worker thread: events until a limit; returns (min ns, max ns).
fn worker_loop<W: Worker>(mut w: W, slot: &Slot, sh: &Shared) -> Result<(u64, u64), HostError> {
    let (mut min_ns, mut max_ns) = (u64::MAX, 0u64);
    let outcome = (|| {
        loop {
            if sh.stop.load(Ordering::Relaxed) {
                break;
            }
            if sh.events_limit > 0 && sh.taken.fetch_add(1, Ordering::Relaxed) >= sh.events_limit {
                sh.events_hit.store(true, Ordering::Relaxed);
                break;
            }
            if !w.next_event() {
                break;
            }
            let t0 = Instant::now();
            w.execute()?;
            let t1 = Instant::now();
            let ns = t1.duration_since(t0).as_nanos() as u64;
            min_ns = min_ns.min(ns);
            max_ns = max_ns.max(ns);
            slot.buckets.record_ns(ns);
            let e = &slot.events;
            e.store(e.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
            let b = &slot.busy_ns;
            b.store(b.load(Ordering::Relaxed) + ns, Ordering::Relaxed);
            if sh.deadline.is_some_and(|d| t1 >= d) {
                if !sh.stop.swap(true, Ordering::Relaxed) {
                    sh.time_hit.store(true, Ordering::Relaxed);
                }
                break;
            }
        }
        w.finish()
    })();
    if outcome.is_err() {
        sh.stop.store(true, Ordering::Relaxed);
    }
    sh.finished.fetch_add(1, Ordering::Release);
    outcome.map(|()| (min_ns, max_ns))
}

/// The calling thread while the workers run: interval snapshots, Ctrl-C.
fn report_loop(
    limits: &Limits,
    start: Instant,
    slots: &[Slot],
    sh: &Shared,
    threads: usize,
    on_interval: &mut impl FnMut(&Interval),
) {
    let every = Duration::from_secs(limits.report_interval_s);
    let mut next = start + every;
    let mut last_at = start;
    let mut last_counts = Counts::default();
    let mut last_events = 0u64;
    while sh.finished.load(Ordering::Acquire) < threads {
        if crate::interrupt::interrupted() {
            sh.stop.store(true, Ordering::Relaxed);
        }
        let now = Instant::now();
        if limits.report_interval_s > 0 && now >= next {
            let mut counts = Counts::default();
            for s in slots {
                s.buckets.add_to(&mut counts);
            }
            let events: u64 = slots.iter().map(|s| s.events.load(Ordering::Relaxed)).sum();
            let interval = counts.since(&last_counts);
            on_interval(&Interval {
                at_s: now.duration_since(start).as_secs_f64(),
                seconds: now.duration_since(last_at).as_secs_f64(),
                threads: (threads - sh.finished.load(Ordering::Acquire)) as u32,
                events: events - last_events,
                latency_pct_ms: if limits.percentile > 0 {
                    interval.percentile_ms(limits.percentile)
                } else {
                    0.0
                },
            });
            (last_at, last_counts, last_events) = (now, counts, events);
            next += every;
            continue;
        }
        let mut nap = Duration::from_millis(5);
        if limits.report_interval_s > 0 {
            nap = nap.min(next.saturating_duration_since(now));
        }
        std::thread::sleep(nap);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Count(u64);
    impl Worker for Count {
        fn next_event(&mut self) -> bool {
            self.0 > 0
        }
        fn execute(&mut self) -> Result<(), HostError> {
            self.0 -= 1;
            Ok(())
        }
    }

    #[test]
    fn events_limit_and_the_tests_own_end_stop_the_threads() {
        let l = Limits {
            threads: 2,
            events: 10,
            time_s: 0,
            report_interval_s: 0,
            percentile: 95,
        };
        let r = drive(&l, vec![Count(100), Count(100)], |_| {}).unwrap();
        assert_eq!(r.events, 10);
        let r = drive(&l, vec![Count(3), Count(4)], |_| {}).unwrap();
        assert_eq!(r.events, 7);
        assert_eq!(
            r.per_thread.iter().map(|t| t.events).collect::<Vec<_>>(),
            [3, 4]
        );
        assert!(!r.time_limit_hit);
    }

    #[test]
    fn fairness_is_the_population_stddev() {
        let (m, s) = mean_stddev(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!((m, s), (5.0, 2.0));
        assert_eq!(mean_stddev(&[]), (0.0, 0.0));
    }
}
