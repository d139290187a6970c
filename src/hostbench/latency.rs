//! sysbench's latency histogram: 1024 logarithmic buckets from 0.001 ms
//! to 100 000 ms, counted per worker thread without locks, from which
//! sysbench's percentiles and `--histogram`'s table are read. Owns the
//! bucket arithmetic only; the driver records into it, report renders it.

use std::sync::atomic::{AtomicU64, Ordering};

/// Buckets in the histogram (sysbench's 1024).
pub const BUCKETS: usize = 1024;
const RANGE_MIN_MS: f64 = 0.001;
const RANGE_MAX_MS: f64 = 100_000.0;

fn deduct() -> f64 {
    RANGE_MIN_MS.ln()
}

fn mult() -> f64 {
    (BUCKETS - 1) as f64 / (RANGE_MAX_MS.ln() - deduct())
}

/// The bucket a latency of `ms` milliseconds falls in.
pub fn bucket_of(ms: f64) -> usize {
    if ms <= 0.0 {
        return 0;
    }
    let i = ((ms.ln() - deduct()) * mult() + 0.5).floor();
    i.clamp(0.0, (BUCKETS - 1) as f64) as usize
}

/// The value (ms) bucket `i` stands for.
pub fn bucket_value(i: usize) -> f64 {
    (i as f64 / mult() + deduct()).exp()
}

/// One thread's bucket counts, written by its thread only and read by the
/// reporter while the run goes on.
pub struct Buckets(Box<[AtomicU64]>);

impl Default for Buckets {
    fn default() -> Self {
        Buckets((0..BUCKETS).map(|_| AtomicU64::new(0)).collect())
    }
}

impl Buckets {
    /// Counts one latency of `ns` nanoseconds.
    #[inline]
    pub fn record_ns(&self, ns: u64) {
        let b = &self.0[bucket_of(ns as f64 / 1e6)];
        b.store(b.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    }

    /// Adds this thread's counts into `into`.
    pub fn add_to(&self, into: &mut Counts) {
        for (c, b) in into.0.iter_mut().zip(self.0.iter()) {
            *c += b.load(Ordering::Relaxed);
        }
    }
}

/// A snapshot of bucket counts (all threads summed).
#[derive(Clone, Debug, PartialEq)]
pub struct Counts(pub Vec<u64>);

impl Default for Counts {
    fn default() -> Self {
        Counts(vec![0; BUCKETS])
    }
}

impl Counts {
    /// The counts since `earlier` (an older snapshot of the same run).
    pub fn since(&self, earlier: &Counts) -> Counts {
        Counts(
            self.0
                .iter()
                .zip(&earlier.0)
                .map(|(a, b)| a.saturating_sub(*b))
                .collect(),
        )
    }

    /// sysbench's percentile `pct` (1..=100), ms: the value of the first
    /// bucket where the running count reaches pct% of all events; 0 when
    /// empty.
    pub fn percentile_ms(&self, pct: u32) -> f64 {
        let total: u64 = self.0.iter().sum();
        let nmax = (total as f64 * f64::from(pct) / 100.0 + 0.5).floor() as u64;
        if nmax == 0 {
            return 0.0;
        }
        let mut seen = 0;
        for (i, c) in self.0.iter().enumerate() {
            seen += c;
            if seen >= nmax {
                return bucket_value(i);
            }
        }
        bucket_value(BUCKETS - 1)
    }

    /// (bucket value ms, count) of the non-empty buckets, lowest first.
    pub fn rows(&self) -> Vec<(f64, u64)> {
        self.0
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(i, c)| (bucket_value(i), *c))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_span_sysbench_range_and_percentiles_read_bucket_values() {
        assert_eq!(bucket_of(0.001), 0);
        assert_eq!(bucket_of(100_000.0), BUCKETS - 1);
        assert_eq!(bucket_of(1e9), BUCKETS - 1);
        assert!((bucket_value(0) - 0.001).abs() < 1e-12);
        // a value reads back within one bucket's width (~1.8%)
        let v = bucket_value(bucket_of(0.39));
        assert!((v / 0.39 - 1.0).abs() < 0.01, "{v}");
        let mut c = Counts::default();
        c.0[bucket_of(1.0)] = 95;
        c.0[bucket_of(10.0)] = 5;
        assert!((c.percentile_ms(95) - bucket_value(bucket_of(1.0))).abs() < 1e-12);
        assert!((c.percentile_ms(100) - bucket_value(bucket_of(10.0))).abs() < 1e-12);
        assert_eq!(Counts::default().percentile_ms(95), 0.0);
    }
}
