//! The lock that limits: each lock family's share of the connection
//! threads' time in a run, from its profile, and across the steps of a
//! sweep or campaign the family whose share grows with users while QPS
//! flattens.
//!
//! Shares come from stacks when the run recorded them (off-CPU
//! microseconds blocked plus on-CPU samples, in stacks of connection
//! threads only: background threads sleeping in their loops are not
//! waiting on anything the load does), else from Performance Schema wait
//! events. A family is named a limiter from `LIMITER_SHARE` of thread
//! time up.

use crate::profiler::{families, Data, Folded, Kind, Outcome};
use std::collections::BTreeMap;

/// From this share of the connection threads' time, a lock family limits.
pub const LIMITER_SHARE: f64 = 0.10;

pub use crate::stats::document::LockShares;

/// A profile and what the analysis drew from it.
#[derive(Debug, Clone)]
pub struct Profiled {
    /// What each collector gathered (or why it could not).
    pub outcomes: Vec<Outcome>,
    /// The on-CPU sampling rate the profile ran at (samples per second).
    pub hz: u32,
    /// Lock families' shares of the connection threads' time.
    pub locks: Option<LockShares>,
    /// Queries the load ran while it recorded (per-query figures).
    pub queries: Option<u64>,
}

impl LockShares {
    /// The family limiting the run, if one takes `LIMITER_SHARE` or more.
    pub fn limiter(&self) -> Option<(&str, f64)> {
        self.shares
            .first()
            .filter(|(_, s)| *s >= LIMITER_SHARE)
            .map(|(f, s)| (f.as_str(), *s))
    }

    /// `family`'s share of thread time (0 when it was not seen).
    pub fn share(&self, family: &str) -> f64 {
        self.shares
            .iter()
            .find(|(f, _)| f == family)
            .map_or(0.0, |(_, s)| *s)
    }
}

/// Whether a stack is a connection thread's (it runs statements). An
/// off-CPU stack is unwound from a copy of the stack's top 2 KB: a deep
/// one (a statement's) is cut before its thread's root and counts; a
/// whole one counts when it runs a connection.
fn connection_stack(stack: &str) -> bool {
    let whole = ["clone3;", "clone;", "start_thread;"]
        .iter()
        .any(|root| stack.starts_with(root));
    !whole || stack.contains("do_command") || stack.contains("handle_one_connection")
}

/// Adds `scale × weight` of each lock-family stack of `f` to `into`, and
/// remembers each family's heaviest stack.
fn add_stacks(
    f: &Folded,
    scale: f64,
    into: &mut BTreeMap<String, f64>,
    heaviest: &mut BTreeMap<String, (f64, String)>,
) {
    for (stack, w) in &f.stacks {
        if !connection_stack(stack) {
            continue;
        }
        let frames: Vec<&str> = stack.split(';').collect();
        let Some(fam) = families::of_stack(&frames).filter(|f| families::is_lock(f)) else {
            continue;
        };
        let v = *w as f64 * scale;
        *into.entry(fam.to_string()).or_default() += v;
        let h = heaviest.entry(fam.to_string()).or_default();
        if v > h.0 {
            *h = (v, stack.clone());
        }
    }
}

/// The run's lock shares from its profile outcomes; `threads` is the
/// load's connection count, `hz` the on-CPU sampling rate. None when the
/// profile holds no stacks or waits.
pub fn of_run(outcomes: &[Outcome], threads: u32, hz: u32) -> Option<LockShares> {
    let threads = threads.max(1) as f64;
    let mut shares: BTreeMap<String, f64> = BTreeMap::new();
    let mut heaviest = BTreeMap::new();
    let mut from_stacks = false;
    for o in outcomes {
        let (Some(f), true) = (o.stacks(), o.secs > 0.0) else {
            continue;
        };
        from_stacks = true;
        let thread_s = o.secs * threads;
        let scale = match o.kind {
            // microseconds blocked
            Kind::OffCpu => 1e-6 / thread_s,
            // samples of 1/hz seconds on CPU
            _ => 1.0 / hz.max(1) as f64 / thread_s,
        };
        add_stacks(f, scale, &mut shares, &mut heaviest);
    }
    let (source, list) = if from_stacks {
        ("stacks", shares.into_iter().collect::<Vec<_>>())
    } else {
        let w = outcomes.iter().find_map(|o| match &o.result {
            Ok(Data::Waits(w)) => Some(w),
            _ => None,
        })?;
        let list = w
            .family_shares()
            .into_iter()
            .filter(|(f, _)| families::is_lock(f))
            .collect();
        ("waits", list)
    };
    let mut list: Vec<(String, f64)> = list;
    list.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let top_stack = list
        .first()
        .and_then(|(f, _)| heaviest.get(f))
        .map(|(_, s)| s.clone());
    Some(LockShares {
        source: source.into(),
        shares: list,
        top_stack,
    })
}

