//! A shard: one OS thread running a tokio current_thread runtime with its
//! share of the connections, plus a ticker that hands each finished
//! interval to the coordinating thread. Shard state is only touched from
//! its own thread, so recording a query takes no lock.

use super::config::{IoMode, RunConfig};
use super::rate::Arrivals;
use super::state::{ShardState, Shared, Watch, STOP_GRACE};
use super::worker::worker;
use super::worker_link::templates;
use crate::stats::thread_cpu_seconds;
use crate::stats::Interval;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::task::JoinHandle;

// A few messages a second, each moved once: boxing the interval would
// only add an allocation per tick.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Msg {
    Tick {
        shard: usize,
        k: u64,
        iv: Interval,
    },
    Final {
        thread_events: Vec<u64>,
        thread_time: Vec<f64>,
        text_fallbacks: u64,
        server_version: String,
    },
    Fatal(String),
}

/// Runs one shard to completion. `workers` are global connection numbers.
pub(crate) fn run_shard(
    shard: usize,
    workers: Vec<u32>,
    cfg: Arc<RunConfig>,
    shared: Arc<Shared>,
    tx: Sender<Msg>,
    recycled: Receiver<Interval>,
) {
    let (rt, ring) = match set_up_thread(&cfg) {
        Ok(x) => x,
        Err(m) => {
            let _ = tx.send(Msg::Fatal(m));
            shared.ready.fetch_add(workers.len(), Ordering::SeqCst);
            return;
        }
    };
    let local = tokio::task::LocalSet::new();
    let state = new_state(&cfg, workers.len());
    let run = Shard {
        shard,
        cfg: &cfg,
        shared: &shared,
        state: &state,
        tx: &tx,
    };
    local.block_on(&rt, run.drive(&workers, ring, recycled));
    drop(local);
    if ring.is_some() {
        crate::protocol::uring::uninstall();
    }
}

/// The shard's thread made ready: its scheduling class and CPUs, its
/// runtime, and its io_uring ring under `--io-backend uring`; Err says
/// what failed.
fn set_up_thread(
    cfg: &RunConfig,
) -> Result<(tokio::runtime::Runtime, Option<std::os::fd::RawFd>), String> {
    if cfg.sched_batch == Some(true) {
        set_sched_batch();
    }
    pin_to(&cfg.client_cpus)
        .map_err(|e| format!("cannot pin the client threads to --client-cpus: {e}"))?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start a client runtime: {e}"))?;
    let ring = if cfg.io == IoMode::Uring {
        Some(
            crate::protocol::uring::install()
                .map_err(|e| format!("cannot set up io_uring: {e}; use --io-backend epoll"))?,
        )
    } else {
        None
    };
    Ok((rt, ring))
}

/// A shard's accumulators for `n` connections, empty.
fn new_state(cfg: &RunConfig, n: usize) -> Rc<RefCell<ShardState>> {
    Rc::new(RefCell::new(ShardState {
        cur: Interval::with_unallocated_kinds(cfg.latency_kinds()),
        class_base: cfg.workload.stat_names().len(),
        thread_events: vec![0; n],
        thread_time: vec![0.0; n],
        events_total: 0,
        text_fallbacks: 0,
        server_version: String::new(),
        arrivals: None,
        current_k: 0,
        cpu_mark: 0.0,
        watch: (0..n).map(|_| Watch::default()).collect(),
        sleep_alarms: (0..n).map(|_| None).collect(),
        sql_texts: Default::default(),
    }))
}

/// What a shard's tasks share, on its thread.
struct Shard<'a> {
    shard: usize,
    cfg: &'a Arc<RunConfig>,
    shared: &'a Arc<Shared>,
    state: &'a Rc<RefCell<ShardState>>,
    tx: &'a Sender<Msg>,
}

