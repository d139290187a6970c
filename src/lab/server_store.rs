//! A shared results store on a MySQL/MariaDB server (`--store
//! mysql://user[:password]@host[:port]/db`, issue 36 item 6), as the lab
//! reaches it: the connection (the project's own client, handed to the
//! store as a `ServerSql`), and the two local SQLite files that stand
//! between the store's SQLite code and the server:
//!
//! - the **spool** (`<state dir>/server-stores/<user@host_port_db>/spool.db`):
//!   a recording writes into it exactly as into a local store, so a run
//!   killed mid-way keeps its samples here; when the recording closes its
//!   store, the finished runs the server lacks are copied there over a new
//!   session (a long sweep may outlast the first one's idle timeout; one
//!   transaction a run, known by uid: many writers neither lose nor
//!   duplicate); a run left behind (the server was unreachable, the
//!   process was killed: marked failed once its process is gone) is
//!   pushed by the next qpslab that records into that store;
//! - the **mirror** (`…/mirror.db`): every read first copies the runs it
//!   lacks from the server, keeping the server's ids (so `show 12` means
//!   the same run on every host), then reads the mirror. A reader is as
//!   fresh as its last open; the UI refreshes it every
//!   `UI_REFRESH` seconds.
//!
//! The password comes from the URL, MYSQL_PWD or a prompt and is never
//! written: not in the files' names, not in messages (`ServerUrl::shown`),
//! not in the recorded command line (redacted) nor the process title.

use crate::protocol::{Conn, ConnOpts, Endpoint, ProtoError, Rows};
use crate::store::{CopySelection, DuplicateKey, ServerSql, ServerUrl, Store};
use anyhow::{anyhow, Context, Result};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// How often `ui` over a server store copies new runs into its mirror.
pub const UI_REFRESH: Duration = Duration::from_secs(10);

/// How long one statement may take (a large run's copy is a few
/// multi-megabyte INSERTs).
const STATEMENT_TIMEOUT: Duration = Duration::from_secs(300);

/// Whether a `--store` value names a server store (a URL) rather than a
/// SQLite file.
pub fn is_server_store(path: &Path) -> bool {
    path.to_str().and_then(crate::store::url_scheme).is_some()
}

type Job = Box<dyn FnOnce(&tokio::runtime::Runtime, &mut Conn) + Send>;

/// One session on a server store. The connection lives on a thread of its
/// own with its own runtime, so that the store may be used (and closed)
/// from sync and async code alike.
pub struct ServerConn {
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// A server error as the store wants it: a duplicate key said so.
fn server_error(e: ProtoError) -> anyhow::Error {
    match e {
        ProtoError::Server(s) if s.code == 1062 => DuplicateKey(s.message).into(),
        e => anyhow!(e),
    }
}

impl ServerConn {
    /// Connects with `opts`.
    pub fn connect(opts: ConnOpts) -> Result<ServerConn> {
        let (jobs, rx) = mpsc::channel::<Job>();
        let (ready_tx, ready) = mpsc::channel::<Result<()>>();
        let thread = std::thread::Builder::new()
            .name("server-store".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => return drop(ready_tx.send(Err(e.into()))),
                };
                let mut conn = match rt.block_on(Conn::connect(&opts)) {
                    Ok(c) => c,
                    Err(e) => return drop(ready_tx.send(Err(anyhow!(e)))),
                };
                let _ = ready_tx.send(Ok(()));
                for job in rx {
                    job(&rt, &mut conn);
                }
                rt.block_on(conn.quit());
            })?;
        ready
            .recv()
            .context("the server store's connection thread died")??;
        Ok(ServerConn {
            jobs: Some(jobs),
            thread: Some(thread),
        })
    }

    fn call<T: Send + 'static>(
        &mut self,
        f: impl FnOnce(&tokio::runtime::Runtime, &mut Conn) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let (tx, rx) = mpsc::channel();
        let jobs = self.jobs.as_ref().context("the server store is closed")?;
        let job: Job = Box::new(move |rt: &tokio::runtime::Runtime, c: &mut Conn| {
            let _ = tx.send(f(rt, c));
        });
        jobs.send(job)
            .map_err(|_| anyhow!("the server store's connection thread died"))?;
        rx.recv()
            .map_err(|_| anyhow!("the server store's connection thread died"))?
    }
}

