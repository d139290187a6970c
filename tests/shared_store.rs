//! The shared results store (issue 36 item 6): a URL-shaped `--store`
//! value is never taken for a path (a server that cannot be reached is
//! one line, password masked, and nothing is created); a server store (a
//! sandbox MariaDB) gets the SQLite store's schema, migrated once under a
//! server-side lock however many hosts open it at once; two controllers
//! (two homes: two hosts' spools) record into it at once and every run is
//! there once, reading back as its local copy does; `store copy` round
//! trips are idempotent; the UI lists its runs; the password is nowhere.

mod common;
use common::lab;
use common::{bin, text};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

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
            out.contains("mysql://lab:***@127.0.0.1:9/results")
                || out.contains("mysql://lab@127.0.0.1:9/results"),
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

/// A server session as root on the sandbox's socket, in database `db`:
/// the connection the lab hands the store (`ServerConn`).
fn session(db: &str) -> qpslab::lab::server_store::ServerConn {
    let endpoint = qpslab::protocol::Endpoint::Unix(lab().socket());
    let opts = qpslab::protocol::ConnOpts::new(endpoint, "root", Some(db));
    qpslab::lab::server_store::ServerConn::connect(opts).unwrap()
}

/// Tables and their columns in order, of a SQLite store just created.
fn sqlite_columns() -> BTreeMap<String, Vec<String>> {
    let dir = std::env::temp_dir().join(format!("qpslab-store-cols-{}", std::process::id()));
    let path = dir.join("s.db");
    drop(qpslab::store::Store::open(&path).unwrap());
    let c = rusqlite::Connection::open(&path).unwrap();
    let mut tables = c
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .unwrap();
    let names: Vec<String> = tables
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut out = BTreeMap::new();
    for t in names {
        let mut info = c.prepare(&format!("PRAGMA table_info({t})")).unwrap();
        let cols: Vec<String> = info
            .query_map([], |r| r.get(1))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        out.insert(t, cols);
    }
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// The server store's schema: the SQLite store's migrations, translated,
/// applied once by two hosts opening a new store at the same moment (the
/// server-side lock serialises them; without it the second would add the
/// same columns again); the same tables and columns as a SQLite store,
/// cascades and byte-wise text comparison kept.
#[test]
fn a_server_store_is_migrated_once_to_the_sqlite_schema() {
    let l = lab();
    let db = l.fresh_db("shared_schema");
    let latest = qpslab::store::server_migrations().unwrap().len() as i64;
    let openers: Vec<_> = (0..2)
        .map(|_| {
            let db = db.clone();
            std::thread::spawn(move || qpslab::store::migrate_server(&mut session(&db)))
        })
        .collect();
    for o in openers {
        assert_eq!(o.join().unwrap().unwrap(), latest);
    }
    assert_eq!(
        l.sql(&db, "SELECT COUNT(*), MAX(version) FROM qpslab_schema")
            .trim(),
        format!("1\t{latest}")
    );
    assert_eq!(
        qpslab::store::migrate_server(&mut session(&db)).unwrap(),
        latest
    );

    let listed = l.sql(
        &db,
        &format!(
            "SELECT table_name, column_name FROM information_schema.columns \
             WHERE table_schema = '{db}' AND table_name <> 'qpslab_schema' \
             AND column_name NOT LIKE '%\\_sha' ORDER BY table_name, ordinal_position"
        ),
    );
    let mut server: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in listed.lines() {
        let (t, c) = line.split_once('\t').unwrap();
        server.entry(t.to_string()).or_default().push(c.to_string());
    }
    assert_eq!(server, sqlite_columns());

    l.sql(
        &db,
        "INSERT INTO runs (workload, threads, options, host, qpslab_version, git_hash, \
         command_line, started_at, status, pid, boot_id, uid) \
         VALUES ('w', 1, '{}', 'h', 'v', 'g', 'c', 's', 'ok', 1, 'b', 'u1');
         INSERT INTO run_tags VALUES (LAST_INSERT_ID(), 'Slow'), (LAST_INSERT_ID(), 'slow');
         INSERT INTO profile_stacks (run_id, kind, stack, weight)
         SELECT MAX(id), 'cpu', REPEAT('frame;', 2000), 1 FROM runs",
    );
    assert_eq!(l.sql(&db, "SELECT COUNT(*) FROM run_tags").trim(), "2");
    l.sql(&db, "DELETE FROM runs");
    assert_eq!(
        l.sql(
            &db,
            "SELECT (SELECT COUNT(*) FROM run_tags) + (SELECT COUNT(*) FROM profile_stacks)"
        )
        .trim(),
        "0"
    );
}

/// The password of the store's account in the tests below: it must land
/// nowhere (files, server rows, process titles).
const PASSWORD: &str = "Pw-n0where-7c1f";

/// A database `name` on the sandbox with an account that reaches it over
/// TCP with `PASSWORD`; the store URL.
fn store_db(name: &str) -> String {
    let l = lab();
    let db = l.fresh_db(name);
    l.sql(
        "mysql",
        &format!(
            "CREATE USER IF NOT EXISTS 'store'@'127.0.0.1' IDENTIFIED BY '{PASSWORD}';
             GRANT ALL ON `{db}`.* TO 'store'@'127.0.0.1'"
        ),
    );
    format!("mysql://store:{PASSWORD}@127.0.0.1:{}/{db}", l.port())
}

/// A controller host: its own state directory (and so its own spool).
struct Host {
    home: PathBuf,
}

impl Host {
    fn new(name: &str) -> Host {
        let home = lab().home.join(format!("host-{name}"));
        let _ = std::fs::remove_dir_all(&home);
        std::fs::create_dir_all(&home).unwrap();
        Host { home }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(bin());
        c.args(args)
            .env("QPSLAB_HOME", &self.home)
            .env_remove("MYSQL_PWD");
        c
    }

    fn qpslab(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("run qpslab")
    }

    /// This host's spool of the (one) server store it recorded into.
    fn spool(&self) -> PathBuf {
        let dir = self.home.join("server-stores");
        let entry = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .next()
            .expect("one server store folder");
        entry.path().join("spool.db")
    }
}

/// (id, uid) of each run of a SQLite store file.
fn sqlite_runs(path: &Path) -> Vec<(i64, String)> {
    let c = rusqlite::Connection::open(path).unwrap();
    let mut s = c.prepare("SELECT id, uid FROM runs ORDER BY id").unwrap();
    s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// (id, uid) of each run of the server store in `db`.
fn server_runs(db: &str) -> Vec<(i64, String)> {
    lab()
        .sql(db, "SELECT id, uid FROM runs ORDER BY id")
        .lines()
        .map(|l| {
            let (id, uid) = l.split_once('\t').unwrap();
            (id.parse().unwrap(), uid.to_string())
        })
        .collect()
}

/// Rows of every table of the server store in `db`.
fn server_counts(db: &str) -> BTreeMap<String, i64> {
    let l = lab();
    let tables = l.sql(
        db,
        &format!(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = '{db}' \
             AND table_name <> 'qpslab_schema' ORDER BY table_name"
        ),
    );
    tables
        .lines()
        .map(|t| {
            let n = l.sql(db, &format!("SELECT COUNT(*) FROM {t}"));
            (t.to_string(), n.trim().parse().unwrap())
        })
        .collect()
}

/// `show RUN --format json` with the run's own ids left out (a store's
/// ids are its own).
fn shown(host: &Host, run: i64, store: &str) -> serde_json::Value {
    let o = host.qpslab(&[
        "show",
        &run.to_string(),
        "--store",
        store,
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "show {run} --store …: {}", text(&o));
    let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                for k in ["id", "run_id", "campaign_id"] {
                    m.remove(k);
                }
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

/// Every file under `dir` whose bytes contain `needle`.
fn files_containing(dir: &Path, needle: &[u8]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            found.extend(files_containing(&p, needle));
        } else if let Ok(bytes) = std::fs::read(&p) {
            if bytes.windows(needle.len()).any(|w| w == needle) {
                found.push(p);
            }
        }
    }
    found
}

/// Two controllers (two hosts: two state directories, two spools) record
/// two runs each into one server store at the same time: the server holds
/// the four runs once each, `runs` lists them, `show` of each through the
/// server store equals `show` of its local spool copy; `ui` over the
/// server store lists them on its start page; the password is in no
/// file, no server row, no process title.
#[test]
fn two_controllers_record_into_one_server_store() {
    let l = lab();
    let load_db = l.prepared_db("shared_load", 200);
    let url = store_db("shared_two");
    let db = url.rsplit('/').next().unwrap().to_string();
    let hosts = [Host::new("a"), Host::new("b")];
    let socket = l.socket().display().to_string();
    let record = |h: &Host| {
        h.command(&[
            "run",
            "oltp_point_select",
            "--socket",
            &socket,
            "--user",
            "root",
            "--db",
            &load_db,
            "--table-size",
            "200",
            "--threads",
            "2",
            "--events",
            "300",
            "--time",
            "0",
            "--store",
            &url,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
    };
    for _round in 0..2 {
        let running: Vec<_> = hosts.iter().map(&record).collect();
        for child in running {
            let o = child.wait_with_output().unwrap();
            assert!(o.status.success(), "{}", text(&o));
        }
    }
    let on_server = server_runs(&db);
    assert_eq!(on_server.len(), 4, "{on_server:?}");
    let uids: std::collections::BTreeSet<_> = on_server.iter().map(|(_, u)| u.clone()).collect();
    assert_eq!(uids.len(), 4);

    let listed = hosts[0].qpslab(&["runs", "--store", &url, "--format", "json"]);
    assert!(listed.status.success(), "{}", text(&listed));
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let mut ids: Vec<i64> = listed
        .as_array()
        .expect("runs --format json is an array")
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    ids.sort();
    assert_eq!(ids, on_server.iter().map(|(i, _)| *i).collect::<Vec<_>>());

    for h in &hosts {
        let spool = h.spool();
        let local = sqlite_runs(&spool);
        assert_eq!(local.len(), 2, "{local:?}");
        for (local_id, uid) in local {
            let server_id = on_server.iter().find(|(_, u)| *u == uid).unwrap().0;
            assert_eq!(
                shown(&hosts[1], server_id, &url),
                shown(h, local_id, spool.to_str().unwrap()),
                "run {local_id} of {}",
                spool.display()
            );
        }
    }

    // The UI over the server store lists the four runs on its start page.
    let mut ui = hosts[0]
        .command(&["ui", "--port", "0", "--store", &url])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(ui.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    let title = std::fs::read(format!("/proc/{}/cmdline", ui.id())).unwrap();
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        s,
        "GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut page = String::new();
    s.read_to_string(&mut page).unwrap();
    unsafe { libc::kill(ui.id() as i32, libc::SIGINT) };
    let _ = ui.wait();
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    for (id, _) in &on_server {
        assert!(
            page.contains(&format!("/run/{id}\"")),
            "run {id} not on the page"
        );
    }

    // The password: not in the process title, no file of either host,
    // no row of the server store.
    let pw = PASSWORD.as_bytes();
    assert!(
        !title.windows(pw.len()).any(|w| w == pw),
        "in the process title"
    );
    for h in &hosts {
        assert_eq!(files_containing(&h.home, pw), Vec::<PathBuf>::new());
    }
    let rows = l.sql(
        &db,
        &format!(
            "SELECT COUNT(*) FROM runs WHERE CONCAT_WS(' ', command_line, options, summary, \
             sandbox, server_variables) LIKE '%{PASSWORD}%'"
        ),
    );
    assert_eq!(rows.trim(), "0");
}

/// `store copy` server → SQLite → another server store: every run once in
/// each, each table's rows equal between the two server stores, and a
/// second copy each way adds nothing.
#[test]
fn store_copy_round_trips_idempotently() {
    let l = lab();
    let load_db = l.prepared_db("shared_copy_load", 200);
    let url = store_db("shared_copy_a");
    let url_b = store_db("shared_copy_b");
    let (db, db_b) = (
        url.rsplit('/').next().unwrap().to_string(),
        url_b.rsplit('/').next().unwrap().to_string(),
    );
    let h = Host::new("copy");
    let socket = l.socket().display().to_string();
    for threads in ["1", "2"] {
        let o = h.qpslab(&[
            "sweep",
            "oltp_point_select",
            "--socket",
            &socket,
            "--user",
            "root",
            "--db",
            &load_db,
            "--table-size",
            "200",
            "--threads",
            threads,
            "--events",
            "200",
            "--time",
            "0",
            "--store",
            &url,
        ]);
        assert!(o.status.success(), "{}", text(&o));
    }
    let local = h.home.join("copy.db");
    let local_s = local.to_str().unwrap();
    let copy = |from: &str, to: &str| {
        let o = h.qpslab(&["store", "copy", from, to]);
        assert!(o.status.success(), "{}", text(&o));
        text(&o)
    };
    let first = copy(&url, local_s);
    assert!(first.contains("copied 2 run(s)"), "{first}");
    assert!(copy(&url, local_s).contains("copied 0 run(s)"));
    assert!(copy(local_s, &url).contains("copied 0 run(s)"));
    assert!(copy(local_s, &url_b).contains("copied 2 run(s)"));
    assert!(copy(local_s, &url_b).contains("copied 0 run(s)"));
    assert_eq!(server_counts(&db), server_counts(&db_b));
    assert_eq!(server_counts(&db)["runs"], 2);
    assert_eq!(server_counts(&db)["campaigns"], 2);
    assert!(server_counts(&db)["samples"] > 0);
    let o = h.qpslab(&["store", "copy", &url, local_s, "--runs", "1,99"]);
    assert!(!o.status.success());
    assert!(text(&o).contains("no run 99"), "{}", text(&o));
    assert!(!text(&o).contains(PASSWORD), "{}", text(&o));
}
