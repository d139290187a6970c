//! Sandbox TCP ports: each sandbox gets its own, reserved twice — by a
//! file created exclusively under its state directory's
//! `sandboxes/.ports/`, and by one under a per-user directory shared by
//! every state directory on the host (`$TMPDIR/qpslab-ports-UID/`), so two
//! sandboxes of different QPSLAB_HOMEs created at the same moment (tests,
//! a soak beside them) never pick the same port. The shared reservation
//! names the local one; once that is gone (the state directory removed)
//! the shared one is stale and is taken over.

use super::paths::sandboxes_dir;
use anyhow::{bail, Result};
use std::fs;
use std::path::{Path, PathBuf};

fn ports_dir() -> PathBuf {
    sandboxes_dir().join(".ports")
}

/// The host-wide reservations of this user.
fn shared_dir() -> PathBuf {
    let uid = rustix::process::geteuid().as_raw();
    std::env::temp_dir().join(format!("qpslab-ports-{uid}"))
}

/// Creates `path` only if it does not exist, writing `text` into it.
fn create_new(path: &Path, text: &str) -> bool {
    use std::io::Write;
    match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(mut f) => {
            let _ = f.write_all(text.as_bytes());
            true
        }
        Err(_) => false,
    }
}

/// Reserves `port` host-wide for the local reservation `local`; a shared
/// reservation whose local file is gone is stale and taken over.
fn reserve_shared(port: u16, local: &Path) -> bool {
    let dir = shared_dir();
    if fs::create_dir_all(&dir).is_err() {
        // No shared directory (read-only /tmp): the local reservation and
        // the bind test still hold.
        return true;
    }
    let path = dir.join(port.to_string());
    let owner = local.to_string_lossy();
    if create_new(&path, &owner) {
        return true;
    }
    match fs::read_to_string(&path) {
        Ok(holder) if !holder.is_empty() && !Path::new(&holder).exists() => {
            // Stale: its state directory was removed without releasing it.
            let _ = fs::remove_file(&path);
            create_new(&path, &owner)
        }
        _ => false,
    }
}

/// A port not in `taken` (the ports of this state directory's sandboxes),
/// that nothing listens on now and that no other state directory has
/// reserved. The choice is reserved with files created exclusively, so
/// two sandboxes created at the same moment never share a port.
pub(super) fn free_port(taken: &[u16]) -> Result<u16> {
    let dir = ports_dir();
    fs::create_dir_all(&dir)?;
    // Absolute: the shared reservation names it for other state directories.
    let dir = fs::canonicalize(&dir).unwrap_or(dir);
    for p in 13306..14306u16 {
        if taken.contains(&p) || std::net::TcpListener::bind(("127.0.0.1", p)).is_err() {
            continue;
        }
        let local = dir.join(p.to_string());
        if !create_new(&local, "") {
            continue;
        }
        if reserve_shared(p, &local) {
            return Ok(p);
        }
        let _ = fs::remove_file(&local);
    }
    bail!("no free TCP port in 13306..14306 for a sandbox")
}

/// Gives up the reservation of `port`.
pub(super) fn release_port(port: u16) {
    let dir = ports_dir();
    let local = fs::canonicalize(&dir).unwrap_or(dir).join(port.to_string());
    let shared = shared_dir().join(port.to_string());
    if fs::read_to_string(&shared).is_ok_and(|h| Path::new(&h) == local) {
        let _ = fs::remove_file(&shared);
    }
    let _ = fs::remove_file(&local);
}
