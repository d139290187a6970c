//! sysbench's `mutex` test: each thread does one event of
//! `--mutex-locks` rounds: an empty loop of `--mutex-loops` iterations
//! outside any lock, then a random one of `--mutex-num` mutexes locked
//! around an increment of a shared counter. Owns the loop.

use super::driver::Worker;
use super::HostError;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The mutex test's options.
#[derive(Debug, Clone, Copy)]
pub struct MutexOptions {
    /// --mutex-num: the mutex array's size.
    pub num: u64,
    /// --mutex-locks: locks per thread.
    pub locks: u64,
    /// --mutex-loops: empty iterations before each lock.
    pub loops: u64,
}

impl MutexOptions {
    /// Checks the values (a mutex array needs one mutex).
    pub fn new(num: i64, locks: i64, loops: i64) -> Result<MutexOptions, HostError> {
        let check = |option: &'static str, v: i64, least: i64| {
            if v < least {
                Err(HostError::InvalidValue {
                    option,
                    value: v.to_string(),
                })
            } else {
                Ok(v as u64)
            }
        };
        Ok(MutexOptions {
            num: check("mutex-num", num, 1)?,
            locks: check("mutex-locks", locks, 0)?,
            loops: check("mutex-loops", loops, 0)?,
        })
    }
}

/// One thread's work: its single event, then no more.
pub struct MutexWorker {
    o: MutexOptions,
    mutexes: Arc<Vec<Mutex<u64>>>,
    shared: Arc<AtomicU64>,
    rng: SmallRng,
    done: bool,
}

/// One worker per thread, sharing the mutex array; `seed` feeds the
/// random picks (thread number added).
pub fn workers(o: MutexOptions, threads: u32, seed: u64) -> Vec<MutexWorker> {
    let mutexes: Arc<Vec<Mutex<u64>>> = Arc::new((0..o.num).map(|_| Mutex::new(0)).collect());
    let shared = Arc::new(AtomicU64::new(0));
    (0..threads)
        .map(|t| MutexWorker {
            o,
            mutexes: Arc::clone(&mutexes),
            shared: Arc::clone(&shared),
            rng: SmallRng::seed_from_u64(seed.wrapping_add(u64::from(t))),
            done: false,
        })
        .collect()
}

impl Worker for MutexWorker {
    fn next_event(&mut self) -> bool {
        !std::mem::replace(&mut self.done, true)
    }

    fn execute(&mut self) -> Result<(), HostError> {
        for _ in 0..self.o.locks {
            let pick = self.rng.random_range(0..self.o.num) as usize;
            for i in 0..self.o.loops {
                std::hint::black_box(i);
            }
            let mut g = self.mutexes[pick].lock().unwrap_or_else(|p| p.into_inner());
            *g += 1;
            self.shared.fetch_add(1, Ordering::Relaxed);
            drop(g);
        }
        Ok(())
    }
}
