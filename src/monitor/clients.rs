//! The processes connected to one server on this host, and the CPU they
//! used: `top`'s "client" figure counts what loads *this* server, not
//! every load generator on the host.
//!
//! A process is the server's client when one of its sockets is the other
//! end of one of the server's: for unix sockets the kernel names each
//! connected socket's peer (sock_diag, `UNIX_DIAG_PEER`); for TCP the
//! client's socket is the one whose addresses are the server's socket's,
//! swapped (a client on another host is not on this host to be counted).
//! Owns: reading sockets and process CPU from the kernel. Must not touch:
//! the server's SQL side, the run.

use netlink_packet_core::{
    NetlinkHeader, NetlinkMessage, NetlinkPayload, NLM_F_DUMP, NLM_F_REQUEST,
};
use netlink_packet_sock_diag::{
    constants::{AF_INET, AF_INET6, IPPROTO_TCP},
    inet::{ExtensionFlags, InetRequest, SocketId, StateFlags},
    unix::{ShowFlags, StateFlags as UnixStates, UnixRequest},
    SockDiagMessage,
};
use netlink_sys::{protocols::NETLINK_SOCK_DIAG, Socket, SocketAddr};
use std::collections::{HashMap, HashSet};
use std::net::SocketAddr as Inet;

/// Why the clients of a server could not be found.
#[derive(Debug, thiserror::Error)]
pub enum ClientsError {
    /// The server's descriptors are not readable (another user's process
    /// without the privilege to look).
    #[error("cannot read the sockets of process {pid}: {source} (run as its user or root)")]
    ServerFds {
        /// The server's pid.
        pid: i32,
        /// What /proc said.
        #[source]
        source: procfs::ProcError,
    },
    /// The kernel's socket listing failed.
    #[error("cannot list the host's sockets (sock_diag): {0}")]
    Diag(String),
}

/// The processes (other than the server and this one) with a socket
/// connected to process `server`'s.
pub fn connected_pids(server: i32) -> Result<Vec<i32>, ClientsError> {
    let fds = procfs::process::Process::new(server)
        .and_then(|p| p.fd())
        .map_err(|source| ClientsError::ServerFds {
            pid: server,
            source,
        })?;
    let mine: HashSet<u64> = fds
        .flatten()
        .filter_map(|f| match f.target {
            procfs::process::FDTarget::Socket(i) => Some(i),
            _ => None,
        })
        .collect();
    let mut theirs = HashSet::new();
    for (inode, peer) in unix_peers()? {
        if mine.contains(&inode) {
            theirs.insert(peer);
        }
    }
    let tcp = tcp_sockets()?;
    let server_ends: HashSet<(Inet, Inet)> = tcp
        .iter()
        .filter(|(i, _)| mine.contains(i))
        .map(|(_, (src, dst))| (*dst, *src))
        .collect();
    theirs.extend(
        tcp.iter()
            .filter(|(_, ends)| server_ends.contains(ends))
            .map(|(i, _)| *i),
    );
    let me = std::process::id() as i32;
    let Ok(all) = procfs::process::all_processes() else {
        return Ok(Vec::new());
    };
    Ok(all
        .flatten()
        .filter(|p| p.pid != me && p.pid != server)
        .filter(|p| {
            p.fd().is_ok_and(|mut fds| {
                fds.any(|f| {
                    matches!(f.map(|f| f.target), Ok(procfs::process::FDTarget::Socket(i)) if theirs.contains(&i))
                })
            })
        })
        .map(|p| p.pid)
        .collect())
}

/// CPU seconds processes `pids` used so far (those gone count 0).
pub fn cpu_seconds(pids: &[i32]) -> f64 {
    let hz = procfs::ticks_per_second() as f64;
    pids.iter()
        .filter_map(|p| {
            procfs::process::Process::new(*p)
                .and_then(|p| p.stat())
                .ok()
        })
        .map(|s| (s.utime + s.stime) as f64 / hz)
        .sum()
}

/// Every connected unix socket's inode and its peer's.
fn unix_peers() -> Result<Vec<(u64, u64)>, ClientsError> {
    let req = SockDiagMessage::UnixRequest(UnixRequest {
        state_flags: UnixStates::ESTABLISHED,
        inode: 0,
        show_flags: ShowFlags::PEER,
        cookie: [0; 8],
    });
    let mut out = Vec::new();
    dump(req, |m| {
        if let SockDiagMessage::UnixResponse(r) = m {
            if let Some(peer) = r.peer() {
                out.push((u64::from(r.header.inode), u64::from(peer)));
            }
        }
    })?;
    Ok(out)
}

