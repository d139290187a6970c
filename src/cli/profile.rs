//! `qpslab profile`: a server's on-CPU stacks for a while, as top tables
//! (functions on CPU, on the stack, lock families), and the folded stacks
//! to a file when asked.

use super::args::ProfileArgs;
use super::target::resolve;
use anyhow::{Context, Result};

pub(super) fn profile(a: &ProfileArgs) -> Result<i32> {
    if let Err(note) = crate::profiler::probe() {
        anyhow::bail!("cannot profile: {note}");
    }
    let pid = match a.pid {
        Some(p) => p,
        None => {
            let t = resolve(&a.conn, "sbtest")?;
            crate::lab::server_pid(&t)?
        }
    };
    let work = std::env::temp_dir().join("qpslab-profile");
    let kind = crate::profiler::Kind::from(a.kind);
    eprintln!(
        "recording process {pid} ({}) for {} s...",
        kind.name(),
        a.time
    );
    let (folded, secs) = crate::lab::profile(kind, pid, a.profile_hz, a.time, &work)?;
    if let Some(path) = &a.folded {
        std::fs::write(path, folded.text())
            .with_context(|| format!("writing the folded stacks to {}", path.display()))?;
    }
    print!(
        "{}",
        crate::report::profile::summary(&folded, kind, secs, a.profile_hz, a.top)
    );
    if let Some(path) = &a.folded {
        println!("folded stacks: {}", path.display());
    }
    Ok(0)
}