impl Drop for ServerConn {
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl ServerSql for ServerConn {
    fn execute(&mut self, sql: &str) -> Result<()> {
        let sql = sql.to_string();
        self.call(move |rt, c| {
            rt.block_on(c.exec(&sql)).map_err(server_error)?;
            Ok(())
        })
    }

    fn query_rows(&mut self, sql: &str) -> Result<Vec<Vec<Option<Vec<u8>>>>> {
        let sql = sql.to_string();
        self.call(move |rt, c| {
            let mut rows = Rows::new();
            rt.block_on(c.query_into(&sql, &mut rows))
                .map_err(server_error)?;
            Ok((0..rows.len())
                .map(|r| {
                    (0..rows.columns())
                        .map(|col| rows.get(r, col).map(<[u8]>::to_vec))
                        .collect()
                })
                .collect())
        })
    }
}

/// The store at `url`, connected, its session set (utf8mb4 both ways,
/// read committed) and its schema migrated.
pub fn connect_store(arg: &str) -> Result<(ServerUrl, ServerConn)> {
    let (url, opts) = store_opts(arg)?;
    let conn = connect_with(&url, &opts)?;
    Ok((url, conn))
}

/// The connection options of the store at `arg` (its password resolved:
/// the URL's, MYSQL_PWD, or asked now).
fn store_opts(arg: &str) -> Result<(ServerUrl, ConnOpts)> {
    let url = ServerUrl::parse(arg)?;
    let password = url
        .password(std::env::var("MYSQL_PWD").ok(), || {
            rpassword::prompt_password(format!("Password for {}: ", url.shown()))
        })
        .with_context(|| format!("--store {}: cannot read the password", url.shown()))?;
    let endpoint = Endpoint::Tcp {
        host: url.host.clone(),
        port: url.port,
    };
    let mut opts = ConnOpts::new(endpoint, &url.user, Some(url.db.as_str()));
    opts.password = password;
    opts.read_timeout = STATEMENT_TIMEOUT;
    Ok((url, opts))
}

/// A session on the store `url` with `opts`, set up (`setup_session`).
fn connect_with(url: &ServerUrl, opts: &ConnOpts) -> Result<ServerConn> {
    let at = || format!("cannot use the results store {}", url.shown());
    let mut conn = ServerConn::connect(opts.clone()).with_context(at)?;
    setup_session(&mut conn).with_context(at)?;
    Ok(conn)
}

/// Sets a new session up for the store and migrates it (also for a
/// connection made otherwise: tests).
pub fn setup_session(conn: &mut ServerConn) -> Result<()> {
    conn.execute("SET NAMES utf8mb4 COLLATE utf8mb4_bin")?;
    conn.execute("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")?;
    crate::store::migrate_server(conn)?;
    Ok(())
}

/// The folder of the server store `url`'s local files (no password in it).
pub fn local_dir(url: &ServerUrl) -> PathBuf {
    let key: String = format!("{}@{}_{}_{}", url.user, url.host, url.port, url.db)
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || matches!(c, '@' | '_' | '-' | '.') {
                true => c,
                false => '_',
            },
        )
        .collect();
    crate::server::state_dir().join("server-stores").join(key)
}

/// The spool of the server store `arg`, opened to record (see the module
/// doc): runs left behind are pushed first, and the spool pushes its
/// finished runs when it closes.
pub fn open_spool(arg: &str) -> Result<Store> {
    let (url, opts) = store_opts(arg)?;
    let mut conn = connect_with(&url, &opts)?;
    let mut spool = Store::open(&local_dir(&url).join("spool.db"))?;
    spool
        .mark_dead_runs(crate::server::process_alive)
        .with_context(|| format!("cannot update {}", spool.path().display()))?;
    if let Err(e) = spool.push(&mut conn, &url.shown()) {
        log::warn!(
            "cannot store earlier runs in {}: {e:#}; they stay in {}",
            url.shown(),
            spool.path().display()
        );
    }
    drop(conn);
    let shown = url.shown();
    spool.push_on_close(
        Box::new(move || {
            let conn = connect_with(&url, &opts)?;
            Ok(Box::new(conn) as Box<dyn ServerSql + Send>)
        }),
        shown,
    );
    Ok(spool)
}

