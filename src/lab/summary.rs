//! A run's summary document: every option, total, rate, percentile and
//! error count of the run as one typed `RunDocument`. Stored with the run
//! and printed as it is by `run --format json`, so the two never differ.

use crate::exec::RunConfig;
use crate::stats::document::{
    ClientFigures, IntervalFigures, LatencyMs, RunDocument, RunOptions, StatementLatency,
    ThreadsFairness, Totals, RUN_DOCUMENT_VERSION,
};
use crate::stats::{RunResult, Sample};

/// The run's document, at the current version.
pub fn document(cfg: &RunConfig, r: &RunResult, pcts: &[f64], command_line: &str) -> RunDocument {
    document_of(
        cfg.workload.name(),
        cfg.options_document(),
        r,
        pcts,
        command_line,
    )
}

/// The document of a run of `workload` with `options` (a database run's
/// from its `RunConfig`, a host test's from its own).
pub fn document_of(
    workload: &str,
    options: RunOptions,
    r: &RunResult,
    pcts: &[f64],
    command_line: &str,
) -> RunDocument {
    RunDocument {
        version: RUN_DOCUMENT_VERSION,
        qpslab_version: env!("CARGO_PKG_VERSION").to_string(),
        git_hash: env!("QPSLAB_GIT_HASH").to_string(),
        command_line: command_line.to_string(),
        status: r.status.clone(),
        server_version: r.server_version.clone(),
        workload: workload.to_string(),
        options,
        totals: totals(r, pcts),
        tpcc: crate::analyze::tpcc_figures::document(r, pcts),
        host_test: None,
        ibench_phase: None,
        dbt3: None,
        operations: crate::analyze::class_figures::operations(r, pcts),
        stability: crate::analyze::stability::of_run(r),
        latency_by_statement: r
            .kinds
            .iter()
            .map(|k| StatementLatency {
                statement: k.name.clone(),
                count: k.count,
                latency_ms: LatencyMs::of(&k.hist, pcts, true),
            })
            .collect(),
        client: client(r),
        threads_fairness: ThreadsFairness::of(&r.thread_events, &r.thread_time),
        intervals: r
            .samples
            .iter()
            .map(|s| interval(s, r.classes.len(), pcts))
            .collect(),
        agents: r.agents.clone(),
    }
}

fn totals(r: &RunResult, pcts: &[f64]) -> Totals {
    let t = &r.total;
    Totals {
        seconds: r.elapsed,
        transactions: t.events,
        tps: r.tps(),
        queries: t.queries(),
        qps: r.qps(),
        reads: t.reads,
        writes: t.writes,
        other: t.others,
        ignored_errors: t.ignored_errors(),
        errors_by_code: t
            .errors
            .0
            .iter()
            .map(|(c, n)| (c.to_string(), *n))
            .collect(),
        reconnects: t.reconnects,
        failed_events: t.failed,
        failed_reconnects: t.failed_connects,
        unreachable_seconds: r.unreachable_s,
        latency_ms: LatencyMs::of(&t.hist, pcts, true),
        schedule_lag_ms: t.lag.as_ref().map(|h| LatencyMs::of(h, pcts, true)),
        generator_late_intervals: t.lag.as_ref().map(|_| {
            r.samples
                .iter()
                .filter(|s| !s.warmup && s.iv.generator_late())
                .count() as u64
        }),
    }
}

fn client(r: &RunResult) -> ClientFigures {
    ClientFigures {
        load_cpu_seconds: r.total.load_cpu_s,
        load_cpu_us_per_query: r.load_us_per_query(),
        tool_cpu_ms_per_s: r.tool_cpu_ms_per_s(),
        process_cpu_seconds: r.client_cpu_s,
        process_cpu_us_per_query: r.client_us_per_query(),
        cpu_seconds: r.client_cpu_s,
        cpu_us_per_query: r.client_us_per_query(),
        host_cpu_share: if r.host_cpu_s > 0.0 {
            r.client_cpu_s / r.host_cpu_s
        } else {
            0.0
        },
        host_busy: r.host_busy,
        text_protocol_fallbacks: r.text_fallbacks,
        shards: r.client_shards as u64,
        direct_io_connections: r.direct_connections as u64,
        io_uring_connections: r.uring_connections as u64,
        direct_io_uring_connections: r.direct_ring_connections as u64,
        result_metadata_off_connections: r.metadata_off_connections as u64,
        pinned_cpus: crate::stats::cpu_list_text(&r.client_cpus),
        sched: if r.client_sched_batch {
            "batch"
        } else {
            "normal"
        }
        .to_string(),
    }
}

fn interval(s: &Sample, classes: usize, pcts: &[f64]) -> IntervalFigures {
    IntervalFigures {
        t: s.t,
        dur: s.dur,
        warmup: s.warmup,
        tps: s.tps(),
        qps: s.qps(),
        reads: s.iv.reads,
        writes: s.iv.writes,
        other: s.iv.others,
        errors: s.iv.errors.total(),
        reconnects: s.iv.reconnects,
        failed_events: s.iv.failed,
        failed_reconnects: s.iv.failed_connects,
        backlog: s.iv.backlog,
        lag_p99_ms: s.iv.lag_p99_ms(),
        generator_late: s.iv.lag.as_ref().map(|_| s.iv.generator_late()),
        by_class: (classes > 0).then(|| s.iv.classes[..classes].to_vec()),
        latency_ms: LatencyMs::of(&s.iv.hist, pcts, true),
        client_cpu_s: s.client_cpu_s,
        load_cpu_s: s.iv.load_cpu_s,
        host_cpu_s: s.host_cpu_s,
        host_busy: s.host_busy,
    }
}
