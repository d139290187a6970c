//! The shared results store (issue 36 item 6): a URL-shaped `--store`
//! value is never taken for a path — until a server store exists it is
//! refused in one line, password masked, and nothing is created.

mod common;
use common::{bin, text};
use std::process::{Command, Output};

/// qpslab in `dir` (its working directory and QPSLAB_HOME).
fn qpslab_in(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env("QPSLAB_HOME", dir.join("home"))
        .env_remove("MYSQL_PWD")
        .output()
        .expect("run qpslab")
}

#[test]
fn a_url_shaped_store_is_never_taken_for_a_path() {
    let dir = std::env::temp_dir().join(format!("qpslab-store-url-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = "mysql://lab:s3cret@127.0.0.1:9/results";
    let record = [
        "run",
        "oltp_point_select",
        "--dry-run",
        "--events",
        "100",
        "--time",
        "0",
        "--no-monitor",
        "--store",
        url,
    ];
    let commands: [&[&str]; 5] = [
        &record,
        &["runs", "--store", url],
        &["show", "1", "--store", url],
        &["tag", "1", "x", "--store", url],
        &["ui", "--port", "0", "--store", url],
    ];
    for args in commands {
        let o = qpslab_in(&dir, args);
        let out = text(&o);
        assert!(!o.status.success(), "{args:?}: {out}");
        assert!(
            out.contains("mysql://lab:***@127.0.0.1:9/results"),
            "{args:?}: {out}"
        );
        assert!(!out.contains("s3cret"), "{args:?}: {out}");
        assert_eq!(out.trim().lines().count(), 1, "{args:?}: {out}");
    }
    assert!(
        !dir.join("mysql:").exists(),
        "a folder named mysql: was created"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
