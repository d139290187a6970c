//! Open-model arrivals: a Poisson process at a target rate. Each idle
//! connection takes the next arrival time; when arrivals are already due the
//! connection starts at once and the event's latency still counts from its
//! arrival time (no coordinated omission). The number of due arrivals not
//! yet started is the backlog; the run never aborts for it.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::{Duration, Instant};

pub struct Arrivals {
    next: Instant,
    mean_gap_s: f64,
    rng: SmallRng,
}

impl Arrivals {
    pub fn new(start: Instant, rate: f64, seed: u64) -> Arrivals {
        let mut a = Arrivals {
            next: start,
            mean_gap_s: 1.0 / rate.max(1e-9),
            rng: SmallRng::seed_from_u64(seed),
        };
        a.next = start + a.gap();
        a
    }

    fn gap(&mut self) -> Duration {
        let u: f64 = self.rng.random::<f64>();
        Duration::from_secs_f64(-(1.0 - u).ln() * self.mean_gap_s)
    }

    /// The next arrival time, consumed.
    pub fn take(&mut self) -> Instant {
        let t = self.next;
        let g = self.gap();
        self.next += g;
        t
    }

    /// Arrivals already due at `now` and not taken (an estimate from the rate).
    pub fn backlog(&self, now: Instant) -> u64 {
        if self.next > now {
            0
        } else {
            ((now - self.next).as_secs_f64() / self.mean_gap_s) as u64 + 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_rate_is_the_target() {
        let t0 = Instant::now();
        let mut a = Arrivals::new(t0, 1000.0, 1);
        let mut last = t0;
        for _ in 0..100_000 {
            last = a.take();
        }
        let secs = (last - t0).as_secs_f64();
        assert!((secs - 100.0).abs() < 2.0, "{secs}");
        assert!(a.backlog(t0) == 0);
        assert!(a.backlog(t0 + Duration::from_secs(200)) > 90_000);
    }
}
