//! `--rate` for the built-in tests, as sysbench paces them: one thread
//! generates events at exponentially distributed intervals (a Poisson
//! arrival process of `rate` per second) into a bounded queue, and each
//! worker takes one before its next event, waiting when the queue is
//! empty. When the workers fall so far behind that the queue fills
//! (sysbench's 131072 entries), the run stops: the rate cannot be held.
//! Owns the queue only; the driver times the events, from each one's
//! arrival (the wait in the queue counts in its latency, as in sysbench).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// sysbench's queue length for the rate mode.
pub const QUEUE_LEN: usize = 131_072;

/// The event queue of a paced run.
pub struct Pacing {
    rate: u64,
    tx: SyncSender<Instant>,
    rx: Mutex<Receiver<Instant>>,
    overflowed: AtomicBool,
}

impl Pacing {
    /// A queue for `rate` events per second (rate > 0).
    pub fn new(rate: u64) -> Pacing {
        let (tx, rx) = sync_channel(QUEUE_LEN);
        Pacing {
            rate: rate.max(1),
            tx,
            rx: Mutex::new(rx),
            overflowed: AtomicBool::new(false),
        }
    }

    /// The generator thread's loop, from `start` until `done()` says the
    /// run is over or the queue overflows.
    pub fn generate(&self, start: Instant, done: impl Fn() -> bool) {
        let mut next = start;
        loop {
            // exponential inter-arrival time with mean 1/rate
            let u: f64 = rand::random();
            next += Duration::from_secs_f64(-(1.0 - u).ln() / self.rate as f64);
            loop {
                if done() {
                    return;
                }
                let now = Instant::now();
                if now >= next {
                    break;
                }
                // (short naps so the end of the run is seen promptly)
                std::thread::sleep((next - now).min(Duration::from_millis(50)));
            }
            match self.tx.try_send(next) {
                Ok(()) => {}
                Err(TrySendError::Full(_)) => {
                    self.overflowed.store(true, Ordering::Relaxed);
                    return;
                }
                Err(TrySendError::Disconnected(_)) => return,
            }
        }
    }

    /// A worker takes the next event, waiting for it: when it arrived, or
    /// None when the run is stopping or the queue overflowed.
    pub fn take(&self, stop: &AtomicBool) -> Option<Instant> {
        loop {
            if stop.load(Ordering::Relaxed) || self.overflowed() {
                return None;
            }
            let rx = self.rx.lock().ok()?;
            match rx.recv_timeout(Duration::from_millis(20)) {
                Ok(at) => return Some(at),
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// Whether the queue filled up.
    pub fn overflowed(&self) -> bool {
        self.overflowed.load(Ordering::Relaxed)
    }
}
