//! Connections and failure handling against a real sandbox MariaDB:
//! auth plugins, one-line errors for the usual mistakes, reconnects after
//! killed connections, fatal errors keep the summary, Ctrl-C stops cleanly.

mod common;
use common::{json, lab, outcome, text};
use std::io::BufReader;
use std::process::Stdio;

/// Runs point_select as `user` over TCP or the socket; returns the output.
fn run_as(db: &str, user: &str, pass: Option<&str>, tcp: bool) -> std::process::Output {
    let l = lab();
    let port = l.port().to_string();
    let sock = l.socket().display().to_string();
    let mut a = vec![
        "run",
        "oltp_point_select",
        "--table-size",
        "500",
        "--events",
        "20",
        "--format",
        "json",
        "--mysql-user",
        user,
        "--mysql-db",
        db,
    ];
    if tcp {
        a.extend(["--mysql-host", "127.0.0.1", "--mysql-port", &port]);
    } else {
        a.extend(["--mysql-socket", &sock]);
    }
    let pw;
    if let Some(p) = pass {
        pw = format!("--mysql-password={p}");
        a.push(&pw);
    }
    l.qpslab(&a)
}

fn one_line_error(o: &std::process::Output) -> String {
    assert!(!o.status.success(), "expected failure: {}", text(o));
    let err = String::from_utf8_lossy(&o.stderr).trim().to_string();
    assert!(err.starts_with("qpslab: "), "{err}");
    assert_eq!(err.lines().count(), 1, "not one line: {err}");
    err
}