/// Every established TCP socket on this host: inode → (source, destination).
fn tcp_sockets() -> Result<HashMap<u64, (Inet, Inet)>, ClientsError> {
    let mut out = HashMap::new();
    for (family, id) in [
        (AF_INET, SocketId::new_v4()),
        (AF_INET6, SocketId::new_v6()),
    ] {
        let req = SockDiagMessage::InetRequest(InetRequest {
            family,
            protocol: IPPROTO_TCP,
            extensions: ExtensionFlags::empty(),
            states: StateFlags::ESTABLISHED,
            socket_id: id,
        });
        dump(req, |m| {
            if let SockDiagMessage::InetResponse(r) = m {
                let s = &r.header.socket_id;
                out.insert(
                    u64::from(r.header.inode),
                    (
                        Inet::new(s.source_address, s.source_port),
                        Inet::new(s.destination_address, s.destination_port),
                    ),
                );
            }
        })?;
    }
    Ok(out)
}

/// Sends one sock_diag dump request and hands each answer to `each`.
fn dump(req: SockDiagMessage, mut each: impl FnMut(SockDiagMessage)) -> Result<(), ClientsError> {
    let err = |e: std::io::Error| ClientsError::Diag(e.to_string());
    let mut socket = Socket::new(NETLINK_SOCK_DIAG).map_err(err)?;
    socket.bind_auto().map_err(err)?;
    socket.connect(&SocketAddr::new(0, 0)).map_err(err)?;
    let mut header = NetlinkHeader::default();
    header.flags = NLM_F_REQUEST | NLM_F_DUMP;
    let mut packet = NetlinkMessage::new(header, req.into());
    packet.finalize();
    let mut buf = vec![0; packet.buffer_len()];
    packet.serialize(&mut buf);
    socket.send(&buf, 0).map_err(err)?;
    let mut rx = vec![0u8; 64 * 1024];
    loop {
        let n = socket.recv(&mut &mut rx[..], 0).map_err(err)?;
        let mut at = 0;
        while at < n {
            let m = <NetlinkMessage<SockDiagMessage>>::deserialize(&rx[at..n])
                .map_err(|e| ClientsError::Diag(e.to_string()))?;
            let len = m.header.length as usize;
            match m.payload {
                NetlinkPayload::InnerMessage(inner) => each(inner),
                NetlinkPayload::Done(_) => return Ok(()),
                NetlinkPayload::Error(e) => return Err(ClientsError::Diag(format!("{e:?}"))),
                _ => {}
            }
            if len == 0 {
                break;
            }
            at += len;
        }
        if n == 0 {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// A child process connected to a listener of this process over a
    /// unix socket and over TCP is found; a process connected to neither
    /// is not.
    #[test]
    fn finds_the_processes_connected_to_a_server() {
        let dir = std::env::temp_dir().join(format!("qpslab-clients-{}", std::process::id()));
        let _ = std::fs::remove_file(&dir);
        let unix = std::os::unix::net::UnixListener::bind(&dir).unwrap();
        let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = tcp.local_addr().unwrap().port();
        // Another process holding a unix and a TCP connection to them.
        let script = format!(
            "import socket,sys,time\nu=socket.socket(socket.AF_UNIX);u.connect({:?})\nt=socket.create_connection(('127.0.0.1',{port}))\nsys.stdout.write('up\\n');sys.stdout.flush();sys.stdin.read()",
            dir.display().to_string()
        );
        let mut child = std::process::Command::new("python3")
            .args(["-c", &script])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3 runs (apt-get install python3)");
        let (_u, _) = unix.accept().unwrap();
        let (_t, _) = tcp.accept().unwrap();
        let mut up = [0u8; 3];
        child.stdout.as_mut().unwrap().read_exact(&mut up).unwrap();
        // This test process plays the server.
        let me = std::process::id() as i32;
        let pids = connected_pids(me).unwrap();
        assert!(
            pids.contains(&(child.id() as i32)),
            "{pids:?}, child {}",
            child.id()
        );
        assert!(!pids.contains(&me));
        child.stdin.as_mut().unwrap().write_all(b"").unwrap();
        drop(child.stdin.take());
        child.wait().unwrap();
        let _ = std::fs::remove_file(&dir);
        assert_eq!(
            cpu_seconds(&[i32::MAX]),
            0.0,
            "a process that is gone counts 0"
        );
    }
}
