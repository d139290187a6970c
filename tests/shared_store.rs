//! The shared results store (issue 36 item 6): a URL-shaped `--store`
//! value is never taken for a path — until a server store exists it is
//! refused in one line, password masked, and nothing is created; a
//! server store (a sandbox MariaDB) gets the SQLite store's schema, migrated
//! once under a server-side lock however many hosts open it at once.

mod common;
use common::lab;
use common::{bin, text};
use std::collections::BTreeMap;
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

/// A server session for the store's migration: the project's own client,
/// driven from a current-thread runtime (as the server store will be).
struct Session {
    rt: tokio::runtime::Runtime,
    conn: qpslab::protocol::Conn,
}

impl Session {
    fn open(db: &str) -> Session {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let endpoint = qpslab::protocol::Endpoint::Unix(lab().socket());
        let opts = qpslab::protocol::ConnOpts::new(endpoint, "root", Some(db));
        let conn = rt.block_on(qpslab::protocol::Conn::connect(&opts)).unwrap();
        Session { rt, conn }
    }
}

impl qpslab::store::ServerSql for Session {
    fn execute(&mut self, sql: &str) -> anyhow::Result<()> {
        self.rt.block_on(self.conn.exec(sql))?;
        Ok(())
    }

    fn query_i64(&mut self, sql: &str) -> anyhow::Result<Option<i64>> {
        let r = self.rt.block_on(self.conn.query(sql))?;
        let first = r
            .rows
            .first()
            .and_then(|row| row.first().cloned().flatten());
        Ok(first.and_then(|v| v.parse().ok()))
    }
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
            std::thread::spawn(move || qpslab::store::migrate_server(&mut Session::open(&db)))
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
        qpslab::store::migrate_server(&mut Session::open(&db)).unwrap(),
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
         command_line, started_at, status, pid, boot_id) \
         VALUES ('w', 1, '{}', 'h', 'v', 'g', 'c', 's', 'ok', 1, 'b');
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
