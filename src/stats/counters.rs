//! Counters of one reporting interval, mergeable across shards.

use super::hist::Hist;

/// Errors by server error code. A handful of codes at most, so a small
/// vector beats a map; it only grows when a new code appears.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ErrCounts(
    /// (server error code, count), in the order codes first appeared.
    pub Vec<(u16, u64)>,
);

impl ErrCounts {
    /// Counts `n` more errors of `code`.
    pub fn add(&mut self, code: u16, n: u64) {
        match self.0.iter_mut().find(|(c, _)| *c == code) {
            Some((_, v)) => *v += n,
            None => {
                self.0.push((code, n));
                self.0.sort_unstable();
            }
        }
    }

    /// Errors of every code together.
    pub fn total(&self) -> u64 {
        self.0.iter().map(|(_, n)| n).sum()
    }

    /// Adds `o`'s counts to these.
    pub fn merge(&mut self, o: &ErrCounts) {
        for &(c, n) in &o.0 {
            self.add(c, n);
        }
    }
}

/// What happened during one interval (or a whole run, once merged).
#[derive(Clone, Debug, Default)]
pub struct Interval {
    /// Events (transactions) completed.
    pub events: u64,
    /// Read queries.
    pub reads: u64,
    /// Write queries.
    pub writes: u64,
    /// Other queries (BEGIN, COMMIT, …).
    pub others: u64,
    /// Server and client errors by code: ignored ones (the event retried)
    /// and lost connections (the event failed) alike.
    pub errors: ErrCounts,
    /// Of `errors`, those that lost the connection (2013 and the like):
    /// the event failed, nothing was ignored.
    pub lost: u64,
    /// Connections re-opened after a loss.
    pub reconnects: u64,
    /// Events that could not complete: their connection was lost or cut
    /// (read timeout). Never counted as events or latency samples.
    pub failed: u64,
    /// Reconnect attempts that could not reach the server.
    pub failed_connects: u64,
    /// Event latency.
    pub hist: Hist,
    /// Rate mode: events due but not yet started at the end of the interval.
    pub backlog: u64,
    /// Rate mode: how late connections woke for their arrival times, in
    /// microseconds (the generator's own lateness, kept out of the event
    /// latency and reported apart). None outside rate mode.
    pub lag: Option<Box<Hist>>,
    /// CPU seconds the load threads (the shards) used in the interval,
    /// from RUSAGE_THREAD: the load's own cost, without the monitor, the
    /// store or the profiler.
    pub load_cpu_s: f64,
    /// Completed events by the family's event class (TPC-C's transaction
    /// types); all zero for families without classes.
    pub classes: [u64; MAX_CLASSES],
    /// Latency of each statement kind, then of each event class (the
    /// family's stat names, then its event classes), in the interval.
    /// Sized before the run (`with_kinds`) and never grown while
    /// recording: a kind past its length is not recorded.
    pub kinds: Vec<Hist>,
}

/// Event classes a family may declare (TPC-C uses six, LinkBench ten).
pub(crate) const MAX_CLASSES: usize = 12;

impl Interval {
    /// An empty interval with room for `n` statement kinds and event
    /// classes (a full histogram each: allocated here, never while
    /// recording).
    pub fn with_kinds(n: usize) -> Interval {
        Interval {
            kinds: (0..n).map(|_| Hist::new()).collect(),
            ..Interval::default()
        }
    }

    /// An empty interval with room for `n` statement kinds and event
    /// classes, none of them allocated (a kind's buckets come with its
    /// first value: [`Hist::unallocated`]). A shard's first interval.
    pub fn with_unallocated_kinds(n: usize) -> Interval {
        Interval {
            kinds: (0..n).map(|_| Hist::unallocated()).collect(),
            ..Interval::default()
        }
    }

    /// An empty interval with a full histogram for each kind `like`
    /// recorded or holds buckets for, and an unallocated one for the
    /// others: a kind not yet run costs a few bytes, where a full
    /// histogram is ~190 KB resident (a shard's two intervals of a point
    /// select held 17 each, one used), and a kind first run in an
    /// interval allocates its buckets then, once, for the intervals after.
    pub fn with_kinds_like(like: &Interval) -> Interval {
        Interval {
            kinds: like
                .kinds
                .iter()
                .map(|h| {
                    if h.is_allocated() || h.count() > 0 {
                        Hist::new()
                    } else {
                        Hist::unallocated()
                    }
                })
                .collect(),
            ..Interval::default()
        }
    }

    /// Errors ignored (the event retried), as sysbench's "ignored errors":
    /// lost connections are not among them.
    pub fn ignored_errors(&self) -> u64 {
        self.errors.total().saturating_sub(self.lost)
    }

    /// Queries of every kind (reads + writes + others).
    pub fn queries(&self) -> u64 {
        self.reads + self.writes + self.others
    }

    /// Events (transactions) per second over `secs` seconds.
    pub fn tps(&self, secs: f64) -> f64 {
        self.events as f64 / secs.max(1e-9)
    }

    /// Rate mode: the p99 of the connections' wake-up lateness, in ms.
    pub fn lag_p99_ms(&self) -> Option<f64> {
        self.lag.as_ref().map(|h| h.quantile_ms(0.99))
    }

