//! sysbench mode's `fileio` (prepare, run, cleanup in the current
//! directory): reads its options as sysbench does and prints
//! report::host_text's text. Owns the glue only.

use super::drive::{execute_with, no_result, seed, Failure, Plan};
use super::store::Done;
use crate::cli::sysbench_mode::argv::{General, Refusal, SbArgs};
use crate::hostbench::fileio::{self, ExtraFlags, FileCounters, FileOptions, Mode};
use crate::hostbench::HostError;
use crate::report::host_text::{self as text, DEBUG};
use std::path::Path;
use std::sync::Arc;

/// Runs `fileio COMMAND`: Some(the run) for `run` (stored when `keep`),
/// None for the others after printing what sysbench prints.
pub(super) fn command(
    command: &str,
    g: &General,
    args: &SbArgs,
    keep: bool,
) -> Result<Option<Done>, Failure> {
    match command {
        "prepare" => prepare(&options(args)?).map(|_| None),
        "cleanup" => {
            let o = options(args)?;
            outln!("Removing test files...");
            fileio::cleanup(&o, Path::new("."))?;
            Ok(None)
        }
        "run" => run(&options(args)?, g, keep).map(Some),
        _ => {
            errln!("Unknown command: {command}");
            Err(Failure::Exit(1))
        }
    }
}

fn options(args: &SbArgs) -> Result<FileOptions, Failure> {
    let block = args.int("file-block-size", 16384)?;
    if block <= 0 {
        return Err(HostError::FileBlockSize(block).into());
    }
    let mode = match args.last("file-test-mode") {
        None => None,
        Some(m) => Some(Mode::parse(m.unwrap_or(""))?),
    };
    let bool_opt = |name: &str, default: bool| -> Result<bool, Failure> {
        if !args.given(name) {
            return Ok(default);
        }
        args.flag(name).ok_or_else(|| {
            Failure::Refused(Refusal::Stderr(format!(
                "Invalid value for the '{}' option: '{}'",
                name.replace('-', "_"),
                args.text(name, "")
            )))
        })
    };
    let io = args.text("file-io-mode", "sync");
    match io {
        "sync" | "mmap" | "async" => {}
        _ => return Err(HostError::IoMode(io.to_string()).into()),
    }
    let backlog = args.int("file-async-backlog", 128)?;
    if io == "async" && backlog <= 0 {
        return Err(
            HostError::Async(format!("Invalid value of file-async-backlog: {backlog}")).into(),
        );
    }
    Ok(FileOptions {
        num: args.int("file-num", 128)?.max(1) as u64,
        block: block as u64,
        total: args.size("file-total-size", 2 << 30)?,
        mode,
        flags: ExtraFlags::parse(&args.list("file-extra-flags"))?,
        fsync_freq: args.int("file-fsync-freq", 100)?.max(0) as u64,
        fsync_all: bool_opt("file-fsync-all", false)?,
        fsync_end: bool_opt("file-fsync-end", true)?,
        fdatasync: args.text("file-fsync-mode", "fsync") == "fdatasync",
        rw_ratio: args.double("file-rw-ratio", 1.5)?,
        mmap: io == "mmap",
        async_backlog: (io == "async").then_some(backlog as u32),
    })
}

fn prepare(o: &FileOptions) -> Result<(), Failure> {
    outln!("{}", text::fileio_prepare_head(o));
    let p = fileio::prepare(o, Path::new("."))?;
    outln!("{}", text::fileio_prepared(&p));
    Ok(())
}

fn run(o: &FileOptions, g: &General, keep: bool) -> Result<Done, Failure> {
    let Some(mode) = o.mode else {
        outln!("FATAL: Missing required argument: --file-test-mode\n");
        out!("{}", text::help("fileio"));
        return Err(Failure::Exit(1));
    };
    let v = g.verbosity;
    out!(
        "{}",
        text::options_echo(v, &g.echo(), &text::fileio_lines(o, mode, g.events))
    );
    let files = fileio::open(o, mode, Path::new("."), |name| {
        if v >= DEBUG {
            outln!("DEBUG: Opening file: {name}");
        }
    })?;
    let maps = Arc::new(if o.mmap {
        fileio::map(o, &files)?
    } else {
        Vec::new()
    });
    let files = Arc::new(files);
    let counters = Arc::new(FileCounters::default());
    let plan = Plan {
        lines: Vec::new(),
        workers: if o.async_backlog.is_some() {
            fileio::async_workers(
                o,
                mode,
                Arc::clone(&files),
                Arc::clone(&counters),
                g.threads,
                seed(g),
            )?
        } else {
            fileio::workers(
                o,
                mode,
                Arc::clone(&files),
                Arc::clone(&maps),
                Arc::clone(&counters),
                g.threads,
                seed(g),
            )
        },
        interval: text::interval,
        result: no_result,
    };
    let block = o.block;
    let ran = execute_with(
        g,
        plan,
        keep,
        || counters.snapshot(),
        |iv, ops, pct| text::fileio_interval(iv, ops, block, pct),
        |v, s| text::fileio_result(v, s, counters.snapshot(), block),
    );
    if ran.code == 0 && o.fsync_end && mode.writes() {
        fileio::sync_end(o, &files)?;
    }
    Ok(Done {
        ran,
        block,
        moves_data: true,
    })
}
