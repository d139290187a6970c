//! The dry run (`--dry-run`, sysbench's `--mysql-dry-run`): a run that
//! makes no connection at all — a socket that listens is never connected
//! to, and a real server sees none of the statements (its Com_* counters
//! do not move) — yet runs the native workloads and Lua scripts to the
//! end, every statement counted as sysbench counts it in a dry run
//! ("other": no rows, none affected). Owns only these checks; the
//! comparison with sysbench's output is tests/sysbench_diff.rs'.

mod common;
use common::{bin, lab, text};
use std::os::unix::net::UnixListener;
use std::process::{Command, Output};

fn qpslab(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env(
            "QPSLAB_HOME",
            std::env::temp_dir().join("qpslab-dry-run-test"),
        )
        .env_remove("MYSQL_PWD")
        .output()
        .expect("run qpslab")
}

/// The figure after `label` on the first line that has it.
fn figure(out: &str, label: &str) -> u64 {
    out.lines()
        .find_map(|l| l.trim().strip_prefix(label))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no `{label}` in:\n{out}"))
}

/// A unix socket that listens and must never see a connection.
struct Listener {
    path: std::path::PathBuf,
    sock: UnixListener,
}

impl Listener {
    fn new(name: &str) -> Listener {
        let dir = std::env::temp_dir().join(format!("qpslab-dry-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mysqld.sock");
        let _ = std::fs::remove_file(&path);
        let sock = UnixListener::bind(&path).unwrap();
        sock.set_nonblocking(true).unwrap();
        Listener { path, sock }
    }

    fn socket_arg(&self) -> String {
        format!("--mysql-socket={}", self.path.display())
    }

    fn assert_untouched(&self) {
        match self.sock.accept() {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            other => panic!("the dry run connected to the socket: {other:?}"),
        }
    }
}

#[test]
fn sysbench_mode_runs_native_workloads_without_connecting() {
    let l = Listener::new("native");
    for (workload, per_event) in [
        ("oltp_read_write", 18),
        ("oltp_point_select", 1),
        ("oltp_write_only", 4),
    ] {
        let o = qpslab(&[
            "sysbench",
            workload,
            &l.socket_arg(),
            "--mysql-dry-run",
            "--skip-trx=on",
            "--events=40",
            "--threads=2",
            "run",
        ]);
        let out = text(&o);
        assert!(o.status.success(), "{workload}: {out}");
        assert_eq!(figure(&out, "read:"), 0, "{out}");
        assert_eq!(figure(&out, "write:"), 0, "{out}");
        assert_eq!(figure(&out, "other:"), 40 * per_event, "{workload}: {out}");
        assert_eq!(figure(&out, "reconnects:"), 0, "{out}");
    }
    l.assert_untouched();
}

#[test]
fn sysbench_mode_runs_a_lua_script_without_connecting() {
    let l = Listener::new("lua");
    let dir = std::env::temp_dir().join(format!("qpslab-dry-lua-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("dry.lua");
    std::fs::write(
        &script,
        r#"
function thread_init()
  con = sysbench.sql.driver():connect()
  stmt = con:prepare("UPDATE t SET k = k + 1 WHERE id = ?")
  id = stmt:bind_create(sysbench.sql.type.INT)
  stmt:bind_param(id)
end
function event()
  con:query("SELECT c FROM t WHERE id = 1")
  id:set(sysbench.rand.uniform(1, 100))
  stmt:execute()
end
function thread_done()
  stmt:close()
  con:disconnect()
end
"#,
    )
    .unwrap();
    let o = qpslab(&[
        "sysbench",
        script.to_str().unwrap(),
        &l.socket_arg(),
        "--mysql-dry-run=on",
        "--events=25",
        "run",
    ]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert_eq!(figure(&out, "other:"), 50, "{out}");
    assert_eq!(figure(&out, "total:"), 50, "{out}");
    l.assert_untouched();
}

#[test]
fn qpslab_run_dry_run_starts_no_sandbox() {
    let o = qpslab(&[
        "run",
        "oltp_point_select",
        "--dry-run",
        "--events",
        "100",
        "--time",
        "0",
        "--no-store",
        "--no-monitor",
    ]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(!out.contains("Starting sandbox"), "{out}");
    let home = std::env::temp_dir().join("qpslab-dry-run-test");
    assert!(
        !home.join("sandboxes").join("default").exists(),
        "a sandbox was made"
    );
}

#[test]
fn a_dry_prepare_told_to_use_the_pipe_says_why_it_shows_local() {
    let o = qpslab(&[
        "prepare",
        "oltp_point_select",
        "--dry-run",
        "--load-via",
        "pipe",
        "--tables",
        "1",
        "--table-size",
        "100",
    ]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("LOAD DATA LOCAL; no named pipe: a dry run"),
        "{out}"
    );
}

/// The statements a server counts: they must not move in a dry run.
fn statement_counters(lab: &common::Lab) -> String {
    lab.sql(
        "mysql",
        "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS \
         WHERE VARIABLE_NAME IN ('COM_SELECT', 'COM_UPDATE', 'COM_STMT_PREPARE', \
         'COM_STMT_EXECUTE', 'CONNECTIONS') ORDER BY 1",
    )
}

#[test]
fn a_real_server_sees_nothing_of_a_dry_run() {
    let lab = lab();
    let before = statement_counters(lab);
    let o = Command::new(bin())
        .env("QPSLAB_HOME", &lab.home)
        .args([
            "sysbench",
            "oltp_read_only",
            &format!("--mysql-socket={}", lab.socket().display()),
            "--mysql-user=root",
            "--mysql-db=mysql",
            "--mysql-dry-run",
            "--events=100",
            "run",
        ])
        .output()
        .expect("run qpslab");
    assert!(o.status.success(), "{}", text(&o));
    // (the query that reads them is a Com_select and a connection of its
    // own: read twice, the second read moves them by exactly that)
    let after = statement_counters(lab);
    let again = statement_counters(lab);
    let moved = |a: &str, b: &str| -> Vec<(String, i64)> {
        a.lines()
            .zip(b.lines())
            .map(|(x, y)| {
                let v = |l: &str| {
                    l.split('\t')
                        .nth(1)
                        .unwrap_or("0")
                        .parse::<i64>()
                        .unwrap_or(0)
                };
                (x.split('\t').next().unwrap_or("").to_string(), v(y) - v(x))
            })
            .collect()
    };
    assert_eq!(
        moved(&before, &after),
        moved(&after, &again),
        "the server saw the dry run:\nbefore\n{before}\nafter\n{after}"
    );
}
