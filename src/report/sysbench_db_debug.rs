//! sysbench mode's `--db-debug` statistics: the lines sysbench 1.0.20's
//! database layer prints at --verbosity=5 after the SQL statistics, query
//! execution and results fetching times (min, avg, max, total, seconds).
//!
//! The figures are the run's own: execution is every statement's
//! latency as measured per statement kind (`RunResult::kinds`); fetching
//! is zero, as qpslab reads a result's rows with its response and has no
//! fetching step of its own (sysbench 1.0.20 prints zeros for both: its
//! timers are never started). It prints nothing else and computes
//! nothing that stats did not.

use crate::stats::RunResult;
use std::fmt::Write as _;

/// Appends the debug statistics to `o`.
pub(super) fn db_debug_statistics(o: &mut String, r: &RunResult) {
    let measured = r.kinds.iter().filter(|k| k.hist.count() > 0);
    let (mut count, mut total_ms) = (0u64, 0.0f64);
    let (mut min_ms, mut max_ms) = (f64::INFINITY, 0.0f64);
    for k in measured {
        let n = k.hist.count();
        count += n;
        total_ms += k.hist.mean_ms() * n as f64;
        min_ms = min_ms.min(k.hist.min_ms());
        max_ms = max_ms.max(k.hist.max_ms());
    }
    let execution = if count == 0 {
        [0.0; 4]
    } else {
        [min_ms, total_ms / count as f64, max_ms, total_ms].map(|ms| ms / 1000.0)
    };
    o.push_str("DEBUG: \n");
    for (title, secs) in [
        ("Query execution statistics", execution),
        ("Results fetching statistics", [0.0; 4]),
    ] {
        let _ = writeln!(o, "DEBUG: {title}:");
        for (label, s) in ["    min", "    avg", "    max", "  total"]
            .iter()
            .zip(secs)
        {
            // (32 blanks, then the figure unpadded, as sysbench's format)
            let _ = writeln!(o, "DEBUG: {label}:{:32}{s:.4}s", "");
        }
    }
}
