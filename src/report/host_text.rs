//! The text sysbench 1.0.20 prints for its built-in tests (cpu, memory,
//! threads, mutex, fileio), byte for byte: the option echo, the start
//! lines, interval lines, `--histogram`'s table, each test's result
//! section, General statistics, Latency, Threads fairness — each line at
//! the verbosity sysbench prints it. Renders hostbench's figures only:
//! measures nothing, prints nothing (cli prints what this returns).

use crate::hostbench::driver::{Interval, RunStats};
use crate::hostbench::fileio::{ExtraFlags, FileOptions, Mode, Prepared};
use crate::hostbench::latency::Counts;
use crate::hostbench::size_text;

/// sysbench's log levels.
pub const NOTICE: u32 = 3;
/// --verbosity=4's extra lines.
pub const INFO: u32 = 4;
/// --verbosity=5's extra lines.
pub const DEBUG: u32 = 5;

/// Text built line by line, keeping those the verbosity shows.
pub struct Lines {
    verbosity: u32,
    text: String,
}

impl Lines {
    /// Empty, for `verbosity`.
    pub fn new(verbosity: u32) -> Lines {
        Lines {
            verbosity,
            text: String::new(),
        }
    }

    /// Adds `line` (and a newline) when `level` is shown.
    pub fn at(&mut self, level: u32, line: &str) -> &mut Lines {
        if level <= self.verbosity {
            self.text.push_str(line);
            self.text.push('\n');
        }
        self
    }

    /// Adds a line at NOTICE.
    pub fn notice(&mut self, line: &str) -> &mut Lines {
        self.at(NOTICE, line)
    }

    /// The text so far.
    pub fn text(self) -> String {
        self.text
    }
}

/// What the option echo says about the general options.
#[derive(Debug, Clone, Default)]
pub struct Echo {
    /// --threads.
    pub threads: u32,
    /// --rate, events/s (0: none).
    pub rate: u64,
    /// --report-interval as given, s (0: none; sysbench echoes a
    /// negative one too).
    pub report_interval: i64,
    /// --report-checkpoints, s, sorted.
    pub checkpoints: Vec<u64>,
    /// --debug.
    pub debug: bool,
    /// --validate.
    pub validate: bool,
    /// --rand-seed (0: from the time).
    pub rand_seed: u64,
    /// When --forced-shutdown stops the run, s from the start (None: off).
    pub forced_shutdown_s: Option<u64>,
}

/// "Running the test with following options:" and the random seed line,
/// then the test's own lines (`test_lines`, (level, text)), then
/// "Initializing worker threads..." up to "Threads started!".
pub fn start(v: u32, echo: &Echo, test_lines: &[(u32, String)]) -> String {
    options_echo(v, echo, test_lines) + &threads_started(v, echo)
}

/// `start`'s first part: the options and the test's own lines.
pub fn options_echo(v: u32, echo: &Echo, test_lines: &[(u32, String)]) -> String {
    let mut l = Lines::new(v);
    l.notice("Running the test with following options:");
    l.notice(&format!("Number of threads: {}", echo.threads));
    if echo.rate > 0 {
        l.notice(&format!("Target transaction rate: {}/sec", echo.rate));
    }
    if echo.report_interval != 0 {
        l.notice(&format!(
            "Report intermediate results every {} second(s)",
            echo.report_interval
        ));
    }
    if !echo.checkpoints.is_empty() {
        let list: Vec<String> = echo.checkpoints.iter().map(u64::to_string).collect();
        l.notice(&format!(
            "Report checkpoint(s) at {} seconds",
            list.join(", ")
        ));
    }
    if echo.debug {
        l.notice("Debug mode enabled.\n");
    }
    if echo.validate {
        l.notice("Validation checks: on.\n");
    }
    if echo.rand_seed == 0 {
        l.notice("Initializing random number generator from current time\n");
    } else {
        l.notice(&format!(
            "Initializing random number generator from seed ({}).\n",
            echo.rand_seed
        ));
    }
    if let Some(s) = echo.forced_shutdown_s {
        l.notice(&format!("Forcing shutdown in {s} seconds"));
    }
    l.notice("");
    for (level, line) in test_lines {
        l.at(*level, line);
    }
    l.text()
}

/// `start`'s second part: the threads starting.
pub fn threads_started(v: u32, echo: &Echo) -> String {
    let mut l = Lines::new(v);
    l.notice("Initializing worker threads...\n");
    l.text() + &workers_ready(v, echo)
}

