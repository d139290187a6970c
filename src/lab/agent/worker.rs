//! The agent's side: one run at a time for the controller that holds the
//! shared token (compared in constant time), its samples kept for the
//! controller to poll, its own end at the run's deadline (plus a grace)
//! whoever polls or not. The HTTP routes that call it are ui/agent_api.rs;
//! how a `Work` becomes a `RunConfig` is the caller's (`Builder`, given by
//! cli, which parses the workload's words). Prints nothing.

use super::wire::{
    CheckAnswer, Hello, Poll, StartRequest, Started, TargetSpec, WireFinal, WireInterval,
    WireSample, Work, PROTOCOL,
};
use crate::exec::RunConfig;
use crate::protocol::{ConnOpts, Endpoint};
use crate::stats::{RunResult, Sample};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Turns the shipped work and the target's connection into the run's
/// configuration (the workload's words parsed as `qpslab run` parses
/// them); the agent then sets its share, times and stop.
pub type Builder = Arc<dyn Fn(&Work, ConnOpts) -> anyhow::Result<RunConfig> + Send + Sync>;

/// After the run's planned end, how long the agent lets it finish before
/// stopping it itself (no controller needed).
pub const DEADLINE_GRACE: Duration = Duration::from_secs(5);

/// Why a request is refused.
#[derive(Debug)]
pub enum Refusal {
    /// A run of another controller is going on.
    Busy(String),
    /// The work cannot run here (bad words, a script's digest, no time).
    Bad(String),
}

/// One run on this agent and what it has produced so far.
pub struct RunSlot {
    id: u64,
    samples: Mutex<Vec<WireSample>>,
    done: Mutex<Option<WireFinal>>,
    failed: Mutex<Option<String>>,
    halt: Arc<AtomicBool>,
    finished: AtomicBool,
    /// The HTTP thread's CPU seconds at this run's first and latest poll
    /// (that thread does nothing else: the difference is the RPC's cost).
    http_cpu: Mutex<Option<(f64, f64)>>,
    /// CPU seconds the run thread spent putting intervals in wire form.
    encode_cpu: Mutex<f64>,
}

/// The agent: its token's digest, its clock's test offset, how it builds
/// a run, and the run it holds.
pub struct AgentCore {
    token_digest: ring::digest::Digest,
    fake_offset_s: f64,
    build: Builder,
    current: Mutex<Option<Arc<RunSlot>>>,
    next_id: Mutex<u64>,
    /// Testing: each run's samples and end written here as a `Poll`.
    dump: Option<std::path::PathBuf>,
    /// Beside a database server: its host's sources and recordings.
    host: Arc<super::host_serve::HostCore>,
}

