//! Profiles in the lab: profiling a server on its own (`qpslab profile`),
//! beside a run (started before its connections open, stopped after its
//! last interval, whatever its status: a failed or interrupted run keeps
//! what was gathered), the run's lock shares, and keeping it all with the
//! run in the store.

use super::runtime::block_on;
use super::target::{check, Target};
use crate::analyze::limiter::{self, Profiled};
use crate::profiler::syscalls::Syscalls;
use crate::profiler::{Data, Kind, Plan, Session, WaitsPlan};
use crate::stats::document::{KindFigures, KindSummary, ProfileSummary, SyscallCount, SyscallSide};
use crate::store::Store;
use anyhow::{anyhow, bail, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What `--profile` records beside a run.
#[derive(Debug, Clone)]
pub struct ProfilePlan {
    /// The server's process.
    pub pid: i32,
    /// What to gather: on-CPU and off-CPU stacks, syscalls, waits.
    pub kinds: Vec<Kind>,
    /// On-CPU samples per second.
    pub hz: u32,
    /// Where perf writes (its files are removed once read).
    pub dir: PathBuf,
    /// `--profile-waits enable`: time every wait instrument for the run.
    pub enable_waits: bool,
    /// The agent beside a server on another host: perf records there
    /// (`pid` is the server's pid on that host); waits stay here.
    pub agent: Option<crate::lab::agent::ServerAgent>,
}

/// Collectors running: here, and on the server's host's agent.
pub struct Profiling {
    local: Session,
    remote: Option<Remote>,
}

/// A recording on the server's host's agent (or why it could not start).
struct Remote {
    agent: crate::lab::agent::ServerAgent,
    kinds: Vec<Kind>,
    id: Result<u64, String>,
    started_unix: f64,
}

impl Profiling {
    /// Stops every collector (here and on the agent) and reads what each
    /// gathered; a kind the agent could not record says why.
    pub fn stop(self) -> Vec<crate::profiler::Outcome> {
        let mut out = self.local.stop();
        if let Some(r) = self.remote {
            let got = r.id.and_then(|id| r.agent.stop_profile(id));
            match got {
                Ok(o) => out.extend(o),
                Err(e) => out.extend(r.kinds.iter().map(|k| crate::profiler::Outcome {
                    kind: *k,
                    secs: 0.0,
                    started_unix: r.started_unix,
                    cost_cpu_s: None,
                    result: Err(format!("the agent at {}: {e}", r.agent.addr)),
                })),
            }
        }
        out.sort_by_key(|o| o.kind);
        out
    }
}

/// Starts the plan's collectors on a server reached with `conn` (None: a
/// process only, no waits), whose load runs `threads` connections; on
/// the server's host's agent, perf's kinds, dropped there after `max_s`
/// if never stopped.
pub fn begin(
    plan: &ProfilePlan,
    conn: Option<&crate::protocol::ConnOpts>,
    threads: u32,
    max_s: f64,
) -> Profiling {
    let (here, there): (Vec<Kind>, Vec<Kind>) = match &plan.agent {
        Some(_) => plan.kinds.iter().partition(|k| **k == Kind::Waits),
        None => (plan.kinds.clone(), Vec::new()),
    };
    let remote = plan
        .agent
        .clone()
        .filter(|_| !there.is_empty())
        .map(|agent| {
            let started_unix = crate::stats::clock::now_unix();
            let id = agent.start_profile(plan.pid, &there, plan.hz, max_s);
            Remote {
                agent,
                kinds: there,
                id,
                started_unix,
            }
        });
    let local = Session::start(&Plan {
        pid: plan.pid,
        kinds: here,
        hz: plan.hz,
        dir: plan.dir.clone(),
        waits: conn.map(|c| WaitsPlan {
            conn: c.clone(),
            enable: plan.enable_waits,
            threads,
        }),
    });
    Profiling { local, remote }
}

/// Stops a session and draws the lock shares.
pub fn end(s: Profiling, hz: u32, threads: u32, queries: Option<u64>) -> Profiled {
    profiled(s.stop(), hz, threads, queries)
}

/// A profile of what the collectors gathered (one session's, or several
/// windows' put together), with its lock shares.
pub fn profiled(
    outcomes: Vec<crate::profiler::Outcome>,
    hz: u32,
    threads: u32,
    queries: Option<u64>,
) -> Profiled {
    let locks = limiter::of_run(&outcomes, threads, hz);
    if let (Some(l), Some(live)) = (&locks, crate::stats::live::live()) {
        live.set_lock_shares(&l.source, &l.shares);
    }
    Profiled {
        outcomes,
        hz,
        locks,
        queries,
    }
}

/// The server's @@datadir and @@pid_file.
fn datadir_and_pid_file(t: &Target) -> Result<(String, String)> {
    block_on(async {
        let mut c = check(t).await?;
        let r = c.query("SELECT @@datadir, @@pid_file").await;
        c.quit().await;
        let row = r?.rows.into_iter().next().unwrap_or_default();
        let get = |i: usize| row.get(i).cloned().flatten().unwrap_or_default();
        Ok::<_, anyhow::Error>((get(0), get(1)))
    })?
}

/// The server process of a target on this host (its pid file, else the
/// process whose working directory is its datadir).
pub fn server_pid(t: &Target) -> Result<i32> {
    let (datadir, pid_file) = datadir_and_pid_file(t)?;
    crate::monitor::find_server_pid(Some(Path::new(&datadir)), &pid_file).ok_or_else(|| {
        anyhow!("the server's process is not on this host (or not readable): profile it where it runs, with --pid, or name the agent beside it with --server-agent HOST:PORT --token-file FILE")
    })
}

/// The server process of target `t` on its own host, found by the agent
/// beside it (its pid file, datadir or port).
pub fn server_pid_on(t: &Target, agent: &crate::lab::agent::ServerAgent) -> Result<i32> {
    let (datadir, pid_file) = datadir_and_pid_file(t)?;
    let port = match &t.opts.endpoint {
        crate::protocol::Endpoint::Tcp { port, .. } => *port,
        crate::protocol::Endpoint::Unix(_) => 0,
    };
    agent.server_pid(datadir.trim_end_matches('/'), &pid_file, port)
}

/// A global status counter of the server (`Questions`,
/// `Threads_connected`); None when it cannot be read.
fn global_status(conn: &crate::protocol::ConnOpts, name: &str) -> Option<u64> {
    let sql = format!(
        "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = '{}'",
        name.to_ascii_uppercase()
    );
    super::runtime::query_number(conn, &sql).map(|v| v as u64)
}

/// Profiles process `pid` (reached with `conn`, when given) for `secs`
/// seconds; Ctrl-C ends it early, keeping what was recorded.
pub fn profile(
    plan: &ProfilePlan,
    conn: Option<&crate::protocol::ConnOpts>,
    secs: f64,
) -> Result<Profiled> {
    if plan.agent.is_none() && !Path::new(&format!("/proc/{}", plan.pid)).exists() {
        bail!("no process {} on this host", plan.pid);
    }
    let questions = |c| global_status(c, "Questions");
    let before = conn.and_then(questions);
    // the load's connections: all but the one that counts them
    let threads = conn
        .and_then(|c| global_status(c, "Threads_connected"))
        .map_or(1, |n| n.saturating_sub(1).max(1) as u32);
    let session = begin(plan, conn, threads, secs + 60.0);
    let _ctrl_c = crate::exec::Cooperative::enter();
    let until = std::time::Instant::now() + Duration::from_secs_f64(secs);
    while std::time::Instant::now() < until && !crate::exec::interrupted() {
        std::thread::sleep(Duration::from_millis(50));
    }
    let queries = before
        .zip(conn.and_then(questions))
        .map(|(b, a)| a.saturating_sub(b));
    Ok(end(session, plan.hz, threads, queries))
}

/// The profile's summary: each kind's figures (or why it is missing), its
/// collector's cost, and the lock shares.
pub fn summary(p: &Profiled) -> ProfileSummary {
    let kinds = p
        .outcomes
        .iter()
        .map(|o| KindSummary {
            kind: o.kind.name().to_string(),
            started_at: o.started_unix,
            seconds: o.secs,
            collector_cpu_s: o.cost_cpu_s,
            figures: match &o.result {
                Err(e) => KindFigures::Failed { error: e.clone() },
                Ok(Data::Stacks(f)) => KindFigures::Stacks {
                    weight: f.total(),
                    stacks: f.stacks.len() as u64,
                    top_self: f.top_self(10, o.kind == Kind::OffCpu),
                },
                Ok(Data::Syscalls(s)) => KindFigures::Syscalls {
                    period: s.period,
                    sides: crate::profiler::syscalls::SIDES
                        .iter()
                        .map(|side| (side.to_string(), syscall_side(s, side, o.secs, p.queries)))
                        .collect(),
                },
                Ok(Data::Waits(w)) => KindFigures::Waits {
                    threads: w.threads,
                    timed_instruments: w.timed.0,
                    instruments: w.timed.1,
                    top_events: w.shares().into_iter().take(10).collect(),
                },
            },
        })
        .collect();
    ProfileSummary {
        hz: p.hz,
        queries: p.queries,
        kinds,
        locks: p.locks.clone(),
    }
}

/// One side's syscalls: its total, per second and per query, its ten most frequent.
fn syscall_side(s: &Syscalls, side: &str, secs: f64, queries: Option<u64>) -> SyscallSide {
    let total = s.total(side);
    SyscallSide {
        total,
        per_second: total as f64 / secs.max(1e-9),
        per_query: per(total, queries),
        top: s
            .by_name(side)
            .into_iter()
            .take(10)
            .map(|(n, c)| SyscallCount {
                name: n,
                count: c,
                per_query: per(c, queries),
            })
            .collect(),
    }
}

fn per(count: u64, queries: Option<u64>) -> Option<f64> {
    queries.filter(|q| *q > 0).map(|q| count as f64 / q as f64)
}

/// Keeps a run's profile in the store: stacks, per-second series, summary.
pub fn keep(store: &Store, run: i64, p: &Profiled) -> Result<()> {
    for o in &p.outcomes {
        match &o.result {
            Ok(Data::Stacks(f)) => store.add_profile(run, o.kind.name(), &f.stacks)?,
            Ok(Data::Syscalls(s)) => {
                let series: Vec<(String, Vec<f64>)> = s
                    .counts
                    .iter()
                    .map(|((side, name), v)| {
                        (
                            format!("{side}/{name}"),
                            v.iter().map(|c| *c as f64).collect(),
                        )
                    })
                    .collect();
                store.add_profile_series(run, "syscalls", &series)?;
            }
            Ok(Data::Waits(w)) => {
                let series: Vec<(String, Vec<f64>)> = w
                    .waited
                    .iter()
                    .map(|(n, v)| (n.clone(), v.clone()))
                    .collect();
                store.add_profile_series(run, "waits", &series)?;
            }
            Err(_) => {}
        }
    }
    store.set_run_profile(run, &summary(p))
}