/// From the threads' start to "Threads started!": the background and
/// worker threads' DEBUG lines (verbosity 5), in the order sysbench
/// creates them.
pub fn workers_ready(v: u32, echo: &Echo) -> String {
    let mut l = Lines::new(v);
    if echo.report_interval > 0 {
        l.at(DEBUG, "DEBUG: Reporting thread started");
    }
    if echo.rate > 0 {
        l.at(DEBUG, "DEBUG: Event generating thread started");
    }
    if !echo.checkpoints.is_empty() {
        l.at(DEBUG, "DEBUG: Checkpoints report thread started");
    }
    for i in 0..echo.threads {
        l.at(DEBUG, &format!("DEBUG: Worker thread (#{i}) started"));
        l.at(DEBUG, &format!("DEBUG: Worker thread (#{i}) initialized"));
    }
    l.notice("Threads started!\n");
    l.text()
}

/// A generic interval line (cpu, threads, mutex).
pub fn interval(iv: &Interval, percentile: u32) -> String {
    format!(
        "[ {:.0}s ] thds: {} eps: {:.2} lat (ms,{percentile}%): {:.2}",
        iv.at_s,
        iv.threads,
        rate(iv.events as f64, iv.seconds),
        iv.latency_pct_ms
    )
}

/// `x` per second over `seconds` (0 when no time passed).
pub fn rate(x: f64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        x / seconds
    } else {
        0.0
    }
}

/// From the end of the run up to the test's result section: why it
/// stopped and "Done." (verbosity 4), `--histogram`'s table.
/// (Each thread says why it stopped; sysbench's log folds the repeats.)
pub fn finish(v: u32, stats: &RunStats, histogram: bool) -> String {
    let mut l = Lines::new(v);
    let why = if stats.time_limit_hit {
        Some("Time limit exceeded, exiting...")
    } else if stats.event_limit_hit {
        Some("Event limit exceeded, exiting...")
    } else {
        None
    };
    if let Some(why) = why {
        l.at(INFO, why);
        let others = stats.per_thread.len().saturating_sub(1);
        if others > 0 {
            l.at(INFO, &format!("(last message repeated {others} times)"));
        }
    }
    l.at(INFO, "Done.\n");
    if histogram {
        l.notice("Latency histogram (values are in milliseconds)");
        l.notice(&histogram_rows(&stats.counts));
        l.notice(" ");
    }
    l.text()
}

/// The histogram's header and rows (no final newline).
pub fn histogram_rows(counts: &Counts) -> String {
    let rows = counts.rows();
    let most = rows.iter().map(|(_, c)| *c).max().unwrap_or(0).max(1);
    let mut out = String::from("       value  ------------- distribution ------------- count");
    for (value, count) in rows {
        let width = ((count as f64 * 40.0 / most as f64) + 0.5).floor() as usize;
        out.push_str(&format!(
            "\n{value:12.3} |{:<40} {count}",
            "*".repeat(width.min(40))
        ));
    }
    out
}

/// The cpu test's result section.
pub fn cpu_result(v: u32, stats: &RunStats) -> String {
    let mut l = Lines::new(v);
    l.notice("CPU speed:");
    l.notice(&format!(
        "    events per second: {:8.2}",
        rate(stats.events as f64, stats.total_s)
    ));
    l.text()
}

/// The memory test's option lines.
pub fn memory_lines(block: u64, total: u64, oper: &str, scope: &str) -> Vec<(u32, String)> {
    vec![(
        NOTICE,
        format!(
            "Running memory speed test with the following options:\n  block size: {}KiB\n  total size: {}MiB\n  operation: {oper}\n  scope: {scope}\n",
            block / 1024,
            total / (1 << 20)
        ),
    )]
}

/// A memory interval line; `block` is the bytes one event moves.
pub fn memory_interval(iv: &Interval, block: u64) -> String {
    format!(
        "[ {:.0}s ] {:.2} MiB/sec",
        iv.at_s,
        rate(mib(iv.events * block), iv.seconds)
    )
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1u32 << 20)
}

/// The memory test's result section (`--memory-oper=none` moves no data:
/// no transfer line).
pub fn memory_result(v: u32, stats: &RunStats, block: u64, moves_data: bool) -> String {
    let mut l = Lines::new(v);
    l.notice(&format!(
        "Total operations: {} ({:8.2} per second)\n",
        stats.events,
        rate(stats.events as f64, stats.total_s)
    ));
    let moved = mib(stats.events * block);
    if !moves_data {
        return l.text();
    }
    l.notice(&format!(
        "{moved:.2} MiB transferred ({:.2} MiB/sec)\n",
        rate(moved, stats.total_s)
    ));
    l.text()
}

