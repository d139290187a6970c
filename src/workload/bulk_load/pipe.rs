//! The named-pipe route for LOAD DATA: when the server runs on this host
//! and may read files in a directory this process can write (its
//! `secure_file_priv`, or anywhere when that is empty or, on MariaDB,
//! unset), a loader makes a private directory there ([`super::pipe_dir`]), a
//! FIFO there and runs `LOAD DATA INFILE` on it while it writes the rows
//! into the FIFO. The server then reads its own file descriptor, as it does
//! a file on disk, instead of the LOCAL protocol's packets: on a 2-CPU host
//! it spent a median 6% less CPU on the same rows (docs/BENCHMARKS.md,
//! issue 37 item 4 at stop 54). Owns both routes (LOCAL's [`load_data`],
//! with its refusal by a server with local_infile off, and the pipe's
//! [`through_pipe`]), the choice between them ([`Route::choose`]), the
//! FIFO's life and the write beside the statement; it must not know a
//! family's rows (the caller's `fill` writes them) and never opens a file
//! the server names.
//!
//! A FIFO's contents live only while some descriptor holds it open, and
//! the server's `open()` of it blocks until a writer exists. So the loader
//! opens it read-write first (that never blocks, and keeps the pipe alive
//! before the server has opened it), writes, waits until the server has
//! read every byte (FIONREAD 0: it has opened it), then closes: the server
//! reads end-of-file. The path is unlinked before the loader's descriptor
//! is closed, so a server that has not opened it yet finds no file rather
//! than blocking for a writer that never comes.

use super::pipe_dir::PipeDir;
use super::stream_error::StreamError;
use crate::protocol::{Conn, ConnOpts, Endpoint, LoadVia, Outcome, ProtoError};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;

/// The pipe's buffer asked for (Linux's default unprivileged maximum):
/// fewer wake-ups of the server's reader than the default 64 KB.
const PIPE_SIZE: usize = 1 << 20;
/// How often the loader looks whether the server has read everything.
const DRAIN_POLL: Duration = Duration::from_micros(500);

/// How a loader's LOAD DATA statements get their rows.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// LOAD DATA LOCAL: rows in packets over the connection.
    Local,
    /// LOAD DATA INFILE of a named pipe made in this directory (removed
    /// when the route is dropped).
    Pipe(PipeDir),
}

/// The route a load takes, and why it is not the pipe where `auto` fell
/// back to LOAD DATA LOCAL.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Choice {
    pub route: Route,
    /// Why the named pipe was not used (`--load-via auto` only).
    pub why_not_pipe: Option<String>,
}

impl Route {
    /// The route for `conn` (a server reached, not a dry run) under
    /// `opts.load_via`: the pipe when the server
    /// is on this host (a unix socket or a loopback address), says where
    /// it reads files, and loads a row through a pipe there (checked with
    /// a one-row temporary table); LOAD DATA LOCAL otherwise, when the
    /// server takes it. With [`LoadVia::Pipe`] the reason the pipe cannot
    /// be used is the error; where neither route is open the error says
    /// both reasons.
    pub(crate) async fn choose(conn: &mut Conn, opts: &ConnOpts) -> Result<Choice, StreamError> {
        let why_not_pipe = match opts.load_via {
            LoadVia::Local => None,
            via => match pipe_dir(conn, opts).await {
                Ok(dir) => {
                    return Ok(Choice {
                        route: Route::Pipe(dir),
                        why_not_pipe: None,
                    })
                }
                Err(why) if via == LoadVia::Pipe => return Err(StreamError::PipeRefused(why)),
                Err(why) => Some(why),
            },
        };
        if local_infile_off(conn).await {
            return Err(match why_not_pipe {
                Some(why) => StreamError::NoRoute(why),
                None => StreamError::LocalInfileRefused,
            });
        }
        Ok(Choice {
            route: Route::Local,
            why_not_pipe,
        })
    }
}

