//! Latency histogram: microseconds from 1 µs to 1 hour, 3 significant digits.

use hdrhistogram::Histogram;

/// A latency histogram. Full while it is being recorded into and merged;
/// a finished per-interval sample keeps only its summary (`compact`), so
/// that a long run's memory does not grow by a whole histogram (~185 KB)
/// every interval.
#[derive(Clone, Debug)]
pub struct Hist(Repr);

#[derive(Clone, Debug)]
enum Repr {
    Full(Histogram<u64>),
    Summary(Box<Summary>),
}

/// What a compacted histogram keeps: its count, extremes, mean, and the
/// values at the quantiles asked for when it was compacted (µs).
#[derive(Clone, Debug, PartialEq)]
struct Summary {
    count: u64,
    min: u64,
    max: u64,
    mean: f64,
    at: Vec<(f64, u64)>,
}

impl Summary {
    /// The value at `q`: the kept quantile equal to it, else the nearest
    /// kept one above it (a conservative reading), else the maximum.
    fn value_at(&self, q: f64) -> u64 {
        self.at
            .iter()
            .find(|(kq, _)| *kq >= q - 1e-12)
            .map(|(_, v)| *v)
            .unwrap_or(self.max)
    }
}

/// The quantiles every compacted sample keeps, whatever the run asked
/// for: those the live line, the store's per-interval columns, the pages
/// and the generator-lateness check read.
pub(crate) const SAMPLE_QUANTILES: [f64; 7] = [0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999];

impl Default for Hist {
    fn default() -> Self {
        Hist::new()
    }
}

impl Hist {
    /// An empty histogram from 1 µs to one hour, 3 significant digits.
    pub fn new() -> Hist {
        Hist(Repr::Full(
            Histogram::new_with_bounds(1, 3_600_000_000, 3).expect("valid histogram bounds"),
        ))
    }

    /// Records one latency in microseconds (clamped into range). A
    /// compacted histogram is made full again first (never on the hot
    /// path: only finished samples are compacted).
    #[inline]
    pub fn record(&mut self, us: u64) {
        match &mut self.0 {
            Repr::Full(h) => h.saturating_record(us.max(1)),
            Repr::Summary(_) => self.record_into_compacted(us),
        }
    }

    /// Records `n` latencies of `us` microseconds each (a histogram
    /// brought over from another's buckets; not for the hot path).
    pub fn record_n(&mut self, us: u64, n: u64) {
        let _ = self.full_mut().record_n(us.clamp(1, 3_600_000_000), n);
    }

    #[cold]
    fn record_into_compacted(&mut self, us: u64) {
        self.full_mut().saturating_record(us.max(1));
    }

    #[inline]
    fn full_mut(&mut self) -> &mut Histogram<u64> {
        if let Repr::Summary(_) = self.0 {
            *self = Hist::new();
        }
        match &mut self.0 {
            Repr::Full(h) => h,
            Repr::Summary(_) => unreachable!("made full above"),
        }
    }

    /// An empty histogram with no buckets yet (a few bytes): the first
    /// value recorded makes it full (~190 KB, every page written). For a
    /// statement kind a workload may never run: a shard's intervals hold
    /// one histogram per kind the family names, and a point select uses
    /// one of them.
    pub fn unallocated() -> Hist {
        Hist(Repr::Summary(Box::new(Summary {
            count: 0,
            min: 0,
            max: 0,
            mean: 0.0,
            at: Vec::new(),
        })))
    }

    /// Whether it holds buckets (see [`Hist::unallocated`]).
    pub fn is_allocated(&self) -> bool {
        matches!(self.0, Repr::Full(_))
    }

    /// Empties it, keeping its memory (a full histogram is ~190 KB). An
    /// empty one is left alone (emptying writes every bucket), an
    /// unallocated one stays so.
    pub fn reset(&mut self) {
        match &mut self.0 {
            Repr::Full(h) if h.is_empty() => {}
            Repr::Full(h) => h.reset(),
            Repr::Summary(s) if s.count == 0 => {}
            Repr::Summary(_) => *self = Hist::new(),
        }
    }

    /// Adds `other`'s counts (nothing to add from an empty or unallocated
    /// one). A compacted `other` has no counts left to add: merging one is
    /// a caller's mistake and changes nothing.
    pub fn merge(&mut self, other: &Hist) {
        if other.count() == 0 {
            return;
        }
        if let Repr::Full(o) = &other.0 {
            let _ = self.full_mut().add(o);
        } else {
            debug_assert!(false, "merging a compacted histogram");
        }
    }

