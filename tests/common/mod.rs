//! Test harness: a real sandbox MariaDB per test binary, started through
//! qpslab itself on a private state directory, destroyed when the test
//! process exits (also after a failing test: the harness still exits
//! normally, and the exit hook runs).
#![allow(dead_code)]

pub mod family;
pub mod probe;
pub mod prometheus;
pub mod scratch;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::{OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};

pub const SANDBOX: &str = "t";

pub struct Lab {
    pub home: PathBuf,
}

static LAB: OnceLock<Lab> = OnceLock::new();

extern "C" fn destroy_at_exit() {
    if let Some(lab) = LAB.get() {
        lab.destroy();
    }
}

static BUILD_LAB: OnceLock<Lab> = OnceLock::new();

extern "C" fn destroy_build_lab_at_exit() {
    if let Some(lab) = BUILD_LAB.get() {
        lab.destroy();
    }
}

/// A private state directory with one sandbox, `name`, started from the
/// server build `build` (fetched by `qpslab server get`, which needs `mvn`
/// or the jar in ~/.m2), with `sets` (`var=value`) in its my.cnf;
/// destroyed when the test process exits.
pub fn build_lab(build: &str, name: &str, sets: &[&str]) -> &'static Lab {
    BUILD_LAB.get_or_init(|| {
        let home =
            std::env::temp_dir().join(format!("qpslab-{build}-{}", std::process::id()));
        std::fs::create_dir_all(&home).unwrap();
        let lab = Lab { home };
        unsafe { libc::atexit(destroy_build_lab_at_exit) };
        let o = lab.qpslab(&["server", "get", build]);
        assert!(
            o.status.success(),
            "fetching {build} failed (it needs mvn, or the jar in ~/.m2: bash scripts/deps.sh with QPSLAB_WITH_MAVEN=1): {}",
            text(&o)
        );
        let mut args = vec!["server", "start", "--name", name, "--version", build];
        for s in sets {
            args.extend(["--set", s]);
        }
        let o = lab.qpslab(&args);
        assert!(o.status.success(), "{build} sandbox: {}", text(&o));
        assert!(text(&o).contains(&format!("build {build}")), "{}", text(&o));
        lab
    })
}

impl Lab {
    /// The sysbench-style built-in workloads `qpslab workloads` lists
    /// (oltp_*, select_random_*): at least ten.
    pub fn oltp_workloads(&self) -> Vec<String> {
        let o = self.qpslab(&["workloads"]);
        let names: Vec<String> = text(&o)
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|w| w.starts_with("oltp_") || w.starts_with("select_random"))
            .map(str::to_string)
            .collect();
        assert!(names.len() >= 10, "{names:?}");
        names
    }
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_qpslab")
}

/// The shared lab with its running sandbox.
pub fn lab() -> &'static Lab {
    LAB.get_or_init(|| {
        let home = std::env::temp_dir().join(format!("qpslab-test-{}", std::process::id()));
        std::fs::create_dir_all(&home).unwrap();
        let lab = Lab { home };
        unsafe { libc::atexit(destroy_at_exit) };
        let tls = make_certs(&lab.home.join("tls"));
        let set = |k: &str, f: &str| format!("{k}={}", tls.join(f).display());
        let (cert, key, ca) = (
            set("ssl_cert", "server-cert.pem"),
            set("ssl_key", "server-key.pem"),
            set("ssl_ca", "ca.pem"),
        );
        let out = lab.qpslab(&[
            "server",
            "start",
            "--name",
            SANDBOX,
            "--set",
            "max_connections=500",
            "--set",
            &cert,
            "--set",
            &key,
            "--set",
            &ca,
        ]);
        assert!(out.status.success(), "sandbox start failed: {}", text(&out));
        lab
    })
}

