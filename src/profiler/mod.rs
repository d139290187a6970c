//! profiler: where the server's threads spend their time, beside a run or
//! on its own.
//!
//! Owns the collectors and what they return: on-CPU stacks (`cpu`, perf's
//! cpu-clock sampling, which works in VMs without hardware counters), the
//! stacks where threads block weighted by how long (`offcpu`,
//! sched_switch with context-switch records), syscall counts by name for
//! the server and for qpslab's load threads (`syscalls`, 1 in N
//! raw_syscalls entries system-wide), and Performance Schema wait shares
//! (`waits`). Each kind is probed at start and skipped with a note saying
//! how to enable it. It also names the lock family a stack or a wait
//! event belongs to. It does not touch the load, the store or the output:
//! lab runs it beside exec and keeps what it returns; analyze and report
//! read that.

pub mod families;
pub mod fold;
mod perf;
mod session;
mod stacks;
pub mod syscalls;
pub mod waits;

pub use fold::Folded;
pub use perf::probe;
pub use session::{Data, Outcome, Plan, Session, WaitsPlan};

/// What a profile collects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum Kind {
    /// On-CPU stacks, sampled at a rate (cpu-clock).
    Cpu,
    /// The stack of every switch-out of a thread that blocked
    /// (sched:sched_switch; preemptions left out), weighted by the
    /// microseconds until the thread ran again: who parks, where, how long.
    OffCpu,
    /// Syscalls by name per second, the server's apart from qpslab's load
    /// threads'.
    Syscalls,
    /// Performance Schema wait events as shares of thread time.
    Waits,
}

impl Kind {
    /// Every kind, in the order `--profile all` records them.
    pub const ALL: [Kind; 4] = [Kind::Cpu, Kind::OffCpu, Kind::Syscalls, Kind::Waits];

    /// The kind's name in `--profile` lists and stored profiles.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Cpu => "cpu",
            Kind::OffCpu => "offcpu",
            Kind::Syscalls => "syscalls",
            Kind::Waits => "waits",
        }
    }
}

/// A `--profile` list: kinds by name, comma-separated; `all` for every
/// kind, and an empty list for none. Repeats are ignored.
pub fn parse_kinds(list: &str) -> Result<Vec<Kind>, String> {
    let mut kinds = Vec::new();
    for k in list.split(',').map(str::trim).filter(|k| !k.is_empty()) {
        if k == "all" {
            kinds.extend(Kind::ALL);
            continue;
        }
        kinds.push(
            Kind::ALL
                .into_iter()
                .find(|x| x.name() == k)
                .ok_or_else(|| {
                    format!("'{k}' is not a profile kind: use cpu, offcpu, syscalls, waits or all")
                })?,
        );
    }
    kinds.sort();
    kinds.dedup();
    Ok(kinds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse() {
        assert_eq!(
            parse_kinds("offcpu, cpu,cpu").unwrap(),
            vec![Kind::Cpu, Kind::OffCpu]
        );
        assert_eq!(parse_kinds("all").unwrap().len(), 4);
        assert!(parse_kinds("").unwrap().is_empty());
        assert!(parse_kinds("cpu,locks").unwrap_err().contains("'locks'"));
    }
}
