//! The process's live figures for the metrics endpoint
//! (`--metrics-listen`): what the run going on (or the last one) has
//! counted so far — its load counters and latency histograms summed over
//! its measured intervals, its labels — and the latest poll of each monitor
//! source. Updated once an interval by the lab (never on the query path:
//! the per-interval merge already holds the figures), read by a scrape.
//! Holds values only: naming and rendering them is report's job, serving
//! them ui's.

use super::{Hist, Sample};
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, OnceLock};

/// A run's load so far, past its warm-up.
#[derive(Default, Clone)]
pub struct LiveLoad {
    /// Labels of every series of the run (`run_id`, `workload`, `users`,
    /// `campaign`, `variant`, `label`, `server`), known ones only.
    pub labels: Vec<(String, String)>,
    /// Connections (users) of the run.
    pub threads: usize,
    /// Events (transactions) completed.
    pub events: u64,
    /// Read statements.
    pub reads: u64,
    /// Write statements.
    pub writes: u64,
    /// Other statements (BEGIN, COMMIT …).
    pub others: u64,
    /// Events that could not complete (lost or cut connections).
    pub failed: u64,
    /// Connections re-opened after a loss.
    pub reconnects: u64,
    /// Errors by server or client code.
    pub errors: BTreeMap<u16, u64>,
    /// CPU seconds of the load threads.
    pub load_cpu_s: f64,
    /// CPU seconds of the whole qpslab process.
    pub client_cpu_s: f64,
    /// Event latency.
    pub latency: Hist,
    /// Rate mode: how late the generator woke, microseconds.
    pub lag: Option<Hist>,
    /// Latency of each statement kind, by name.
    pub statements: Vec<(String, Hist)>,
    /// Each event class (TPC-C's transaction types, LinkBench's
    /// operations): name, completed events, latency.
    pub classes: Vec<(String, u64, Hist)>,
    /// Whether the run has ended (its figures are final).
    pub ended: bool,
}

/// Everything a scrape shows.
#[derive(Default)]
pub struct LiveState {
    /// The run going on, or the last one.
    pub load: Option<LiveLoad>,
    /// Labels of the monitored server when no run names them (a
    /// `monitor` session): `server`, `run_id` when it is recorded.
    pub monitor_labels: Vec<(String, String)>,
    /// The latest values of each monitor source, by source name.
    pub sources: BTreeMap<String, Vec<(String, f64)>>,
    /// The server's global variables with numeric values, by name.
    pub variables: Vec<(String, f64)>,
    /// INNODB_METRICS counters' subsystem and whether each counts up, by
    /// name (from the monitor's probe).
    pub innodb_metric_kinds: BTreeMap<String, (String, bool)>,
    /// The last profile's lock families: source ("stacks" or "waits")
    /// and (family, share of the connection threads' time).
    pub lock_shares: Option<(String, Vec<(String, f64)>)>,
    /// How many times the state was read by a scrape since the last
    /// change (0: the current figures were never served).
    pub scrapes_since_change: u64,
}

/// The shared live figures.
#[derive(Default)]
pub struct LiveMetrics(Mutex<LiveState>);

static LIVE: OnceLock<LiveMetrics> = OnceLock::new();

/// Turns the live figures on for this process (the metrics endpoint was
/// asked for) and returns them.
pub fn enable() -> &'static LiveMetrics {
    LIVE.get_or_init(LiveMetrics::default)
}

/// The live figures, when the endpoint is on.
pub fn live() -> Option<&'static LiveMetrics> {
    LIVE.get()
}

impl LiveMetrics {
    fn lock(&self) -> MutexGuard<'_, LiveState> {
        // A panic while updating leaves figures, not invariants, behind.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A run starts: its series replace the last run's.
    pub fn begin_run(
        &self,
        labels: Vec<(String, String)>,
        threads: usize,
        kinds: &[String],
        classes: &[String],
    ) {
        let load = LiveLoad {
            labels,
            threads,
            statements: kinds.iter().map(|k| (k.clone(), Hist::new())).collect(),
            classes: classes
                .iter()
                .map(|c| (c.clone(), 0, Hist::new()))
                .collect(),
            ..LiveLoad::default()
        };
        let mut s = self.lock();
        s.load = Some(load);
        s.lock_shares = None;
        s.scrapes_since_change = 0;
    }

