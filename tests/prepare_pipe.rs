//! How prepare sends its rows (`--load-via`): through a named pipe the
//! sandbox reads with LOAD DATA INFILE (the default on this host: the
//! sandbox's secure_file_priv is its own files directory), or LOAD DATA
//! LOCAL. Both give the same rows; an account without the FILE privilege
//! falls back to LOCAL and says why, or is refused in one line with
//! `--load-via pipe` before a table is made; where LOCAL is off too the
//! line names both routes; no pipe is left behind, even by an interrupted
//! prepare, and `cleanup` removes what a killed one left.

mod common;
use common::{lab, text};

/// Prepares sbtest1 of 5,000 rows in `db` with seed 7 and `extra` options;
/// returns the summary line.
fn prepare(db: &str, extra: &[&str]) -> String {
    let mut a = one_table(db, "5000");
    a.extend_from_slice(&["--rand-seed", "7"]);
    a.extend_from_slice(extra);
    let out = lab().on_sandbox(&a);
    assert!(out.status.success(), "prepare {extra:?}: {}", text(&out));
    text(&out)
        .lines()
        .find(|l| l.starts_with("prepared "))
        .unwrap_or_else(|| panic!("no summary line: {}", text(&out)))
        .to_string()
}

/// A digest of sbtest1's rows.
fn digest(db: &str) -> String {
    lab().sql(
        db,
        "SELECT COUNT(*), SUM(k), BIT_XOR(CRC32(CONCAT_WS(',', id, k, c, pad))) FROM sbtest1",
    )
}

/// The sandbox's files directory holds no pipe, and no private directory
/// of pipes (`qpslab-<pid>-<hex>`) whose process is gone: one whose
/// process lives is another test's prepare, still running beside this one.
fn no_pipe_left() {
    let files = lab()
        .home
        .join("sandboxes")
        .join(common::SANDBOX)
        .join("files");
    let left: Vec<_> = std::fs::read_dir(&files)
        .unwrap_or_else(|e| panic!("{}: {e}", files.display()))
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| {
            let n = n.to_string_lossy();
            let owner_lives = n
                .strip_prefix("qpslab-")
                .and_then(|rest| rest.split('-').next())
                .is_some_and(|pid| std::path::Path::new("/proc").join(pid).exists());
            n.ends_with(".pipe") || (n.starts_with("qpslab-") && !owner_lives)
        })
        .collect();
    assert!(
        left.is_empty(),
        "pipes left in {}: {left:?}",
        files.display()
    );
}

/// Makes `user`@localhost with every privilege on `db` but FILE (LOAD DATA
/// INFILE, and so the pipe, refused).
fn fileless_user(user: &str, db: &str) {
    lab().sql(
        "mysql",
        &format!(
            "DROP USER IF EXISTS {user}@localhost; CREATE USER {user}@localhost; GRANT ALL ON {db}.* TO {user}@localhost"
        ),
    );
}

/// The last line of a run that must have failed, and all it said.
fn refused(out: &std::process::Output) -> (String, String) {
    let err = text(out);
    assert!(!out.status.success(), "{err}");
    (err.lines().last().unwrap_or_default().to_string(), err)
}

/// `prepare oltp_read_write` of one table of `rows` rows in `db`.
fn one_table<'a>(db: &'a str, rows: &'a str) -> Vec<&'a str> {
    vec![
        "prepare",
        "oltp_read_write",
        "--db",
        db,
        "--tables",
        "1",
        "--table-size",
        rows,
    ]
}

/// Runs qpslab with `args` against the sandbox's socket as `user`.
fn as_user(user: &str, args: &[&str]) -> std::process::Output {
    let socket = lab().socket();
    let mut a = args.to_vec();
    a.extend_from_slice(&["--socket", socket.to_str().unwrap(), "--user", user]);
    lab().qpslab(&a)
}

#[test]
fn the_pipe_and_local_load_the_same_rows() {
    let _shared = common::sharing();
    let piped = lab().fresh_db("pipe_auto");
    let line = prepare(&piped, &[]);
    assert!(line.contains("through a named pipe"), "{line}");
    let local = lab().fresh_db("pipe_local");
    let line = prepare(&local, &["--load-via", "local"]);
    assert!(line.contains("LOAD DATA LOCAL"), "{line}");
    assert_eq!(digest(&piped), digest(&local));
    assert!(digest(&piped).starts_with("5000\t"), "{}", digest(&piped));
    no_pipe_left();
}

