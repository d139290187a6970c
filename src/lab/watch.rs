//! The monitor beside a run (or on its own): starts it on the target,
//! turns its events into run time, stores snapshots and notes with the run,
//! keeps the counters the derived figures need, and accounts each source's
//! own cost.

use crate::analyze::bottleneck::ClientThreads;
use crate::analyze::counters::Counters;
use crate::analyze::efficiency::absorb;
use crate::analyze::run_figures::{
    derive, Interval, MonitorFigures, NoteRow, RunShape, ServerSeen, SourceCost, FIGURES_VERSION,
};
use crate::exec::{RunConfig, STOP_GRACE};
use crate::monitor::{Caps, Event, Monitor, MonitorConfig, Note, SourceId};
use crate::stats::{RunResult, RunStatus, Sample};
use crate::store::{MetricWriter, Store};
use anyhow::{anyhow, Result};

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

#[derive(Default, Clone, Copy)]
struct Cost {
    polls: u64,
    total_us: u64,
    max_us: u64,
}

/// A monitor and what has been taken from it so far.
pub struct Watch {
    monitor: Option<Monitor>,
    clock: Arc<OnceLock<Instant>>,
    /// Seconds subtracted from clock time (the warm-up), so that run time
    /// matches the samples' `t`.
    offset: f64,
    pending: Vec<Event>,
    pub counters: Counters,
    pub caps: Option<Caps>,
    pub notes: Vec<(f64, Note)>,
    writer: MetricWriter,
    costs: BTreeMap<SourceId, Cost>,
    /// The first store write that failed (the run goes on; its record is
    /// incomplete, which the run's exit code says).
    store_error: Option<String>,
}

impl Watch {
    /// Starts the monitor. `clock` is set when time zero starts (a run's
    /// measuring clock); `offset` is the warm-up before measuring.
    pub fn start(
        mut cfg: MonitorConfig,
        clock: Arc<OnceLock<Instant>>,
        offset: f64,
    ) -> Result<Watch> {
        cfg.align = Some(clock.clone());
        Ok(Watch {
            monitor: Some(
                Monitor::start(cfg).map_err(|e| anyhow!("cannot start the monitor thread: {e}"))?,
            ),
            clock,
            offset,
            pending: Vec::new(),
            counters: Counters::default(),
            caps: None,
            notes: Vec::new(),
            writer: MetricWriter::default(),
            costs: BTreeMap::new(),
            store_error: None,
        })
    }

    /// Waits (at most `limit`) for the monitor's first round of polls, so
    /// that a run's counters are known from before its clock starts.
    pub fn wait_ready(&mut self, limit: std::time::Duration) {
        let Some(m) = &self.monitor else { return };
        let end = Instant::now() + limit;
        while Instant::now() < end {
            let Some(ev) = m.next(std::time::Duration::from_millis(20)) else {
                continue;
            };
            let ready = match &ev {
                Event::Snapshot(s) => s.source == SourceId::Status,
                Event::Note(n) => n.kind == crate::monitor::NoteKind::Gap,
                Event::Caps(_) => false,
            };
            self.pending.push(ev);
            if ready {
                // The OS sources of the same round follow at once.
                self.pending.extend(m.drain());
                return;
            }
        }
    }

    /// Takes the events so far (waiting at most `wait` for the first).
    pub fn pump(&mut self, store: Option<(&Store, i64)>, wait: std::time::Duration) -> Vec<Event> {
        let mut evs = Vec::new();
        if let Some(m) = &self.monitor {
            evs = m.drain();
            if evs.is_empty() && !wait.is_zero() {
                evs.extend(m.next(wait));
                evs.extend(m.drain());
            }
        }
        self.absorb(evs, store)
    }

    /// Stops the monitor after its last poll (waited for until `by`, see
    /// `Monitor::finish`) and takes the rest.
    pub fn finish(mut self, store: Option<(&Store, i64)>, by: Option<Instant>) -> Finished {
        let rest = self
            .monitor
            .take()
            .map(|m| m.finish(by))
            .unwrap_or_default();
        self.absorb(rest, store);
        let t0_unix = self
            .clock
            .get()
            .map(|t0| crate::stats::clock::unix_at(*t0) + self.offset);
        Finished {
            t0_unix,
            counters: self.counters,
            caps: self.caps,
            notes: self.notes,
            costs: self.costs,
            store_error: self.store_error,
        }
    }

