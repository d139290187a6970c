//! The private directory a load's named pipes live in, inside the
//! directory the server reads files from (often a shared, world-writable
//! one such as /tmp). The server must be able to open a pipe (it runs as
//! another user), so a pipe is world-readable; what keeps other users of
//! the host from opening it too, and reading or stealing rows before the
//! server does, is its directory: mode 0711 (others may pass through but
//! not list it) under a name with 64 random bits that only the server is
//! told. Owns that directory's life (made once per load, removed when the
//! load ends, and swept when a killed process left one) and nothing
//! inside it but the pipes it names; it must not know what goes through
//! them.

use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// What a directory of pipes is called: `qpslab-<pid>-<16 hex digits>`.
const PREFIX: &str = "qpslab-";

/// A load's directory of pipes; removed, with any pipe left in it, when
/// dropped.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct PipeDir {
    path: PathBuf,
}

impl PipeDir {
    /// Makes a new private directory in `parent` (first sweeping the ones
    /// that processes no longer running left there).
    pub(crate) fn make_in(parent: &Path) -> Result<PipeDir, String> {
        sweep_stale(parent);
        let mut secret = [0u8; 8];
        getrandom::fill(&mut secret).map_err(|e| format!("random bytes for a directory: {e}"))?;
        let name = format!(
            "{PREFIX}{}-{:016x}",
            std::process::id(),
            u64::from_le_bytes(secret)
        );
        let path = parent.join(name);
        std::fs::create_dir(&path)
            .map_err(|e| format!("making a directory in {}: {e}", parent.display()))?;
        let dir = PipeDir { path };
        // (set, not asked of mkdir: a umask such as 077 would take the
        // server's way through)
        std::fs::set_permissions(&dir.path, std::fs::Permissions::from_mode(0o711))
            .map_err(|e| format!("the mode of {}: {e}", dir.path.display()))?;
        Ok(dir)
    }

    /// Where the pipes go.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PipeDir {
    fn drop(&mut self) {
        empty_and_remove(&self.path);
    }
}

/// The process id in a pipe directory's name (or in an earlier version's
/// pipe, `qpslab-<pid>-<n>.pipe`, made straight in the server's
/// directory); None for any other name.
fn owner(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?;
    let rest = rest.strip_suffix(".pipe").unwrap_or(rest);
    let (pid, tail) = rest.split_once('-')?;
    (!tail.is_empty() && tail.chars().all(|c| c.is_ascii_hexdigit()))
        .then(|| pid.parse().ok())
        .flatten()
}

/// Removes what loaders of processes no longer running left in `parent`
/// (killed before they could clean up): their pipe directories, and the
/// pipes an earlier version made there directly.
pub(super) fn sweep_stale(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(owner) else {
            continue;
        };
        if Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        match e.file_type() {
            Ok(t) if t.is_dir() => empty_and_remove(&e.path()),
            Ok(t) if t.is_fifo() => release(&e.path()),
            _ => {}
        }
    }
}

/// Releases and removes every pipe in `dir`, then `dir` (which stays if
/// anything but pipes is in it).
fn empty_and_remove(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_fifo()) {
                release(&e.path());
            }
        }
    }
    let _ = std::fs::remove_dir(dir);
}

/// Removes pipe `path`, first letting go a server session still waiting in
/// `open()` on it: opening the write end and closing it gives it
/// end-of-file.
fn release(path: &Path) {
    if let Ok(w) = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
    {
        drop(w);
    }
    let _ = std::fs::remove_file(path);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn a_pipe_directory_is_private_unguessable_and_removed_when_done() {
        let parent = std::env::temp_dir().join(format!("qpslab-test-{}", std::process::id()));
        std::fs::create_dir_all(&parent).unwrap();
        let (a, b) = (
            PipeDir::make_in(&parent).unwrap(),
            PipeDir::make_in(&parent).unwrap(),
        );
        assert_ne!(a.path(), b.path());
        assert_eq!(a.path().metadata().unwrap().mode() & 0o777, 0o711);
        let name = a.path().file_name().unwrap().to_str().unwrap().to_owned();
        assert_eq!(owner(&name), Some(std::process::id()), "{name}");
        assert_eq!(name.rsplit('-').next().unwrap().len(), 16, "{name}");
        let pipe = a.path().join("left.pipe");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &pipe,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        let kept = a.path().to_owned();
        drop(a);
        assert!(!kept.exists(), "the directory and its pipe are gone");
        drop(b);
        std::fs::remove_dir(&parent).unwrap();
    }

    #[test]
    fn only_a_dead_processs_directories_and_old_pipes_are_swept() {
        let parent = std::env::temp_dir().join(format!("qpslab-sweep-{}", std::process::id()));
        std::fs::create_dir_all(&parent).unwrap();
        // (pid 0x7fffffff: the kernel's pid_max is at most 2^22)
        let dead = parent.join("qpslab-2147483647-00000000deadbeef");
        let old = parent.join("qpslab-2147483647-3.pipe");
        let mine = parent.join(format!("qpslab-{}-00000000cafef00d", std::process::id()));
        let other = parent.join("qpslab-2147483647-notes");
        for d in [&dead, &mine, &other] {
            std::fs::create_dir(d).unwrap();
        }
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &old,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        sweep_stale(&parent);
        assert!(!dead.exists() && !old.exists());
        assert!(mine.exists(), "a running process's directory stays");
        assert!(other.exists(), "a name that is not ours stays");
        std::fs::remove_dir_all(&parent).unwrap();
    }
}