/// A limiting lock's stack as a person reads it: from the innermost frame
/// that names a lock family (`thr_multi_lock`), else the innermost server
/// frame, outwards, `n` frames, "innermost < … < outer". The waiting's
/// plumbing inside it (kernel, C library, pthread and Performance Schema
/// wrappers, bare addresses) is left out: it says how a thread waits, not
/// for what.
pub fn lock_stack_text(stack_root_first: &str, n: usize) -> String {
    let frames: Vec<&str> = stack_root_first.split(';').collect();
    let named = frames
        .iter()
        .rposition(|f| families::of_frame(f).is_some())
        .or_else(|| frames.iter().rposition(|f| !families::is_wait_plumbing(f)))
        .unwrap_or(frames.len().saturating_sub(1));
    frames[..=named.min(frames.len().saturating_sub(1))]
        .iter()
        .rev()
        .filter(|f| !families::is_wait_plumbing(f))
        .take(n)
        .copied()
        .collect::<Vec<_>>()
        .join(" < ")
}

/// The family limiting a sweep's scaling: among the steps (threads, QPS,
/// lock shares) in concurrency order, the lock family with the largest
/// share at the highest concurrency, when that share reaches
/// `LIMITER_SHARE` and has grown since the lowest one. The sentence says
/// its share per step and what QPS did.
pub fn of_sweep(steps: &[(u32, f64, LockShares)]) -> Option<String> {
    let (first, last) = (steps.first()?, steps.last()?);
    let (family, top) = last.2.limiter()?;
    let grew = top > first.2.share(family) || steps.len() == 1;
    if !grew {
        return None;
    }
    let per_step: Vec<String> = steps
        .iter()
        .map(|(t, _, s)| {
            format!(
                "{:.0}% at {}",
                100.0 * s.share(family),
                crate::out::counted(*t, "user")
            )
        })
        .collect();
    let best = steps.iter().map(|s| s.1).fold(f64::NAN, f64::max);
    let flat = if steps.len() < 2 {
        String::new()
    } else if last.1 < 0.9 * best {
        format!("; QPS fell to {:.0} from its best {:.0}", last.1, best)
    } else {
        let users = last.0 as f64 / first.0.max(1) as f64;
        let gain = last.1 / first.1.max(1e-9);
        format!(
            "; QPS ×{gain:.2} for ×{users:.0} users{}",
            if gain < 0.7 * users {
                " (flattening)"
            } else {
                ""
            }
        )
    };
    let stack = last
        .2
        .top_stack
        .as_deref()
        .map(|s| format!("; top stack {}", lock_stack_text(s, 5)))
        .unwrap_or_default();
    Some(format!(
        "{family}: share of connection-thread time {}{flat}{stack}",
        per_step.join(", ")
    ))
}

