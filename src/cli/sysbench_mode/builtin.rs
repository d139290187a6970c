//! sysbench mode's built-in tests (`sysbench cpu run` …): checks the
//! test's options as sysbench does, hands them to hostbench, and prints
//! report::host_text's rendering on sysbench's streams with its exit
//! codes. Owns the glue only: no measuring, no text of its own beyond
//! sysbench's refusals.

mod drive;
mod fileio;
mod store;

use super::argv::{General, Refusal, SbArgs, GENERAL};
use crate::hostbench::cpu::{CpuOptions, CpuWorker};
use crate::hostbench::fileio::FileOps;
use crate::hostbench::memory::{self, MemoryOptions};
use crate::hostbench::mutex::{self, MutexOptions, MutexWorker};
use crate::hostbench::threads::{self, ThreadsOptions, ThreadsWorker};
use crate::report::host_text::{self as text, INFO, NOTICE};
use drive::{execute, execute_with, no_result, seed, Failure, Plan, Ran};
use store::Done;

/// The options each built-in test adds to the general ones.
fn test_options(test: &str) -> &'static [&'static str] {
    match test {
        "cpu" => &["cpu-max-prime"],
        "memory" => &[
            "memory-block-size",
            "memory-total-size",
            "memory-scope",
            "memory-hugetlb",
            "memory-oper",
            "memory-access-mode",
        ],
        "threads" => &["thread-yields", "thread-locks"],
        "mutex" => &["mutex-num", "mutex-locks", "mutex-loops"],
        "fileio" => &[
            "file-num",
            "file-block-size",
            "file-total-size",
            "file-test-mode",
            "file-io-mode",
            "file-async-backlog",
            "file-extra-flags",
            "file-fsync-freq",
            "file-fsync-all",
            "file-fsync-end",
            "file-fsync-mode",
            "file-merged-requests",
            "file-rw-ratio",
        ],
        _ => &[],
    }
}

/// The first option neither sysbench nor the test knows, as typed.
/// (The database drivers' options are registered in sysbench whatever
/// the test, so they pass; so do qpslab's own, `--qpslab-store` …:
/// store.rs.)
fn unknown_option<'a>(test: &str, args: &'a SbArgs) -> Option<&'a str> {
    args.opts
        .iter()
        .find(|(name, _, _)| {
            let n = name.as_str();
            !GENERAL.contains(&n)
                && !test_options(test).contains(&n)
                && !["mysql-", "pgsql-", "db-"].iter().any(|p| n.starts_with(p))
                && !store::OPTIONS.contains(&n)
        })
        .map(|(_, _, word)| word.as_str())
}

/// Whether test `test` picks what it works on with sysbench's
/// `--rand-type` distribution (the others draw nothing, or uniformly).
fn draws_at_random(test: &str, args: &SbArgs) -> bool {
    match test {
        "memory" => args.text("memory-access-mode", "seq") == "rnd",
        "fileio" => args.text("file-test-mode", "").starts_with("rnd"),
        _ => false,
    }
}

/// Runs built-in test `test`'s `command`; returns the exit code.
pub fn run(test: &str, command: &str, general: &General, args: &SbArgs) -> i32 {
    if let Some(word) = unknown_option(test, args).or_else(|| args.bad_general_flag()) {
        errln!("invalid option: {word}");
        return 1;
    }
    if args.given("rand-type") && general.rand_type != "uniform" && draws_at_random(test, args) {
        errln!(
            "FATAL: qpslab's built-in tests pick blocks and mutexes uniformly: --rand-type={} is not taken yet",
            general.rand_type
        );
        return 1;
    }
    let keep = store::wanted(args);
    if test == "fileio" {
        return match fileio::command(command, general, args, keep.is_some()) {
            Ok(Some(done)) => {
                store::finish(test, done, keep.as_ref(), general, args, test_options(test))
            }
            Ok(None) => 0,
            Err(f) => f.print(),
        };
    }
    match command {
        "run" => match run_test(test, general, args, keep.is_some()) {
            Ok(done) => store::finish(test, done, keep.as_ref(), general, args, test_options(test)),
            Err(f) => f.print(),
        },
        "prepare" | "cleanup" => {
            errln!("'{test}' test does not implement the '{command}' command.");
            1
        }
        _ => {
            errln!("Unknown command: {command}");
            1
        }
    }
}

