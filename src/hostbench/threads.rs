//! sysbench's `threads` test: each event locks one of `--thread-locks`
//! mutexes and yields the CPU (`sched_yield`) while holding it,
//! `--thread-yields` times — OS thread scheduling under contention.
//! Owns the loop; the driver's threads are real OS threads.

use super::driver::Worker;
use super::HostError;
use std::sync::{Arc, Mutex};

/// The threads test's options.
#[derive(Debug, Clone, Copy)]
pub struct ThreadsOptions {
    /// --thread-yields: yields per event.
    pub yields: u64,
    /// --thread-locks: mutexes shared by the threads.
    pub locks: u64,
}

impl ThreadsOptions {
    /// Checks the values (sysbench divides by the lock count: none is
    /// refused here).
    pub fn new(yields: i64, locks: i64) -> Result<ThreadsOptions, HostError> {
        if yields < 0 {
            return Err(invalid("thread-yields", yields));
        }
        if locks <= 0 {
            return Err(invalid("thread-locks", locks));
        }
        Ok(ThreadsOptions {
            yields: yields as u64,
            locks: locks as u64,
        })
    }
}

fn invalid(option: &'static str, v: i64) -> HostError {
    HostError::InvalidValue {
        option,
        value: v.to_string(),
    }
}

/// One thread's work: its lock is `thread % locks`, as sysbench picks it.
pub struct ThreadsWorker {
    locks: Arc<Vec<Mutex<()>>>,
    lock: usize,
    yields: u64,
}

/// One worker per thread, sharing the locks.
pub fn workers(o: ThreadsOptions, threads: u32) -> Vec<ThreadsWorker> {
    let locks: Arc<Vec<Mutex<()>>> = Arc::new((0..o.locks).map(|_| Mutex::new(())).collect());
    (0..threads)
        .map(|t| ThreadsWorker {
            locks: Arc::clone(&locks),
            lock: (u64::from(t) % o.locks) as usize,
            yields: o.yields,
        })
        .collect()
}

impl Worker for ThreadsWorker {
    fn execute(&mut self) -> Result<(), HostError> {
        for _ in 0..self.yields {
            // a poisoned lock still serialises: keep going as sysbench would
            let guard = self.locks[self.lock]
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            std::thread::yield_now();
            drop(guard);
        }
        Ok(())
    }
}
