//! profiler: where the server's threads spend their time, beside a run or
//! on its own, from `perf` (software cpu-clock sampling works in VMs
//! without hardware counters).
//!
//! Owns probing what can be profiled (perf present, permitted), running
//! `perf record` on the server's process for a window, reading its samples
//! back (`perf script`) into folded stacks, and naming the lock family a
//! stack belongs to. It does not touch the load, the store or the output:
//! lab runs it beside exec and keeps what it returns; report prints it.
//!
//! Kinds so far: `cpu` (on-CPU stacks) and `offcpu` (the stack of each
//! blocking switch-out, counted); syscall counts and Performance Schema
//! wait shares are to follow.

pub mod families;
pub mod fold;
pub mod perf;

pub use fold::Folded;
pub use perf::{probe, CpuProfile, Kind};