/// Brings the mirror of the server store `arg` up to date (the runs it
/// lacks copied, the server's ids kept); returns its path.
pub fn sync_mirror(arg: &str) -> Result<PathBuf> {
    let (url, opts) = store_opts(arg)?;
    sync_mirror_with(&url, &opts)
}

fn sync_mirror_with(url: &ServerUrl, opts: &ConnOpts) -> Result<PathBuf> {
    let mut conn = connect_with(url, opts)?;
    let path = local_dir(url).join("mirror.db");
    let mirror = Store::open(&path)?;
    mirror
        .copy_from_server(&mut conn, &CopySelection::All, true)
        .with_context(|| format!("cannot read the results store {}", url.shown()))?;
    Ok(path)
}

/// The mirror of `arg`, refreshed every `UI_REFRESH` on a thread of its
/// own (for the UI, which opens the mirror on each request; the password
/// is asked once); returns its path after the first refresh.
pub fn keep_mirror_fresh(arg: &str) -> Result<PathBuf> {
    let (url, opts) = store_opts(arg)?;
    let path = sync_mirror_with(&url, &opts)?;
    std::thread::Builder::new()
        .name("store-mirror".into())
        .spawn(move || loop {
            std::thread::sleep(UI_REFRESH);
            if let Err(e) = sync_mirror_with(&url, &opts) {
                log::warn!("cannot refresh the store's mirror: {e:#}");
            }
        })?;
    Ok(path)
}

/// The SQLite store at `path`, opened to record (dead runs marked).
fn open_file(path: &str) -> Result<Store> {
    let store = Store::open(Path::new(path))?;
    store
        .mark_dead_runs(crate::server::process_alive)
        .with_context(|| format!("cannot update {path}"))?;
    Ok(store)
}

/// Copies the runs `sel` names from store `from` into store `to`, either
/// a SQLite file or a server store URL (server to server is refused).
pub fn copy_between(from: &str, to: &str, sel: &CopySelection) -> Result<crate::store::CopyReport> {
    let (from_url, to_url) = (
        is_server_store(Path::new(from)),
        is_server_store(Path::new(to)),
    );
    match (from_url, to_url) {
        (true, true) => anyhow::bail!(
            "store copy: both stores are server stores; copy into a SQLite file first, then from it"
        ),
        _ if !from_url && !Path::new(from).exists() => {
            anyhow::bail!("store copy: no results store at {from}")
        }
        (false, false) => {
            let src = open_file(from)?;
            let dst = open_file(to)?;
            src.copy_into(&dst, sel)
        }
        (false, true) => {
            let src = open_file(from)?;
            let (url, mut conn) = connect_store(to)?;
            src.copy_to_server(&mut conn, sel)
                .with_context(|| format!("cannot copy into {}", url.shown()))
        }
        (true, false) => {
            let (url, mut conn) = connect_store(from)?;
            let dst = open_file(to)?;
            dst.copy_from_server(&mut conn, sel, false)
                .with_context(|| format!("cannot copy from {}", url.shown()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server store's local files are named by user, host, port and
    /// database: never by the password.
    #[test]
    fn local_files_are_named_without_the_password() {
        let url = ServerUrl::parse("mysql://lab:s3cret@db.example:3307/team%20results").unwrap();
        let dir = local_dir(&url);
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(name, "lab@db.example_3307_team_20results");
        assert!(!dir.to_string_lossy().contains("s3cret"));
        assert!(is_server_store(Path::new("mysql://lab@h/db")));
        assert!(!is_server_store(Path::new("/tmp/results.db")));
    }
}
