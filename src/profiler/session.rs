//! A profiling session: the collectors a plan asks for, started together
//! and stopped together. A kind that cannot start is skipped with the note
//! that says how to enable it; the others go on.

use super::fold::Folded;
use super::perf::Recording;
use super::stacks::StackKinds;
use super::syscalls::Syscalls;
use super::waits::{Poller, Waits};
use super::Kind;
use std::path::PathBuf;
use std::time::Instant;

pub use super::waits::WaitsPlan;

/// What to profile.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The server's process.
    pub pid: i32,
    /// The kinds to record (cpu, offcpu, syscalls, waits).
    pub kinds: Vec<Kind>,
    /// On-CPU samples per second.
    pub hz: u32,
    /// Where perf writes its data files (removed once read).
    pub dir: PathBuf,
    /// The Performance Schema poller's connection and options (waits).
    pub waits: Option<WaitsPlan>,
}

/// A kind's result.
#[derive(Debug, Clone)]
pub enum Data {
    /// cpu: samples; offcpu: microseconds blocked.
    Stacks(Folded),
    /// syscalls: counts and time per system call.
    Syscalls(Syscalls),
    /// waits: Performance Schema wait events.
    Waits(Waits),
}

/// A kind's outcome: what it gathered, or why not.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The kind.
    pub kind: Kind,
    /// Seconds recorded.
    pub secs: f64,
    /// When recording began, in seconds since the Unix epoch.
    pub started_unix: f64,
    /// CPU seconds the collector's own process used (perf), when known;
    /// cpu and offcpu recorded together share one.
    pub cost_cpu_s: Option<f64>,
    /// What it gathered, or why it could not.
    pub result: Result<Data, String>,
}

impl Outcome {
    /// The folded stacks, when this kind gathered stacks.
    pub fn stacks(&self) -> Option<&Folded> {
        match &self.result {
            Ok(Data::Stacks(f)) => Some(f),
            _ => None,
        }
    }
}

/// Collectors running.
pub struct Session {
    pid: i32,
    started: Instant,
    started_unix: f64,
    stacks: Option<(StackKinds, Recording)>,
    syscalls: Option<Recording>,
    waits: Option<Poller>,
    skipped: Vec<(Kind, String)>,
}

impl Session {
    /// Starts every kind of `plan` that can run here.
    pub fn start(plan: &Plan) -> Session {
        let has = |k| plan.kinds.contains(&k);
        let mut skipped = Vec::new();
        let mut skip = |kinds: &[Kind], why: &str| {
            for k in kinds {
                skipped.push((*k, why.to_string()));
            }
        };
        let perf_ok = super::perf::probe();
        let mut stacks = None;
        let stack_kinds = StackKinds {
            cpu: has(Kind::Cpu),
            offcpu: has(Kind::OffCpu),
            hz: plan.hz,
        };
        if stack_kinds.cpu || stack_kinds.offcpu {
            let asked: Vec<Kind> = [Kind::Cpu, Kind::OffCpu]
                .into_iter()
                .filter(|k| has(*k))
                .collect();
            match perf_ok
                .clone()
                .and_then(|_| super::stacks::start(stack_kinds, plan.pid, &plan.dir))
            {
                Ok(r) => stacks = Some((stack_kinds, r)),
                Err(e) => skip(&asked, &e),
            }
        }
        let mut syscalls = None;
        if has(Kind::Syscalls) {
            match perf_ok
                .clone()
                .and_then(|_| super::syscalls::start(&plan.dir))
            {
                Ok(r) => syscalls = Some(r),
                Err(e) => skip(&[Kind::Syscalls], &e),
            }
        }
        let mut waits = None;
        if has(Kind::Waits) {
            match plan.waits.clone().map(Poller::start) {
                Some(Ok(p)) => waits = Some(p),
                Some(Err(e)) => skip(&[Kind::Waits], &e),
                None => skip(&[Kind::Waits], "no connection to the server was given"),
            }
        }
        Session {
            pid: plan.pid,
            started: Instant::now(),
            started_unix: crate::stats::clock::now_unix(),
            stacks,
            syscalls,
            waits,
            skipped,
        }
    }

    /// Stops every collector and reads what each gathered.
    pub fn stop(mut self) -> Vec<Outcome> {
        let secs = self.started.elapsed().as_secs_f64();
        let mut out: Vec<Outcome> = self
            .skipped
            .iter()
            .map(|(k, e)| Outcome {
                kind: *k,
                secs: 0.0,
                started_unix: self.started_unix,
                cost_cpu_s: None,
                result: Err(e.clone()),
            })
            .collect();
        // Stop all at once (the load is over), then read back.
        if let Some((_, r)) = self.stacks.as_mut() {
            r.interrupt();
        }
        if let Some(r) = self.syscalls.as_mut() {
            r.interrupt();
        }
        let stacks = self.stacks.map(|(k, r)| (k, r.stop()));
        let syscalls = self.syscalls.map(Recording::stop);
        let waits = self.waits.map(Poller::stop);
        if let Some((k, r)) = stacks {
            let kinds: Vec<Kind> = [(k.cpu, Kind::Cpu), (k.offcpu, Kind::OffCpu)]
                .into_iter()
                .filter(|(on, _)| *on)
                .map(|(_, kind)| kind)
                .collect();
            let cost = r.as_ref().ok().map(|r| r.cpu_s);
            let rsecs = r.as_ref().map(|r| r.secs).unwrap_or(secs);
            let rstart = r
                .as_ref()
                .map(|r| r.started_unix)
                .unwrap_or(self.started_unix);
            let read = r.and_then(|r| super::stacks::read(&r, self.pid));
            for kind in kinds {
                let result = read
                    .clone()
                    .map(|(cpu, off)| Data::Stacks(if kind == Kind::Cpu { cpu } else { off }));
                out.push(Outcome {
                    kind,
                    secs: rsecs,
                    started_unix: rstart,
                    cost_cpu_s: cost,
                    result,
                });
            }
        }
        if let Some(r) = syscalls {
            out.push(Outcome {
                kind: Kind::Syscalls,
                secs: r.as_ref().map(|r| r.secs).unwrap_or(secs),
                started_unix: r
                    .as_ref()
                    .map(|r| r.started_unix)
                    .unwrap_or(self.started_unix),
                cost_cpu_s: r.as_ref().ok().map(|r| r.cpu_s),
                result: r
                    .and_then(|r| super::syscalls::read(&r, self.pid))
                    .map(Data::Syscalls),
            });
        }
        if let Some(w) = waits {
            out.push(Outcome {
                kind: Kind::Waits,
                secs,
                started_unix: self.started_unix,
                cost_cpu_s: None,
                result: w.map(Data::Waits),
            });
        }
        out.sort_by_key(|o| o.kind);
        out
    }
}