    /// Keeps only the summary: count, min, max, mean and the values at
    /// `SAMPLE_QUANTILES` and `extra` (fractions in [0, 1]). Frees the
    /// full histogram.
    pub fn compact(&mut self, extra: &[f64]) {
        let Repr::Full(h) = &self.0 else { return };
        let mut qs: Vec<f64> = SAMPLE_QUANTILES
            .iter()
            .chain(extra)
            .copied()
            .filter(|q| (0.0..=1.0).contains(q))
            .collect();
        qs.sort_by(f64::total_cmp);
        qs.dedup_by(|a, b| (*a - *b).abs() < 1e-12);
        let empty = h.is_empty();
        let summary = Summary {
            count: h.len(),
            min: if empty { 0 } else { h.min() },
            max: h.max(),
            mean: h.mean(),
            at: qs
                .into_iter()
                .map(|q| (q, if empty { 0 } else { h.value_at_quantile(q) }))
                .collect(),
        };
        self.0 = Repr::Summary(Box::new(summary));
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        match &self.0 {
            Repr::Full(h) => h.len(),
            Repr::Summary(s) => s.count,
        }
    }

    /// Quantile q in [0,1], in milliseconds. On a compacted histogram, a
    /// quantile it did not keep reads as the next kept one above it.
    pub fn quantile_ms(&self, q: f64) -> f64 {
        if self.count() == 0 {
            return 0.0;
        }
        let us = match &self.0 {
            Repr::Full(h) => h.value_at_quantile(q),
            Repr::Summary(s) => s.value_at(q),
        };
        us as f64 / 1000.0
    }

    /// The smallest value, ms (0 when empty).
    pub fn min_ms(&self) -> f64 {
        match &self.0 {
            Repr::Full(h) if !h.is_empty() => h.min() as f64 / 1000.0,
            Repr::Summary(s) => s.min as f64 / 1000.0,
            _ => 0.0,
        }
    }

    /// The largest value, ms (0 when empty).
    pub fn max_ms(&self) -> f64 {
        match &self.0 {
            Repr::Full(h) => h.max() as f64 / 1000.0,
            Repr::Summary(s) => s.max as f64 / 1000.0,
        }
    }

    /// The mean, ms (0 when empty).
    pub fn mean_ms(&self) -> f64 {
        match &self.0 {
            Repr::Full(h) => h.mean() / 1000.0,
            Repr::Summary(s) => s.mean / 1000.0,
        }
    }

    /// The histogram at full resolution in HDR's V2 encoding.
    /// (Empty for a compacted histogram: it has no buckets left.)
    pub fn to_v2_bytes(&self) -> Vec<u8> {
        use hdrhistogram::serialization::{Serializer, V2Serializer};
        let mut out = Vec::new();
        if let Repr::Full(h) = &self.0 {
            let _ = V2Serializer::new().serialize(h, &mut out);
        }
        out
    }

    /// Reads a histogram written by `to_v2_bytes`.
    pub fn from_v2_bytes(b: &[u8]) -> Option<Hist> {
        use hdrhistogram::serialization::Deserializer;
        let h: Histogram<u64> = Deserializer::new()
            .deserialize(&mut std::io::Cursor::new(b))
            .ok()?;
        Some(Hist(Repr::Full(h)))
    }

    /// Every recorded value (µs, at the histogram's precision) with its
    /// count, in order; empty once compacted.
    pub fn recorded(&self) -> Vec<(u64, u64)> {
        let Repr::Full(h) = &self.0 else {
            return Vec::new();
        };
        h.iter_recorded()
            .map(|v| (v.value_iterated_to(), v.count_at_value()))
            .collect()
    }

    /// (upper bound in ms, count) for each non-empty bucket, for --histogram.
    /// (None for a compacted histogram.)
    pub fn buckets(&self) -> Vec<(f64, u64)> {
        let Repr::Full(h) = &self.0 else {
            return Vec::new();
        };
        h.iter_log(1, 2.0_f64.powf(0.25))
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

    #[test]
    fn a_compacted_histogram_keeps_its_summary_exactly() {
        let mut h = Hist::new();
        for v in 1..=10_000 {
            h.record(v);
        }
        let full = h.clone();
        h.compact(&[0.97]);
        for q in SAMPLE_QUANTILES.iter().chain(&[0.97]) {
            assert_eq!(h.quantile_ms(*q), full.quantile_ms(*q), "q {q}");
        }
        assert_eq!(h.count(), full.count());
        assert_eq!(h.min_ms(), full.min_ms());
        assert_eq!(h.max_ms(), full.max_ms());
        assert_eq!(h.mean_ms(), full.mean_ms());
        // a quantile it did not keep reads as the next one kept above it
        assert_eq!(h.quantile_ms(0.96), full.quantile_ms(0.97));
        // no counts array left
        assert!(matches!(h.0, Repr::Summary(_)));
        // recording again makes it a full (empty) histogram
        h.record(5);
        assert_eq!(h.count(), 1);
        let mut e = Hist::new();
        e.compact(&[]);
        assert_eq!((e.count(), e.quantile_ms(0.5), e.min_ms()), (0, 0.0, 0.0));
    }
}
