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
mod kind;
mod perf;
mod session;
mod stacks;
pub mod syscalls;
pub mod waits;

pub use fold::Folded;
pub use kind::{parse_kinds, Kind};
pub use perf::probe;
pub use session::{Data, Outcome, Plan, Session, WaitsPlan};

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
