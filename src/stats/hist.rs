//! Latency histogram: microseconds from 1 µs to 1 hour, 3 significant digits.

use hdrhistogram::Histogram;

#[derive(Clone, Debug)]
pub struct Hist(Histogram<u64>);

impl Default for Hist {
    fn default() -> Self {
        Hist::new()
    }
}

impl Hist {
    pub fn new() -> Hist {
        Hist(Histogram::new_with_bounds(1, 3_600_000_000, 3).expect("valid histogram bounds"))
    }

    /// Records one latency in microseconds (clamped into range).
    #[inline]
    pub fn record(&mut self, us: u64) {
        self.0.saturating_record(us.max(1));
    }

    /// Empties it, keeping its memory (a histogram is ~190 KB).
    pub fn reset(&mut self) {
        self.0.reset();
    }

    pub fn merge(&mut self, other: &Hist) {
        let _ = self.0.add(&other.0);
    }

    pub fn count(&self) -> u64 {
        self.0.len()
    }

    /// Quantile q in [0,1], in milliseconds.
    pub fn quantile_ms(&self, q: f64) -> f64 {
        if self.0.is_empty() {
            return 0.0;
        }
        self.0.value_at_quantile(q) as f64 / 1000.0
    }

    pub fn min_ms(&self) -> f64 {
        if self.0.is_empty() {
            0.0
        } else {
            self.0.min() as f64 / 1000.0
        }
    }

    pub fn max_ms(&self) -> f64 {
        self.0.max() as f64 / 1000.0
    }

    pub fn mean_ms(&self) -> f64 {
        self.0.mean() / 1000.0
    }

    /// The histogram at full resolution in HDR's V2 encoding.
    pub fn to_v2_bytes(&self) -> Vec<u8> {
        use hdrhistogram::serialization::{Serializer, V2Serializer};
        let mut out = Vec::new();
        let _ = V2Serializer::new().serialize(&self.0, &mut out);
        out
    }

    /// Reads a histogram written by `to_v2_bytes`.
    pub fn from_v2_bytes(b: &[u8]) -> Option<Hist> {
        use hdrhistogram::serialization::Deserializer;
        let h: Histogram<u64> = Deserializer::new()
            .deserialize(&mut std::io::Cursor::new(b))
            .ok()?;
        Some(Hist(h))
    }

    /// (upper bound in ms, count) for each non-empty bucket, for --histogram.
    pub fn buckets(&self) -> Vec<(f64, u64)> {
        self.0
            .iter_log(1, 2.0_f64.powf(0.25))
            .filter(|v| v.count_since_last_iteration() > 0)
            .map(|v| {
                (
                    v.value_iterated_to() as f64 / 1000.0,
                    v.count_since_last_iteration(),
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_and_merge() {
        let mut a = Hist::new();
        let mut b = Hist::new();
        for v in 1..=100 {
            a.record(v * 1000);
        }
        b.record(500_000);
        a.merge(&b);
        assert_eq!(a.count(), 101);
        assert!((a.quantile_ms(0.5) - 51.0).abs() < 0.1);
        assert!((a.max_ms() - 500.0).abs() < 1.0);
        assert!((a.min_ms() - 1.0).abs() < 0.01);
        let b = Hist::from_v2_bytes(&a.to_v2_bytes()).unwrap();
        assert_eq!((b.count(), b.max_ms()), (a.count(), a.max_ms()));
    }
}