    fn absorb(&mut self, evs: Vec<Event>, store: Option<(&Store, i64)>) -> Vec<Event> {
        let Some(t0) = self.clock.get().copied() else {
            self.pending.extend(evs);
            return Vec::new();
        };
        let mut all = std::mem::take(&mut self.pending);
        all.extend(evs);
        let rel = |at: Instant| -> f64 {
            let s = if at >= t0 {
                (at - t0).as_secs_f64()
            } else {
                -(t0 - at).as_secs_f64()
            };
            s - self.offset
        };
        for ev in &all {
            let r = match ev {
                Event::Snapshot(s) => {
                    let t = rel(s.at);
                    let c = self.costs.entry(s.source).or_default();
                    c.polls += 1;
                    c.total_us += s.took_us;
                    c.max_us = c.max_us.max(s.took_us);
                    absorb(&mut self.counters, s.source.name(), t, &s.values);
                    if let Some(live) = crate::stats::live::live() {
                        live.set_source(s.source.name(), &s.values);
                    }
                    store.map(|(st, run)| {
                        st.add_snapshot(
                            &mut self.writer,
                            run,
                            s.source.name(),
                            t,
                            s.took_us,
                            &s.values,
                        )
                    })
                }
                Event::Note(n) => {
                    let t = rel(n.at);
                    self.notes.push((t, n.clone()));
                    store.map(|(st, run)| {
                        st.add_note(run, t, n.source.map(SourceId::name), n.kind.name(), &n.text)
                    })
                }
                Event::Caps(c) => {
                    if let Some(live) = crate::stats::live::live() {
                        live.set_innodb_metric_kinds(&c.innodb_metric_kinds);
                    }
                    self.caps = Some(c.clone());
                    None
                }
            };
            if let (Some(Err(e)), Some((st, _))) = (r, store) {
                if self.store_error.is_none() {
                    let why = format!(
                        "cannot store monitor snapshots in {}: {e:#}",
                        st.path().display()
                    );
                    log::warn!("{why} (the run goes on)");
                    self.store_error = Some(why);
                }
            }
        }
        all
    }
}

/// What a finished monitor leaves.
pub(crate) struct Finished {
    pub counters: Counters,
    pub caps: Option<Caps>,
    pub notes: Vec<(f64, Note)>,
    costs: BTreeMap<SourceId, Cost>,
    /// The first monitor snapshot or note the store refused.
    pub store_error: Option<String>,
    /// The wall clock of t = 0 (run time's zero), seconds since the
    /// epoch; None when the clock never started.
    pub t0_unix: Option<f64>,
}

impl Finished {
    /// Each source's polls and own cost, for the record.
    pub fn costs(&self) -> BTreeMap<String, SourceCost> {
        self.costs
            .iter()
            .map(|(s, c)| {
                (
                    s.name().to_string(),
                    SourceCost {
                        polls: c.polls,
                        mean_ms: c.total_us as f64 / c.polls.max(1) as f64 / 1e3,
                        max_ms: c.max_us as f64 / 1e3,
                    },
                )
            })
            .collect()
    }

    pub(crate) fn note_rows(&self) -> Vec<NoteRow> {
        self.notes
            .iter()
            .map(|(t, n)| NoteRow {
                t: *t,
                source: n.source.map(|s| s.name().to_string()),
                kind: n.kind.name().to_string(),
                text: n.text.clone(),
            })
            .collect()
    }

    /// The figures of a monitor session (no load of its own).
    pub(crate) fn session_figures(&self) -> MonitorFigures {
        MonitorFigures {
            version: FIGURES_VERSION,
            server: self.caps.as_ref().map(server_seen),
            sources: self.costs(),
            notes: self.note_rows(),
            t0_unix: self.t0_unix,
            ..Default::default()
        }
    }
}