    /// An interval ended: measured ones are added to the run's figures.
    pub fn add_sample(&self, smp: &Sample) {
        if smp.warmup {
            return;
        }
        let mut s = self.lock();
        let Some(l) = s.load.as_mut() else { return };
        let iv = &smp.iv;
        l.events += iv.events;
        l.reads += iv.reads;
        l.writes += iv.writes;
        l.others += iv.others;
        l.failed += iv.failed;
        l.reconnects += iv.reconnects;
        for (code, n) in &iv.errors.0 {
            *l.errors.entry(*code).or_default() += n;
        }
        l.load_cpu_s += iv.load_cpu_s;
        l.client_cpu_s += smp.client_cpu_s;
        l.latency.merge(&iv.hist);
        if let Some(lag) = &iv.lag {
            l.lag.get_or_insert_with(Hist::new).merge(lag);
        }
        // the interval keeps statement kinds, then event classes
        let nkinds = l.statements.len();
        for ((_, h), ih) in l.statements.iter_mut().zip(&iv.kinds) {
            h.merge(ih);
        }
        let class_hists = iv.kinds.iter().skip(nkinds);
        for (((_, n, h), ih), c) in l.classes.iter_mut().zip(class_hists).zip(iv.classes) {
            *n += c;
            h.merge(ih);
        }
        s.scrapes_since_change = 0;
    }

    /// The run ended: its figures are final.
    pub fn end_run(&self) {
        let mut s = self.lock();
        if let Some(l) = s.load.as_mut() {
            l.ended = true;
        }
        s.scrapes_since_change = 0;
    }

    /// A finished run's figures (`qpslab ui --metrics-listen 127.0.0.1:9105`): they
    /// replace the load and every source's latest values.
    pub fn set_load(&self, load: LiveLoad) {
        let mut s = self.lock();
        s.load = Some(load);
        s.scrapes_since_change = 0;
    }

    /// A profile's lock-family shares (the run's, once drawn).
    pub fn set_lock_shares(&self, source: &str, shares: &[(String, f64)]) {
        let mut s = self.lock();
        s.lock_shares = Some((source.to_string(), shares.to_vec()));
        s.scrapes_since_change = 0;
    }

    /// Forgets every source's latest values (before another run's).
    pub fn clear_sources(&self) {
        self.lock().sources.clear();
    }

    /// Labels for a monitor session's series.
    pub fn set_monitor_labels(&self, labels: Vec<(String, String)>) {
        self.lock().monitor_labels = labels;
    }

    /// The server's numeric global variables.
    pub fn set_variables(&self, v: Vec<(String, f64)>) {
        self.lock().variables = v;
    }

    /// What the monitor's probe learned of INNODB_METRICS' counters.
    pub fn set_innodb_metric_kinds(&self, kinds: &BTreeMap<String, (String, bool)>) {
        self.lock().innodb_metric_kinds = kinds.clone();
    }

    /// A monitor source's latest poll.
    pub fn set_source(&self, source: &str, values: &[(String, f64)]) {
        let mut s = self.lock();
        match s.sources.get_mut(source) {
            Some(v) => {
                v.clear();
                v.extend_from_slice(values);
            }
            None => {
                s.sources.insert(source.to_string(), values.to_vec());
            }
        }
    }

    /// Reads the state for a scrape, counting the scrape.
    pub fn scrape<T>(&self, read: impl FnOnce(&LiveState) -> T) -> T {
        let mut s = self.lock();
        let out = read(&s);
        s.scrapes_since_change += 1;
        out
    }

    /// Reads the state without counting a scrape (remote write).
    pub fn read<T>(&self, read: impl FnOnce(&LiveState) -> T) -> T {
        read(&self.lock())
    }

    /// Whether the figures as they are now were served to a scrape.
    pub fn served(&self) -> bool {
        self.lock().scrapes_since_change > 0
    }
}