/// A test CA and a server certificate for 127.0.0.1/localhost, made with openssl.
fn make_certs(dir: &std::path::Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("ext.cnf"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n",
    )
    .unwrap();
    let steps: [&[&str]; 3] = [
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca-key.pem",
            "-out",
            "ca.pem",
            "-days",
            "3650",
            "-subj",
            "/CN=qpslab-test-ca",
        ],
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server-key.pem",
            "-out",
            "server-req.pem",
            "-subj",
            "/CN=localhost",
        ],
        &[
            "x509",
            "-req",
            "-in",
            "server-req.pem",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca-key.pem",
            "-CAcreateserial",
            "-out",
            "server-cert.pem",
            "-days",
            "3650",
            "-extfile",
            "ext.cnf",
        ],
    ];
    for args in steps {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl (apt-get install openssl)");
        assert!(out.status.success(), "openssl {args:?}: {}", text(&out));
    }
    dir.to_path_buf()
}

pub fn tls_dir() -> PathBuf {
    lab().home.join("tls")
}

/// A finished command as a failed assertion shows it: how it ended (an
/// exit code, or the signal that killed it), then what it printed.
pub fn outcome(o: &Output) -> String {
    format!("{} and printed:\n{}", o.status, text(o))
}

pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

impl Lab {
    /// Stops and destroys every sandbox of this state directory (campaigns
    /// make their own) and removes the directory.
    pub fn destroy(&self) {
        if let Ok(dirs) = std::fs::read_dir(self.home.join("sandboxes")) {
            for d in dirs.flatten() {
                let name = d.file_name().to_string_lossy().into_owned();
                // destroy refuses a running sandbox
                let _ = self.qpslab(&["server", "stop", "--name", &name]);
                self.keep_error_log(&name);
                let _ = self.qpslab(&["server", "destroy", "--name", &name]);
            }
        }
        let _ = std::fs::remove_dir_all(&self.home);
    }

    /// Copies sandbox `name`'s error log into `$QPSLAB_TEST_LOGS` (which
    /// scripts/run-tests.sh sets to its log folder) as
    /// `<test binary>.<state dir>.<name>.error.log`, so that a server that
    /// stalled or died in CI leaves its own account; nothing when unset.
    fn keep_error_log(&self, name: &str) {
        let Some(dir) = std::env::var_os("QPSLAB_TEST_LOGS") else {
            return;
        };
        let exe = std::env::current_exe().ok();
        let stem = exe
            .as_ref()
            .and_then(|e| e.file_name())
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let binary = stem.rsplit_once('-').map_or(stem.as_str(), |(b, _)| b);
        let home = self.home.file_name().unwrap_or_default().to_string_lossy();
        let from = self.sandbox_file(name, "error.log");
        let to = PathBuf::from(dir).join(format!("{binary}.{home}.{name}.error.log"));
        let _ = std::fs::copy(from, to);
    }

    /// The last `n` lines of the shared sandbox's error log, for a failed
    /// assertion to show why the server stopped answering.
    pub fn server_log_tail(&self, n: usize) -> String {
        let path = self.sandbox_file(SANDBOX, "error.log");
        let log = std::fs::read_to_string(&path).unwrap_or_else(|e| format!("({e})"));
        let lines: Vec<&str> = log.lines().collect();
        let tail = lines[lines.len().saturating_sub(n)..].join("\n");
        format!("the sandbox's error log {} ends:\n{tail}", path.display())
    }

    pub fn command(&self) -> Command {
        let mut c = Command::new(bin());
        c.env("QPSLAB_HOME", &self.home).env_remove("MYSQL_PWD");
        c
    }

    /// `qpslab show RUN --store STORE --format json`, parsed.
    pub fn shown(&self, run: impl std::fmt::Display, store: &str) -> serde_json::Value {
        json(&self.qpslab(&[
            "show",
            &run.to_string(),
            "--store",
            store,
            "--format",
            "json",
        ]))
    }

