//! The monitor's loop, on its own thread with one connection: polls each due
//! source in turn (a poll never overlaps the next; missed ticks are skipped,
//! not queued), times every poll, slows down a source over its time budget,
//! and rides out the server going away (a gap note, reconnect attempts each
//! tick, a resumed note, capabilities probed again).

use super::host::{locate_remote, served_by_agent, HostReader};
use super::{caps, os, sql, Caps, Event, Note, NoteKind, Snapshot, SourceId, ALL_SOURCES};
use crate::protocol::{Conn, ConnOpts};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What to watch and how often.
#[derive(Clone)]
pub struct MonitorConfig {
    /// How to reach the server (its own connection).
    pub conn: ConnOpts,
    /// Seconds between polls of the 1-second sources; others scale with it.
    pub base: f64,
    /// Per-source seconds between polls, overriding the defaults.
    pub every: BTreeMap<SourceId, f64>,
    /// Sources not to poll.
    pub off: Vec<SourceId>,
    /// Once set (the run's clock starts), polls fall on that clock's ticks
    /// plus a few milliseconds, so that samples and snapshots line up.
    pub align: Option<Arc<OnceLock<Instant>>>,
    /// Share of its interval a poll may take before the source is slowed down.
    pub budget_share: f64,
    /// The server's host's reader (an agent beside a server on another
    /// host): its OS sources are read there. None: this host's.
    pub host: Option<Arc<dyn HostReader>>,
}

impl MonitorConfig {
    /// Every source at its default interval (base 1 s), none off, unaligned.
    pub fn new(conn: ConnOpts) -> MonitorConfig {
        MonitorConfig {
            conn,
            base: 1.0,
            every: BTreeMap::new(),
            off: Vec::new(),
            align: None,
            budget_share: 0.05,
            host: None,
        }
    }

    /// Parses `name=seconds,…` into per-source intervals.
    pub fn set_rates(&mut self, spec: &str) -> Result<(), String> {
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, secs) = part
                .split_once('=')
                .ok_or_else(|| format!("'{part}' is not source=seconds (e.g. innodb_status=10)"))?;
            let id = SourceId::parse(name.trim()).ok_or_else(|| {
                let names: Vec<&str> = ALL_SOURCES.iter().map(|s| s.name()).collect();
                format!(
                    "unknown monitor source '{name}'; sources: {}",
                    names.join(", ")
                )
            })?;
            let s: f64 = secs
                .trim()
                .parse()
                .ok()
                .filter(|v: &f64| *v > 0.0 && *v <= 86_400.0)
                .ok_or_else(|| {
                    format!("'{secs}' for {name} is not a number of seconds above 0, at most 86400")
                })?;
            self.every.insert(id, s);
        }
        Ok(())
    }
}

/// A running monitor; events arrive on its channel.
pub struct Monitor {
    stop: Arc<AtomicBool>,
    join: Option<JoinHandle<()>>,
    rx: Receiver<Event>,
}

impl Monitor {
    /// Starts the monitor's thread; it polls until the `Monitor` is stopped
    /// or dropped.
    pub fn start(cfg: MonitorConfig) -> std::io::Result<Monitor> {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = channel();
        let s = stop.clone();
        let join = std::thread::Builder::new()
            .name("qpslab-monitor".into())
            .spawn(move || drive(cfg, s, tx))?;
        Ok(Monitor {
            stop,
            join: Some(join),
            rx,
        })
    }

    /// Events so far, without waiting.
    pub fn drain(&self) -> Vec<Event> {
        self.rx.try_iter().collect()
    }

    /// The next event, waiting at most `d`.
    pub fn next(&self, d: Duration) -> Option<Event> {
        self.rx.recv_timeout(d).ok()
    }

