//! State the shards, their connections and the coordinator share: the
//! atomics every shard sees (`Shared`: stop, start, the connect gate,
//! unreachable time) and each shard's own accumulators (`ShardState`,
//! touched only from its thread, so recording a query takes no lock).

use super::rate::Arrivals;
use crate::protocol::Breaker;
use crate::stats::Interval;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// After the run is told to stop, connections get this long to finish the
/// event in flight; then their tasks are dropped (their sockets closed)
/// and the events still in flight count as failed.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// Connections being opened at once across all shards: below the servers'
/// default accept backlog (MariaDB's back_log is 80 with the default
/// max_connections), so that 1,024 threads start on an untouched server.
pub(crate) const CONNECTS_IN_FLIGHT: usize = 32;

/// State shared by all shards and the coordinator (atomics only).
pub struct Shared {
    pub stop: AtomicBool,
    pub go: AtomicBool,
    pub ready: AtomicUsize,
    /// Connections that went on direct I/O.
    pub direct: AtomicUsize,
    /// Of those, the ones on an io_uring ring of their own.
    pub direct_ring: AtomicUsize,
    /// Connections on the io_uring backend.
    pub uring: AtomicUsize,
    /// Connections whose results come without column definitions.
    pub metadata_off: AtomicUsize,
    pub t0: OnceLock<Instant>,
    /// Remaining events under --events; only touched when `limited`.
    pub events_left: AtomicI64,
    pub limited: bool,
    /// Bounds the connections being opened at once (backpressure).
    pub connect_gate: tokio::sync::Semaphore,
    /// Connections opened so far, for `--connect-rate` pacing.
    connects: AtomicU64,
    epoch: Instant,
    /// Start of the current spell during which no connection could reach
    /// the server (ms after `epoch`, plus one); 0 while reachable.
    unreachable_since: AtomicU64,
    /// Milliseconds of the spells already over.
    unreachable_ms: AtomicU64,
    /// The last reason a connection attempt failed (cold path).
    pub last_connect_error: Mutex<String>,
}

impl Shared {
    pub fn new(events: u64) -> Shared {
        Shared {
            stop: AtomicBool::new(false),
            go: AtomicBool::new(false),
            ready: AtomicUsize::new(0),
            direct: AtomicUsize::new(0),
            direct_ring: AtomicUsize::new(0),
            uring: AtomicUsize::new(0),
            metadata_off: AtomicUsize::new(0),
            t0: OnceLock::new(),
            limited: events > 0,
            events_left: AtomicI64::new(if events == 0 { i64::MAX } else { events as i64 }),
            connect_gate: tokio::sync::Semaphore::new(CONNECTS_IN_FLIGHT),
            connects: AtomicU64::new(0),
            epoch: Instant::now(),
            unreachable_since: AtomicU64::new(0),
            unreachable_ms: AtomicU64::new(0),
            last_connect_error: Mutex::new(String::new()),
        }
    }

    #[inline]
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Whether an event in progress must be given up: the run is stopping
    /// for a reason other than its `--events` count being used up (an
    /// event whose slot is claimed is finished then, as sysbench's are,
    /// within the stop's grace).
    pub fn abandon_events(&self) -> bool {
        self.stopping() && !(self.limited && self.events_left.load(Ordering::Relaxed) <= 0)
    }

    fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64 + 1
    }

    /// When the next connection may be opened under `rate` connections/s
    /// (0 = no pacing).
    pub(crate) fn connect_slot(&self, rate: f64) -> Option<Instant> {
        if rate <= 0.0 {
            return None;
        }
        let n = self.connects.fetch_add(1, Ordering::Relaxed);
        Some(self.epoch + Duration::from_secs_f64(n as f64 / rate))
    }

    /// A connection attempt failed because the server could not be reached.
    pub(crate) fn mark_unreachable(&self, why: &str) {
        let _ = self.unreachable_since.compare_exchange(
            0,
            self.now_ms(),
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
        if let Ok(mut e) = self.last_connect_error.lock() {
            e.clear();
            e.push_str(why);
        }
    }

    /// A connection reached the server: the current spell (if any) ends.
    pub(crate) fn mark_reachable(&self) {
        let since = self.unreachable_since.swap(0, Ordering::SeqCst);
        if since > 0 {
            self.unreachable_ms
                .fetch_add(self.now_ms().saturating_sub(since), Ordering::SeqCst);
        }
    }

    /// (seconds unreachable in all, seconds of the spell going on now).
    pub fn unreachable(&self) -> (f64, f64) {
        let since = self.unreachable_since.load(Ordering::SeqCst);
        let now = if since > 0 {
            self.now_ms().saturating_sub(since)
        } else {
            0
        };
        let done = self.unreachable_ms.load(Ordering::SeqCst);
        ((done + now) as f64 / 1e3, now as f64 / 1e3)
    }
}

/// What the watchdog knows of one connection: since when its query has
/// been in flight, and how to cut it. Written by the worker around each
/// execute (same thread, no lock), read by the shard's watchdog.
#[derive(Default)]
pub struct Watch {
    pub since: Option<Instant>,
    pub breaker: Option<Breaker>,
    /// Set by the watchdog when it cut the connection for a read timeout.
    pub cut: bool,
    /// The statement in flight belongs to a counted event (not set-up or
    /// tear-down): dropped at the end, that event failed.
    pub in_event: bool,
    /// `since` is not the statement's own start (a run without per-statement
    /// latency reads no clock for it): the watchdog's first look at it sets
    /// `since` to that look's time, so that a statement is cut late by up to
    /// one of the watchdog's periods, never early.
    pub fresh: bool,
}

/// A shard's own accumulators.
pub(crate) struct ShardState {
    /// The interval in progress; its `kinds` hold the statement kinds'
    /// latency, then the event classes' (from `class_base`).
    pub cur: Interval,
    pub class_base: usize,
    /// Per connection: events and busy seconds (sysbench's "threads fairness").
    pub thread_events: Vec<u64>,
    pub thread_time: Vec<f64>,
    /// The sum of `thread_events` (what a connection's count is weighed
    /// against to serve the connections evenly).
    pub events_total: u64,
    pub text_fallbacks: u64,
    pub server_version: String,
    pub arrivals: Option<Arrivals>,
    /// Index of the interval in progress (advanced by the ticker).
    pub current_k: u64,
    /// This shard thread's CPU seconds when the interval in progress began.
    pub cpu_mark: f64,
    /// Per connection, for the read-timeout watchdog.
    pub watch: Vec<Watch>,
    /// Per connection, the precise wake-up of a session's sleeps (a
    /// script's `usleep`), made at its first sleep.
    pub sleep_alarms: Vec<Option<super::alarm::Alarm>>,
    /// The text of each statement a session prepared on this shard (a
    /// script's `con:prepare`), kept once for all its connections.
    pub sql_texts: std::collections::HashSet<std::sync::Arc<str>>,
}

impl ShardState {
    /// The shard's copy of `sql` (made on first use): a statement prepared
    /// with the same text on a thousand connections keeps it once.
    pub fn shared_text(&mut self, sql: &str) -> std::sync::Arc<str> {
        if let Some(t) = self.sql_texts.get(sql) {
            return t.clone();
        }
        let t: std::sync::Arc<str> = sql.into();
        self.sql_texts.insert(t.clone());
        t
    }
}
