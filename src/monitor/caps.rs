//! Capability probing at connect: which sources apply to this server and
//! host, and in which form. MariaDB and MySQL differ (INNODB_METRICS has
//! ENABLED on MariaDB, STATUS on MySQL, and is absent before 5.6;
//! Performance Schema is off by default on MariaDB; 5.5's Performance
//! Schema has no COUNT_MISC or timers in its file summary and no
//! PROCESSLIST_COMMAND in `threads`; SHOW ENGINE INNODB MUTEX answers on
//! MySQL 5.5–5.7, on 8.0 only with the latch monitor, not on MariaDB), and
//! OS sources for the server only apply when it runs on this host. Each
//! source left out gets a note saying why.

use crate::protocol::{Conn, Endpoint, ProtoError};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What the monitored server and host offer, found at (re)connect: which
/// sources apply and how to read them.
#[derive(Debug, Clone, Default)]
pub struct Caps {
    /// The server's version string.
    pub version: String,
    /// Whether it is MariaDB.
    pub mariadb: bool,
    /// performance_schema is ON.
    pub ps_on: bool,
    /// Some mutex/rwlock wait instruments are enabled (off by default on MariaDB).
    pub ps_synch: bool,
    /// The WHERE clause selecting enabled INNODB_METRICS counters, when the
    /// table exists.
    pub innodb_metrics_filter: Option<&'static str>,
    /// Each enabled INNODB_METRICS counter's subsystem and whether its
    /// type counts up (`counter`, `status_counter`), by name: how
    /// mysqld_exporter names and types it.
    pub innodb_metric_kinds: std::collections::BTreeMap<String, (String, bool)>,
    /// file_summary_by_event_name has 5.6's columns (COUNT_STAR,
    /// COUNT_MISC, SUM_TIMER_WAIT); else 5.5's reads/writes/bytes only.
    pub ps_files_timed: bool,
    /// performance_schema.threads has PROCESSLIST_COMMAND/STATE (5.6+).
    pub ps_threads_command: bool,
    /// SHOW ENGINE INNODB MUTEX answers with rows worth collecting.
    pub innodb_mutex: bool,
    /// The server's datadir, when it says.
    pub datadir: Option<PathBuf>,
    /// The server's process, when it runs on this host and we may read it.
    pub server_pid: Option<i32>,
    /// The /proc/diskstats device holding the datadir.
    pub disk: Option<String>,
    /// Whether the endpoint is on this host (socket or loopback).
    pub local: bool,
    /// Whose host the OS sources are read on when the server is not on
    /// this one ("the agent at db1:7070"); None: this host's.
    pub host_reader: Option<String>,
    /// The server's @@pid_file, kept for the agent beside a server on
    /// another host.
    pub pid_file: String,
}

async fn one_row(c: &mut Conn, sql: &str) -> Result<Vec<Option<String>>, ProtoError> {
    Ok(c.query(sql)
        .await?
        .rows
        .into_iter()
        .next()
        .unwrap_or_default())
}

/// A note from probing: a source left out (`Skipped`) or read in a
/// reduced form (`Info`).
pub(crate) type ProbeNote = (NoteKind, String);

