//! Round trips of the documents (value → JSON → value) and documents as
//! the code before versions wrote them (tests/fixtures, made by that
//! code), read and written back key for key.

use super::*;
use serde_json::{json, Value};

fn latency(p95: f64) -> LatencyMs {
    LatencyMs {
        percentiles: [("p95".to_string(), p95), ("p99.9".to_string(), 2.0 * p95)]
            .into_iter()
            .collect(),
        min: Some(0.1),
        avg: p95 / 2.0,
        max: 3.0 * p95,
    }
}

fn a_document() -> RunDocument {
    RunDocument {
        version: RUN_DOCUMENT_VERSION,
        qpslab_version: "0.1.0".into(),
        command_line: "qpslab run oltp_read_only".into(),
        status: RunStatus::Degraded("3 events failed".into()),
        workload: "oltp_read_only".into(),
        options: RunOptions {
            threads: 4,
            time: 10.0,
            ignore_errors: IgnoreErrors::Codes(vec![1213]),
            oltp: json!({"tables": 2}),
            ..Default::default()
        },
        totals: Totals {
            transactions: 100,
            tps: 10.0,
            errors_by_code: [("1213".to_string(), 2)].into_iter().collect(),
            latency_ms: latency(1.5),
            schedule_lag_ms: Some(latency(0.2)),
            generator_late_intervals: Some(1),
            ..Default::default()
        },
        tpcc: Some(TpccBlock {
            nopm: 12.5,
            transactions: vec![TpccTransaction {
                kind: "new_order".into(),
                count: 5,
                per_minute: 12.5,
                latency_ms: LatencyMs {
                    min: None,
                    ..latency(4.0)
                },
            }],
            ..Default::default()
        }),
        stability: Some(Stability {
            intervals: 10,
            cov: 0.2,
            flag: Some("unstable".into()),
            ..Default::default()
        }),
        latency_by_statement: vec![StatementLatency {
            statement: "point_selects".into(),
            count: 1000,
            latency_ms: latency(0.3),
        }],
        intervals: vec![IntervalFigures {
            t: 1.0,
            by_class: Some(vec![3, 4]),
            generator_late: Some(false),
            latency_ms: latency(1.0),
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[test]
fn a_run_document_round_trips() {
    let d = a_document();
    let v = d.to_json();
    assert_eq!(v["version"], json!(RUN_DOCUMENT_VERSION));
    assert_eq!(
        v["status"],
        json!({"status": "degraded", "reason": "3 events failed"})
    );
    assert_eq!(v["options"]["ignore_errors"], json!({"Codes": [1213]}));
    assert_eq!(
        v["totals"]["latency_ms"],
        json!({"p95": 1.5, "p99.9": 3.0, "min": 0.1, "avg": 0.75, "max": 4.5})
    );
    // TPC-C's per-type latency has no minimum.
    assert!(v["tpcc"]["transactions"][0]["latency_ms"]
        .get("min")
        .is_none());
    assert_eq!(v["tpcc"]["transactions"][0]["type"], json!("new_order"));
    let back: RunDocument = serde_json::from_str(&v.to_string()).unwrap();
    assert_eq!(back, d);
}

#[test]
fn a_null_latency_reads_as_nan() {
    let l: LatencyMs =
        serde_json::from_value(json!({"p95": null, "avg": 1.0, "max": 2.0})).unwrap();
    assert!(l.percentile("p95").is_nan() && l.percentile("p50").is_nan());
    assert_eq!((l.min, l.avg, l.max), (None, 1.0, 2.0));
}

/// A TPC-C run's summary as the code before versions stored it reads
/// (version 0) and writes back key for key, value for value (plus the
/// version): `run --format json` keeps its keys and nesting.
#[test]
fn a_summary_without_a_version_reads_and_keeps_its_keys() {
    let text = include_str!("../../../tests/fixtures/summary-v0-tpcc.json");
    let old: Value = serde_json::from_str(text).unwrap();
    let d: RunDocument = serde_json::from_str(text).unwrap();
    assert_eq!(d.version, 0);
    assert_eq!(d.status, RunStatus::Ok);
    assert_eq!(d.workload, "tpcc-1w");
    assert_eq!(
        d.options.ignore_errors,
        IgnoreErrors::Codes(vec![1213, 1205, 1020])
    );
    assert!(d.totals.latency_ms.percentile("p99.9") > 0.0);
    let tpcc = d.tpcc.as_ref().expect("the TPC-C block");
    assert!(tpcc.nopm > 0.0 && tpcc.transactions[0].kind == "new_order");
    assert_eq!(
        tpcc.headline.as_ref().map(|h| h.name.as_str()),
        Some("tpmC")
    );
    assert_eq!(d.intervals[0].by_class.as_ref().map(Vec::len), Some(6));
    let mut expected = old.clone();
    expected["version"] = json!(0);
    assert_eq!(d.to_json(), expected);
}

/// A profile summary as the code before versions stored it reads and
/// writes back key for key.
#[test]
fn an_old_profile_summary_reads_and_keeps_its_keys() {
    let text = include_str!("../../../tests/fixtures/profile-v0-syscalls.json");
    let old: Value = serde_json::from_str(text).unwrap();
    let p: ProfileSummary = serde_json::from_str(text).unwrap();
    let KindFigures::Syscalls { sides, .. } = &p.kinds[0].figures else {
        panic!("syscalls: {:?}", p.kinds[0]);
    };
    assert!(sides["server"].per_query.is_some_and(|q| q > 0.0));
    assert_eq!(serde_json::to_value(&p).unwrap(), old);
}

#[test]
fn profile_kinds_round_trip() {
    let p = ProfileSummary {
        hz: 99,
        queries: Some(10),
        kinds: vec![
            KindSummary {
                kind: "cpu".into(),
                started_at: 1.0,
                seconds: 2.0,
                collector_cpu_s: Some(0.1),
                figures: KindFigures::Stacks {
                    weight: 30,
                    stacks: 2,
                    top_self: vec![Share {
                        name: "f".into(),
                        samples: 30,
                        pct: 100.0,
                    }],
                },
            },
            KindSummary {
                kind: "offcpu".into(),
                started_at: 1.0,
                seconds: 0.0,
                collector_cpu_s: None,
                figures: KindFigures::Failed {
                    error: "no perf".into(),
                },
            },
            KindSummary {
                kind: "waits".into(),
                started_at: 1.0,
                seconds: 2.0,
                collector_cpu_s: None,
                figures: KindFigures::Waits {
                    threads: 3,
                    timed_instruments: 1,
                    instruments: 2,
                    top_events: vec![("wait/io".into(), 0.5)],
                },
            },
        ],
        locks: Some(LockShares {
            source: "stacks".into(),
            shares: vec![("buffer pool".into(), 0.2)],
            top_stack: None,
        }),
    };
    let text = serde_json::to_string(&p).unwrap();
    assert_eq!(serde_json::from_str::<ProfileSummary>(&text).unwrap(), p);
}

#[test]
fn options_documents_tell_a_monitor_session_from_a_load() {
    let m: OptionsDocument = serde_json::from_value(
        json!({"monitor_interval": 1.0, "monitor_off": "", "monitor_rates": "", "time": 2.0}),
    )
    .unwrap();
    assert!(matches!(m, OptionsDocument::Monitor(_)));
    assert_eq!((m.time(), m.warmup_time()), (2.0, 0.0));
    let l: OptionsDocument =
        serde_json::from_value(json!({"time": 3.0, "warmup_time": 1.0, "threads": 2})).unwrap();
    assert_eq!((l.time(), l.warmup_time()), (3.0, 1.0));
    let host: HostDocument = serde_json::from_value(json!({"hostname": "vm", "cpus": 2,
        "preflight": {"loop_cov": 0.01, "host_busy_outside_qpslab": 0.2, "seconds": 1.0, "load_average": "0.5"}}))
    .unwrap();
    assert_eq!(
        host.preflight.map(|p| p.host_busy_outside_qpslab),
        Some(0.2)
    );
}