/// Whether the server says its local_infile is off (it would refuse LOAD
/// DATA LOCAL); false where it does not say.
async fn local_infile_off(conn: &mut Conn) -> bool {
    let Ok(r) = conn.query("SELECT @@local_infile").await else {
        return false;
    };
    r.rows
        .first()
        .and_then(|row| row.first().cloned().flatten())
        .is_some_and(|v| v == "0" || v.eq_ignore_ascii_case("off"))
}

/// The one-line error for a server that refuses LOAD DATA LOCAL, for
/// error `e` of a LOAD DATA statement (None: another error).
fn local_infile_refused(e: &ProtoError) -> Option<StreamError> {
    matches!(e.code(), Some(1148) | Some(3948)).then_some(StreamError::LocalInfileRefused)
}

/// Runs LOAD DATA statement `sql`, `fill` writing each packet's rows
/// (false: the last); returns the rows the server took.
pub(crate) async fn load_data(
    conn: &mut Conn,
    sql: &str,
    fill: impl FnMut(&mut Vec<u8>) -> bool,
) -> Result<u64, StreamError> {
    conn.load_data(sql, fill)
        .await
        .map_err(|e| local_infile_refused(&e).unwrap_or(StreamError::Protocol(e)))
}

/// Whether `e` is on this host: a unix socket, or TCP to a loopback
/// address or `localhost`.
fn is_local(e: &Endpoint) -> bool {
    match e {
        Endpoint::Unix(_) => true,
        Endpoint::Tcp { host, .. } => {
            host == "localhost"
                || host
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|a| a.is_loopback())
        }
    }
}

/// The directory where the server reads the pipes, checked by loading a
/// row through one; or why there is none.
async fn pipe_dir(conn: &mut Conn, opts: &ConnOpts) -> Result<PipeDir, String> {
    if !is_local(&opts.endpoint) {
        return Err(format!(
            "the server at {} is not on this host (a unix socket or a loopback address)",
            opts.endpoint
        ));
    }
    let files = server_files_dir(conn).await?;
    let dir = PipeDir::make_in(&files)?;
    conn.exec("CREATE TEMPORARY TABLE qpslab_pipe_probe (a INT)")
        .await
        .map_err(|e| format!("the probe's temporary table: {e}"))?;
    let probe = through_pipe(
        conn,
        dir.path(),
        "LOAD DATA LOCAL INFILE 'probe' INTO TABLE qpslab_pipe_probe",
        |b| {
            b.extend_from_slice(b"1\n");
            false
        },
    )
    .await;
    let _ = conn.exec("DROP TEMPORARY TABLE qpslab_pipe_probe").await;
    match probe {
        Ok(1) => Ok(dir),
        Ok(n) => Err(format!(
            "a probe row through a pipe in {} loaded {n} rows",
            files.display()
        )),
        Err(e) => {
            let hint = match &e {
                StreamError::Protocol(p) if matches!(p.code(), Some(1045) | Some(1227)) => {
                    " (LOAD DATA INFILE needs the FILE privilege)"
                }
                _ => "",
            };
            Err(format!(
                "a probe row through a pipe in {}: {e}{hint}",
                files.display()
            ))
        }
    }
}

/// Where the server of `conn` reads files ([`files_dir`]), or why nowhere.
async fn server_files_dir(conn: &mut Conn) -> Result<PathBuf, String> {
    let r = conn
        .query("SELECT @@secure_file_priv, @@version")
        .await
        .map_err(|e| format!("reading secure_file_priv: {e}"))?;
    let row = r.rows.into_iter().next().unwrap_or_default();
    let mariadb = row
        .get(1)
        .cloned()
        .flatten()
        .is_some_and(|v| v.contains("MariaDB"));
    files_dir(row.into_iter().next().flatten().as_deref(), mariadb)
}

/// Removes, where the server of `conn` reads files, the pipe directories
/// that loads killed before they could clean up left there (the next
/// pipe prepare would too); nothing for a server on another host or a
/// dry run.
pub async fn sweep_left_pipes(conn: &mut Conn, opts: &ConnOpts) {
    if !opts.reaches_server() || !is_local(&opts.endpoint) {
        return;
    }
    if let Ok(files) = server_files_dir(conn).await {
        super::pipe_dir::sweep_stale(&files);
    }
}

