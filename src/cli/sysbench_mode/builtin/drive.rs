//! The shared part of running a built-in test in sysbench mode: a test
//! made ready (its option lines, workers, renderers) is run on the driver
//! and its text printed at the verbosity asked; refusals and failures
//! printed on sysbench's streams. Owns no test of its own.

use crate::cli::sysbench_mode::argv::{General, Refusal};
use crate::hostbench::driver::{drive, Interval, Limits, Report, RunStats, Worker};
use crate::hostbench::fileio::FileOps;
use crate::hostbench::outcome::Measured;
use crate::hostbench::HostError;
use crate::report::host_text::{self as text, NOTICE};
use crate::stats::CpuSnapshot;

/// Why a test did not run: a refused option value, or hostbench's error.
pub(super) enum Failure {
    Refused(Refusal),
    Host(HostError),
    /// Already said (sysbench's own text printed): exit with the code.
    Exit(i32),
}

impl Failure {
    /// Prints it on sysbench's stream; returns the exit code.
    pub(super) fn print(self) -> i32 {
        match self {
            Failure::Refused(Refusal::Stderr(m)) => errln!("{m}"),
            Failure::Refused(Refusal::Stdout(m)) => outln!("{m}"),
            Failure::Host(e) => outln!("FATAL: {e}"),
            Failure::Exit(code) => return code,
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

/// A test that ran (or failed): its exit code, and what it measured when
/// the run is to be stored.
pub(super) struct Ran {
    pub(super) code: i32,
    pub(super) measured: Option<Measured>,
    /// Why it failed while running (hostbench's error), if it did.
    pub(super) error: Option<String>,
}

/// Runs a planned test and prints its text; `keep`: measure for the
/// store (an interval a second when none was asked for, not printed).
pub(super) fn execute<W: Worker>(g: &General, plan: Plan<W>, keep: bool) -> Ran {
    let (interval, result) = (plan.interval, plan.result);
    execute_with(
        g,
        plan,
        keep,
        FileOps::default,
        |iv, _, pct| interval(iv, pct),
        result,
    )
}

/// `execute` with interval and result renderers of the test's own;
/// `ops` reads the file operations done so far (fileio; zero for the
/// others), handed to the interval renderer per interval.
/// (fileio prints its option lines itself, before opening its files: its
/// plan has none.)
pub(super) fn execute_with<W: Worker>(
    g: &General,
    plan: Plan<W>,
    keep: bool,
    ops: impl Fn() -> FileOps,
    mut interval: impl FnMut(&Interval, FileOps, u32) -> String,
    result: impl Fn(u32, &RunStats) -> String,
) -> Ran {
    let v = g.verbosity;
    let echo = g.echo();
    if plan.lines.is_empty() {
        out!("{}", text::threads_started(v, &echo));
    } else {
        out!("{}", text::start(v, &echo, &plan.lines));
    }
    let sample_every = match g.report_interval {
        0 if keep => 1,
        n => n,
    };
    let limits = Limits {
        threads: g.threads,
        events: g.events,
        time_s: g.time,
        report_interval_s: sample_every,
        percentile: g.percentile,
        rate: g.rate,
        checkpoints: g.report_checkpoints.clone(),
    };
    let mut kept = Vec::new();
    let mut last = FileOps::default();
    let cpu_start = CpuSnapshot::now();
    let started_unix = crate::stats::clock::now_unix();
    let stats = drive(&limits, plan.workers, |r| match r {
        Report::Interval(iv) => {
            let now = ops();
            let done = now.since(last);
            last = now;
            if v >= NOTICE && g.report_interval > 0 {
                outln!("{}", interval(iv, done, g.percentile));
            }
            if keep {
                kept.push((iv.clone(), done));
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
    let (client_cpu_s, host_cpu_s, host_busy) = CpuSnapshot::now().since(&cpu_start);
    match stats {
        Ok(s) => {
            if s.queue_full {
                // sysbench 1.0.20 says this once and exits 1 with no
                // summary (its regression suite's opt_rate.t)
                let why = "The event queue is full. This means the worker threads are unable to keep up with the specified event generation rate";
                outln!("FATAL: {why}");
                return Ran {
                    code: 1,
                    measured: None,
                    error: Some(why.to_string()),
                };
            }
            out!("{}", text::finish(v, &s, g.histogram));
            out!("{}", result(v, &s));
            out!("{}", text::general(v, &s, g.percentile, g.debug));
            Ran {
                code: 0,
                measured: keep.then(|| Measured {
                    stats: s,
                    intervals: kept,
                    ops: ops(),
                    client_cpu_s,
                    host_cpu_s,
                    host_busy,
                    started_unix,
                }),
                error: None,
            }
        }
        Err(e) => {
            outln!("FATAL: {e}");
            Ran {
                code: 1,
                measured: None,
                error: Some(e.to_string()),
            }
        }
    }
}