/// Runs `cfg` (here, or on `fleet`'s agents) with the monitor beside it (none when `mon` is None); stores
/// its snapshots with run `store.1`. Returns the result and the monitor's
/// figures for the run (see `analyze::run_figures`), and the first store
/// write of the monitor's that failed.
pub(crate) fn run_watched(
    cfg: &RunConfig,
    mon: Option<MonitorConfig>,
    store: Option<(&Store, i64)>,
    fleet: Option<&super::agent::Fleet>,
    mut on_sample: impl FnMut(&Sample),
) -> (RunResult, Option<MonitorFigures>, Option<String>) {
    let clock = Arc::new(OnceLock::new());
    let mut watch = mon.and_then(|m| match Watch::start(m, clock.clone(), cfg.warmup) {
        Ok(w) => Some(w),
        Err(e) => {
            log::warn!("{e:#}; the run goes on unmonitored");
            None
        }
    });
    if let Some(w) = watch.as_mut() {
        w.wait_ready(std::time::Duration::from_secs(5));
    }
    let each = |s: &Sample| {
        on_sample(s);
        if let Some(w) = watch.as_mut() {
            w.pump(store, std::time::Duration::ZERO);
        }
    };
    // The load from this process, or from the agents (merged into the
    // same result).
    let r = match fleet {
        None => crate::exec::run_clocked(cfg, &clock, each),
        Some(f) => super::agent::drive(f, cfg, &clock, each),
    };
    // The last poll may take as long as the load's own grace after the
    // planned end: the two waits overlap.
    let by = clock
        .get()
        .filter(|_| cfg.time > 0.0)
        .map(|t0| *t0 + std::time::Duration::from_secs_f64(cfg.warmup + cfg.time) + STOP_GRACE);
    let Some(w) = watch else {
        return (r, None, None);
    };
    let finished = w.finish(store, by);
    let figures = run_figures(cfg, &r, &finished);
    (r, Some(figures), finished.store_error)
}

/// The monitor's figures for a finished run, with its notes and costs.
pub fn run_figures(cfg: &RunConfig, r: &RunResult, f: &Finished) -> MonitorFigures {
    let intervals: Vec<Interval> = r
        .samples
        .iter()
        .map(|s| Interval {
            t: s.t,
            dur: s.dur,
            measured: !s.warmup,
            queries: s.iv.queries(),
            transactions: s.iv.events,
        })
        .collect();
    let busy = r.host_cpu_s * r.host_busy;
    let cpus = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let shape = RunShape {
        intervals: &intervals,
        elapsed: r.elapsed,
        threads: cfg.threads,
        cpus,
        disk: f.caps.as_ref().and_then(|c| c.disk.as_deref()),
        ps_on: f.caps.as_ref().is_some_and(|c| c.ps_on),
        ps_synch: f.caps.as_ref().is_some_and(|c| c.ps_synch),
        client_share_fallback: (busy > 0.0).then(|| r.client_cpu_s / busy),
        target_rate: (cfg.rate > 0.0).then_some(cfg.rate),
        client_threads: (r.client_shards > 0).then_some(ClientThreads {
            threads: r.client_shards,
            cpus: if cfg.client_cpus.is_empty() {
                cpus
            } else {
                cfg.client_cpus.len()
            },
        }),
    };
    let mut m = MonitorFigures::of_run(
        derive(&f.counters, &shape),
        f.caps.as_ref().map(server_seen),
        f.costs(),
        f.note_rows(),
    );
    m.t0_unix = f.t0_unix;
    // A run that failed, or measured no query, has nothing to explain:
    // no verdict (the failure is what it prints).
    if matches!(r.status, RunStatus::Failed(_)) || r.total.queries() == 0 {
        m.bottleneck = None;
    } else if r.client_stall_s > 0.0 {
        // Idle server CPU while qpslab itself was stopped is not the
        // server waiting on anything: the verdict names the client.
        m.bottleneck = Some(crate::analyze::bottleneck::client_stalled(
            r.client_stall_s,
            r.elapsed,
        ));
    }
    // An agent whose host was saturated is named in the verdict.
    if let (Some(b), Some(a)) = (m.bottleneck.as_mut(), r.agents.as_ref()) {
        crate::analyze::agents_verdict::agents_client_bound(b, a);
    }
    // An unstable run says so wherever its verdict is shown.
    if let (Some(b), Some(flag)) = (
        m.bottleneck.as_mut(),
        crate::analyze::stability::of_run(r).and_then(|s| s.flag),
    ) {
        b.verdict = format!("{}; {flag}", b.verdict);
    }
    m
}

/// What the probe learned of the server, as the figures keep it.
pub(crate) fn server_seen(c: &Caps) -> ServerSeen {
    ServerSeen {
        version: c.version.clone(),
        flavor: if c.mariadb { "MariaDB" } else { "MySQL" }.to_string(),
        performance_schema: c.ps_on,
        ps_synch_instruments: c.ps_synch,
        innodb_metrics: c.innodb_metrics_filter.is_some(),
        local: c.local,
        pid: c.server_pid,
        datadir_disk: c.disk.clone(),
    }
}