/// Where the server may read files by its `secure_file_priv` (`priv_dir`):
/// that directory; anywhere (this host's temporary directory) when it is
/// empty, or NULL on MariaDB (its unset default); nowhere when it is NULL
/// on MySQL (file reads turned off).
fn files_dir(priv_dir: Option<&str>, mariadb: bool) -> Result<PathBuf, String> {
    match priv_dir {
        Some(d) if !d.is_empty() => Ok(PathBuf::from(d)),
        Some(_) => Ok(std::env::temp_dir()),
        None if mariadb => Ok(std::env::temp_dir()),
        None => Err("the server reads no files (secure_file_priv is NULL)".into()),
    }
}

/// `sql` (a `LOAD DATA LOCAL INFILE '…' …` statement) reading `path`
/// instead, without LOCAL.
fn infile_sql(sql: &str, path: &Path) -> Result<String, StreamError> {
    const HEAD: &str = "LOAD DATA LOCAL INFILE '";
    let rest = sql
        .strip_prefix(HEAD)
        .and_then(|r| r.split_once('\'').map(|(_, tail)| tail))
        .ok_or_else(|| {
            StreamError::PipeRefused(format!("not a LOAD DATA LOCAL statement: {sql}"))
        })?;
    let p = path.to_string_lossy();
    if p.contains(['\'', '\\']) {
        return Err(StreamError::PipeRefused(format!(
            "the pipe's path {p} has a quote or a backslash"
        )));
    }
    Ok(format!("LOAD DATA INFILE '{p}'{rest}"))
}

/// A new pipe's path in `dir`, unique in this process and by its id.
fn pipe_path(dir: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    dir.join(format!("qpslab-{}-{n}.pipe", std::process::id()))
}

/// Removes the pipe's path when the load is over, however it ended.
struct Unlink<'a>(&'a Path);

impl Drop for Unlink<'_> {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(self.0);
    }
}

/// Runs LOAD DATA `sql` (written for LOCAL) on a named pipe made in `dir`,
/// `fill` writing each buffer of rows (false: the last), and returns the
/// rows the server took. Each write, and the answer after the last, is
/// bounded by the connection's read timeout.
pub(crate) async fn through_pipe(
    conn: &mut Conn,
    dir: &Path,
    sql: &str,
    fill: impl FnMut(&mut Vec<u8>) -> bool,
) -> Result<u64, StreamError> {
    let path = pipe_path(dir);
    let sql = infile_sql(sql, &path)?;
    let pipe_err = |e: std::io::Error| StreamError::Pipe {
        path: path.display().to_string(),
        source: e,
    };
    // (world-readable: the server refuses a file that is not; its
    // directory keeps other users out, see pipe_dir)
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &path,
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .map_err(|e| pipe_err(e.into()))?;
    let _unlink = Unlink(&path);
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .map_err(pipe_err)?;
    let tx = tokio::net::unix::pipe::OpenOptions::new()
        .read_write(true)
        .open_sender(&path)
        .map_err(pipe_err)?;
    let _ = rustix::pipe::fcntl_setpipe_size(&tx, PIPE_SIZE);
    let limit = conn.read_timeout();
    let answer = conn.exec_unbounded(&sql);
    tokio::pin!(answer);
    let written = write_rows(tx, &path, fill, limit);
    tokio::pin!(written);
    tokio::select! {
        // (the writer first: it completes in the poll that closes the
        // pipe, before the server can have answered)
        biased;
        w = &mut written => {
            if let Err(e) = w {
                // (the server may have said why: it stopped reading)
                return match tokio::time::timeout(limit, &mut answer).await {
                    Ok(Err(server)) => Err(server.into()),
                    _ => Err(pipe_err(e)),
                };
            }
            match tokio::time::timeout(limit, &mut answer).await {
                Ok(r) => match r? {
                    Outcome::Affected(n) | Outcome::Rows(n) => Ok(n),
                },
                Err(_) => Err(ProtoError::Timeout { what: "LOAD DATA's result", after: limit }.into()),
            }
        }
        // (an answer before the last row: the server failed, or ended early)
        r = &mut answer => {
            r?;
            Err(StreamError::PipeRefused(
                "the server ended LOAD DATA before the last row was written".into(),
            ))
        }
    }
}

