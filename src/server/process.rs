//! The processes a sandbox runs: a program run to completion within a time
//! limit, a directory tree copied, whether a server greets on a socket,
//! whether a process is alive.

use anyhow::{bail, Context, Result};
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `cmd` to completion, its output collected, killing it (and failing)
/// when it is still running after `limit`.
pub(super) fn output_within(cmd: &mut Command, limit: Duration) -> Result<std::process::Output> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let drain = |r: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut v);
            }
            v
        })
    };
    let out = drain(child.stdout.take().map(|s| Box::new(s) as _));
    let err = drain(child.stderr.take().map(|s| Box::new(s) as _));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break st;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            bail!("still running after {} s: stopped it", limit.as_secs());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Ok(std::process::Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

/// Copies a directory tree (reflinks where the filesystem has them).
pub(super) fn copy_tree(from: &std::path::Path, to: &std::path::Path) -> Result<()> {
    let out = Command::new("cp")
        .arg("-a")
        .arg("--reflink=auto")
        .arg(from)
        .arg(to)
        .output()
        .context("cannot run cp")?;
    if !out.status.success() {
        bail!(
            "copying {} to {} failed: {}",
            from.display(),
            to.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

/// Whether a server listens on `socket` and greets a client (MySQL
/// protocol version 10): the sign that it accepts connections. Reads the
/// greeting's first bytes only; logging in is the caller's business.
pub(super) fn greets(socket: &Path) -> bool {
    use std::io::Read;
    let Ok(mut s) = std::os::unix::net::UnixStream::connect(socket) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    let mut head = [0u8; 5];
    s.read_exact(&mut head).is_ok() && head[4] == 10
}

/// A process counts as alive unless it is gone or a zombie.
pub fn process_alive(pid: i64) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => {
            s.rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().next())
                != Some("Z")
        }
        Err(_) => false,
    }
}
