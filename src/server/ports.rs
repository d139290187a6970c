//! Sandbox TCP ports: each sandbox of a state directory gets its own,
//! reserved by a file created exclusively under `sandboxes/.ports/`.

use super::paths::sandboxes_dir;
use anyhow::{bail, Result};
use std::fs;
use std::path::PathBuf;

fn ports_dir() -> PathBuf {
    sandboxes_dir().join(".ports")
}

/// A port not in `taken` (the ports of this state directory's sandboxes)
/// and that nothing listens on now. The choice is reserved with a file created exclusively,
/// so two sandboxes created at the same moment never share a port.
pub(super) fn free_port(taken: &[u16]) -> Result<u16> {
    let dir = ports_dir();
    fs::create_dir_all(&dir)?;
    for p in 13306..14306u16 {
        if taken.contains(&p) || std::net::TcpListener::bind(("127.0.0.1", p)).is_err() {
            continue;
        }
        if fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(dir.join(p.to_string()))
            .is_ok()
        {
            return Ok(p);
        }
    }
    bail!("no free TCP port in 13306..14306 for a sandbox")
}

/// Gives up the reservation of `port`.
pub(super) fn release_port(port: u16) {
    let _ = fs::remove_file(ports_dir().join(port.to_string()));
}