/// Probes `c`; returns the capabilities and a note for each source left
/// out or reduced.
pub async fn probe(
    c: &mut Conn,
    endpoint: &Endpoint,
    agent: bool,
) -> Result<(Caps, Vec<ProbeNote>), ProtoError> {
    let mut notes: Vec<ProbeNote> = Vec::new();
    let row = one_row(
        c,
        "SELECT @@version, @@performance_schema, @@datadir, @@pid_file",
    )
    .await?;
    let get = |i: usize| row.get(i).cloned().flatten().unwrap_or_default();
    let version = get(0);
    let mut caps = Caps {
        mariadb: version.contains("MariaDB"),
        version,
        ps_on: get(1) == "1" || get(1).eq_ignore_ascii_case("on"),
        ..Default::default()
    };
    let cols = c
        .query(
            "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='information_schema' \
             AND TABLE_NAME='INNODB_METRICS' AND COLUMN_NAME IN ('ENABLED','STATUS')",
        )
        .await?;
    let names: Vec<String> = cols
        .rows
        .into_iter()
        .filter_map(|r| r.into_iter().next().flatten())
        .collect();
    caps.innodb_metrics_filter = if names.iter().any(|n| n.eq_ignore_ascii_case("ENABLED")) {
        Some("ENABLED = 1")
    } else if names.iter().any(|n| n.eq_ignore_ascii_case("STATUS")) {
        Some("STATUS = 'enabled'")
    } else {
        notes.push((
            NoteKind::Skipped,
            "innodb_metrics: information_schema.INNODB_METRICS is not available on this server"
                .into(),
        ));
        None
    };
    if let Some(filter) = caps.innodb_metrics_filter {
        let sql = format!(
            "SELECT NAME, SUBSYSTEM, TYPE FROM information_schema.INNODB_METRICS WHERE {filter}"
        );
        if let Ok(r) = c.query(&sql).await {
            for row in r.rows {
                if let [Some(name), Some(sub), Some(kind)] = &row[..] {
                    let counter = kind == "counter" || kind == "status_counter";
                    caps.innodb_metric_kinds
                        .insert(name.clone(), (sub.clone(), counter));
                }
            }
        }
    }
    probe_innodb_mutex(c, &mut caps, &mut notes).await;
    if caps.ps_on {
        let cols = c
            .query(
                "SELECT CONCAT(TABLE_NAME, '.', COLUMN_NAME) FROM information_schema.COLUMNS \
                 WHERE TABLE_SCHEMA = 'performance_schema' AND ((TABLE_NAME = 'file_summary_by_event_name' \
                 AND COLUMN_NAME = 'COUNT_MISC') OR (TABLE_NAME = 'threads' AND COLUMN_NAME = 'PROCESSLIST_COMMAND'))",
            )
            .await?;
        let has = |n: &str| {
            cols.rows.iter().any(|r| {
                r.first()
                    .cloned()
                    .flatten()
                    .is_some_and(|v| v.eq_ignore_ascii_case(n))
            })
        };
        caps.ps_files_timed = has("file_summary_by_event_name.COUNT_MISC");
        caps.ps_threads_command = has("threads.PROCESSLIST_COMMAND");
        if !caps.ps_files_timed {
            notes.push((NoteKind::Info, "ps_files: this Performance Schema (5.5) counts file reads, writes and bytes only: no other file operations and no wait times".into()));
        }
        if !caps.ps_threads_command {
            notes.push((NoteKind::Info, "threads: performance_schema.threads has no PROCESSLIST_COMMAND here (5.5): connections are counted from information_schema.PROCESSLIST".into()));
        }
        let r = one_row(
            c,
            "SELECT COUNT(*) FROM performance_schema.setup_instruments WHERE NAME LIKE 'wait/synch/%' AND ENABLED = 'YES'",
        )
        .await?;
        caps.ps_synch = r.first().cloned().flatten().is_some_and(|n| n != "0");
        if !caps.ps_synch {
            notes.push((NoteKind::Skipped, "ps_waits: the mutex and rwlock instruments are off, so waits show file IO and table locks only \
                 (performance-schema-instrument='wait/synch/%=ON' in my.cnf turns them on)"
                    .into()));
        }
    } else {
        notes.push((NoteKind::Skipped, "ps_waits, ps_files: performance_schema is OFF (enable it with performance_schema=ON in my.cnf, a restart is needed)"
                .into()));
    }
    caps.local = on_this_host(endpoint);
    let datadir = get(2);
    if !datadir.is_empty() {
        caps.datadir = Some(PathBuf::from(datadir.trim_end_matches('/')));
    }
    if caps.local {
        caps.server_pid = find_server_pid(caps.datadir.as_deref(), &get(3));
        if caps.server_pid.is_none() {
            notes.push((NoteKind::Skipped, "server_proc: the server's process is not readable from here (another user's process?); server CPU and IO per query are left out".into()));
        }
        caps.disk = caps.datadir.as_deref().and_then(disk_of);
        if caps.disk.is_none() {
            notes.push((
                NoteKind::Skipped,
                "disk: the datadir's device is not in /proc/diskstats; physical IO shows all disks"
                    .into(),
            ));
        }
    } else if agent {
        // the agent beside it finds its process (host::locate_remote)
        caps.pid_file = get(3);
    } else {
        notes.push((NoteKind::Skipped, format!(
            "server_proc, disk: the server at {endpoint} is not on this host; only its SQL counters are read \
             (an agent on its host, --server-agent, reads them there)"
        )));
    }
    Ok((caps, notes))
}

