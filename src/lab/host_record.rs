//! Recording a built-in host test (`cpu`, `memory`, `threads`, `mutex`,
//! `fileio`) in the results store like any run: a run row with the host's
//! document and the test's options, a sample per interval, totals
//! (events; fileio's reads, writes and fsyncs as the run's reads, writes
//! and others), the latency histogram and the test's own figures in the
//! document's `host_test` block. It runs nothing: the caller measured.

use super::environment_capture::Environment;
use super::tags::RunTags;
use crate::hostbench::driver::Interval as HostInterval;
use crate::hostbench::fileio::FileOps;
use crate::hostbench::latency::Counts;
use crate::hostbench::outcome::Measured;
use crate::stats::document::{HostFigure, HostTestBlock, OptionsDocument, RunOptions};
use crate::stats::{Hist, Interval, RunResult, RunStatus, Sample};
use anyhow::{Context, Result};
use std::path::Path;

/// A host test to record.
pub struct HostRecord<'a> {
    /// The test's name ("cpu").
    pub test: &'a str,
    /// Its options: the general ones, and the test's own under `oltp`
    /// (the document's key for a workload's options).
    pub options: RunOptions,
    /// What it measured; None when it failed before measuring.
    pub measured: Option<&'a Measured>,
    /// Its figures in sysbench's units (`hostbench::outcome::figures`).
    pub figures: Vec<HostFigure>,
    /// How it ended.
    pub status: RunStatus,
    /// Label, campaign, command line.
    pub tags: RunTags,
}

/// The percentiles a host test's document reports.
const PCTS: [f64; 4] = [50.0, 95.0, 99.0, 99.9];

/// Records `r` in the store at `store` (default: the state directory's);
/// returns the run's id.
pub fn record_host_test(store: Option<&Path>, r: &HostRecord) -> Result<i64> {
    let store = super::record::open_store(store)?;
    let env = Environment::without_server();
    let mut new = env.new_run(
        &r.tags,
        r.test,
        r.options.threads,
        OptionsDocument::Load(r.options.clone()),
    );
    new.started_at = r
        .measured
        .map(|m| crate::stats::clock::utc_text(m.started_unix));
    let id = store
        .begin_run(&new)
        .with_context(|| format!("cannot record the run in {}", store.path().display()))?;
    let result = run_result(r);
    for (seq, s) in result.samples.iter().enumerate() {
        store.add_sample(id, seq, s, &[])?;
    }
    let mut doc = super::summary::document_of(
        r.test,
        r.options.clone(),
        &result,
        &PCTS,
        &r.tags.command_line,
    );
    doc.host_test = Some(HostTestBlock {
        test: r.test.to_string(),
        events_per_s: result.tps(),
        latency_avg_ms: r.measured.map_or(0.0, |m| m.stats.avg_ms()),
        figures: r.figures.clone(),
    });
    store.finish_run(id, &result, &doc).with_context(|| {
        format!(
            "cannot store the end of run {id} in {}",
            store.path().display()
        )
    })?;
    Ok(id)
}

/// sysbench's latency buckets as a histogram (each bucket's value, in µs).
fn hist_of(c: &Counts) -> Hist {
    let mut h = Hist::new();
    for (ms, n) in c.rows() {
        h.record_n((ms * 1000.0).round() as u64, n);
    }
    h
}

/// One interval (or the whole run) as the store counts it.
fn interval_of(events: u64, ops: FileOps, counts: &Counts) -> Interval {
    Interval {
        events,
        reads: ops.reads,
        writes: ops.writes,
        others: ops.fsyncs,
        hist: hist_of(counts),
        ..Interval::default()
    }
}

fn sample_of(iv: &HostInterval, ops: FileOps) -> Sample {
    Sample {
        t: iv.at_s,
        dur: iv.seconds,
        warmup: false,
        sliver: false,
        iv: interval_of(iv.events, ops, &iv.counts),
        client_cpu_s: 0.0,
        host_cpu_s: 0.0,
        host_busy: 0.0,
    }
}

fn run_result(r: &HostRecord) -> RunResult {
    let Some(m) = r.measured else {
        return RunResult::empty(r.status.clone());
    };
    let s = &m.stats;
    RunResult {
        total: interval_of(s.events, m.ops, &s.counts),
        elapsed: s.total_s,
        thread_events: s.per_thread.iter().map(|t| t.events).collect(),
        thread_time: s
            .per_thread
            .iter()
            .map(|t| t.busy_ns as f64 / 1e9)
            .collect(),
        client_cpu_s: m.client_cpu_s,
        host_cpu_s: m.host_cpu_s,
        host_busy: m.host_busy,
        samples: m
            .intervals
            .iter()
            .map(|(iv, o)| sample_of(iv, *o))
            .collect(),
        ..RunResult::empty(r.status.clone())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_store_knows_the_host_tests_by_hostbench_s_names() {
        let names: Vec<&str> = crate::hostbench::BUILTINS.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, crate::store::HOST_TESTS);
    }
}