    /// Stops after one last poll of every source (to bracket the end of a
    /// run) and returns the events not yet taken. Waits for that last
    /// poll until `by` (the run's planned end plus the load's own grace,
    /// so the two waits overlap), at least `LAST_POLL_MIN`, or
    /// `FINISH_WAIT` without a planned end: a server that stopped
    /// answering must not hold the end of a run for a whole read timeout.
    /// The thread is then left to end on its own timeout (its late events
    /// are dropped) and a `Stall` note says so.
    pub fn finish(mut self, by: Option<Instant>) -> Vec<Event> {
        self.stop.store(true, Ordering::SeqCst);
        let mut missed = None;
        if let Some(j) = self.join.take() {
            let now = Instant::now();
            let end = by.map_or(now + FINISH_WAIT, |b| b.max(now + LAST_POLL_MIN));
            while !j.is_finished() && Instant::now() < end {
                std::thread::sleep(Duration::from_millis(10));
            }
            if j.is_finished() {
                let _ = j.join();
            } else {
                missed = Some(now.elapsed());
            }
        }
        let mut evs: Vec<Event> = self.rx.try_iter().collect();
        if let Some(waited) = missed {
            evs.push(Event::Note(Note {
                at: Instant::now(),
                source: None,
                kind: NoteKind::Stall,
                text: format!(
                    "the server did not answer the monitor's last poll within {:.1} s: its figures end at the poll before",
                    waited.as_secs_f64()
                ),
            }));
        }
        evs
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// How long the end of a run without a planned end waits for the
/// monitor's last round of polls.
const FINISH_WAIT: Duration = Duration::from_secs(5);

/// The least time the last round of polls is given (a healthy server
/// answers a whole round in milliseconds).
const LAST_POLL_MIN: Duration = Duration::from_secs(1);

struct Slot {
    id: SourceId,
    every: f64,
    next: Instant,
    strikes: u32,
    noted: bool,
    /// Turned off by its budget (see `over_budget`).
    off: bool,
}

/// The longest the monitor waits to connect and probe, or for one poll,
/// whatever longer connect and read timeouts the load was given.
const CONNECT_WITHIN: Duration = Duration::from_secs(5);
const POLL_WITHIN: Duration = Duration::from_secs(10);

/// How long a poll of source `id`, polled every `every` s (the monitor's
/// tick `base` s), takes before it is a stall: two of its intervals, but
/// never more than two ticks or 2 s. Polls are made one after another, so
/// a slow source's poll holds up every other source: a 5-s source that
/// waits 5 s on a stopped server has cost the 1-s ones five samples. The
/// exception is SHOW ENGINE INNODB MUTEX, slow by nature on a large
/// buffer pool (the budget slows it down or turns it off): two of its
/// intervals.
fn stall_after(id: SourceId, every: f64, base: f64) -> f64 {
    if id == SourceId::InnodbMutex {
        return 2.0 * every;
    }
    (2.0 * every).min((2.0 * base).max(2.0))
}

/// The slowest a source is polled before the budget turns it off.
const SLOWEST_EVERY: f64 = 60.0;

/// What a poll's time did to its source (`over_budget`).
#[derive(Debug, PartialEq)]
enum Budget {
    Within,
    /// The interval doubled (up to `SLOWEST_EVERY`).
    Slowed,
    /// Still over budget at the slowest rate: off for the run (e.g.
    /// SHOW ENGINE INNODB MUTEX, which walks one rw-lock per buffer-pool
    /// page, on a large pool).
    Off,
}

/// Counts a poll of `took` seconds against `budget`: the third in a row
/// over it slows the source down, or turns it off at the slowest rate.
fn over_budget(slot: &mut Slot, took: f64, budget: f64) -> Budget {
    if took <= budget {
        slot.strikes = 0;
        return Budget::Within;
    }
    slot.strikes += 1;
    if slot.strikes < 3 {
        return Budget::Within;
    }
    slot.strikes = 0;
    if slot.every < SLOWEST_EVERY {
        slot.every = (slot.every * 2.0).min(SLOWEST_EVERY);
        Budget::Slowed
    } else {
        slot.off = true;
        Budget::Off
    }
}

fn applies(id: SourceId, caps: &Caps) -> bool {
    match id {
        SourceId::InnodbMetrics => caps.innodb_metrics_filter.is_some(),
        SourceId::PsWaits | SourceId::PsFiles => caps.ps_on,
        SourceId::InnodbMutex => caps.innodb_mutex,
        SourceId::ServerProc | SourceId::ServerTasks => caps.server_pid.is_some(),
        _ => true,
    }
}

/// The first tick of the grid `phase + k * step` at or after `now`.
fn next_tick(phase: Instant, step: f64, now: Instant) -> Instant {
    if phase >= now {
        return phase;
    }
    let k = ((now - phase).as_secs_f64() / step).ceil();
    phase + Duration::from_secs_f64(k * step)
}

struct Driver {
    cfg: MonitorConfig,
    tx: Sender<Event>,
    conn: Option<Conn>,
    caps: Caps,
    probed: bool,
    gap_since: Option<Instant>,
}

impl Driver {
    fn note(&self, source: Option<SourceId>, kind: NoteKind, text: String) {
        let _ = self.tx.send(Event::Note(Note {
            at: Instant::now(),
            source,
            kind,
            text,
        }));
    }

    /// The bound on connecting and probing: the load's connect timeout,
    /// at most `CONNECT_WITHIN` (a reconnect is tried each tick).
    fn connect_within(&self) -> Duration {
        self.cfg.conn.connect_timeout.min(CONNECT_WITHIN)
    }

    /// The bound on one poll: the load's read timeout, at most
    /// `POLL_WITHIN` (the run's end waits on the last poll).
    fn poll_within(&self) -> Duration {
        self.cfg.conn.read_timeout.min(POLL_WITHIN)
    }

    async fn connect(&mut self) {
        let limit = self.connect_within();
        let attempt = async {
            let mut c = Conn::connect(&self.cfg.conn).await?;
            let (mut caps, mut notes) =
                caps::probe(&mut c, &self.cfg.conn.endpoint, self.cfg.host.is_some()).await?;
            if let (Some(h), false) = (self.cfg.host.as_deref(), caps.local) {
                locate_remote(h, &self.cfg.conn.endpoint, &mut caps, &mut notes);
            }
            Ok::<_, crate::protocol::ProtoError>((c, caps, notes))
        };
        match tokio::time::timeout(limit, attempt).await {
            Ok(Ok((c, caps, notes))) => {
                if let Some(since) = self.gap_since.take() {
                    self.note(
                        None,
                        NoteKind::Resumed,
                        format!(
                            "server back after {:.1} s; counters may have restarted",
                            since.elapsed().as_secs_f64()
                        ),
                    );
                }
                if !self.probed {
                    for (kind, n) in notes {
                        self.note(None, kind, n);
                    }
                }
                self.probed = true;
                self.conn = Some(c);
                self.adopt(caps);
            }
            Ok(Err(e)) => self.lost(format!("cannot reach the server: {e}")),
            Err(_) => self.lost(format!(
                "cannot reach the server: no answer within {:.1} s",
                limit.as_secs_f64()
            )),
        }
    }

    /// Takes freshly probed capabilities, saying so when the server's
    /// process changed (a restart: its CPU and IO are read from the new one).
    fn adopt(&mut self, caps: Caps) {
        if let (Some(old), Some(new)) = (self.caps.server_pid, caps.server_pid) {
            if old != new {
                self.note(
                    None,
                    NoteKind::Info,
                    format!("the server's process changed (pid {old} -> {new}): it was restarted"),
                );
            }
        }
        self.caps = caps.clone();
        let _ = self.tx.send(Event::Caps(caps));
    }

    /// When the server's process is gone while SQL still answers (a
    /// restart between polls), probes again for the new one.
    async fn refresh_pid(&mut self) {
        let Some(pid) = self.caps.server_pid else {
            return;
        };
        if self.remote_host().is_some() {
            // another host's process: a restart shows as a resumed gap
            return;
        }
        if std::path::Path::new(&format!("/proc/{pid}")).exists() {
            return;
        }
        let limit = self.connect_within();
        let Some(conn) = self.conn.as_mut() else {
            return;
        };
        if let Ok(Ok((caps, _))) =
            tokio::time::timeout(limit, caps::probe(conn, &self.cfg.conn.endpoint, false)).await
        {
            self.adopt(caps);
        }
    }

    /// The reader of the server's host, when the server is not on this
    /// one and an agent beside it was given.
    fn remote_host(&self) -> Option<Arc<dyn HostReader>> {
        self.cfg.host.clone().filter(|_| !self.caps.local)
    }

    fn lost(&mut self, why: String) {
        self.conn = None;
        if self.gap_since.is_none() {
            self.gap_since = Some(Instant::now());
            self.note(
                None,
                NoteKind::Gap,
                format!("{why}; SQL sources pause, retrying each tick"),
            );
        }
    }

    /// Polls one source; returns the time it took.
    async fn poll(&mut self, slot: &mut Slot) -> Option<Duration> {
        let at = Instant::now();
        let res = if slot.id.is_sql() {
            let limit = self.poll_within();
            let conn = self.conn.as_mut()?;
            match tokio::time::timeout(limit, sql::poll(slot.id, conn, &self.caps)).await {
                Ok(Ok(v)) => Ok(v),
                Ok(Err(e)) if e.code().is_some() => Err(e.to_string()),
                Ok(Err(e)) => {
                    self.lost(format!("lost the monitoring connection: {e}"));
                    return None;
                }
                Err(_) => {
                    self.lost(format!(
                        "{} did not answer within {:.1} s",
                        slot.id.name(),
                        limit.as_secs_f64()
                    ));
                    return None;
                }
            }
        } else if let (Some(h), true) = (self.remote_host(), served_by_agent(slot.id)) {
            h.poll(slot.id, self.caps.server_pid, self.caps.disk.as_deref())
        } else {
            os::poll(slot.id, &self.caps)
        };
        let took = at.elapsed();
        let limit = stall_after(slot.id, slot.every, self.cfg.base);
        if took.as_secs_f64() > limit {
            self.note(
                Some(slot.id),
                NoteKind::Stall,
                format!(
                    "{} took {:.2} s, over {limit} s (no source was polled meanwhile): the server (or the host) stalled",
                    slot.id.name(),
                    took.as_secs_f64(),
                ),
            );
        }
        match res {
            Ok(values) => {
                slot.noted = false;
                let _ = self.tx.send(Event::Snapshot(Snapshot {
                    source: slot.id,
                    at,
                    took_us: took.as_micros() as u64,
                    values,
                }));
            }
            Err(e) if !slot.noted => {
                slot.noted = true;
                self.note(
                    Some(slot.id),
                    NoteKind::Skipped,
                    format!("{}: {e}", slot.id.name()),
                );
            }
            Err(_) => {}
        }
        Some(took)
    }
}

impl Driver {
    /// Three polls in a row over budget double the source's interval (up
    /// to a minute); three more at a minute turn it off for the run.
    fn check_budget(&self, slot: &mut Slot, took: Duration) {
        let budget = slot.every * self.cfg.budget_share;
        let old = slot.every;
        let what = match over_budget(slot, took.as_secs_f64(), budget) {
            Budget::Within => return,
            Budget::Slowed => format!(": now polled every {} s instead of {old} s", slot.every),
            Budget::Off => {
                format!(" at its slowest rate (every {old} s): turned off for the rest of the run")
            }
        };
        self.note(
            Some(slot.id),
            NoteKind::Slowed,
            format!(
                "{} took {:.1} ms, over its budget of {:.1} ms three times in a row{what}",
                slot.id.name(),
                took.as_secs_f64() * 1e3,
                budget * 1e3,
            ),
        );
    }
}

fn drive(cfg: MonitorConfig, stop: Arc<AtomicBool>, tx: Sender<Event>) {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let _ = tx.send(Event::Note(Note {
                at: Instant::now(),
                source: None,
                kind: NoteKind::Skipped,
                text: format!("monitor off: cannot start its runtime: {e}"),
            }));
            return;
        }
    };
    rt.block_on(async move {
        let base = cfg.base.max(0.01);
        let start = Instant::now();
        let preset = cfg.align.as_ref().and_then(|a| a.get().copied());
        let mut phase = preset
            .map(|t0| t0 + Duration::from_millis(20))
            .unwrap_or(start);
        let mut aligned = cfg.align.is_none() || preset.is_some();
        let mut slots: Vec<Slot> = ALL_SOURCES
            .iter()
            .filter(|id| !cfg.off.contains(id))
            .map(|&id| Slot {
                id,
                every: cfg
                    .every
                    .get(&id)
                    .copied()
                    .unwrap_or(id.default_every() * base),
                next: next_tick(phase, base, start),
                strikes: 0,
                noted: false,
                off: false,
            })
            .collect();
        // The host's sources first in each tick: they take a fraction of
        // a millisecond, so their polls stay at the tick's time. After the
        // SQL ones (40-70 ms on MySQL 8 with the Performance Schema's
        // sources on) the first CPU poll came after the measured window's
        // start, and every CPU figure of the run was unknown.
        slots.sort_by_key(|s| s.id.is_sql());
        let any_sql = slots.iter().any(|s| s.id.is_sql());
        let mut d = Driver {
            cfg,
            tx,
            conn: None,
            caps: Caps::default(),
            probed: false,
            gap_since: None,
        };
        loop {
            let stopping = stop.load(Ordering::SeqCst);
            if any_sql && d.conn.is_none() && (!stopping || !d.probed) {
                d.connect().await;
                if !d.probed && !stopping {
                    // Without a first probe only the host's sources apply.
                    d.caps.local = false;
                }
            }
            d.refresh_pid().await;
            let now = Instant::now();
            for slot in slots.iter_mut() {
                let due = slot.next <= now || stopping;
                if !due {
                    continue;
                }
                let runnable = !slot.off
                    && applies(slot.id, &d.caps)
                    && (!slot.id.is_sql() || d.conn.is_some());
                if runnable {
                    if let Some(took) = d.poll(slot).await {
                        d.check_budget(slot, took);
                    }
                }
                let earliest = now + Duration::from_secs_f64((slot.every - base * 0.5).max(0.0));
                slot.next = next_tick(phase, base, earliest.max(Instant::now()));
            }
            if stopping {
                break;
            }
            if !aligned {
                if let Some(t0) = d.cfg.align.as_ref().and_then(|a| a.get()) {
                    phase = *t0 + Duration::from_millis(20);
                    aligned = true;
                    let now = Instant::now();
                    for s in slots.iter_mut() {
                        s.next = next_tick(phase, base, now);
                    }
                }
            }
            // Sleep until the next due poll, waking every 100 ms at most to notice
            // stop and alignment (every 20 ms before: 50 wake-ups a second
            // on a host whose CPUs the load is using).
            let wake = slots
                .iter()
                .map(|s| s.next)
                .min()
                .unwrap_or_else(|| Instant::now() + Duration::from_secs_f64(base));
            while Instant::now() < wake && !stop.load(Ordering::SeqCst) {
                if !aligned && d.cfg.align.as_ref().is_some_and(|a| a.get().is_some()) {
                    break;
                }
                let left = wake
                    .saturating_duration_since(Instant::now())
                    .min(Duration::from_millis(100));
                tokio::time::sleep(left).await;
            }
        }
        if let Some(c) = d.conn.take() {
            c.quit().await;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_over_budget_is_slowed_then_turned_off() {
        let mut slot = Slot {
            id: SourceId::InnodbMutex,
            every: 15.0,
            next: Instant::now(),
            strikes: 0,
            noted: false,
            off: false,
        };
        // two slow polls and a quick one: nothing happens
        for took in [2.0, 2.0, 0.1] {
            assert_eq!(over_budget(&mut slot, took, 1.0), Budget::Within);
        }
        assert_eq!(slot.every, 15.0);
        // three in a row: 15 -> 30 -> 60 s, then off
        for every in [30.0, 60.0] {
            assert_eq!(over_budget(&mut slot, 2.0, 1.0), Budget::Within);
            assert_eq!(over_budget(&mut slot, 2.0, 1.0), Budget::Within);
            assert_eq!(over_budget(&mut slot, 2.0, 1.0), Budget::Slowed);
            assert_eq!(slot.every, every);
            assert!(!slot.off);
        }
        assert_eq!(over_budget(&mut slot, 2.0, 1.0), Budget::Within);
        assert_eq!(over_budget(&mut slot, 2.0, 1.0), Budget::Within);
        assert_eq!(over_budget(&mut slot, 2.0, 1.0), Budget::Off);
        assert!(slot.off);
    }

    #[test]
    fn a_slow_sources_poll_is_a_stall_once_it_holds_up_the_fast_ones() {
        // the 1-s sources: two intervals, as before
        assert_eq!(stall_after(SourceId::Status, 1.0, 1.0), 2.0);
        assert_eq!(stall_after(SourceId::Status, 0.1, 0.1), 0.2);
        // a 5-s source that waits 5 s on a stopped server is a stall
        assert_eq!(stall_after(SourceId::InnodbStatus, 5.0, 1.0), 2.0);
        assert_eq!(stall_after(SourceId::Threads, 0.5, 0.1), 1.0);
        assert_eq!(stall_after(SourceId::Threads, 50.0, 10.0), 20.0);
        // SHOW ENGINE INNODB MUTEX may be slow by itself
        assert_eq!(stall_after(SourceId::InnodbMutex, 5.0, 1.0), 10.0);
    }
}