/// Whether `endpoint` is on this host: a unix socket or a loopback address.
pub fn on_this_host(endpoint: &Endpoint) -> bool {
    match endpoint {
        Endpoint::Unix(_) => true,
        Endpoint::Tcp { host, .. } => {
            matches!(host.as_str(), "localhost" | "127.0.0.1" | "::1") || host.starts_with("127.")
        }
    }
}

/// SHOW ENGINE INNODB MUTEX: collected when it answers with rows, or when
/// it answers at all on MySQL before 8.0 (where only mutexes that made a
/// thread wait are listed, so a quiet server shows none yet).
async fn probe_innodb_mutex(c: &mut Conn, caps: &mut Caps, notes: &mut Vec<ProbeNote>) {
    let release = crate::server::Release::parse(&caps.version, "");
    let old_mysql = !caps.mariadb && release.is_some_and(|r| !r.at_least(8, 0));
    match c.query("SHOW ENGINE INNODB MUTEX").await {
        Ok(r) if !r.rows.is_empty() || old_mysql => caps.innodb_mutex = true,
        Ok(_) if caps.mariadb => notes.push((NoteKind::Skipped, "innodb_mutex: SHOW ENGINE INNODB MUTEX returns nothing on MariaDB (use ps_waits or the profiler's waits)"
                .into())),
        Ok(_) => notes.push((NoteKind::Skipped, "innodb_mutex: SHOW ENGINE INNODB MUTEX returns nothing (MySQL 8 lists latches only with innodb_monitor_enable='latch')"
                .into())),
        Err(e) => notes.push((NoteKind::Skipped, format!("innodb_mutex: SHOW ENGINE INNODB MUTEX failed: {e}"))),
    }
}

pub(crate) fn is_server(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|c| matches!(c.trim(), "mariadbd" | "mysqld"))
        .unwrap_or(false)
}

fn readable(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/io")).is_ok()
}

/// The server's pid: from its pid file, else the mariadbd/mysqld process
/// whose working directory is the datadir (the server chdirs there).
pub fn find_server_pid(datadir: Option<&Path>, pid_file: &str) -> Option<i32> {
    if !pid_file.is_empty() {
        let p = match (Path::new(pid_file).is_absolute(), datadir) {
            (false, Some(d)) => d.join(pid_file),
            _ => PathBuf::from(pid_file),
        };
        if let Some(pid) = std::fs::read_to_string(&p)
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
        {
            if is_server(pid) && readable(pid) {
                return Some(pid);
            }
        }
    }
    let datadir = datadir?.canonicalize().ok()?;
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: i32 = e.file_name().to_str()?.parse().ok()?;
        let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok()?;
        (is_server(pid) && cwd == datadir && readable(pid)).then_some(pid)
    })
}

/// The filesystem type and mount point holding `path` (the longest mount
/// point above it in this process's mount table).
pub fn filesystem_of(path: &Path) -> Option<(String, String)> {
    let path = std::fs::canonicalize(path).ok()?;
    let mounts = procfs::process::Process::myself().ok()?.mountinfo().ok()?;
    mounts
        .into_iter()
        .filter(|m| path.starts_with(&m.mount_point))
        .max_by_key(|m| m.mount_point.as_os_str().len())
        .map(|m| (m.fs_type, m.mount_point.display().to_string()))
}

/// The /proc/diskstats name of the device holding `path`.
pub(crate) fn disk_of(path: &Path) -> Option<String> {
    let dev = std::fs::metadata(path).ok()?.dev();
    let (major, minor) = (libc::major(dev) as i32, libc::minor(dev) as i32);
    procfs::diskstats()
        .ok()?
        .into_iter()
        .find(|d| d.major == major && d.minor == minor)
        .map(|d| d.name)
}

/// What a monitor note is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteKind {
    /// A source that does not apply to this server or host.
    Skipped,
    /// A source over its time budget, now polled less often.
    Slowed,
    /// The server went away: no SQL snapshots until it is back.
    Gap,
    /// The server is back after a gap.
    Resumed,
    /// A poll took longer than two of its intervals, or than 2 s (it held
    /// up the other sources): the server stalled.
    Stall,
    /// Anything else worth keeping (not shown by default).
    Info,
}
