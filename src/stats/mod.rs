//! stats: what a run measured.
//!
//! Owns latency histograms (HDR, microseconds, 3 significant digits),
//! per-interval counters (events, reads/writes/other, errors by code,
//! reconnects), their merging across shards, CPU accounting of the load
//! generator and the host, and the result types of a run (`RunResult`, `Sample`, statuses, latency
//! per statement class named by the family), and the run's stored documents
//! as serde types with a version (`document`). It does not time queries
//! itself (exec records into it) and does not print (report formats it).

pub mod clock;
mod counters;
mod cpu;
pub mod document;
mod hist;
pub mod live;
mod result;

pub use counters::Interval;
pub use cpu::{cpu_list_text, thread_cpu_seconds, CpuSnapshot};
pub use hist::Hist;
pub use result::{us_per_query, Headline, KindStats, RunResult, RunStatus, Sample, Tally};

/// Mean and population standard deviation (0, 0 when empty): sysbench's
/// threads fairness.
pub fn mean_stddev(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// A percentile's label: 95 → "95", 99.9 → "99.9".
pub fn pct_label(p: f64) -> String {
    let s = format!("{p:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A 64-bit FNV-1a hash of `bytes`: the same value on every build, host
/// and version, unlike std's `DefaultHasher`. Stored data is keyed by it
/// (a campaign point's hash, by which a stopped campaign resumes), so the
/// function must never change.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn fnv1a64_matches_the_published_vectors() {
        assert_eq!(super::fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(super::fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(super::fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
