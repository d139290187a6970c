//! The shared driver of the built-in tests, as sysbench runs them: one OS
//! thread per `--threads`, each taking events until `--events` are taken,
//! `--time` has passed, the test has no more work, or Ctrl-C; every event
//! timed (the latency histogram and per-thread totals), and, with
//! `--report-interval`, a snapshot handed to the caller every interval;
//! with `--report-checkpoints`, the full figures at each checkpoint, the
//! counters then reset; with `--rate`, events paced by pacing.rs's queue.
//! Owns the loop and the figures; what an event does is the test's.

use super::latency::{Buckets, Counts};
use super::pacing::Pacing;
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
    /// Events per second, arriving at random (Poisson) times; 0 = as
    /// fast as the threads go.
    pub rate: u64,
    /// Seconds from the start at which the figures so far are reported
    /// and reset (sorted).
    pub checkpoints: Vec<u64>,
}

/// What the driver hands its caller while the threads run.
pub enum Report<'a> {
    /// An interval's snapshot (--report-interval).
    Interval(&'a Interval),
    /// A checkpoint's figures, since the previous checkpoint
    /// (--report-checkpoints); `at_s` since the start.
    Checkpoint(f64, &'a RunStats),
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
    /// The interval's latency histogram (what a stored run keeps).
    pub counts: Counts,
}

/// One thread's totals.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ThreadTotals {
    /// Events it did.
    pub events: u64,
    /// Time inside its events, ns.
    pub busy_ns: u64,
    /// Its shortest event, ns (0 without events).
    pub min_ns: u64,
    /// Its longest event, ns.
    pub max_ns: u64,
}

/// A finished run's figures.
#[derive(Debug, Clone, Default)]
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
    /// Whether `--rate`'s queue overflowed (the threads could not keep up).
    pub queue_full: bool,
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

struct Slot {
    events: AtomicU64,
    busy_ns: AtomicU64,
    /// Since the last checkpoint (the reporter resets them).
    min_ns: AtomicU64,
    max_ns: AtomicU64,
    buckets: Buckets,
}

impl Default for Slot {
    fn default() -> Slot {
        Slot {
            events: AtomicU64::new(0),
            busy_ns: AtomicU64::new(0),
            min_ns: AtomicU64::new(u64::MAX),
            max_ns: AtomicU64::new(0),
            buckets: Buckets::default(),
        }
    }
}

/// A slot's figures at a checkpoint (what the next one subtracts).
#[derive(Clone, Default)]
struct Baseline {
    events: u64,
    busy_ns: u64,
    counts: Counts,
}

struct Shared {
    stop: AtomicBool,
    time_hit: AtomicBool,
    events_hit: AtomicBool,
    taken: AtomicU64,
    finished: AtomicUsize,
    deadline: Option<Instant>,
    events_limit: u64,
    pacing: Option<Pacing>,
}

/// Runs `workers` (one per thread) under `limits`, handing `on_report`
/// each interval's snapshot and each checkpoint's figures from the
/// calling thread. Stops every thread at the first error and returns it.
pub fn drive<W: Worker>(
    limits: &Limits,
    workers: Vec<W>,
    mut on_report: impl FnMut(Report),
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
        pacing: (limits.rate > 0).then(|| Pacing::new(limits.rate)),
    };
    let n = workers.len();
    let mut base = vec![Baseline::default(); n];
    let results: Vec<Result<(), HostError>> = std::thread::scope(|s| {
        let handles: Vec<_> = workers
            .into_iter()
            .zip(&slots)
            .map(|(w, slot)| {
                let shared = &shared;
                s.spawn(move || worker_loop(w, slot, shared))
            })
            .collect();
        if let Some(p) = &shared.pacing {
            let shared = &shared;
            s.spawn(move || {
                p.generate(start, || {
                    shared.stop.load(Ordering::Relaxed)
                        || shared.finished.load(Ordering::Acquire) >= n
                })
            });
        }
        let mut ctx = ReportCtx {
            limits,
            start,
            slots: &slots,
            sh: &shared,
            threads: n,
            base: &mut base,
        };
        report_loop(&mut ctx, &mut on_report);
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(Err(HostError::WorkerPanicked)))
            .collect()
    });
    for r in results {
        r?;
    }
    let mut stats = figures(&slots, &mut base, start.elapsed().as_secs_f64());
    stats.time_limit_hit = shared.time_hit.load(Ordering::Relaxed);
    stats.event_limit_hit = shared.events_hit.load(Ordering::Relaxed);
    stats.queue_full = shared.pacing.as_ref().is_some_and(Pacing::overflowed);
    Ok(stats)
}