    pub fn qpslab(&self, args: &[&str]) -> Output {
        self.command().args(args).output().expect("run qpslab")
    }

    /// qpslab against the shared sandbox (adds --server).
    pub fn on_sandbox(&self, args: &[&str]) -> Output {
        let mut a: Vec<&str> = args.to_vec();
        a.extend(["--server", SANDBOX]);
        self.qpslab(&a)
    }

    /// File `file` of sandbox `name`'s directory (its socket, pid file,
    /// meta.json, error log).
    pub fn sandbox_file(&self, name: &str, file: &str) -> PathBuf {
        self.home.join("sandboxes").join(name).join(file)
    }

    pub fn socket(&self) -> PathBuf {
        self.sandbox_file(SANDBOX, "mysqld.sock")
    }

    pub fn port(&self) -> u16 {
        let meta: serde_json::Value = serde_json::from_slice(
            &std::fs::read(self.sandbox_file(SANDBOX, "meta.json")).unwrap(),
        )
        .unwrap();
        meta["port"].as_u64().unwrap() as u16
    }

    /// qpslab against database `db` of the shared sandbox.
    pub fn on_db(&self, db: &str, args: &[&str]) -> Output {
        let mut a = args.to_vec();
        a.extend(["--db", db]);
        self.on_sandbox(&a)
    }

    /// sysbench against database `db` of the shared sandbox, as root.
    pub fn sysbench(&self, db: &str, args: &[&str]) -> Output {
        Command::new("sysbench")
            .args(args)
            .arg(format!("--mysql-socket={}", self.socket().display()))
            .args(["--mysql-user=root", &format!("--mysql-db={db}")])
            .output()
            .expect("sysbench")
    }

    /// Runs SQL with the mariadb command-line client as root; returns stdout.
    pub fn sql(&self, db: &str, q: &str) -> String {
        self.sql_with(db, q, ";")
    }

    /// The mariadb command-line client as root on database `db` of the
    /// shared sandbox, in batch mode without column names.
    pub fn client(&self, db: &str) -> Command {
        let mut c = Command::new("mariadb");
        c.args(["-uroot", "-N", "-B"])
            .arg(format!("--socket={}", self.socket().display()))
            .args(["-D", db]);
        c
    }