#[test]
fn native_password_over_tcp_and_socket() {
    let db = lab().prepared_db("auth_native", 500);
    let l = lab();
    l.sql("mysql", "CREATE OR REPLACE USER 'nat'@'%' IDENTIFIED VIA mysql_native_password USING PASSWORD('s3cret-pw'); GRANT ALL ON *.* TO 'nat'@'%';");
    l.sql("mysql", "CREATE OR REPLACE USER 'nat'@'localhost' IDENTIFIED VIA mysql_native_password USING PASSWORD('s3cret-pw'); GRANT ALL ON *.* TO 'nat'@'localhost';");
    for tcp in [true, false] {
        let o = run_as(&db, "nat", Some("s3cret-pw"), tcp);
        assert!(o.status.success(), "tcp={tcp}: {}", text(&o));
        let j = json(&o);
        assert_eq!(j["totals"]["transactions"], 20);
        // the password never lands in the output, the recorded command line included
        assert!(
            !text(&o).contains("s3cret-pw"),
            "password leaked: {}",
            text(&o)
        );
        assert!(j["command_line"]
            .as_str()
            .unwrap()
            .contains("--mysql-password=***"));
    }
    // the same through MYSQL_PWD and a DSN
    let o = l
        .command()
        .env("MYSQL_PWD", "s3cret-pw")
        .args([
            "run",
            "oltp_point_select",
            "--table-size",
            "500",
            "--events",
            "5",
            "--mysql-user",
            "nat",
            "--mysql-db",
            &db,
            "--mysql-host",
            "127.0.0.1",
            "--mysql-port",
            &l.port().to_string(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", outcome(&o));
    let dsn = format!("--dsn=mysql://nat:s3cret-pw@127.0.0.1:{}/{db}", l.port());
    let o = l.qpslab(&[
        "run",
        "oltp_point_select",
        "--table-size",
        "500",
        "--events",
        "5",
        "--format",
        "json",
        &dsn,
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("s3cret-pw"));
}

#[test]
fn ed25519_auth() {
    let db = lab().prepared_db("auth_ed", 500);
    let l = lab();
    let have = l.sql(
        "mysql",
        "SELECT COUNT(*) FROM information_schema.PLUGINS WHERE PLUGIN_NAME='ed25519'",
    );
    if have.trim() == "0" {
        l.sql("mysql", "INSTALL SONAME 'auth_ed25519'");
    }
    l.sql("mysql", "CREATE OR REPLACE USER 'ed'@'%' IDENTIFIED VIA ed25519 USING PASSWORD('ed-pass-1'); GRANT ALL ON *.* TO 'ed'@'%';");
    let o = run_as(&db, "ed", Some("ed-pass-1"), true);
    assert!(o.status.success(), "{}", outcome(&o));
    let o = run_as(&db, "ed", Some("wrong"), true);
    let e = one_line_error(&o);
    assert!(e.contains("access denied"), "{e}");
}

#[test]
fn unix_socket_auth() {
    let db = lab().prepared_db("auth_sock", 500);
    let l = lab();
    let os_user = String::from_utf8(
        std::process::Command::new("id")
            .arg("-un")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .trim()
    .to_string();
    if os_user == "root" {
        // root@localhost may also log in through its socket identity; keep the empty password working.
        l.sql("mysql", "ALTER USER 'root'@'localhost' IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD('')");
    } else {
        l.sql("mysql", &format!("CREATE OR REPLACE USER '{os_user}'@'localhost' IDENTIFIED VIA unix_socket; GRANT ALL ON *.* TO '{os_user}'@'localhost';"));
    }
    let o = run_as(&db, &os_user, None, false);
    assert!(o.status.success(), "{}", outcome(&o));
}

/// cleanup and check only read or drop what is there: a sandbox database
/// named with --db that does not exist is refused with the usual line,
/// and is not created on the way (prepare still makes it).
#[test]
fn cleanup_and_check_of_a_missing_database_create_nothing() {
    let l = lab();
    let db = "no_such_db_for_cleanup";
    l.sql("mysql", &format!("DROP DATABASE IF EXISTS {db}"));
    let cmds: [&[&str]; 3] = [
        &["cleanup", "oltp_read_write", "--db", db],
        &[
            "cleanup",
            "/usr/share/sysbench/oltp_read_write.lua",
            "--db",
            db,
        ],
        &["check", "tpcc", "--db", db],
    ];
    for args in cmds {
        let e = one_line_error(&l.on_sandbox(args));
        assert!(
            e.contains(&format!("unknown database '{db}'")),
            "{args:?}: {e}"
        );
        let left = l.sql("mysql", &format!("SHOW DATABASES LIKE '{db}'"));
        assert_eq!(left.trim(), "", "{args:?} created {db}");
    }
    let o = l.on_sandbox(&[
        "prepare",
        "oltp_read_write",
        "--db",
        db,
        "--table-size",
        "10",
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    l.sql("mysql", &format!("DROP DATABASE {db}"));
}

#[test]
fn usual_mistakes_get_one_line_errors() {
    let db = lab().prepared_db("errs", 500);
    let l = lab();
    l.sql(
        "mysql",
        "CREATE OR REPLACE USER 'errs'@'%' IDENTIFIED BY 'right'; GRANT ALL ON *.* TO 'errs'@'%';",
    );
    // wrong password
    let e = one_line_error(&run_as(&db, "errs", Some("wrong"), true));
    assert!(
        e.contains("access denied") && e.contains("--password"),
        "{e}"
    );
    // unknown database
    let e = one_line_error(&run_as("no_such_db", "errs", Some("right"), true));
    assert!(
        e.contains("unknown database 'no_such_db'") && e.contains("CREATE DATABASE"),
        "{e}"
    );
    // missing tables
    let empty = l.fresh_db("errs_empty");
    let e = one_line_error(&l.on_sandbox(&[
        "run",
        "oltp_read_write",
        "--db",
        &empty,
        "--tables",
        "2",
        "--events",
        "5",
    ]));
    assert!(
        e.contains("sbtest1 is missing") && e.contains("qpslab prepare"),
        "{e}"
    );
    // server down: nothing listens on this port
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    drop(std::net::TcpListener::bind(("127.0.0.1", free)));
    let e = one_line_error(&l.qpslab(&[
        "run",
        "oltp_point_select",
        "--mysql-host",
        "127.0.0.1",
        "--mysql-port",
        &free.to_string(),
        "--events",
        "1",
    ]));
    assert!(
        e.contains("cannot connect") && e.contains("is the server running"),
        "{e}"
    );
    // bad option values
    for (args, needle) in [
        (vec!["--rand-type", "weird"], "--rand-type 'weird'"),
        (vec!["--db-ps-mode", "maybe"], "--db-ps-mode 'maybe'"),
        (vec!["--mysql-ignore-errors", "12x"], "not an error code"),
        (vec!["--percentile", "150"], "outside"),
    ] {
        let mut a = vec!["run", "oltp_point_select", "--db", &db, "--events", "1"];
        a.extend(args);
        let e = one_line_error(&l.on_sandbox(&a));
        assert!(e.contains(needle), "{needle}: {e}");
    }
    let e = one_line_error(&l.on_sandbox(&["run", "no_such_workload"]));
    assert!(
        e.contains("unknown workload") && e.contains("qpslab workloads"),
        "{e}"
    );
    // without --table-size a run uses the data's size (500 rows were
    // prepared), and says so; a --table-size bigger than the data is
    // refused with the prepare command; a smaller one runs (a part of the
    // table, on purpose)
    let o = l.on_sandbox(&[
        "run",
        "oltp_point_select",
        "--db",
        &db,
        "--events",
        "1",
        "--no-store",
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    assert!(
        text(&o).contains("--table-size not given: using 500, the rows sbtest1 was prepared with"),
        "{}",
        text(&o)
    );
    let e = one_line_error(&l.on_sandbox(&[
        "run",
        "oltp_point_select",
        "--db",
        &db,
        "--table-size",
        "1000",
        "--events",
        "1",
    ]));
    assert!(
        e.contains("sbtest1 has no row with id 1000")
            && e.contains("fewer rows than --table-size 1000")
            && e.contains("qpslab prepare oltp_point_select"),
        "{e}"
    );
    let o = l.on_sandbox(&[
        "run",
        "oltp_point_select",
        "--db",
        &db,
        "--table-size",
        "400",
        "--events",
        "1",
        "--no-store",
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    // a mistyped --server is refused with the sandboxes there are, and
    // no new sandbox is made
    let e = one_line_error(&l.qpslab(&[
        "run",
        "oltp_point_select",
        "--server",
        "uxx",
        "--events",
        "1",
    ]));
    let known = e
        .split("there are: ")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .unwrap_or("");
    assert!(
        e.contains("no sandbox 'uxx'")
            && known.split(", ").any(|n| n == common::SANDBOX)
            && e.contains("--create"),
        "{e}"
    );
    assert!(!l.home.join("sandboxes").join("uxx").exists());
    // a state directory that is a file is named, with its path
    let file = l.home.join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    for cmd in [&["runs"][..], &["server", "list"][..]] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_qpslab"))
            .args(cmd)
            .env("QPSLAB_HOME", &file)
            .output()
            .unwrap();
        let e = one_line_error(&o);
        assert!(
            e.contains(&format!(
                "QPSLAB_HOME {} is not a directory",
                file.display()
            )),
            "{cmd:?}: {e}"
        );
    }
}

#[test]
fn fatal_error_ends_the_run_with_the_summary() {
    let db = lab().prepared_db("fatal", 500);
    let l = lab();
    // Break one statement's table so that the first execution fails with 1054.
    l.sql(
        &db,
        "ALTER TABLE sbtest1 CHANGE c c_renamed CHAR(120) NOT NULL DEFAULT ''",
    );
    let o = l.on_sandbox(&[
        "run",
        "oltp_point_select",
        "--db",
        &db,
        "--table-size",
        "500",
        "--time",
        "30",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let s = text(&o);
    assert!(
        s.contains("SQL statistics:") && s.contains("FAILED:") && s.contains("1054"),
        "{s}"
    );
    let j = json(&l.on_sandbox(&[
        "run",
        "oltp_point_select",
        "--db",
        &db,
        "--table-size",
        "500",
        "--time",
        "30",
        "--format",
        "json",
    ]));
    assert_eq!(j["status"]["status"], "failed");
    assert!(j["status"]["reason"].as_str().unwrap().contains("1054"));
}

/// Starts a long run and returns it once its first interval line is out.
fn start_long_run(
    db: &str,
    threads: &str,
) -> (std::process::Child, BufReader<std::process::ChildStdout>) {
    let l = lab();
    let mut child = l
        .command()
        .args([
            "run",
            "oltp_point_select",
            "--db",
            db,
            "--table-size",
            "500",
            "--time",
            "60",
            "--threads",
            threads,
            "--server",
            common::SANDBOX,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    // The run's --time bounds the wait.
    if common::read_until(&mut out, |l| l.starts_with("[ ")).is_some() {
        return (child, out);
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("the run never printed an interval line");
}

#[test]
fn ctrl_c_stops_cleanly_with_the_summary() {
    let db = lab().prepared_db("ctrlc", 500);
    let (mut child, mut out) = start_long_run(&db, "2");
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{rest}");
    assert!(
        rest.contains("SQL statistics:") && rest.contains("ABORTED"),
        "{rest}"
    );
}

#[test]
fn killed_connections_reconnect_and_are_counted() {
    let db = lab().prepared_db("reconn", 500);
    let l = lab();
    let (mut child, mut out) = start_long_run(&db, "4");
    // Kill every load connection (they are the ones using this database).
    let ids = l.sql(
        "mysql",
        &format!("SELECT ID FROM information_schema.PROCESSLIST WHERE DB='{db}'"),
    );
    assert!(!ids.trim().is_empty());
    for id in ids.split_whitespace() {
        let _ = std::process::Command::new("mariadb")
            .args([
                "-uroot",
                &format!("--socket={}", l.socket().display()),
                "-e",
                &format!("KILL {id}"),
            ])
            .output();
    }
    // Wait until a line shows reconnects, then stop the run.
    let seen = common::read_until(&mut out, |l| {
        l.contains("reconn/s: ") && !l.contains("reconn/s: 0.00")
    })
    .is_some();
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    child.wait().unwrap();
    assert!(seen, "no reconnects reported: {rest}");
    let n: u64 = rest
        .lines()
        .find(|l| l.trim_start().starts_with("reconnects:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap();
    assert!(n >= 1, "{rest}");
}

/// A trigger that fails every other UPDATE with error 1213 (what a deadlock
/// returns): the default ignore list rolls back, retries and counts it; with
/// an empty ignore list the run ends with the error.
#[test]
fn ignored_errors_are_retried_and_counted_by_code() {
    let db = lab().prepared_db("ignored", 500);
    let l = lab();
    l.sql_with(
        &db,
        "CREATE TRIGGER fail_odd BEFORE UPDATE ON sbtest1 FOR EACH ROW \
         IF NEW.k % 2 = 1 THEN SIGNAL SQLSTATE '40001' SET MYSQL_ERRNO = 1213, MESSAGE_TEXT = 'simulated deadlock'; END IF",
        "//",
    );
    let o = l.on_sandbox(&[
        "run",
        "oltp_update_index",
        "--db",
        &db,
        "--table-size",
        "500",
        "--events",
        "100",
        "--time",
        "60",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", outcome(&o));
    let j = json(&o);
    assert_eq!(j["status"]["status"], "ok");
    assert_eq!(j["totals"]["transactions"], 100);
    let n = j["totals"]["errors_by_code"]["1213"].as_u64().unwrap_or(0);
    assert!(n > 0, "no 1213 counted: {j}");
    assert_eq!(j["totals"]["ignored_errors"].as_u64(), Some(n));
    let o = l.on_sandbox(&[
        "run",
        "oltp_update_index",
        "--db",
        &db,
        "--table-size",
        "500",
        "--events",
        "100",
        "--time",
        "60",
        "--mysql-ignore-errors",
        "none",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("1213") && text(&o).contains("FAILED"),
        "{}",
        text(&o)
    );
}

/// A password given on the command line is overwritten in the process title.
#[test]
fn password_is_scrubbed_from_the_process_title() {
    let db = lab().prepared_db("title", 500);
    let l = lab();
    l.sql("mysql", "CREATE OR REPLACE USER 'ttl'@'localhost' IDENTIFIED BY 'Title-Secret-9'; GRANT ALL ON *.* TO 'ttl'@'localhost';");
    let sock = l.socket().display().to_string();
    let mut child = l
        .command()
        .args([
            "run",
            "oltp_point_select",
            "--table-size",
            "500",
            "--time",
            "60",
            "--mysql-socket",
            &sock,
            "--mysql-user",
            "ttl",
            "--mysql-password=Title-Secret-9",
            "--db",
            &db,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let line = common::read_until(&mut out, |l| l.starts_with("[ ")).unwrap_or_default();
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", child.id())).unwrap();
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    child.wait().unwrap();
    let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
    assert!(line.starts_with("[ "), "the run did not start: {rest}");
    assert!(!cmdline.contains("Title-Secret-9"), "{cmdline}");
    // Masked without keeping its length, and the arguments after it intact.
    assert!(cmdline.contains("--mysql-password=*** --db "), "{cmdline}");
    assert!(!cmdline.contains("xxxx"), "{cmdline}");
    assert!(!rest.contains("Title-Secret-9"));
}

#[test]
fn tls_modes() {
    let db = lab().prepared_db("tls", 500);
    let l = lab();
    l.sql("mysql", "CREATE OR REPLACE USER 'tlsu'@'%' IDENTIFIED BY 'tls-pw' REQUIRE SSL; GRANT ALL ON *.* TO 'tlsu'@'%';");
    let ca = common::tls_dir().join("ca.pem").display().to_string();
    let port = l.port().to_string();
    let run = |extra: &[&str]| {
        let mut a = vec![
            "run",
            "oltp_point_select",
            "--table-size",
            "500",
            "--events",
            "20",
            "--format",
            "json",
            "--mysql-host",
            "127.0.0.1",
            "--mysql-port",
            &port,
            "--mysql-user",
            "tlsu",
            "--mysql-password=tls-pw",
            "--mysql-db",
            &db,
        ];
        a.extend_from_slice(extra);
        l.qpslab(&a)
    };
    for mode in [
        vec!["--ssl-mode", "REQUIRED"],
        vec!["--mysql-ssl", "on"],
        vec!["--ssl-mode", "VERIFY_CA", "--ssl-ca", &ca],
        vec!["--ssl-mode", "VERIFY_IDENTITY", "--ssl-ca", &ca],
    ] {
        let o = run(&mode);
        assert!(o.status.success(), "{mode:?}: {}", text(&o));
        assert_eq!(json(&o)["totals"]["transactions"], 20);
    }
    // the account requires TLS: a plain connection is refused
    let e = one_line_error(&run(&[]));
    assert!(e.contains("access denied"), "{e}");
    // verification against a CA that did not sign the server certificate fails
    let other_ca = std::env::temp_dir().join(format!("qpslab-other-ca-{}.pem", std::process::id()));
    let out = std::process::Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "/dev/null",
            "-out",
        ])
        .arg(&other_ca)
        .args(["-days", "1", "-subj", "/CN=other"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let e = one_line_error(&run(&[
        "--ssl-mode",
        "VERIFY_CA",
        "--ssl-ca",
        other_ca.to_str().unwrap(),
    ]));
    let _ = std::fs::remove_file(&other_ca);
    assert!(e.contains("TLS"), "{e}");
}

/// sysbench command lines as sysbench's documentation and its bundled
/// scripts' usage write them, with `qpslab` for `sysbench`: prepare, run
/// (options before or after the test name, deprecated 1.0 names, general
/// options that change nothing here) and cleanup work unchanged; what
/// qpslab cannot do is refused in one line.
#[test]
fn real_sysbench_command_lines_run_unchanged() {
    let l = lab();
    let db = l.fresh_db("sb_lines");
    let sock = l.socket().display().to_string();
    let conn = format!("--db-driver=mysql --mysql-socket={sock} --mysql-user=root --mysql-password= --mysql-db={db}");
    let line = |s: &str| -> std::process::Output {
        let s = s.replace("CONN", &conn);
        let words: Vec<&str> = s.split_whitespace().collect();
        l.qpslab(&words)
    };
    for (cmd, want) in [
        ("oltp_read_write CONN --tables=2 --table-size=1000 prepare", ""),
        (
            "oltp_read_write CONN --tables=2 --table-size=1000 --threads=2 --events=40 --time=0 --report-interval=1 --forced-shutdown=1 --percentile=95 --rand-type=uniform --histogram=on run",
            "40",
        ),
        (
            "--threads=2 --events=30 --time=0 oltp_point_select CONN --tables=2 --table-size=1000 run",
            "30",
        ),
        (
            "oltp_read_only CONN --num-threads=2 --max-requests=20 --max-time=0 --tables=2 --table-size=1000 run",
            "20",
        ),
        // From sysbench's documentation and its bundled scripts' usage:
        // the script by path, underscores in option names, the common
        // options of oltp_common.lua, the general options.
        (
            "/usr/share/sysbench/oltp_read_write.lua CONN --tables=2 --table_size=1000 --threads=2 --events=25 --time=0 --report-interval=1 run",
            "25",
        ),
        (
            "oltp_read_only CONN --tables=2 --table_size=1000 --range_selects=off --skip_trx=on --events=20 --time=0 run",
            "20",
        ),
        (
            "oltp_update_index CONN --tables=2 --table-size=1000 --events=20 --time=0 --db-ps-mode=disable --mysql-ignore-errors=1062,1213 run",
            "20",
        ),
        (
            "oltp_delete CONN --tables=2 --table-size=1000 --events=20 --time=0 --rand-type=pareto --rand-pareto-h=0.3 --rand-seed=42 run",
            "20",
        ),
        (
            "select_random_ranges CONN --tables=2 --table-size=1000 --events=20 --time=0 --number-of-ranges=5 --delta=3 run",
            "20",
        ),
        (
            "oltp_write_only CONN --tables=2 --table-size=1000 --events=20 --time=0 --thread-init-timeout=30 --thread-stack-size=64K --mysql-ssl=off run",
            "20",
        ),
        (
            "--test=oltp_point_select CONN --tables=2 --table-size=1000 --events=20 --time=0 --warmup-time=0 run",
            "20",
        ),
        (
            "oltp_insert CONN --tables=2 --table-size=1000 --events=20 --time=0 --auto_inc=off --mysql-ignore-errors=all run",
            "20",
        ),
        // (a dry run: the same workload, no statement sent)
        (
            "oltp_read_write CONN --mysql-dry-run --tables=2 --events=20 --time=0 run",
            "20",
        ),
        ("oltp_read_write CONN --tables=2 cleanup", ""),
        (
            "oltp_read_write CONN --tables=1 --table_size=200 --mysql-storage-engine=innodb --threads=2 prepare",
            "",
        ),
        ("oltp_read_write CONN --tables=1 cleanup", ""),
    ] {
        let out = line(cmd);
        let t = text(&out);
        assert!(out.status.success(), "{cmd}: {t}");
        if !want.is_empty() {
            let done = t
                .lines()
                .find(|x| x.trim_start().starts_with("transactions:"))
                .and_then(|x| x.split_whitespace().nth(1));
            assert_eq!(done, Some(want), "{cmd}: {t}");
        }
        if cmd.contains("--num-threads") {
            assert!(t.contains("old name of --threads"), "{t}");
        }
        if cmd.contains("--test=") {
            assert!(t.contains("taken as the workload"), "{t}");
        }
        assert!(
            t.contains("--db-driver=mysql") && t.contains("ignored"),
            "{cmd}: {t}"
        );
    }
    for (cmd, why) in [
        (
            "oltp_read_write CONN --db-driver=pgsql --tables=2 run",
            "MySQL and MariaDB only",
        ),
        (
            "oltp_read_write CONN --validate=on --tables=2 run",
            "--validate",
        ),
        ("--test=oltp CONN run", "sysbench 0.4"),
        ("--test=fileio --file-num=4 run", "not a database workload"),
    ] {
        let out = line(cmd);
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {t}");
        assert!(
            t.contains(why) && t.trim().lines().count() == 1,
            "{cmd}: {t}"
        );
    }
}

#[test]
fn a_sandbox_port_set_with_set_is_its_port_on_one_line() {
    let l = lab();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string();
    // The sandbox's own paths are refused with what to do instead.
    let e = one_line_error(&l.qpslab(&[
        "server",
        "start",
        "--name",
        "portset",
        "--set",
        "datadir=/tmp/x",
    ]));
    assert!(
        e.contains("--set datadir") && e.contains("sets its own"),
        "{e}"
    );
    let set = format!("port={port}");
    let o = l.qpslab(&["server", "start", "--name", "portset", "--set", &set]);
    let started = o.status.success();
    let cnf = std::fs::read_to_string(l.home.join("sandboxes/portset/my.cnf")).unwrap_or_default();
    let status = l.qpslab(&["server", "status", "--name", "portset"]);
    let _ = l.qpslab(&["server", "destroy", "--name", "portset"]);
    assert!(started, "{}", outcome(&o));
    let ports: Vec<&str> = cnf.lines().filter(|x| x.starts_with("port ")).collect();
    assert_eq!(ports, [format!("port = {port}")], "{cnf}");
    assert!(
        text(&status).contains(&format!("port {port}")),
        "{}",
        text(&status)
    );
}
