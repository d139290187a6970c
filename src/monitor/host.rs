//! The host sources of a server on another host: the `HostReader` a
//! monitor is handed (lab's client of the agent on the database host), and
//! the two calls that agent answers with this module's own code — finding
//! the server's process (`locate_server`) and reading one host source
//! (`read_host`, the same `/proc` parsing a local run uses). What crosses
//! the network is the parsed counters (name, value), never raw text.
//! Owns no socket: the transport is lab's.

use super::{os, Caps, NoteKind, SourceId};
use crate::protocol::Endpoint;
use std::path::Path;

/// One source's values: (name, value), as a local poll gives them.
pub type Values = Vec<(String, f64)>;

/// Where the server's process and its datadir's disk were found on the
/// database host.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Located {
    /// The server's pid on its host; None when not found or not readable.
    pub pid: Option<i32>,
    /// How it was found ("pid file", "datadir", "port 3306").
    pub how: Option<String>,
    /// The /proc/diskstats device holding the datadir.
    pub disk: Option<String>,
}

/// Reads the host sources of the database host for the monitor (an agent
/// beside the server). Errors are one line, noted once by the monitor.
pub trait HostReader: Send + Sync {
    /// Whose host this is, in words ("the agent at db1:7070").
    fn name(&self) -> String;
    /// Finds the server's process by its pid file, its datadir (the
    /// process's working directory) or the TCP port it listens on.
    fn locate(&self, datadir: Option<&Path>, pid_file: &str, port: u16) -> Result<Located, String>;
    /// One poll of host source `source` (not `client_proc`, this
    /// process's own), for the server `pid` and datadir disk `disk`.
    fn poll(
        &self,
        source: SourceId,
        pid: Option<i32>,
        disk: Option<&str>,
    ) -> Result<Values, String>;
}

/// Whether `source` is read on the database host when its agent is given:
/// every OS source but this process's own.
pub fn served_by_agent(source: SourceId) -> bool {
    !source.is_sql() && source != SourceId::ClientProc
}

/// One poll of host source `source` on this host (the agent's side of
/// `HostReader::poll`): the code a local monitor runs.
pub fn read_host(source: SourceId, pid: Option<i32>, disk: Option<&str>) -> Result<Values, String> {
    if !served_by_agent(source) {
        return Err(format!("{} is not a host source", source.name()));
    }
    let caps = Caps {
        server_pid: pid,
        disk: disk.map(str::to_string),
        ..Caps::default()
    };
    os::poll(source, &caps)
}

/// The server's process on this host (the agent's side of
/// `HostReader::locate`): its pid file or datadir as a local monitor finds
/// it, else the mariadbd/mysqld process listening on TCP `port`.
pub fn locate_server(datadir: Option<&Path>, pid_file: &str, port: u16) -> Located {
    let disk = datadir.and_then(super::caps::disk_of);
    if let Some(pid) = super::caps::find_server_pid(datadir, pid_file) {
        return Located {
            pid: Some(pid),
            how: Some("pid file or datadir".into()),
            disk,
        };
    }
    let pid = (port > 0).then(|| listener_of(port)).flatten();
    Located {
        how: pid.map(|_| format!("port {port}")),
        pid,
        disk,
    }
}

/// A server on another host with an agent beside it: the agent finds its
/// process and datadir disk, and the host sources are read there.
pub(crate) fn locate_remote(
    h: &dyn HostReader,
    endpoint: &Endpoint,
    caps: &mut Caps,
    notes: &mut Vec<super::caps::ProbeNote>,
) {
    let pid_file = caps.pid_file.clone();
    let port = match endpoint {
        Endpoint::Tcp { port, .. } => *port,
        Endpoint::Unix(_) => 0,
    };
    let who = h.name();
    caps.host_reader = Some(who.clone());
    match h.locate(caps.datadir.as_deref(), &pid_file, port) {
        Ok(l) => {
            caps.server_pid = l.pid;
            caps.disk = l.disk;
            let how = l.how.unwrap_or_default();
            match l.pid {
                Some(pid) => notes.push((NoteKind::Info, format!(
                    "cpu, server_proc, server_tasks, disk, net, mem, pressure: read on the server's host by {who} (its process {pid}, found by {how})"
                ))),
                None => notes.push((NoteKind::Skipped, format!(
                    "server_proc: {who} finds no mariadbd/mysqld by the pid file, the datadir or port {port} (the agent must run on the server's host, as a user that may read its /proc); the host's cpu, disk, net, mem and pressure are read there"
                ))),
            }
            if caps.disk.is_none() {
                notes.push((NoteKind::Skipped, format!(
                    "disk: the datadir's device is not in the server host's /proc/diskstats ({who}); physical IO shows all its disks"
                )));
            }
        }
        Err(e) => notes.push((NoteKind::Skipped, format!(
            "server_proc, disk: {who} does not answer ({e}); the host sources read on it fail until it does"
        ))),
    }
}

/// The socket inodes listening on TCP `port` (IPv4 and IPv6).
fn listening_inodes(port: u16) -> Vec<u64> {
    let mut v = Vec::new();
    for f in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            // local_address is ADDR:PORT in hex; state 0A is LISTEN
            let (Some(local), Some(state), Some(inode)) = (cols.get(1), cols.get(3), cols.get(9))
            else {
                continue;
            };
            let p = local
                .rsplit_once(':')
                .and_then(|(_, p)| u16::from_str_radix(p, 16).ok());
            if p == Some(port) && *state == "0A" {
                if let Ok(i) = inode.parse() {
                    v.push(i);
                }
            }
        }
    }
    v
}

/// The server process (mariadbd or mysqld) holding a socket listening on
/// `port`.
fn listener_of(port: u16) -> Option<i32> {
    let inodes = listening_inodes(port);
    if inodes.is_empty() {
        return None;
    }
    let wanted: Vec<String> = inodes.iter().map(|i| format!("socket:[{i}]")).collect();
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: i32 = e.file_name().to_str()?.parse().ok()?;
        if !super::caps::is_server(pid) {
            return None;
        }
        let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
        fds.flatten()
            .filter_map(|fd| std::fs::read_link(fd.path()).ok())
            .any(|l| wanted.iter().any(|w| l.as_os_str() == w.as_str()))
            .then_some(pid)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agent_reads_the_host_sources_a_local_monitor_reads() {
        let v = read_host(SourceId::Cpu, None, None).unwrap();
        assert!(v.iter().any(|(k, _)| k == "all.user"));
        assert!(read_host(SourceId::ClientProc, None, None).is_err());
        assert!(read_host(SourceId::Status, None, None).is_err());
        let me = std::process::id() as i32;
        let p = read_host(SourceId::ServerProc, Some(me), None).unwrap();
        assert!(p.iter().any(|(k, _)| k == "cpu_s"));
    }

    #[test]
    fn no_server_listens_on_an_unused_port() {
        assert_eq!(listener_of(1), None);
        assert_eq!(locate_server(None, "", 1).pid, None);
    }
}