/// Each series' scaling limiter among stored runs (`of_sweep` over the
/// profiled runs of each workload × label × variant, by concurrency; the
/// run with the best QPS stands for a concurrency with repeats):
/// ("workload / label / variant", sentence).
pub fn of_series(runs: &[crate::store::RunRow]) -> Vec<(String, String)> {
    type Key = (String, String, String);
    let mut by: BTreeMap<Key, BTreeMap<i64, (f64, LockShares)>> = BTreeMap::new();
    for r in runs.iter().filter(|r| r.status == "ok") {
        let Some(l) = r
            .locks
            .as_deref()
            .and_then(|j| serde_json::from_str::<LockShares>(j).ok())
        else {
            continue;
        };
        let key = (
            r.workload.clone(),
            r.label.clone().unwrap_or_default(),
            r.variant.clone().unwrap_or_default(),
        );
        let qps = r.qps.unwrap_or(0.0);
        let at = by
            .entry(key)
            .or_default()
            .entry(r.threads)
            .or_insert((f64::MIN, l.clone()));
        if qps > at.0 {
            *at = (qps, l);
        }
    }
    by.into_iter()
        .filter_map(|((w, label, v), steps)| {
            let steps: Vec<(u32, f64, LockShares)> = steps
                .into_iter()
                .map(|(t, (q, l))| (t.max(0) as u32, q, l))
                .collect();
            let name = [w, label, v]
                .into_iter()
                .filter(|x| !x.is_empty())
                .collect::<Vec<_>>()
                .join(" / ");
            of_sweep(&steps).map(|s| (name, s))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiler::{Data, Folded};

    fn offcpu(stacks: &[(&str, u64)], secs: f64) -> Outcome {
        let mut f = Folded::default();
        for (s, w) in stacks {
            f.stacks.insert(s.to_string(), *w);
        }
        Outcome {
            kind: Kind::OffCpu,
            secs,
            started_unix: 0.0,
            cost_cpu_s: None,
            result: Ok(Data::Stacks(f)),
        }
    }

    #[test]
    fn shares_of_connection_thread_time() {
        // 4 threads × 2 s = 8 s of thread time; 4 s parked in thr_lock,
        // 2 s reading from the client (not a lock), and a background
        // thread's sleep that does not count
        let o = offcpu(
            &[
                (
                    "[[unknown]];mysql_update;mysql_lock_tables;thr_multi_lock;futex_wait_[k]",
                    4_000_000,
                ),
                (
                    "start_thread;do_command;my_net_read;vio_read;__schedule_[k]",
                    2_000_000,
                ),
                (
                    "start_thread;buf_flush_page_cleaner;__schedule_[k]",
                    2_000_000,
                ),
            ],
            2.0,
        );
        let s = of_run(&[o], 4, 99).unwrap();
        assert_eq!(s.source, "stacks");
        assert_eq!(s.shares.len(), 1);
        assert_eq!(s.limiter(), Some(("THR_LOCK (table lock)", 0.5)));
        assert!(s.top_stack.as_deref().unwrap().contains("thr_multi_lock"));
        assert_eq!(
            lock_stack_text(
                "start_thread;do_command;mysql_execute_command;mysql_lock_tables;thr_multi_lock;[mariadbd];psi_cond_timedwait;pthread_cond_timedwait;__futex_abstimed_wait_common;futex_wait_[k];__schedule_[k]",
                3
            ),
            "thr_multi_lock < mysql_lock_tables < mysql_execute_command"
        );
        let quiet = of_run(&[offcpu(&[("do_command;thr_lock;x", 1000)], 2.0)], 4, 99).unwrap();
        assert_eq!(quiet.limiter(), None);
    }

    #[test]
    fn the_sweep_names_the_family_that_grows() {
        let at = |share: f64| LockShares {
            source: "stacks".into(),
            shares: vec![("MDL".into(), share)],
            top_stack: None,
        };
        let steps = vec![
            (1, 1000.0, at(0.01)),
            (8, 4000.0, at(0.2)),
            (32, 4100.0, at(0.6)),
        ];
        let v = of_sweep(&steps).unwrap();
        assert!(
            v.starts_with("MDL: share of connection-thread time 1% at 1 user, 20% at 8 users, 60% at 32 users"),
            "{v}"
        );
        assert!(v.contains("flattening"), "{v}");
        // a share that did not grow names nothing
        assert_eq!(of_sweep(&[(1, 1.0, at(0.5)), (8, 8.0, at(0.4))]), None);
    }
}
