//! Whether the load generator itself stopped running during a run: a
//! thread that only sleeps a tenth of a second at a time and looks at how
//! late it woke. Nothing else runs on it, so a late wake-up has one cause:
//! the process was not run (SIGSTOP, a debugger, a host that starved it of
//! CPU). A quiet server cannot delay it, unlike a load thread waiting on a
//! stalled server's socket.
//!
//! Owns only its thread and the spans it saw; the coordinator decides what
//! a stall makes of the run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long the watcher sleeps between looks.
const NAP: Duration = Duration::from_millis(100);

/// A wake-up this much later than asked is a stall of the client: well
/// above any scheduling delay of a busy host.
pub(crate) const CLIENT_STALL: Duration = Duration::from_secs(2);

/// The watcher thread; `stop` gives the stalled seconds it saw.
pub(crate) struct StallWatch {
    stop: Arc<AtomicBool>,
    join: Option<JoinHandle<Stalls>>,
}

impl StallWatch {
    /// Starts watching (without a thread, nothing is detected: the run
    /// goes on as before).
    pub fn start() -> StallWatch {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let join = std::thread::Builder::new()
            .name("qpslab-stall-watch".into())
            .spawn(move || {
                let mut stalls = Stalls::default();
                while !flag.load(Ordering::Relaxed) {
                    let due = Instant::now() + NAP;
                    std::thread::sleep(NAP);
                    stalls.check(due, Instant::now());
                }
                stalls
            })
            .ok();
        StallWatch { stop, join }
    }

    /// Stops the watcher; the seconds the process did not run.
    pub fn stop(mut self) -> f64 {
        self.stop.store(true, Ordering::Relaxed);
        self.join
            .take()
            .and_then(|j| j.join().ok())
            .map(|s| s.seconds())
            .unwrap_or(0.0)
    }
}

impl Drop for StallWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Spans of time during which the process did not run.
#[derive(Default)]
struct Stalls {
    spans: Vec<(Instant, Instant)>,
}

impl Stalls {
    /// Something due at `due` happened at `now`: a delay of `CLIENT_STALL`
    /// or more is a stall over [due, now] (overlapping spans merge).
    fn check(&mut self, due: Instant, now: Instant) {
        if now.saturating_duration_since(due) < CLIENT_STALL {
            return;
        }
        match self.spans.last_mut() {
            Some((start, end)) if due <= *end => {
                *start = (*start).min(due);
                *end = (*end).max(now);
            }
            _ => self.spans.push((due, now)),
        }
    }

    fn seconds(&self) -> f64 {
        self.spans
            .iter()
            .map(|(a, b)| b.saturating_duration_since(*a).as_secs_f64())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stalls_merge_and_ignore_short_delays() {
        let t = Instant::now();
        let s = |x: f64| t + Duration::from_secs_f64(x);
        let mut st = Stalls::default();
        st.check(s(0.0), s(CLIENT_STALL.as_secs_f64() * 0.9));
        assert_eq!(st.seconds(), 0.0);
        // overlapping pauses count once
        st.check(s(10.0), s(20.0));
        st.check(s(11.0), s(20.0));
        st.check(s(30.0), s(33.0));
        assert!((st.seconds() - 13.0).abs() < 1e-6, "{}", st.seconds());
    }
}