/// Writes `fill`'s buffers into the pipe and waits until the server has
/// read them all; then, however that ended, unlinks the path and closes
/// the pipe (the server's end-of-file). The path goes first: a server that
/// has not opened the pipe yet then finds no file, rather than waiting in
/// `open()` for a writer that is gone.
async fn write_rows(
    mut tx: tokio::net::unix::pipe::Sender,
    path: &Path,
    fill: impl FnMut(&mut Vec<u8>) -> bool,
    limit: Duration,
) -> std::io::Result<()> {
    let r = write_and_drain(&mut tx, fill, limit).await;
    let _ = std::fs::remove_file(path);
    drop(tx);
    r
}

/// `write_rows`' writes and its wait for the pipe to be empty.
async fn write_and_drain(
    tx: &mut tokio::net::unix::pipe::Sender,
    mut fill: impl FnMut(&mut Vec<u8>) -> bool,
    limit: Duration,
) -> std::io::Result<()> {
    let timed_out = || {
        std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "the server stopped reading the pipe",
        )
    };
    let mut buf = Vec::with_capacity(PIPE_SIZE);
    loop {
        buf.clear();
        let more = fill(&mut buf);
        tokio::time::timeout(limit, tx.write_all(&buf))
            .await
            .map_err(|_| timed_out())??;
        if !more {
            break;
        }
    }
    let deadline = Instant::now() + limit;
    while rustix::io::ioctl_fionread(&*tx)? > 0 {
        if Instant::now() > deadline {
            return Err(timed_out());
        }
        tokio::time::sleep(DRAIN_POLL).await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_statement_reads_the_pipe_without_local() {
        let p = Path::new("/srv/files/qpslab-1-0.pipe");
        let sql = "LOAD DATA LOCAL INFILE 'qpslab-sbtest3' INTO TABLE sbtest3 FIELDS TERMINATED BY ',' (id, k, c, pad)";
        assert_eq!(
            infile_sql(sql, p).unwrap(),
            "LOAD DATA INFILE '/srv/files/qpslab-1-0.pipe' INTO TABLE sbtest3 FIELDS TERMINATED BY ',' (id, k, c, pad)"
        );
        assert!(infile_sql("INSERT INTO t VALUES (1)", p).is_err());
        assert!(infile_sql(sql, Path::new("/tmp/it's")).is_err());
    }

    #[test]
    fn secure_file_priv_null_means_anywhere_on_mariadb_and_nowhere_on_mysql() {
        let tmp = std::env::temp_dir();
        assert_eq!(
            files_dir(Some("/srv/f"), false),
            Ok(PathBuf::from("/srv/f"))
        );
        assert_eq!(files_dir(Some(""), false), Ok(tmp.clone()));
        assert_eq!(files_dir(None, true), Ok(tmp));
        assert!(files_dir(None, false).unwrap_err().contains("NULL"));
    }

    #[test]
    fn only_this_hosts_servers_are_local() {
        let tcp = |h: &str| Endpoint::Tcp {
            host: h.into(),
            port: 3306,
        };
        assert!(is_local(&Endpoint::Unix("/x.sock".into())));
        for h in ["127.0.0.1", "127.3.4.5", "::1", "[::1]", "localhost"] {
            assert!(is_local(&tcp(h)), "{h}");
        }
        for h in ["10.0.0.1", "db.example", "192.168.1.2"] {
            assert!(!is_local(&tcp(h)), "{h}");
        }
    }
}
