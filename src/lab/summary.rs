//! A run's summary document: every option, total, rate, percentile and
//! error count of the run as one JSON value. Stored with the run and
//! printed as it is by `run --format json`, so the two never differ.

use crate::exec::RunConfig;
use crate::stats::pct_label;
use crate::stats::RunResult;
use serde_json::{json, Map, Value};

fn percentiles(h: &crate::stats::Hist, pcts: &[f64]) -> Value {
    let mut m = Map::new();
    for p in pcts {
        m.insert(
            format!("p{}", pct_label(*p)),
            json!(h.quantile_ms(p / 100.0)),
        );
    }
    m.insert("min".into(), json!(h.min_ms()));
    m.insert("avg".into(), json!(h.mean_ms()));
    m.insert("max".into(), json!(h.max_ms()));
    Value::Object(m)
}

pub fn document(cfg: &RunConfig, r: &RunResult, pcts: &[f64], command_line: &str) -> Value {
    let t = &r.total;
    let secs = r.elapsed;
    let errors: Map<String, Value> = t
        .errors
        .0
        .iter()
        .map(|(c, n)| (c.to_string(), json!(n)))
        .collect();
    json!({
        "qpslab_version": env!("CARGO_PKG_VERSION"),
        "git_hash": env!("QPSLAB_GIT_HASH"),
        "command_line": command_line,
        "status": r.status,
        "server_version": r.server_version,
        "workload": cfg.workload.name(),
        "options": cfg.options_json(),
        "totals": {
            "seconds": secs,
            "transactions": t.events,
            "tps": r.tps(),
            "queries": t.queries(),
            "qps": r.qps(),
            "reads": t.reads, "writes": t.writes, "other": t.others,
            "ignored_errors": t.ignored_errors(),
            "errors_by_code": errors,
            "reconnects": t.reconnects,
            "failed_events": t.failed,
            "failed_reconnects": t.failed_connects,
            "unreachable_seconds": r.unreachable_s,
            "latency_ms": percentiles(&t.hist, pcts),
            "schedule_lag_ms": t.lag.as_ref().map(|h| percentiles(h, pcts)),
            "generator_late_intervals": t.lag.as_ref().map(|_| r.samples.iter().filter(|s| !s.warmup && s.iv.generator_late()).count()),
        },
        "tpcc": crate::analyze::tpcc::document(r, pcts),
        "stability": crate::analyze::stability::of_run(r),
        "latency_by_statement": r.kinds.iter().map(|k| json!({
            "statement": k.name,
            "count": k.count,
            "latency_ms": percentiles(&k.hist, pcts),
        })).collect::<Vec<_>>(),
        "client": {
            "load_cpu_seconds": t.load_cpu_s,
            "load_cpu_us_per_query": r.load_us_per_query(),
            "tool_cpu_ms_per_s": r.tool_cpu_ms_per_s(),
            "process_cpu_seconds": r.client_cpu_s,
            "process_cpu_us_per_query": r.client_us_per_query(),
            "cpu_seconds": r.client_cpu_s,
            "cpu_us_per_query": r.client_us_per_query(),
            "host_cpu_share": if r.host_cpu_s > 0.0 { r.client_cpu_s / r.host_cpu_s } else { 0.0 },
            "host_busy": r.host_busy,
            "text_protocol_fallbacks": r.text_fallbacks,
            "shards": r.client_shards,
            "direct_io_connections": r.direct_connections,
            "io_uring_connections": r.uring_connections,
            "direct_io_uring_connections": r.direct_ring_connections,
            "result_metadata_off_connections": r.metadata_off_connections,
            "pinned_cpus": crate::stats::cpu_list_text(&r.client_cpus),
            "sched": if r.client_sched_batch { "batch" } else { "normal" },
        },
        "threads_fairness": { "events": r.thread_events, "execution_time": r.thread_time },
        "intervals": r.samples.iter().map(|s| json!({
            "t": s.t, "dur": s.dur, "warmup": s.warmup,
            "tps": s.tps(),
            "qps": s.qps(),
            "reads": s.iv.reads, "writes": s.iv.writes, "other": s.iv.others,
            "errors": s.iv.errors.total(), "reconnects": s.iv.reconnects,
            "failed_events": s.iv.failed, "failed_reconnects": s.iv.failed_connects,
            "backlog": s.iv.backlog,
            "lag_p99_ms": s.iv.lag_p99_ms(),
            "generator_late": s.iv.lag.as_ref().map(|_| s.iv.generator_late()),
            "by_class": if r.classes.is_empty() { Value::Null } else { json!(&s.iv.classes[..r.classes.len()]) },
            "latency_ms": percentiles(&s.iv.hist, pcts),
            "client_cpu_s": s.client_cpu_s,
            "load_cpu_s": s.iv.load_cpu_s,
            "host_cpu_s": s.host_cpu_s,
            "host_busy": s.host_busy,
        })).collect::<Vec<_>>(),
    })
}
