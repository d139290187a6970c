//! Other engines: MySQL 5.5.9 (the Maven Central MXJ jar, fetched by
//! `qpslab server get`) runs every built-in workload, TPC-C and a sysbench
//! script, every collector that applies yields numbers; `server get` from a
//! file, a loopback mirror, with checksums and bad input; a campaign
//! compares MySQL 5.5.9, MariaDB 10.11 and MariaDB 11.4 best-to-best.
//!
//! Prerequisite: `mvn` (or the jars already in ~/.m2), as scripts/test.sh
//! installs; without it these tests fail with the reason.

mod common;
use common::{json, outcome, text, Lab};
use std::path::PathBuf;
use std::process::Command;

const MYSQL: &str = "m55";

/// A private state directory with a MySQL 5.5.9 sandbox (performance
/// schema on) started from the fetched build.
fn lab() -> &'static Lab {
    common::build_lab(
        "mysql-5.5.9",
        MYSQL,
        &[
            "performance_schema=ON",
            "innodb_buffer_pool_size=128M",
            "max_connections=300",
        ],
    )
}

fn on_mysql(args: &[&str]) -> std::process::Output {
    let mut a = args.to_vec();
    a.extend(["--server", MYSQL]);
    lab().qpslab(&a)
}

fn store(name: &str) -> String {
    lab().home.join(format!("{name}.db")).display().to_string()
}

#[test]
fn mysql_5_5_runs_every_builtin_workload() {
    let names = lab().oltp_workloads();
    // (a sandbox's database is created on first use)
    const DATA: [&str; 6] = ["--db", "wl", "--tables", "2", "--table-size", "2000"];
    let with_data = |head: &[&str], tail: &[&str]| on_mysql(&[head, &DATA[..], tail].concat());
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
        if w == "oltp_read_write" {
            // BEGIN cannot be prepared on 5.5: that statement alone ran as text.
            assert!(
                j["client"]["text_protocol_fallbacks"].as_u64().unwrap() >= 1,
                "{j}"
            );
        }
    }
    // The text protocol throughout, too.
    let o = with_data(
        &["run", "oltp_read_write"],
        &["--events", "100", "--db-ps-mode", "disable", "--store", &st],
    );
    assert!(o.status.success(), "{}", outcome(&o));
    // Results name the flavour and version.
    let o = lab().qpslab(&["runs", "--store", &st]);
    assert!(text(&o).contains("MySQL 5.5.9"), "{}", text(&o));
    let o = with_data(&["cleanup", "oltp_read_write"], &[]);
    assert!(o.status.success(), "{}", outcome(&o));
}

#[test]
fn mysql_5_5_runs_tpcc_and_sysbench_scripts() {
    let o = on_mysql(&["prepare", "tpcc", "--warehouses", "1", "--db", "tp"]);
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
        let o = on_mysql(&a);
        assert!(o.status.success(), "{extra:?}: {}", text(&o));
        let j = json(&o);
        assert_eq!(j["status"]["status"], "ok", "{j}");
        assert!(j["tpcc"]["nopm"].as_f64().unwrap() > 0.0, "{j}");
    }
    let o = on_mysql(&["check", "tpcc", "--warehouses", "1", "--db", "tp"]);
    assert!(
        o.status.success() && text(&o).contains("consistent"),
        "{}",
        text(&o)
    );
    // A sysbench Lua script (BEGIN prepared by the script: falls back to text).
    let script = "/usr/share/sysbench/oltp_read_write.lua";
    assert!(
        std::path::Path::new(script).exists(),
        "{script} is missing: apt-get install sysbench"
    );
    for cmd in ["prepare", "run", "cleanup"] {
        let mut a = vec![
            cmd,
            script,
            "--db",
            "tp",
            "--tables",
            "1",
            "--table-size",
            "500",
        ];
        if cmd == "run" {
            a.extend(["--events", "100", "--threads", "2"]);
        }
        let o = on_mysql(&a);
        assert!(o.status.success(), "{cmd}: {}", text(&o));
    }
}