#[test]
fn without_the_file_privilege_auto_falls_back_and_pipe_is_refused() {
    let _shared = common::sharing();
    let db = lab().fresh_db("pipe_nofile");
    let l = lab();
    fileless_user("nofile", &db);
    let as_nofile = |extra: &[&str]| {
        let mut a = one_table(&db, "500");
        a.extend_from_slice(extra);
        as_user("nofile", &a)
    };
    let out = as_nofile(&["--load-via", "pipe"]);
    let (line, err) = refused(&out);
    assert!(
        line.contains("named pipe")
            && line.contains("FILE privilege")
            && line.contains("--load-via"),
        "{err}"
    );
    // refused before any table was made: the advice works as it stands
    assert_eq!(l.sql(&db, "SHOW TABLES LIKE 'sbtest1'").trim(), "", "{err}");
    let out = as_nofile(&[]);
    assert!(out.status.success(), "{}", text(&out));
    let summary = text(&out);
    let line = summary
        .lines()
        .find(|l| l.starts_with("prepared "))
        .unwrap_or_else(|| panic!("no summary line: {summary}"));
    assert!(
        line.contains("LOAD DATA LOCAL; no named pipe") && line.contains("FILE privilege"),
        "auto's fallback should say why: {line}"
    );
    assert_eq!(l.sql(&db, "SELECT COUNT(*) FROM sbtest1").trim(), "500");
    l.sql(&db, "DROP TABLE sbtest1");
    let out = as_nofile(&["--format", "json"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("\"pipe_note\":\""), "{}", text(&out));
    l.sql("mysql", "DROP USER nofile@localhost");
    no_pipe_left();
}

/// Sets the sandbox's local_infile back to what it was, however the test
/// ends.
struct LocalInfile(String);

impl Drop for LocalInfile {
    fn drop(&mut self) {
        lab().sql("mysql", &format!("SET GLOBAL local_infile={}", self.0));
    }
}

#[test]
fn with_local_infile_off_and_no_pipe_the_error_names_both_routes() {
    let _alone = common::measuring();
    let l = lab();
    let db = l.fresh_db("pipe_noroute");
    fileless_user("noroute", &db);
    let was = l.sql("mysql", "SELECT @@local_infile").trim().to_string();
    let _restore = LocalInfile(was);
    l.sql("mysql", "SET GLOBAL local_infile=0");
    let out = as_user("noroute", &one_table(&db, "500"));
    let (line, err) = refused(&out);
    assert!(
        line.contains("local_infile is off")
            && line.contains("named pipe")
            && line.contains("FILE privilege")
            && line.contains("SET GLOBAL local_infile=1"),
        "{err}"
    );
    assert_eq!(l.sql(&db, "SHOW TABLES LIKE 'sbtest1'").trim(), "", "{err}");
    l.sql("mysql", "DROP USER noroute@localhost");
}

#[test]
fn an_interrupted_prepare_leaves_no_pipe_and_no_load_running() {
    let _shared = common::sharing();
    let db = lab().fresh_db("pipe_stop");
    let mut child = long_prepare(&db);
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().expect("wait");
    assert!(!status.success());
    await_loads("the LOAD DATA to end", "LOAD DATA%", false);
    no_pipe_left();
    lab().sql("mysql", &format!("DROP DATABASE {db}"));
}

#[test]
fn a_killed_prepares_pipe_directory_is_removed_by_cleanup() {
    // alone: another test's pipe prepare would sweep the directory first
    let _alone = common::measuring();
    let db = lab().fresh_db("pipe_kill");
    let mut child = long_prepare(&db);
    // killed: nothing of its own cleans up
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().expect("wait");
    await_loads("the LOAD DATA to end", "LOAD DATA%", false);
    let killed = format!("qpslab-{}-", child.id());
    let files = lab()
        .home
        .join("sandboxes")
        .join(common::SANDBOX)
        .join("files");
    let left = || {
        std::fs::read_dir(&files)
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(&killed))
    };
    assert!(left(), "the killed prepare left no {killed}* to test with");
    let out = lab().on_sandbox(&["cleanup", "oltp_read_write", "--db", &db, "--tables", "1"]);
    assert!(out.status.success(), "cleanup: {}", text(&out));
    assert!(!left(), "cleanup left {killed}* in {}", files.display());
    lab().sql("mysql", &format!("DROP DATABASE {db}"));
}

/// A prepare of 5M rows into `db`, under way (the server runs its LOAD
/// DATA INFILE) when this returns.
fn long_prepare(db: &str) -> std::process::Child {
    let child = lab()
        .command()
        .args([
            "prepare",
            "oltp_read_write",
            "--server",
            common::SANDBOX,
            "--db",
            db,
        ])
        .args(["--tables", "1", "--table-size", "5000000"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("qpslab prepare");
    await_loads("the LOAD DATA to start", "LOAD DATA INFILE%", true);
    child
}

/// Waits (at most a minute) until a statement like `like` runs on the
/// sandbox (`running`) or none does.
fn await_loads(what: &str, like: &str, running: bool) {
    let q = format!("SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE '{like}'");
    common::await_cond(std::time::Duration::from_secs(60), what, || {
        (lab().sql("mysql", &q).trim() != "0") == running
    });
}

#[test]
fn linkbench_refuses_a_route_it_cannot_take_before_loading() {
    let _shared = common::sharing();
    let l = lab();
    let db = l.fresh_db("pipe_lb");
    fileless_user("lbnofile", &db);
    let run = |extra: &[&str]| {
        let mut a = vec!["prepare", "linkbench", "--db", &db, "--maxid1", "1001"];
        a.extend_from_slice(extra);
        as_user("lbnofile", &a)
    };
    let out = run(&["--load-via", "pipe"]);
    let (line, err) = refused(&out);
    assert!(
        line.starts_with("qpslab: the named pipe") && !line.contains("loaded so far"),
        "a refused route is not a failed chunk: {err}"
    );
    let out = run(&["--load-method", "insert", "--load-via", "pipe"]);
    let (line, err) = refused(&out);
    assert!(
        line.contains("--load-via pipe needs --load-method infile"),
        "{err}"
    );
    l.sql("mysql", "DROP USER lbnofile@localhost");
    l.sql("mysql", &format!("DROP DATABASE {db}"));
    no_pipe_left();
}
