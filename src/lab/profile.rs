//! Profiling a server on its own (`qpslab profile`): find its process,
//! sample its on-CPU stacks for a while, return them folded.

use super::block_on;
use super::target::{check, Target};
use crate::profiler::{CpuProfile, Folded, Kind};
use anyhow::{anyhow, bail, Result};
use std::path::Path;
use std::time::Duration;

/// The server process of a target on this host (its pid file, else the
/// process whose working directory is its datadir).
pub fn server_pid(t: &Target) -> Result<i32> {
    let (datadir, pid_file) = block_on(async {
        let mut c = check(t).await?;
        let r = c.query("SELECT @@datadir, @@pid_file").await;
        c.quit().await;
        let row = r?.rows.into_iter().next().unwrap_or_default();
        let get = |i: usize| row.get(i).cloned().flatten().unwrap_or_default();
        Ok::<_, anyhow::Error>((get(0), get(1)))
    })??;
    crate::monitor::find_server_pid(Some(Path::new(&datadir)), &pid_file).ok_or_else(|| {
        anyhow!("the server's process is not on this host (or not readable): profile it where it runs, with --pid")
    })
}

/// Records process `pid`'s stacks of `kind` (at `hz` for on-CPU) for
/// `secs` seconds (Ctrl-C ends it early, keeping what was recorded).
pub fn profile(kind: Kind, pid: i32, hz: u32, secs: f64, work_dir: &Path) -> Result<(Folded, f64)> {
    if !Path::new(&format!("/proc/{pid}")).exists() {
        bail!("no process {pid} on this host");
    }
    let p = CpuProfile::start(kind, pid, hz, work_dir).map_err(|e| anyhow!(e))?;
    let _ctrl_c = crate::exec::Cooperative::enter();
    let until = std::time::Instant::now() + Duration::from_secs_f64(secs);
    while std::time::Instant::now() < until && !crate::exec::interrupted() {
        std::thread::sleep(Duration::from_millis(50));
    }
    p.stop().map_err(|e| anyhow!(e))
}