/// "Extra file open flags: …" as sysbench words them.
pub fn extra_flags(f: &ExtraFlags) -> String {
    if *f == ExtraFlags::default() {
        return "(none)".to_string();
    }
    let mut t = String::new();
    if f.sync {
        t.push_str("sync ");
    }
    if f.dsync {
        t.push_str("dsync ");
    }
    if f.direct {
        t.push_str("directio");
    }
    t
}

/// `fileio prepare`'s first lines.
pub fn fileio_prepare_head(o: &FileOptions) -> String {
    format!(
        "{} files, {}Kb each, {}Mb total\nCreating files for the test...\nExtra file open flags: {}",
        o.num,
        o.file_size() / 1024,
        o.total >> 20,
        extra_flags(&o.flags)
    )
}

/// `fileio prepare`'s lines after the head.
pub fn fileio_prepared(p: &Prepared) -> String {
    let mut t = String::new();
    for (name, reused) in &p.files {
        let verb = if *reused {
            "Reusing existing file"
        } else {
            "Creating file"
        };
        t.push_str(&format!("{verb} {name}\n"));
    }
    if p.bytes == 0 {
        t.push_str("No bytes written.");
    } else {
        t.push_str(&format!(
            "{} bytes written in {:.2} seconds ({:.2} MiB/sec).",
            p.bytes,
            p.seconds,
            rate(mib(p.bytes), p.seconds)
        ));
    }
    t
}

/// `fileio run`'s option lines.
pub fn fileio_lines(o: &FileOptions, mode: Mode, events: u64) -> Vec<(u32, String)> {
    let mut l = vec![
        format!("Extra file open flags: {}", extra_flags(&o.flags)),
        format!("{} files, {} each", o.num, size_text(o.file_size())),
        format!("{} total file size", size_text(o.total)),
        format!("Block size {}", size_text(o.block)),
    ];
    if mode.random() {
        l.push(format!("Number of IO requests: {events}"));
        l.push(format!(
            "Read/Write ratio for combined random IO test: {:.2}",
            o.rw_ratio
        ));
    }
    if o.fsync_all {
        l.push("Calling fsync() after each write operation.".to_string());
    } else {
        if o.fsync_freq > 0 {
            l.push(format!(
                "Periodic FSYNC enabled, calling fsync() each {} requests.",
                o.fsync_freq
            ));
        }
        if o.fsync_end {
            l.push("Calling fsync() at the end of test, Enabled.".to_string());
        }
    }
    l.push(if o.mmap {
        "Using fast mmaped I/O mode".to_string()
    } else if o.async_backlog.is_some() {
        "Using asynchronous I/O mode".to_string()
    } else {
        "Using synchronous I/O mode".to_string()
    });
    let doing = match mode {
        Mode::SeqWr => "sequential write (creation)",
        Mode::SeqRewr => "sequential rewrite",
        Mode::SeqRd => "sequential read",
        Mode::RndRd => "random read",
        Mode::RndWr => "random write",
        Mode::RndRw => "random r/w",
    };
    l.push(format!("Doing {doing} test"));
    l.into_iter().map(|t| (NOTICE, t)).collect()
}

pub use crate::hostbench::fileio::FileOps;

/// A fileio interval line.
pub fn fileio_interval(iv: &Interval, ops: FileOps, block: u64, percentile: u32) -> String {
    format!(
        "[ {:.0}s ] reads: {:.2} MiB/s writes: {:.2} MiB/s fsyncs: {:.2}/s latency (ms,{percentile}%): {:.3}",
        iv.at_s,
        rate(mib(ops.reads * block), iv.seconds),
        rate(mib(ops.writes * block), iv.seconds),
        rate(ops.fsyncs as f64, iv.seconds),
        iv.latency_pct_ms
    )
}

/// The fileio test's result section.
pub fn fileio_result(v: u32, stats: &RunStats, ops: FileOps, block: u64) -> String {
    let t = stats.total_s;
    let mut l = Lines::new(v);
    l.notice("");
    l.notice("File operations:");
    l.notice(&format!(
        "    reads/s:                      {:.2}",
        rate(ops.reads as f64, t)
    ));
    l.notice(&format!(
        "    writes/s:                     {:.2}",
        rate(ops.writes as f64, t)
    ));
    l.notice(&format!(
        "    fsyncs/s:                     {:.2}",
        rate(ops.fsyncs as f64, t)
    ));
    l.notice("");
    l.notice("Throughput:");
    l.notice(&format!(
        "    read, MiB/s:                  {:.2}",
        rate(mib(ops.reads * block), t)
    ));
    l.notice(&format!(
        "    written, MiB/s:               {:.2}",
        rate(mib(ops.writes * block), t)
    ));
    l.text()
}