#[test]
fn mysql_5_5_collectors_yield_numbers() {
    let o = on_mysql(&[
        "prepare",
        "oltp_read_write",
        "--db",
        "mon",
        "--table-size",
        "2000",
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let st = store("mon");
    let o = on_mysql(&[
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
    let m = &j["monitor"];
    for src in [
        "status",
        "ps_waits",
        "ps_files",
        "innodb_status",
        "threads",
        "innodb_mutex",
    ] {
        assert!(
            m["sources"][src]["polls"].as_u64().unwrap_or(0) >= 1,
            "{src} not polled: {m}"
        );
    }
    let notes = m["notes"].to_string();
    assert!(
        notes.contains("innodb_metrics") && notes.contains("not available"),
        "{notes}"
    );
    assert!(!notes.contains("Unknown column"), "{notes}");
    assert_eq!(m["server"]["performance_schema"], true, "{m}");
    // The stored series hold each source's numbers.
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
    assert!(has("ps_files", "%.reads"), "ps_files keys");
    assert!(has("ps_waits", "wait/%.count"), "ps_waits keys");
    assert!(has("innodb_mutex", "total.os_waits"), "innodb_mutex keys");
    assert!(has("innodb_status", "trx_id_counter"), "innodb_status keys");
    assert!(
        has("innodb_status", "history_list_length"),
        "innodb_status keys"
    );
    assert!(has("threads", "command.%"), "threads keys");
    // The run page names the server.
    let o = lab().qpslab(&["show", &id.to_string(), "--store", &st]);
    assert!(text(&o).contains("MySQL 5.5.9 (5.5.9"), "{}", text(&o));
}

/// Runs a loopback HTTP server over `dir` (python3's http.server) for the
/// mirror download; stopped when dropped.
struct Mirror(std::process::Child, u16);
impl Drop for Mirror {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn mirror(dir: &std::path::Path) -> Mirror {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("python3")
        .args([
            "-m",
            "http.server",
            "--bind",
            "127.0.0.1",
            &port.to_string(),
        ])
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("python3 for the loopback mirror");
    let mirror = Mirror(child, port);
    // Ready when it accepts (bounded: a slow python3 start fails the test
    // with the reason instead of a confusing download error later).
    let end = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < end,
            "the loopback mirror (python3 -m http.server on port {port}) did not accept within 30 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    mirror
}

fn sha256(path: &std::path::Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn server_get_from_files_mirrors_and_checksums() {
    let l = lab();
    // A tarball of the fetched tree, as a vendor would ship it.
    let tree: PathBuf = l.home.join("servers/mysql-5.5.9");
    assert!(tree.join("bin/mysqld").is_file() && tree.join("data-template/mysql").is_dir());
    let o = l.qpslab(&["server", "builds"]);
    assert!(
        text(&o).contains("mysql-5.5.9") && text(&o).contains("Maven Central"),
        "{}",
        text(&o)
    );
    let pub_dir = l.home.join("pub");
    std::fs::create_dir_all(&pub_dir).unwrap();
    let tarball = pub_dir.join("mysql-5.5.9-test.tar.gz");
    let st = Command::new("tar")
        .arg("czf")
        .arg(&tarball)
        .args([
            "--exclude",
            "qpslab-build.json",
            "--transform",
            "s,^mysql-5.5.9,mysql-5.5.9-linux-x86_64,",
        ])
        .arg("-C")
        .arg(l.home.join("servers"))
        .arg("mysql-5.5.9")
        .status()
        .unwrap();
    assert!(st.success());
    let sum = sha256(&tarball);
    let tb = tarball.display().to_string();
    // --from with the right checksum: unpacked as a second home's build.
    let other = Lab {
        home: l.home.join("other-home"),
    };
    let o = other.qpslab(&[
        "server",
        "get",
        "mysql-5.5.9",
        "--from",
        &tb,
        "--checksum",
        &format!("sha256:{sum}"),
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let printed = String::from_utf8_lossy(&o.stdout).trim().to_string();
    assert!(printed.ends_with("servers/mysql-5.5.9"), "{printed}");
    assert!(PathBuf::from(&printed).join("bin/mysqld").is_file());
    let meta = std::fs::read_to_string(PathBuf::from(&printed).join("qpslab-build.json")).unwrap();
    assert!(meta.contains(&sum), "{meta}");
    // A wrong checksum, a wrong name, a bad name, a missing file: one line each, nothing kept.
    let o = other.qpslab(&[
        "server",
        "get",
        "mysql-5.5.9",
        "--force",
        "--from",
        &tb,
        "--checksum",
        &format!("sha256:{}", "0".repeat(64)),
    ]);
    assert!(
        !o.status.success() && text(&o).contains("checksum mismatch"),
        "{}",
        text(&o)
    );
    let o = other.qpslab(&["server", "get", "mysql-5.6.51", "--from", &tb]);
    assert!(
        !o.status.success() && text(&o).contains("holds mysql-5.5.9"),
        "{}",
        text(&o)
    );
    assert!(!other.home.join("servers/mysql-5.6.51").exists());
    let o = other.qpslab(&["server", "get", "oracle-1"]);
    assert!(
        !o.status.success() && text(&o).contains("FLAVOR-VERSION"),
        "{}",
        text(&o)
    );
    assert_eq!(text(&o).trim().lines().count(), 1, "{}", text(&o));
    let o = other.qpslab(&["server", "get", "mysql-5.7.44"]);
    assert!(
        !o.status.success() && text(&o).contains("--checksum"),
        "{}",
        text(&o)
    );
    // A mirror on this host: downloaded over HTTP from loopback, checksum verified.
    let m = mirror(&pub_dir);
    let url = format!("http://127.0.0.1:{}/mysql-5.5.9-test.tar.gz", m.1);
    let o = other.qpslab(&[
        "server",
        "get",
        "mysql-5.5.9",
        "--force",
        "--url",
        &url,
        "--checksum",
        &format!("sha256:{sum}"),
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let meta =
        std::fs::read_to_string(other.home.join("servers/mysql-5.5.9/qpslab-build.json")).unwrap();
    assert!(meta.contains(&url), "{meta}");
    let o = other.qpslab(&["server", "get", "mysql-5.5.9", "--force", "--url", &url]);
    assert!(
        !o.status.success() && text(&o).contains("--checksum"),
        "{}",
        text(&o)
    );
    drop(m);
    let _ = std::fs::remove_dir_all(&other.home);
}

#[test]
fn a_campaign_compares_mysql_and_mariadb_versions_best_to_best() {
    let l = lab();
    let o = l.qpslab(&["server", "get", "mariadb-11.4.5"]);
    assert!(o.status.success(), "{}", outcome(&o));
    let file = l.home.join("engines.toml");
    std::fs::write(
        &file,
        r#"
name = "engines"
threads = [1, 2]
time = 1
[data]
tables = 1
table_size = 1000
[[server]]
label = "mysql-5.5"
sandbox = "c55"
version = "mysql-5.5.9"
set = { innodb_buffer_pool_size = "64M" }
[[server]]
label = "mariadb-10.11"
sandbox = "c1011"
set = { innodb_buffer_pool_size = "64M" }
[[server]]
label = "mariadb-11.4"
sandbox = "c114"
version = "mariadb-11.4.5"
set = { innodb_buffer_pool_size = "64M" }
[[workload]]
name = "oltp_point_select"
"#,
    )
    .unwrap();
    let st = store("engines");
    let f = file.display().to_string();
    let o = l.qpslab(&["campaign", "run", &f, "--store", &st]);
    assert!(o.status.success(), "{}", outcome(&o));
    let o = l.qpslab(&["best", "--store", &st]);
    let b = text(&o);
    assert!(
        b.contains("mariadb-11.4 / mariadb-10.11") && b.contains("mysql-5.5 / mariadb-10.11"),
        "{b}"
    );
    assert!(
        b.contains("mysql-5.5 = MySQL 5.5.9")
            && b.contains("mariadb-11.4 = MariaDB 11.4.5")
            && b.contains("mariadb-10.11 = MariaDB 10.11"),
        "{b}"
    );
    // Every point of every server ran.
    let o = l.qpslab(&["runs", "--store", &st, "--status", "ok", "--format", "json"]);
    assert_eq!(json(&o).as_array().unwrap().len(), 6, "{}", text(&o));
    // A bad version in a campaign file: one line, before anything runs.
    std::fs::write(
        &file,
        std::fs::read_to_string(&file)
            .unwrap()
            .replace("mysql-5.5.9", "mysql-5.5"),
    )
    .unwrap();
    let o = l.qpslab(&["campaign", "run", &f, "--store", &st]);
    assert!(
        !o.status.success() && text(&o).contains("version"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_failed_run_prints_what_failed_and_no_per_query_figures() {
    let script = lab().home.join("boom.lua");
    std::fs::write(
        &script,
        "function thread_init() end\nfunction event() error('boom: the event failed on purpose') end\n",
    )
    .unwrap();
    let s = script.display().to_string();
    let o = on_mysql(&["run", &s, "--events", "10", "--store", &store("failed")]);
    let out = text(&o);
    assert!(!o.status.success(), "{out}");
    assert!(out.contains("boom: the event failed on purpose"), "{out}");
    assert!(out.contains("no query completed"), "{out}");
    assert!(!out.contains(" us (0.00 s CPU for 0 queries)"), "{out}");
    assert!(out.contains("Bottleneck: not judged"), "{out}");
    for verdict in ["client-bound", "CPU-bound", "under-loaded", "contention:"] {
        assert!(!out.contains(&format!("Bottleneck: {verdict}")), "{out}");
    }
    // Kept in the store, marked failed.
    let o = lab().qpslab(&[
        "runs",
        "--store",
        &store("failed"),
        "--status",
        "failed",
        "--format",
        "json",
    ]);
    assert_eq!(json(&o).as_array().unwrap().len(), 1, "{}", text(&o));
}

#[test]
fn mysql_5_5_logs_in_with_native_and_old_passwords_over_tcp() {
    let l = lab();
    let sock = l.home.join("sandboxes").join(MYSQL).join("mysqld.sock");
    let sql = "GRANT ALL ON *.* TO 'nat'@'127.0.0.1' IDENTIFIED BY 'nat-pw-1'; \
               GRANT ALL ON *.* TO 'old'@'127.0.0.1' IDENTIFIED BY 'x'; \
               SET PASSWORD FOR 'old'@'127.0.0.1' = OLD_PASSWORD('old-pw-1'); \
               CREATE DATABASE IF NOT EXISTS auth";
    let out = Command::new("mariadb")
        .args(["-uroot", "-S"])
        .arg(&sock)
        .args(["-e", sql])
        .output()
        .expect("mariadb client (apt-get install mariadb-client)");
    assert!(out.status.success(), "{}", text(&out));
    let meta: serde_json::Value = serde_json::from_slice(
        &std::fs::read(l.home.join("sandboxes").join(MYSQL).join("meta.json")).unwrap(),
    )
    .unwrap();
    let port = meta["port"].to_string();
    let o = on_mysql(&[
        "prepare",
        "oltp_point_select",
        "--db",
        "auth",
        "--table-size",
        "100",
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let over_tcp = |user: &str, pw: &str| {
        l.qpslab(&[
            "run",
            "oltp_point_select",
            "--host",
            "127.0.0.1",
            "--port",
            &port,
            "--user",
            user,
            "--password",
            pw,
            "--db",
            "auth",
            "--table-size",
            "100",
            "--events",
            "50",
            "--no-store",
        ])
    };
    for (user, pw) in [("nat", "nat-pw-1"), ("old", "old-pw-1")] {
        let o = over_tcp(user, pw);
        assert!(o.status.success(), "{user}: {}", text(&o));
    }
    let o = over_tcp("nat", "wrong");
    assert!(
        !o.status.success() && text(&o).contains("access denied"),
        "{}",
        text(&o)
    );
}