    /// Runs SQL whose statements end with `delimiter` (for bodies with ';').
    pub fn sql_with(&self, db: &str, q: &str, delimiter: &str) -> String {
        let out = self
            .client(db)
            .arg(format!("--delimiter={delimiter}"))
            .args(["-e", q])
            .output()
            .expect("mariadb client (apt-get install mariadb-client)");
        if !out.status.success() {
            // ERROR 2002, 2006, 2013, 2026: the client lost the server
            let gone = ["ERROR 2002", "ERROR 2006", "ERROR 2013", "ERROR 2026"];
            let said = text(&out);
            let log = if gone.iter().any(|g| said.contains(g)) {
                self.server_log_tail(30)
            } else {
                String::new()
            };
            panic!("SQL failed: {q}: {said}{log}");
        }
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A fresh database for one test with sbtest1 of `rows` rows prepared
    /// (the same table for every OLTP workload); returns its name.
    pub fn prepared_db(&self, name: &str, rows: u32) -> String {
        let db = self.fresh_db(name);
        let rows = rows.to_string();
        let out = self.on_sandbox(&[
            "prepare",
            "oltp_read_write",
            "--db",
            &db,
            "--table-size",
            &rows,
        ]);
        assert!(out.status.success(), "{}", text(&out));
        db
    }

    /// Creates a fresh database for one test and returns its name.
    pub fn fresh_db(&self, name: &str) -> String {
        self.sql(
            "mysql",
            &format!("DROP DATABASE IF EXISTS {name}; CREATE DATABASE {name}"),
        );
        name.to_string()
    }
}

/// A mariadb client session held open on the shared sandbox (its stdin a
/// pipe), for a test that needs another transaction's locks in place while
/// qpslab works; dropping it ends the session, and its open transaction
/// rolls back.
pub struct HeldSession {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
}

impl HeldSession {
    /// Opens a session on `db`, runs `sql` (statements ending with ';') and
    /// returns once the server has answered them all.
    pub fn open(db: &str, sql: &str) -> HeldSession {
        use std::io::Write;
        use std::process::Stdio;
        let mut child = lab()
            .client(db)
            .arg("--unbuffered")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("mariadb client (apt-get install mariadb-client)");
        let mut stdin = child.stdin.take();
        if let Some(s) = stdin.as_mut() {
            writeln!(s, "{sql} SELECT 'held';").expect("the held session's client exited");
        }
        // (a failed statement ends the client in batch mode: its stdout
        // closes, and read_until says None)
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let held = read_until(&mut out, |l| l.trim() == "held");
        assert!(held.is_some(), "the held session's `{sql}` failed");
        HeldSession { child, stdin }
    }
}

impl Drop for HeldSession {
    fn drop(&mut self) {
        // (its stdin closed, the client quits; killed, in case it does not)
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads lines until one satisfies `pred` and returns it; None when the
/// stream ends first (the process exited).
pub fn read_until(
    out: &mut impl std::io::BufRead,
    mut pred: impl FnMut(&str) -> bool,
) -> Option<String> {
    let mut line = String::new();
    loop {
        line.clear();
        if out.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if pred(&line) {
            return Some(line);
        }
    }
}

/// Parses a `--format json` result.
pub fn json(o: &Output) -> serde_json::Value {
    let s = String::from_utf8_lossy(&o.stdout);
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(o)))
}

/// sysbench must be installed for the compatibility tests: without it they
/// fail with the reason (never pass unchecked).
pub fn require_sysbench() {
    let ok = Command::new("sysbench").arg("--version").output().is_ok();
    assert!(
        ok,
        "sysbench is required for this test: install it (apt-get install sysbench, or bash scripts/deps.sh)"
    );
}

/// Who uses the shared sandbox of this test binary right now: tests that
/// only need it share it ([`sharing`]); a test that measures (a band on a
/// figure: CPU or syscalls per query, shares of time) has it alone
/// ([`measuring`]), so that no other test's load runs beside its
/// measurement. Cargo runs test binaries one after another, so this is
/// the only parallel load there is. Writers are preferred (std's RwLock on
/// Linux): a measuring test waits for the sharing ones in flight, not for
/// every one queued.
static SANDBOX_USE: RwLock<()> = RwLock::new(());

/// Taken by a test that loads the shared sandbox without measuring: it
/// runs beside other such tests, never beside a measuring one.
pub fn sharing() -> RwLockReadGuard<'static, ()> {
    SANDBOX_USE.read().unwrap_or_else(|e| e.into_inner())
}

/// Taken by a test that measures: it runs alone among this binary's tests
/// that take [`sharing`] or [`measuring`].
pub fn measuring() -> RwLockWriteGuard<'static, ()> {
    SANDBOX_USE.write().unwrap_or_else(|e| e.into_inner())
}

/// Polls `cond` every 20 ms until it holds; fails the test naming `what`
/// after `limit` (generous: a readiness wait, never a measure).
pub fn await_cond(limit: std::time::Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let end = std::time::Instant::now() + limit;
    while !cond() {
        assert!(
            std::time::Instant::now() < end,
            "{what}: not seen within {} s",
            limit.as_secs()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The SVG whose aria-label is `title` in `page`.
pub fn svg_titled<'a>(page: &'a str, title: &str) -> &'a str {
    let at = page
        .find(&format!("aria-label=\"{title}\""))
        .unwrap_or_else(|| panic!("no chart {title}"));
    let start = page[..at].rfind("<svg").unwrap();
    let end = at + page[at..].find("</svg>").unwrap();
    &page[start..end]
}
