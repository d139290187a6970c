//! sysbench's `cpu` test: each event counts the primes below
//! `--cpu-max-prime` by trial division, exactly sysbench's loop (the same
//! work, so the same events per second on the same CPU). Owns the loop.

use super::driver::Worker;
use super::HostError;

/// The cpu test's options.
#[derive(Debug, Clone, Copy)]
pub struct CpuOptions {
    /// --cpu-max-prime: the upper limit of the primes searched.
    pub max_prime: u64,
}

impl CpuOptions {
    /// Checks --cpu-max-prime as sysbench does (positive).
    pub fn new(max_prime: i64) -> Result<CpuOptions, HostError> {
        if max_prime <= 0 {
            return Err(HostError::CpuMaxPrime(max_prime));
        }
        Ok(CpuOptions {
            max_prime: max_prime as u64,
        })
    }
}

/// Odd and even numbers from 3 below `max` that are prime, by sysbench's
/// trial division up to the square root (2 itself is not counted).
pub fn primes_below(max: u64) -> u64 {
    let mut n = 0;
    let mut c = 3u64;
    while c < max {
        let t = (c as f64).sqrt();
        let mut l = 2u64;
        while (l as f64) <= t {
            if c.is_multiple_of(l) {
                break;
            }
            l += 1;
        }
        if (l as f64) > t {
            n += 1;
        }
        c += 1;
    }
    n
}

/// One thread's cpu work.
pub struct CpuWorker(pub CpuOptions);

impl Worker for CpuWorker {
    fn execute(&mut self) -> Result<(), HostError> {
        std::hint::black_box(primes_below(std::hint::black_box(self.0.max_prime)));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_the_primes_from_three() {
        assert_eq!(primes_below(100), 24);
        assert_eq!(primes_below(10_000), 1228);
        assert_eq!(primes_below(3), 0);
        assert!(CpuOptions::new(0).is_err());
    }
}
