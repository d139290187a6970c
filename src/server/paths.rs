//! Where qpslab keeps its state, and how sandbox paths are laid out.

use std::path::{Path, PathBuf};

/// The state directory: `$QPSLAB_HOME`, else `<user data dir>/qpslab`.
pub fn state_dir() -> PathBuf {
    if let Some(h) = std::env::var_os("QPSLAB_HOME").filter(|h| !h.is_empty()) {
        // Made absolute: the server is started in its own basedir, where a
        // relative datadir would point elsewhere.
        return std::path::absolute(&h).unwrap_or_else(|_| PathBuf::from(h));
    }
    dirs::data_dir()
        .unwrap_or_else(|| std::env::temp_dir().join("qpslab-data"))
        .join("qpslab")
}

pub(crate) fn sandboxes_dir() -> PathBuf {
    state_dir().join("sandboxes")
}

/// The unix socket path for a sandbox. Socket paths must fit in 107 bytes
/// (sun_path); when the sandbox directory is deeper than that, the socket
/// goes to a short per-user directory under /tmp, named by a hash of the
/// sandbox directory so that two state directories never collide.
pub(crate) fn socket_path(sandbox_dir: &Path) -> PathBuf {
    let p = sandbox_dir.join("mysqld.sock");
    if p.as_os_str().len() < 100 {
        return p;
    }
    let h = crate::stats::fnv1a64(sandbox_dir.as_os_str().as_encoded_bytes());
    let uid = rustix::process::geteuid().as_raw();
    PathBuf::from(format!("/tmp/qpslab-{uid}/{h:016x}.sock"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_socket_paths_are_shortened() {
        let deep = PathBuf::from(format!("/{}", "d".repeat(150)));
        let s = socket_path(&deep);
        assert!(s.as_os_str().len() < 107, "{}", s.display());
        assert_eq!(
            socket_path(Path::new("/x")),
            PathBuf::from("/x/mysqld.sock")
        );
    }
}