/// The token as read from its file: the first line, trimmed.
pub fn token_of(text: &str) -> Option<String> {
    let t = text.lines().next().unwrap_or("").trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Seconds since the epoch on this host's clock.
pub fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

impl AgentCore {
    /// An agent answering to `token`; `fake_offset_ms` shifts the clock it
    /// reports and starts by (tests only).
    pub fn new(token: &str, fake_offset_ms: f64, build: Builder) -> AgentCore {
        AgentCore {
            token_digest: ring::digest::digest(&ring::digest::SHA256, token.as_bytes()),
            fake_offset_s: fake_offset_ms / 1e3,
            build,
            current: Mutex::new(None),
            next_id: Mutex::new(0),
            dump: None,
            host: Arc::default(),
        }
    }

    /// Writes each run's samples and end to `path` (tests recompute the
    /// merge from what the agents sent).
    pub fn dumping_to(mut self, path: std::path::PathBuf) -> AgentCore {
        self.dump = Some(path);
        self
    }

    /// Whether `given` (the request's bearer token) is the agent's: the
    /// digests compared in constant time (no length or prefix leaks).
    pub fn authorized(&self, given: Option<&str>) -> bool {
        let given = given.unwrap_or("");
        let d = ring::digest::digest(&ring::digest::SHA256, given.as_bytes());
        let diff = d
            .as_ref()
            .iter()
            .zip(self.token_digest.as_ref())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        diff == 0 && !given.is_empty()
    }

    /// The host's side: the server's process, its OS sources, its
    /// recordings (an agent beside a database server).
    pub fn host(&self) -> &Arc<super::host_serve::HostCore> {
        &self.host
    }

    /// This agent's clock (with the test offset).
    pub fn now(&self) -> f64 {
        unix_now() + self.fake_offset_s
    }

    fn running(&self) -> Option<Arc<RunSlot>> {
        self.current
            .lock()
            .ok()?
            .clone()
            .filter(|r| !r.finished.load(Ordering::SeqCst))
    }

    /// The hello: version, whether busy, and the clock.
    pub fn hello(&self) -> Hello {
        Hello {
            protocol: PROTOCOL,
            version: env!("CARGO_PKG_VERSION").to_string(),
            busy: self.running().is_some(),
            unix_s: self.now(),
        }
    }

    /// Whether the target can be reached from here (connect and log in).
    pub fn check(&self, t: &TargetSpec) -> CheckAnswer {
        let opts = conn_of(t);
        let error = crate::lab::block_on(async {
            match crate::protocol::Conn::connect(&opts).await {
                Ok(c) => {
                    c.quit().await;
                    None
                }
                Err(e) => Some(e.to_string()),
            }
        })
        .unwrap_or_else(|e| Some(e.to_string()));
        CheckAnswer { error }
    }

    /// Starts `req`'s run (refused while another runs).
    pub fn start(&self, req: StartRequest) -> Result<Started, Refusal> {
        if let Some(r) = self.running() {
            return Err(Refusal::Busy(format!(
                "busy with run {} of another controller",
                r.id
            )));
        }
        if req.work.time <= 0.0 || req.work.threads == 0 {
            return Err(Refusal::Bad(
                "an agent's run needs --time and at least one connection".into(),
            ));
        }
        let mut cfg = (self.build)(&req.work, conn_of(&req.target))
            .map_err(|e| Refusal::Bad(format!("{e:#}")))?;
        let id = {
            let mut n = self.next_id.lock().map_err(|_| busy_lock())?;
            *n += 1;
            *n
        };
        let slot = Arc::new(RunSlot {
            id,
            samples: Mutex::new(Vec::new()),
            done: Mutex::new(None),
            failed: Mutex::new(None),
            halt: Arc::new(AtomicBool::new(false)),
            finished: AtomicBool::new(false),
            http_cpu: Mutex::new(None),
            encode_cpu: Mutex::new(0.0),
        });
        let w = &req.work;
        cfg.threads = w.threads;
        cfg.time = w.time;
        cfg.warmup = w.warmup;
        cfg.events = w.events;
        cfg.rate = w.rate;
        cfg.interval = w.interval;
        cfg.halt = Some(slot.halt.clone());
        let offset = self.fake_offset_s;
        let start_at = req.start_at;
        // Connections ready: wait for the agreed instant on this clock.
        cfg.on_started = Some(Arc::new(move || {
            let wait = start_at - (unix_now() + offset);
            if wait > 0.0 {
                std::thread::sleep(Duration::from_secs_f64(wait.min(60.0)));
            }
        }));
        *self.current.lock().map_err(|_| busy_lock())? = Some(slot.clone());
        let deadline =
            Duration::from_secs_f64((start_at - self.now()).max(0.0) + w.warmup + w.time + 30.0)
                + DEADLINE_GRACE;
        spawn_run(
            cfg,
            slot.clone(),
            start_at,
            offset,
            deadline,
            self.dump.clone(),
        )
        .map_err(|e| Refusal::Bad(format!("cannot start the run's thread: {e}")))?;
        Ok(Started { run: id })
    }

    /// Run `id`'s samples from number `after` on, and its end once there.
    pub fn poll(&self, id: u64, after: u64) -> Option<Poll> {
        let slot = self.current.lock().ok()?.clone().filter(|r| r.id == id)?;
        if let Ok(mut c) = slot.http_cpu.lock() {
            let now = crate::stats::thread_cpu_seconds();
            *c = Some((c.map_or(now, |(first, _)| first), now));
        }
        let samples = slot
            .samples
            .lock()
            .ok()?
            .iter()
            .filter(|s| s.k >= after)
            .cloned()
            .collect();
        let done = slot.done.lock().ok()?.clone();
        let failed = slot.failed.lock().ok()?.clone();
        Some(Poll {
            samples,
            done,
            failed,
        })
    }

    /// Stops run `id` (the controller's Ctrl-C); whether it was this one.
    pub fn stop(&self, id: u64) -> bool {
        match self.current.lock().ok().and_then(|c| c.clone()) {
            Some(r) if r.id == id => {
                r.halt.store(true, Ordering::SeqCst);
                true
            }
            _ => false,
        }
    }
}

fn busy_lock() -> Refusal {
    Refusal::Bad("the agent's state is poisoned: restart the agent".into())
}

/// The connection options of a target (TCP, the agent's defaults else).
fn conn_of(t: &TargetSpec) -> ConnOpts {
    let mut o = ConnOpts::new(
        Endpoint::Tcp {
            host: t.host.clone(),
            port: t.port,
        },
        &t.user,
        t.db.as_deref(),
    );
    o.password = t.password.clone();
    if t.connect_timeout_ms > 0 {
        o.connect_timeout = Duration::from_millis(t.connect_timeout_ms);
    }
    if t.read_timeout_ms > 0 {
        o.read_timeout = Duration::from_millis(t.read_timeout_ms);
    }
    o
}

/// The run on a thread of its own, with a watchdog that stops it at its
/// deadline whatever the controller does.
fn spawn_run(
    cfg: RunConfig,
    slot: Arc<RunSlot>,
    start_at: f64,
    offset: f64,
    deadline: Duration,
    dump: Option<std::path::PathBuf>,
) -> std::io::Result<()> {
    let watch = slot.clone();
    std::thread::Builder::new()
        .name("qpslab-agent-deadline".into())
        .spawn(move || {
            let end = Instant::now() + deadline;
            while Instant::now() < end && !watch.finished.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(100));
            }
            if !watch.finished.load(Ordering::SeqCst) {
                log::warn!("run {} passed its deadline: stopping it", watch.id);
                watch.halt.store(true, Ordering::SeqCst);
            }
        })?;
    std::thread::Builder::new()
        .name("qpslab-agent-run".into())
        .spawn(move || {
            let clock = Arc::new(OnceLock::new());
            let mut k = 0u64;
            let r = crate::exec::run_clocked(&cfg, &clock, |s| {
                let c0 = crate::stats::thread_cpu_seconds();
                let w = wire_sample(k, s);
                if let Ok(mut v) = slot.samples.lock() {
                    v.push(w);
                }
                if let Ok(mut e) = slot.encode_cpu.lock() {
                    *e += crate::stats::thread_cpu_seconds() - c0;
                }
                k += 1;
            });
            let late = clock
                .get()
                .map(|t0| crate::stats::clock::unix_at(*t0) + offset - start_at)
                .unwrap_or(0.0);
            if let Ok(mut d) = slot.done.lock() {
                *d = Some(final_of(&r, &slot, late));
            }
            if let Some(path) = dump {
                dump_run(&slot, &path);
            }
            slot.finished.store(true, Ordering::SeqCst);
        })?;
    Ok(())
}