impl Shard<'_> {
    /// The shard's run on its runtime: the ring's pump, a task per
    /// connection and the watchdog; from the coordinator's go, the ticker;
    /// at the end, the last interval and the shard's final figures.
    async fn drive(
        &self,
        workers: &[u32],
        ring: Option<std::os::fd::RawFd>,
        recycled: Receiver<Interval>,
    ) {
        let (cfg, shared, state, tx) = (self.cfg, self.shared, self.state, self.tx);
        // The ring's pump waits for completions in the call that submits
        // (see protocol::uring), except in an open-model run, whose
        // arrival timers must keep their time.
        let wait = if cfg.rate > 0.0 {
            Duration::ZERO
        } else {
            crate::protocol::uring::PASS_WAIT
        };
        let driver =
            ring.map(|fd| tokio::task::spawn_local(crate::protocol::uring::pump(fd, wait)));
        let handles = self.spawn_workers(workers);
        let watchdog = {
            let state = state.clone();
            let limit = cfg.conn.read_timeout;
            tokio::task::spawn_local(async move { watchdog(limit, &state).await })
        };
        // Wait for the coordinator's go (all connections of all shards ready).
        while !shared.go.load(Ordering::SeqCst) && !shared.stopping() {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        if let Some(&t0) = shared.t0.get() {
            self.measure(t0, handles, recycled).await;
        } else {
            join_or_drop(handles, shared, state, tx).await;
        }
        watchdog.abort();
        let _ = watchdog.await;
        if let Some(d) = driver {
            d.abort();
            let _ = d.await;
        }
        let mut st = state.borrow_mut();
        let _ = tx.send(Msg::Final {
            thread_events: std::mem::take(&mut st.thread_events),
            thread_time: std::mem::take(&mut st.thread_time),
            text_fallbacks: st.text_fallbacks,
            server_version: std::mem::take(&mut st.server_version),
        });
    }

    /// A task per connection, in slot order; a fatal error stops the run.
    fn spawn_workers(&self, workers: &[u32]) -> Vec<JoinHandle<()>> {
        let mut handles = Vec::with_capacity(workers.len());
        // The family's statements, unprepared, once for the shard's
        // connections (each prepares its own from them, sharing their text).
        let templates = templates(&self.cfg.workload.statements());
        for (slot, &id) in workers.iter().enumerate() {
            let (cfg, shared, state, tx, templates) = (
                self.cfg.clone(),
                self.shared.clone(),
                self.state.clone(),
                self.tx.clone(),
                templates.clone(),
            );
            handles.push(tokio::task::spawn_local(async move {
                if let Err(msg) = worker(id, slot, &cfg, &shared, &state, &templates).await {
                    shared.stop.store(true, Ordering::SeqCst);
                    let _ = tx.send(Msg::Fatal(msg));
                }
            }));
        }
        handles
    }

    /// From the clock's start `t0`: the arrivals (rate mode) and the
    /// ticker run until the connections end; then the interval in progress
    /// is sent.
    async fn measure(
        &self,
        t0: Instant,
        handles: Vec<JoinHandle<()>>,
        recycled: Receiver<Interval>,
    ) {
        let (cfg, shared, state, tx, shard) =
            (self.cfg, self.shared, self.state, self.tx, self.shard);
        if cfg.rate > 0.0 {
            let shards = cfg.shards.max(1) as f64;
            state.borrow_mut().arrivals = Some(Arrivals::new(
                t0,
                cfg.rate / shards,
                cfg.seed ^ ((shard as u64) << 32),
            ));
        }
        state.borrow_mut().cpu_mark = thread_cpu_seconds();
        let warmup_ticks = (cfg.warmup / cfg.interval).round() as u64;
        let ticker = {
            let (shared, state, tx) = (shared.clone(), state.clone(), tx.clone());
            let interval = cfg.interval;
            tokio::task::spawn_local(async move {
                let at = Tick {
                    shard,
                    t0,
                    interval,
                    warmup_ticks,
                };
                ticker(at, &shared, &state, &tx, &recycled).await
            })
        };
        join_or_drop(handles, shared, state, tx).await;
        ticker.abort();
        let _ = ticker.await;
        // The interval in progress when the run stopped.
        let mut st = state.borrow_mut();
        let mut iv = std::mem::take(&mut st.cur);
        iv.load_cpu_s = take_cpu(&mut st.cpu_mark);
        let _ = tx.send(Msg::Tick {
            shard,
            k: st.current_k,
            iv,
        });
    }
}

/// Waits for the connections' tasks; once the run is stopping, gives them
/// `STOP_GRACE` and then drops the ones still busy (a connection stuck in
/// connect or in a query on a stalled server must not hold the run).
///
/// `handles` are in slot order. The grace is awaited once: after it
/// expires, the tasks left are aborted without polling it again (a
/// completed future must not be polled). A dropped task whose statement
/// was in flight had its event started and never finished: that event is
/// counted as failed here, once (the task, aborted, cannot count it).
/// A task that panicked fails its event the same way and the run with a
/// message on `tx`.
async fn join_or_drop(
    handles: Vec<JoinHandle<()>>,
    shared: &Shared,
    state: &Rc<RefCell<ShardState>>,
    tx: &Sender<Msg>,
) {
    let mut panicked = 0;
    let stop_then_grace = async {
        // Checked every 100 ms: against a 2 s grace, finer checks would
        // only wake the shard more often during the whole run.
        while !shared.stopping() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        tokio::time::sleep(STOP_GRACE).await;
    };
    tokio::pin!(stop_then_grace);
    let mut grace_over = false;
    for (slot, mut h) in handles.into_iter().enumerate() {
        if !grace_over {
            tokio::select! {
                r = &mut h => {
                    if r.is_err() {
                        // A connection's task that panicked: its event in
                        // flight failed; the run says why (below).
                        count_dropped_in_flight(state, slot);
                        shared.stop.store(true, Ordering::SeqCst);
                        panicked += 1;
                    }
                    continue;
                }
                _ = &mut stop_then_grace => grace_over = true,
            }
        }
        h.abort();
        if h.await.is_err() {
            count_dropped_in_flight(state, slot);
        }
    }
    if panicked > 0 {
        let _ = tx.send(Msg::Fatal(format!(
            "{panicked} connection task(s) panicked (a bug in qpslab: please report it with the command line)"
        )));
    }
}

