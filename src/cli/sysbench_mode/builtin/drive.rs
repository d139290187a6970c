//! The shared part of running a built-in test in sysbench mode: a test
//! made ready (its option lines, workers, renderers) is run on the driver
//! and its text printed at the verbosity asked; refusals and failures
//! printed on sysbench's streams. Owns no test of its own.

use crate::cli::sysbench_mode::argv::{General, Refusal};
use crate::hostbench::driver::{drive, Interval, Limits, Report, RunStats, Worker};
use crate::hostbench::HostError;
use crate::report::host_text::{self as text, NOTICE};

/// Why a test did not run: a refused option value, or hostbench's error.
pub(super) enum Failure {
    Refused(Refusal),
    Host(HostError),
}

impl Failure {
    /// Prints it on sysbench's stream; returns the exit code.
    pub(super) fn print(self) -> i32 {
        match self {
            Failure::Refused(Refusal::Stderr(m)) => errln!("{m}"),
            Failure::Refused(Refusal::Stdout(m)) => outln!("{m}"),
            Failure::Host(e) => outln!("FATAL: {e}"),
        }
        1
    }
}

impl From<Refusal> for Failure {
    fn from(r: Refusal) -> Self {
        Failure::Refused(r)
    }
}

impl From<HostError> for Failure {
    fn from(e: HostError) -> Self {
        Failure::Host(e)
    }
}

/// A test ready to run: its option echo, one worker per thread, its
/// interval line and its result section.
pub(super) struct Plan<W> {
    pub(super) lines: Vec<(u32, String)>,
    pub(super) workers: Vec<W>,
    pub(super) interval: fn(&Interval, u32) -> String,
    pub(super) result: fn(u32, &RunStats) -> String,
}

pub(super) fn no_result(_: u32, _: &RunStats) -> String {
    String::new()
}

/// The seed for a test's random picks: --rand-seed, else the clock.
pub(super) fn seed(g: &General) -> u64 {
    if g.rand_seed != 0 {
        return g.rand_seed;
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
}

/// Runs a planned test and prints its text; returns the exit code.
pub(super) fn execute<W: Worker>(g: &General, plan: Plan<W>) -> i32 {
    let (interval, result) = (plan.interval, plan.result);
    execute_with(g, plan, interval, result)
}

/// `execute` with interval and result renderers that may capture.
/// (fileio prints its option lines itself, before opening its files: its
/// plan has none.)
pub(super) fn execute_with<W: Worker>(
    g: &General,
    plan: Plan<W>,
    mut interval: impl FnMut(&Interval, u32) -> String,
    result: impl Fn(u32, &RunStats) -> String,
) -> i32 {
    let v = g.verbosity;
    let echo = g.echo();
    if plan.lines.is_empty() {
        out!("{}", text::threads_started(v, &echo));
    } else {
        out!("{}", text::start(v, &echo, &plan.lines));
    }
    let limits = Limits {
        threads: g.threads,
        events: g.events,
        time_s: g.time,
        report_interval_s: g.report_interval,
        percentile: g.percentile,
        rate: g.rate,
        checkpoints: g.report_checkpoints.clone(),
    };
    let stats = drive(&limits, plan.workers, |r| match r {
        Report::Interval(iv) => {
            if v >= NOTICE {
                outln!("{}", interval(iv, g.percentile));
            }
        }
        Report::Checkpoint(at_s, s) => {
            if v >= NOTICE {
                outln!("[ {at_s:.0}s ] Checkpoint report:");
            }
            out!("{}", result(v, s));
            out!("{}", text::general(v, s, g.percentile, g.debug));
        }
    });
    match stats {
        Ok(s) => {
            if s.queue_full {
                outln!("FATAL: The event queue is full. This means the worker threads are unable to keep up with the specified event generation rate");
                for _ in 0..g.threads {
                    outln!("FATAL: Event queue is full. Terminating the worker thread");
                }
            }
            out!("{}", text::finish(v, &s, g.histogram));
            out!("{}", result(v, &s));
            out!("{}", text::general(v, &s, g.percentile, g.debug));
            0
        }
        Err(e) => {
            outln!("FATAL: {e}");
            1
        }
    }
}