/// Prints test `test`'s options (`sysbench TEST help`).
pub fn help(test: &str) {
    out!("{}", text::help(test));
}

fn run_test(test: &str, g: &General, args: &SbArgs, keep: bool) -> Result<Done, Failure> {
    let done = |ran| Done {
        ran,
        block: 0,
        moves_data: true,
    };
    match test {
        "cpu" => Ok(done(execute(g, cpu_plan(g, args)?, keep))),
        "threads" => Ok(done(execute(g, threads_plan(g, args)?, keep))),
        "mutex" => Ok(done(execute(g, mutex_plan(g, args)?, keep))),
        "memory" => memory_run(g, args, keep),
        _ => Ok(done(Ran {
            code: 1,
            measured: None,
            error: None,
        })),
    }
}

fn cpu_plan(g: &General, args: &SbArgs) -> Result<Plan<CpuWorker>, Failure> {
    let o = CpuOptions::new(args.int("cpu-max-prime", 10000)?)?;
    Ok(Plan {
        lines: vec![
            (INFO, "Doing CPU performance benchmark\n".to_string()),
            (NOTICE, format!("Prime numbers limit: {}\n", o.max_prime)),
        ],
        workers: (0..g.threads).map(|_| CpuWorker(o)).collect(),
        interval: text::interval,
        result: text::cpu_result,
    })
}

fn threads_plan(g: &General, args: &SbArgs) -> Result<Plan<ThreadsWorker>, Failure> {
    let o = ThreadsOptions::new(
        args.int("thread-yields", 1000)?,
        args.int("thread-locks", 8)?,
    )?;
    Ok(Plan {
        lines: vec![
            (INFO, "Doing thread subsystem performance test".to_string()),
            (
                INFO,
                format!(
                    "Thread yields per test: {} Locks used: {}",
                    o.yields, o.locks
                ),
            ),
        ],
        workers: threads::workers(o, g.threads),
        interval: text::interval,
        result: no_result,
    })
}

fn mutex_plan(g: &General, args: &SbArgs) -> Result<Plan<MutexWorker>, Failure> {
    let o = MutexOptions::new(
        args.int("mutex-num", 4096)?,
        args.int("mutex-locks", 50000)?,
        args.int("mutex-loops", 10000)?,
    )?;
    Ok(Plan {
        lines: vec![(INFO, "Doing mutex performance test".to_string())],
        workers: mutex::workers(o, g.threads, seed(g)),
        interval: text::interval,
        result: no_result,
    })
}

/// The memory test: its interval and result lines need the block size.
fn memory_run(g: &General, args: &SbArgs, keep: bool) -> Result<Done, Failure> {
    // A block size that is no size at all (-1) is refused in the words
    // of one that is no power of two (sysbench 1.0.20's memory.c).
    let block = args.size("memory-block-size", 1024).map_err(|_| {
        Failure::Refused(Refusal::Stdout(format!(
            "FATAL: Invalid value for memory-block-size: {}",
            args.text("memory-block-size", "")
        )))
    })?;
    let total = args.size("memory-total-size", 100 << 30)?;
    let Some(hugetlb) = args.flag("memory-hugetlb") else {
        return Err(Failure::Refused(Refusal::Stderr(format!(
            "Invalid value for the 'memory_hugetlb' option: '{}'",
            args.text("memory-hugetlb", "")
        ))));
    };
    let (scope, oper) = (
        args.text("memory-scope", "global"),
        args.text("memory-oper", "write"),
    );
    let o = MemoryOptions::new(
        block,
        args.text("memory-block-size", "1K"),
        total,
        scope,
        hugetlb,
        oper,
        args.text("memory-access-mode", "seq"),
    )?;
    let workers = memory::workers(o, g.threads, seed(g))?;
    let plan = Plan {
        lines: text::memory_lines(block, total, oper, scope),
        workers,
        interval: text::interval,
        result: no_result,
    };
    // sysbench 1.0.20's memory test ends at --memory-total-size or
    // --time: it takes no --events limit (1024 events for 1M whatever
    // --events says; its regression suite's test_memory.t).
    let g = &General {
        events: 0,
        ..g.clone()
    };
    let ran = execute_with(
        g,
        plan,
        keep,
        FileOps::default,
        |iv, _, _| text::memory_interval(iv, block),
        |v, s| text::memory_result(v, s, block, oper != "none"),
    );
    Ok(Done {
        ran,
        block,
        moves_data: oper != "none",
    })
}