/// The event in flight on a connection whose task was dropped counts as
/// failed (its statement was sent and never answered).
fn count_dropped_in_flight(state: &Rc<RefCell<ShardState>>, slot: usize) {
    let mut st = state.borrow_mut();
    // (a tear-down statement, thread_done's, is no event)
    let in_flight = st
        .watch
        .get_mut(slot)
        .is_some_and(|w| w.since.take().is_some() && w.in_event);
    if in_flight {
        st.cur.failed += 1;
    }
}

/// Cuts the connection of any query in flight for longer than `limit`;
/// its worker then counts error 2013 and reconnects. A timer per shard
/// instead of one per query keeps the hot path free of timer work.
async fn watchdog(limit: Duration, state: &Rc<RefCell<ShardState>>) {
    let period = (limit / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
    loop {
        tokio::time::sleep(period).await;
        let now = Instant::now();
        let mut st = state.borrow_mut();
        for w in st.watch.iter_mut() {
            if std::mem::take(&mut w.fresh) && w.since.is_some() {
                w.since = Some(now);
                continue;
            }
            if let (Some(since), Some(b)) = (w.since, w.breaker) {
                if !w.cut && now.saturating_duration_since(since) > limit {
                    w.cut = true;
                    b.cut();
                }
            }
        }
    }
}

/// Puts the calling thread under SCHED_BATCH: the scheduler then does not
/// let it preempt, or be preferred over, the server threads it wakes. On a
/// shared host this keeps the client from stealing the server's time slices
/// and batches its work: fewer context switches a query (docs/BENCHMARKS.md,
/// "What helped, each measured").
fn set_sched_batch() {
    let param = libc::sched_param { sched_priority: 0 };
    // Best effort: without it the run is still correct, only less lean.
    // SAFETY: rustix has no sched_setscheduler; the call only reads
    // `param`, a live local, and changes this thread's policy (pid 0).
    unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) };
}

/// Pins the calling thread to `cpus` (nothing to do when empty).
fn pin_to(cpus: &[usize]) -> std::io::Result<()> {
    if cpus.is_empty() {
        return Ok(());
    }
    let mut set = rustix::thread::CpuSet::new();
    for &c in cpus {
        if c >= rustix::thread::CpuSet::MAX_CPU {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("CPU {c} is past the largest CPU set"),
            ));
        }
        set.set(c);
    }
    rustix::thread::sched_setaffinity(None, &set)?;
    Ok(())
}

/// Where a shard's intervals fall.
struct Tick {
    shard: usize,
    t0: Instant,
    interval: f64,
    warmup_ticks: u64,
}

/// Sends each interval as it ends, until the run stops. At the end of the
/// warm-up it clears the per-connection accumulators so that the summary
/// covers the measured part only (the statement kinds' latency travels
/// with each interval; the coordinator leaves the warm-up's out). The interval that ends
/// is swapped for an emptied one the coordinator sent back (`recycled`), so
/// that ticking allocates no histogram once the first few have gone round.
async fn ticker(
    at: Tick,
    shared: &Shared,
    state: &Rc<RefCell<ShardState>>,
    tx: &Sender<Msg>,
    recycled: &Receiver<Interval>,
) {
    let Tick {
        shard,
        t0,
        interval,
        warmup_ticks,
    } = at;
    let mut k = 0u64;
    loop {
        let due = t0 + Duration::from_secs_f64(interval * (k + 1) as f64);
        tokio::time::sleep_until(due.into()).await;
        if shared.stopping() {
            return;
        }
        let mut st = state.borrow_mut();
        let backlog = st
            .arrivals
            .as_ref()
            .map(|a| a.backlog(Instant::now()))
            .unwrap_or(0);
        let fresh = recycled
            .try_recv()
            .unwrap_or_else(|_| Interval::with_kinds_like(&st.cur));
        let mut iv = std::mem::replace(&mut st.cur, fresh);
        iv.backlog = backlog;
        iv.load_cpu_s = take_cpu(&mut st.cpu_mark);
        if k + 1 == warmup_ticks {
            st.thread_events.iter_mut().for_each(|e| *e = 0);
            st.events_total = 0;
            st.thread_time.iter_mut().for_each(|t| *t = 0.0);
        }
        st.current_k = k + 1;
        drop(st);
        let _ = tx.send(Msg::Tick { shard, k, iv });
        k += 1;
    }
}

/// The shard thread's CPU seconds since `mark`, which moves to now (one
/// getrusage per interval, on the shard's own thread).
fn take_cpu(mark: &mut f64) -> f64 {
    let now = thread_cpu_seconds();
    let d = (now - *mark).max(0.0);
    *mark = now;
    d
}