/// General statistics, Latency (ms) and Threads fairness; with `debug`
/// (--debug), each thread's figures after them.
pub fn general(v: u32, stats: &RunStats, percentile: u32, debug: bool) -> String {
    let mut l = Lines::new(v);
    l.notice("");
    l.notice("General statistics:");
    l.notice(&format!(
        "    total time:                          {:.4}s",
        stats.total_s
    ));
    l.notice(&format!(
        "    total number of events:              {}",
        stats.events
    ));
    l.notice("");
    l.notice("Latency (ms):");
    l.notice(&format!("         min:{:>40.2}", stats.min_ms));
    l.notice(&format!("         avg:{:>40.2}", stats.avg_ms()));
    l.notice(&format!("         max:{:>40.2}", stats.max_ms));
    if percentile > 0 {
        l.notice(&format!(
            "        {percentile:>3}th percentile:{:>28.2}",
            stats.counts.percentile_ms(percentile)
        ));
    } else {
        l.notice("         percentile stats:               disabled");
    }
    l.notice(&format!("         sum:{:>40.2}", stats.sum_ms));
    l.notice("");
    let (ea, es, ta, ts) = stats.fairness();
    l.notice("Threads fairness:");
    l.notice(&format!(
        "    events (avg/stddev):           {ea:.4}/{es:3.2}"
    ));
    l.notice(&format!(
        "    execution time (avg/stddev):   {ta:.4}/{ts:3.2}"
    ));
    l.notice("");
    if debug {
        l.at(DEBUG, "DEBUG: Verbose per-thread statistics:\n");
        for (i, t) in stats.per_thread.iter().enumerate() {
            let avg = if t.events > 0 {
                t.busy_ns as f64 / t.events as f64
            } else {
                0.0
            };
            l.at(
                DEBUG,
                &format!(
                    "DEBUG:     thread #{i:3}: min: {:.4}s  avg: {:.4}s  max: {:.4}s  events: {}",
                    t.min_ns as f64 / 1e9,
                    avg / 1e9,
                    t.max_ns as f64 / 1e9,
                    t.events
                ),
            );
            l.at(
                DEBUG,
                &format!(
                    "DEBUG:                  total time taken by event execution: {:.4}s",
                    t.busy_ns as f64 / 1e9
                ),
            );
        }
        l.notice("");
    }
    l.text()
}

/// `sysbench TEST help`: the test's options.
pub fn help(test: &str) -> &'static str {
    match test {
        "cpu" => include_str!("host_help/cpu.txt"),
        "memory" => include_str!("host_help/memory.txt"),
        "threads" => include_str!("host_help/threads.txt"),
        "mutex" => include_str!("host_help/mutex.txt"),
        "fileio" => include_str!("host_help/fileio.txt"),
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hostbench::driver::ThreadTotals;

    #[test]
    fn general_statistics_line_up_as_sysbench_prints_them() {
        let s = RunStats {
            total_s: 1.0002,
            events: 2570,
            min_ms: 0.34,
            max_ms: 3.15,
            sum_ms: 998.97,
            counts: Counts::default(),
            per_thread: vec![ThreadTotals {
                events: 2570,
                busy_ns: 999_000_000,
                min_ns: 340_000,
                max_ns: 3_150_000,
            }],
            time_limit_hit: true,
            event_limit_hit: false,
            queue_full: false,
        };
        let t = general(3, &s, 95, false);
        assert!(t.contains("\n         min:                                    0.34\n"));
        assert!(t.contains("\n         95th percentile:                        0.00\n"));
        assert!(t.contains("\n    events (avg/stddev):           2570.0000/0.00\n"));
        assert!(general(3, &s, 5, false).contains("\n          5th percentile:"));
        let debug = general(5, &s, 95, true);
        assert!(debug.contains(
            "\nDEBUG:     thread #  0: min: 0.0003s  avg: 0.0004s  max: 0.0032s  events: 2570\n"
        ));
        assert_eq!(general(2, &s, 95, false), "");
    }
}
