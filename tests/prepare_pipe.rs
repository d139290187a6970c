//! How prepare sends its rows (`--load-via`): through a named pipe the
//! sandbox reads with LOAD DATA INFILE (the default on this host: the
//! sandbox's secure_file_priv is its own files directory), or LOAD DATA
//! LOCAL. Both give the same rows; an account without the FILE privilege
//! falls back to LOCAL, or is refused in one line with `--load-via pipe`;
//! no pipe is left behind, even by an interrupted prepare.

mod common;
use common::{lab, text};

/// Prepares sbtest1 of 5,000 rows in `db` with seed 7 and `extra` options;
/// returns the summary line.
fn prepare(db: &str, extra: &[&str]) -> String {
    let mut a = vec![
        "prepare",
        "oltp_read_write",
        "--db",
        db,
        "--tables",
        "1",
        "--table-size",
        "5000",
        "--rand-seed",
        "7",
    ];
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

/// The sandbox's pipe directory holds no pipe.
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
        .filter(|n| n.to_string_lossy().ends_with(".pipe"))
        .collect();
    assert!(
        left.is_empty(),
        "pipes left in {}: {left:?}",
        files.display()
    );
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
    l.sql(
        "mysql",
        &format!(
            "DROP USER IF EXISTS nofile@localhost; CREATE USER nofile@localhost; GRANT ALL ON {db}.* TO nofile@localhost"
        ),
    );
    let socket = l.socket();
    let socket = socket.to_str().unwrap();
    let as_nofile = |extra: &[&str]| {
        let mut a = vec![
            "prepare",
            "oltp_read_write",
            "--socket",
            socket,
            "--user",
            "nofile",
            "--db",
            &db,
            "--tables",
            "1",
            "--table-size",
            "500",
        ];
        a.extend_from_slice(extra);
        l.qpslab(&a)
    };
    let out = as_nofile(&["--load-via", "pipe"]);
    assert!(!out.status.success(), "{}", text(&out));
    let err = text(&out);
    let line = err.lines().last().unwrap_or_default();
    assert!(
        line.contains("named pipe")
            && line.contains("FILE privilege")
            && line.contains("--load-via"),
        "{err}"
    );
    l.sql(&db, "DROP TABLE IF EXISTS sbtest1");
    let out = as_nofile(&[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("LOAD DATA LOCAL"), "{}", text(&out));
    assert_eq!(l.sql(&db, "SELECT COUNT(*) FROM sbtest1").trim(), "500");
    l.sql("mysql", "DROP USER nofile@localhost");
    no_pipe_left();
}

#[test]
fn an_interrupted_prepare_leaves_no_pipe_and_no_load_running() {
    let _shared = common::sharing();
    let db = lab().fresh_db("pipe_stop");
    let mut child = lab()
        .command()
        .args([
            "prepare",
            "oltp_read_write",
            "--server",
            common::SANDBOX,
            "--db",
            &db,
            "--tables",
            "1",
            "--table-size",
            "5000000",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("qpslab prepare");
    // the load is under way once the server runs its LOAD DATA
    await_loads("the LOAD DATA to start", "LOAD DATA INFILE%", true);
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().expect("wait");
    assert!(!status.success());
    await_loads("the LOAD DATA to end", "LOAD DATA%", false);
    no_pipe_left();
    lab().sql("mysql", &format!("DROP DATABASE {db}"));
}

/// Waits (at most a minute) until a statement like `like` runs on the
/// sandbox (`running`) or none does.
fn await_loads(what: &str, like: &str, running: bool) {
    let q = format!("SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE '{like}'");
    common::await_cond(std::time::Duration::from_secs(60), what, || {
        (lab().sql("mysql", &q).trim() != "0") == running
    });
}