/// The figures since each slot's baseline (then made the new baseline;
/// the slots' min and max reset), `total_s` into the run.
fn figures(slots: &[Slot], base: &mut [Baseline], total_s: f64) -> RunStats {
    let mut counts = Counts::default();
    let per_thread: Vec<ThreadTotals> = slots
        .iter()
        .zip(base.iter_mut())
        .map(|(s, b)| {
            let mut now = Counts::default();
            s.buckets.add_to(&mut now);
            let mine = now.since(&b.counts);
            for (c, m) in counts.0.iter_mut().zip(&mine.0) {
                *c += m;
            }
            let events = s.events.load(Ordering::Relaxed);
            let busy_ns = s.busy_ns.load(Ordering::Relaxed);
            let t = ThreadTotals {
                events: events - b.events,
                busy_ns: busy_ns - b.busy_ns,
                min_ns: match s.min_ns.swap(u64::MAX, Ordering::Relaxed) {
                    u64::MAX => 0,
                    m => m,
                },
                max_ns: s.max_ns.swap(0, Ordering::Relaxed),
            };
            *b = Baseline {
                events,
                busy_ns,
                counts: now,
            };
            t
        })
        .collect();
    let events = per_thread.iter().map(|t| t.events).sum();
    let sum_ns: u64 = per_thread.iter().map(|t| t.busy_ns).sum();
    let busy = per_thread.iter().filter(|t| t.events > 0);
    let min_ns = busy.clone().map(|t| t.min_ns).min().unwrap_or(0);
    let max_ns = busy.map(|t| t.max_ns).max().unwrap_or(0);
    RunStats {
        total_s,
        events,
        min_ms: min_ns as f64 / 1e6,
        max_ms: max_ns as f64 / 1e6,
        sum_ms: sum_ns as f64 / 1e6,
        counts,
        per_thread,
        time_limit_hit: false,
        event_limit_hit: false,
        queue_full: false,
    }
}