fn wire_sample(k: u64, s: &Sample) -> WireSample {
    WireSample {
        k,
        t: s.t,
        dur: s.dur,
        warmup: s.warmup,
        sliver: s.sliver,
        iv: WireInterval::of(&s.iv),
        client_cpu_s: s.client_cpu_s,
        host_cpu_s: s.host_cpu_s,
        host_busy: s.host_busy,
    }
}

fn final_of(r: &RunResult, slot: &RunSlot, late: f64) -> WireFinal {
    let events_all = slot
        .samples
        .lock()
        .map(|v| v.iter().map(|s| s.iv.events).sum())
        .unwrap_or(0);
    let mut total = WireInterval::of(&r.total);
    total.kinds.clear();
    let named = |ks: &[crate::stats::KindStats]| -> Vec<(String, String)> {
        ks.iter()
            .map(|k| {
                let one = crate::stats::Interval {
                    hist: k.hist.clone(),
                    ..Default::default()
                };
                (k.name.clone(), WireInterval::of(&one).hist)
            })
            .collect()
    };
    WireFinal {
        status: r.status.clone(),
        total,
        kinds: named(&r.kinds),
        classes: named(&r.classes),
        elapsed: r.elapsed,
        thread_events: r.thread_events.clone(),
        thread_time: r.thread_time.clone(),
        client_cpu_s: r.client_cpu_s,
        host_cpu_s: r.host_cpu_s,
        host_busy: r.host_busy,
        server_version: r.server_version.clone(),
        text_fallbacks: r.text_fallbacks,
        client_shards: r.client_shards,
        unreachable_s: r.unreachable_s,
        client_stall_s: r.client_stall_s,
        events_all,
        started_late_s: late,
        shipping_cpu_s: shipping_cpu(slot),
    }
}

/// What shipping the run's intervals cost so far: the HTTP thread's CPU
/// between the first and the latest poll, and the encoding's.
fn shipping_cpu(slot: &RunSlot) -> f64 {
    let http = slot
        .http_cpu
        .lock()
        .ok()
        .and_then(|c| *c)
        .map_or(0.0, |(first, last)| last - first);
    http + slot.encode_cpu.lock().map_or(0.0, |e| *e)
}

/// Writes what the run sent (its samples and end) to `path` as a `Poll`.
fn dump_run(slot: &RunSlot, path: &std::path::Path) {
    let poll = Poll {
        samples: slot.samples.lock().map(|v| v.clone()).unwrap_or_default(),
        done: slot.done.lock().ok().and_then(|d| d.clone()),
        failed: None,
    };
    if let Err(e) = serde_json::to_vec(&poll).map(|b| std::fs::write(path, b)) {
        log::warn!("cannot dump the run to {}: {e}", path.display());
    }
}
