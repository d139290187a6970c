//! The pre-flight check a campaign makes before each round of repeats:
//! how noisy the idle host is right now. A fixed CPU-bound loop runs in
//! slices on this thread; the spread of the slices' speed (CoV) says how
//! steadily this process gets a CPU, and /proc/stat says how busy the host
//! was outside qpslab meanwhile. Recorded with every run of the round (the
//! run's host document) and printed, so a round measured on a busy host
//! can be told from the others.

use crate::stats::document::Preflight;
use std::time::{Duration, Instant};

/// Slices of the loop, and how long each runs.
const SLICES: usize = 10;
const SLICE: Duration = Duration::from_millis(100);

/// Measures the host's noise (about a second); see the module doc.
pub(crate) fn host_noise() -> Preflight {
    let before = crate::stats::CpuSnapshot::now();
    let mut rates = Vec::with_capacity(SLICES);
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..SLICES {
        let start = Instant::now();
        let mut n: u64 = 0;
        while start.elapsed() < SLICE {
            for _ in 0..1000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
            }
            n += 1;
        }
        rates.push(n as f64 / start.elapsed().as_secs_f64());
    }
    std::hint::black_box(x);
    let after = crate::stats::CpuSnapshot::now();
    let (own, host, busy) = after.since(&before);
    let mean = rates.iter().sum::<f64>() / rates.len() as f64;
    let sd =
        (rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (rates.len() - 1) as f64).sqrt();
    let outside = if host > 0.0 {
        (busy - own / host).max(0.0)
    } else {
        0.0
    };
    Preflight {
        loop_cov: if mean > 0.0 { sd / mean } else { 0.0 },
        host_busy_outside_qpslab: outside,
        seconds: SLICES as f64 * SLICE.as_secs_f64(),
        load_average: std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|l| l.split_whitespace().next().map(str::to_string)),
    }
}

/// Whether a pre-flight document says the host was not quiet (busy over
/// 10% outside qpslab, or the loop's speed varying over 5%).
pub fn noisy(v: &Preflight) -> bool {
    v.host_busy_outside_qpslab * 100.0 > 10.0 || v.loop_cov * 100.0 > 5.0
}

/// One line for the campaign's output.
pub fn describe(round: u32, v: &Preflight) -> String {
    let busy = v.host_busy_outside_qpslab * 100.0;
    format!(
        "Pre-flight, round {round}: CPU loop CoV {:.1}%, host busy {:.0}% outside qpslab, load average {}{}",
        v.loop_cov * 100.0,
        busy,
        v.load_average.as_deref().unwrap_or("-"),
        if noisy(v) {
            " -- the host is not quiet: this round's figures carry its noise"
        } else {
            ""
        }
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn measures_and_describes() {
        let v = super::host_noise();
        assert!(v.loop_cov >= 0.0);
        let busy = v.host_busy_outside_qpslab;
        assert!((0.0..=1.0).contains(&busy), "{v:?}");
        assert!(super::describe(2, &v).starts_with("Pre-flight, round 2: CPU loop CoV"));
    }
}