/// One worker thread: events until a limit.
fn worker_loop<W: Worker>(mut w: W, slot: &Slot, sh: &Shared) -> Result<(), HostError> {
    let outcome = (|| {
        loop {
            if sh.stop.load(Ordering::Relaxed) {
                break;
            }
            if sh.events_limit > 0 && sh.taken.fetch_add(1, Ordering::Relaxed) >= sh.events_limit {
                sh.events_hit.store(true, Ordering::Relaxed);
                break;
            }
            let arrived = match &sh.pacing {
                Some(p) => match p.take(&sh.stop) {
                    Some(at) => Some(at),
                    None => break,
                },
                None => None,
            };
            if !w.next_event() {
                break;
            }
            let t0 = Instant::now();
            // (a paced event's latency counts from its arrival)
            let t0 = arrived.map_or(t0, |a| a.min(t0));
            w.execute()?;
            let t1 = Instant::now();
            let ns = t1.duration_since(t0).as_nanos() as u64;
            if ns < slot.min_ns.load(Ordering::Relaxed) {
                slot.min_ns.fetch_min(ns, Ordering::Relaxed);
            }
            if ns > slot.max_ns.load(Ordering::Relaxed) {
                slot.max_ns.fetch_max(ns, Ordering::Relaxed);
            }
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
    outcome
}

/// What the reporting loop reads and keeps.
struct ReportCtx<'a> {
    limits: &'a Limits,
    start: Instant,
    slots: &'a [Slot],
    sh: &'a Shared,
    threads: usize,
    base: &'a mut [Baseline],
}

/// The calling thread while the workers run: interval snapshots,
/// checkpoints, Ctrl-C.
fn report_loop(c: &mut ReportCtx, on_report: &mut impl FnMut(Report)) {
    let (limits, start, sh) = (c.limits, c.start, c.sh);
    let every = Duration::from_secs(limits.report_interval_s);
    let mut next = start + every;
    let mut checkpoints = limits
        .checkpoints
        .iter()
        .map(|s| start + Duration::from_secs(*s))
        .peekable();
    let mut last_at = start;
    let mut last_counts = Counts::default();
    let mut last_events = 0u64;
    while sh.finished.load(Ordering::Acquire) < c.threads {
        if crate::interrupt::interrupted() {
            sh.stop.store(true, Ordering::Relaxed);
        }
        let now = Instant::now();
        if checkpoints.next_if(|at| now >= *at).is_some() {
            let at_s = now.duration_since(start).as_secs_f64();
            let stats = figures(c.slots, c.base, at_s);
            on_report(Report::Checkpoint(at_s, &stats));
            continue;
        }
        if limits.report_interval_s > 0 && now >= next {
            let mut counts = Counts::default();
            for s in c.slots {
                s.buckets.add_to(&mut counts);
            }
            let events: u64 = c
                .slots
                .iter()
                .map(|s| s.events.load(Ordering::Relaxed))
                .sum();
            let interval = counts.since(&last_counts);
            on_report(Report::Interval(&Interval {
                at_s: now.duration_since(start).as_secs_f64(),
                seconds: now.duration_since(last_at).as_secs_f64(),
                threads: (c.threads - sh.finished.load(Ordering::Acquire)) as u32,
                events: events - last_events,
                latency_pct_ms: if limits.percentile > 0 {
                    interval.percentile_ms(limits.percentile)
                } else {
                    0.0
                },
                counts: interval,
            }));
            (last_at, last_counts, last_events) = (now, counts, events);
            next += every;
            continue;
        }
        let mut nap = Duration::from_millis(5);
        if limits.report_interval_s > 0 {
            nap = nap.min(next.saturating_duration_since(now));
        }
        if let Some(at) = checkpoints.peek() {
            nap = nap.min(at.saturating_duration_since(now));
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

    /// Counts down like `Count`; its last event waits (bounded) until
    /// the flag is set.
    struct Gated(u64, std::sync::Arc<AtomicBool>);
    impl Worker for Gated {
        fn next_event(&mut self) -> bool {
            self.0 > 0
        }
        fn execute(&mut self) -> Result<(), HostError> {
            self.0 -= 1;
            let until = Instant::now() + Duration::from_secs(30);
            while self.0 == 0 && !self.1.load(Ordering::Acquire) && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(1));
            }
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
            rate: 0,
            checkpoints: Vec::new(),
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
    fn a_checkpoint_reports_and_resets_the_figures_and_a_rate_paces_events() {
        let l = Limits {
            threads: 1,
            events: 0,
            time_s: 0,
            report_interval_s: 0,
            percentile: 95,
            rate: 0,
            checkpoints: vec![0],
        };
        let mut at_checkpoint = Vec::new();
        let reported = std::sync::Arc::new(AtomicBool::new(false));
        let r = drive(
            &l,
            vec![Gated(50, std::sync::Arc::clone(&reported))],
            |rep| {
                if let Report::Checkpoint(_, s) = rep {
                    at_checkpoint.push(s.events);
                    reported.store(true, Ordering::Release);
                }
            },
        )
        .unwrap();
        // (the checkpoint at 0 s comes before or during the events — the
        // last one waits for it, so the thread cannot end first: the two
        // reports together count each event once)
        assert_eq!(at_checkpoint.len(), 1);
        assert_eq!(at_checkpoint[0] + r.events, 50);
        let l = Limits {
            events: 20,
            rate: 100_000,
            checkpoints: Vec::new(),
            ..l
        };
        let r = drive(&l, vec![Count(100)], |_| {}).unwrap();
        assert_eq!((r.events, r.queue_full), (20, false));
    }

    #[test]
    fn fairness_is_the_population_stddev() {
        let (m, s) = mean_stddev(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!((m, s), (5.0, 2.0));
        assert_eq!(mean_stddev(&[]), (0.0, 0.0));
    }
}