    /// Rate mode: the generator woke later than the events took (its
    /// lag p99 above the event latency p95), so the interval's rate and
    /// latency say more about the client than the server.
    pub fn generator_late(&self) -> bool {
        self.lag_p99_ms()
            .is_some_and(|l| l > 0.0 && self.hist.count() > 0 && l > self.hist.quantile_ms(0.95))
    }

    /// Queries per second over `secs` seconds.
    pub fn qps(&self, secs: f64) -> f64 {
        self.queries() as f64 / secs.max(1e-9)
    }

    /// Empties it for reuse, keeping the histograms' memory (every
    /// field named: a new one must be reset here too).
    pub fn reset(&mut self) {
        let Interval {
            events,
            reads,
            writes,
            others,
            errors,
            lost,
            reconnects,
            failed,
            failed_connects,
            hist,
            backlog,
            lag,
            load_cpu_s,
            classes,
            kinds,
        } = self;
        for n in [
            events,
            reads,
            writes,
            others,
            lost,
            reconnects,
            failed,
            failed_connects,
            backlog,
        ] {
            *n = 0;
        }
        errors.0.clear();
        hist.reset();
        if let Some(l) = lag.as_mut() {
            l.reset();
        }
        *load_cpu_s = 0.0;
        *classes = [0; MAX_CLASSES];
        kinds.iter_mut().for_each(Hist::reset);
    }

    /// Keeps only the summaries of its histograms (see `Hist::compact`):
    /// for a finished sample kept for the run's length. `extra` are the
    /// quantiles (fractions) the run reports besides the usual ones. The
    /// statement kinds' histograms are dropped: whoever wants their
    /// figures reads them as the sample arrives, and a long run's memory
    /// must not grow by a summary per kind every interval.
    pub fn compact(&mut self, extra: &[f64]) {
        self.hist.compact(extra);
        if let Some(l) = self.lag.as_mut() {
            l.compact(extra);
        }
        self.kinds = Vec::new();
    }

    /// Adds `o` into this interval: counts summed, histograms merged.
    pub fn merge(&mut self, o: &Interval) {
        self.events += o.events;
        self.reads += o.reads;
        self.writes += o.writes;
        self.others += o.others;
        self.errors.merge(&o.errors);
        self.lost += o.lost;
        self.reconnects += o.reconnects;
        self.failed += o.failed;
        self.failed_connects += o.failed_connects;
        self.hist.merge(&o.hist);
        self.backlog += o.backlog;
        self.load_cpu_s += o.load_cpu_s;
        if let Some(l) = &o.lag {
            self.lag.get_or_insert_with(Default::default).merge(l);
        }
        for (a, b) in self.classes.iter_mut().zip(o.classes) {
            *a += b;
        }
        if self.kinds.len() < o.kinds.len() {
            self.kinds.resize_with(o.kinds.len(), Hist::new);
        }
        for (a, b) in self.kinds.iter_mut().zip(&o.kinds) {
            if b.count() > 0 {
                a.merge(b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_not_run_stay_unallocated_through_the_intervals() {
        let mut cur = Interval::with_unallocated_kinds(2);
        cur.kinds[1].record(7);
        let next = Interval::with_kinds_like(&cur);
        assert!(!next.kinds[0].is_allocated() && next.kinds[1].is_allocated());
        // the coordinator merges and resets: nothing allocated for kind 0
        let mut total = Interval::default();
        total.merge(&cur);
        assert_eq!((total.kinds[0].count(), total.kinds[1].count()), (0, 1));
        cur.reset();
        assert!(!cur.kinds[0].is_allocated() && cur.kinds[1].is_allocated());
        assert_eq!(cur.kinds[1].count(), 0);
        // a kind first run later records as any other
        cur.kinds[0].record(3);
        assert_eq!(cur.kinds[0].count(), 1);
        assert_eq!(cur.kinds[0].max_ms(), 0.003);
    }

    #[test]
    fn merging_adds_everything() {
        let mut a = Interval {
            events: 1,
            reads: 2,
            writes: 3,
            others: 4,
            ..Default::default()
        };
        a.errors.add(1213, 2);
        let mut b = a.clone();
        b.errors.add(1205, 1);
        b.hist.record(10);
        b.kinds = vec![Hist::new(), Hist::new()];
        b.kinds[1].record(7);
        a.merge(&b);
        assert_eq!(a.kinds.len(), 2);
        assert_eq!((a.kinds[0].count(), a.kinds[1].count()), (0, 1));
        assert_eq!((a.events, a.queries(), a.errors.total()), (2, 18, 5));
        assert_eq!(a.errors.0, vec![(1205, 1), (1213, 4)]);
        assert_eq!(a.hist.count(), 1);
        // reset empties everything, to be reused without allocating
        a.reset();
        assert_eq!((a.events, a.queries(), a.errors.total()), (0, 0, 0));
        assert_eq!(a.hist.count(), 0);
        assert_eq!((a.kinds.len(), a.kinds[1].count()), (2, 0));
        let mut sized = Interval::with_kinds(3);
        assert_eq!(sized.kinds.len(), 3);
        // a finished sample keeps no per-kind histogram
        sized.compact(&[]);
        assert!(sized.kinds.is_empty());
    }
}
