//! `perf` as the profiler's sampler: probing whether it can run, recording
//! a process's on-CPU stacks at a rate for as long as asked, and reading
//! the samples back as folded stacks.

use super::fold::Folded;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Why profiling cannot run here, as the one-line note a user sees; Ok
/// with perf's version otherwise.
pub fn probe() -> Result<String, String> {
    let out = Command::new("perf").arg("--version").output().map_err(|_| {
        "perf is not installed: apt-get install linux-perf (Debian) or linux-tools-$(uname -r) (Ubuntu)".to_string()
    })?;
    if !out.status.success() {
        return Err(format!(
            "perf does not run here ({}): install the linux-perf that matches this kernel",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
        ));
    }
    let root = unsafe { libc::geteuid() } == 0;
    let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .ok()
        .and_then(|s| s.trim().parse::<i32>().ok())
        .unwrap_or(2);
    if !root && paranoid > 1 {
        return Err(format!(
            "perf_event_paranoid is {paranoid}: profiling another user's process needs it at 1 or less (sysctl kernel.perf_event_paranoid=1) or running as root"
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// What a profile samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Kind {
    /// On-CPU stacks, sampled at a rate (cpu-clock).
    Cpu,
    /// The stack of every switch-out of a thread that blocked (the
    /// sched:sched_switch tracepoint; preemptions left out), one count
    /// each: who parks, and where.
    OffCpu,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Cpu => "cpu",
            Kind::OffCpu => "offcpu",
        }
    }
}

/// A `perf record` of one process's stacks in progress.
pub struct CpuProfile {
    child: Child,
    data: PathBuf,
    started: Instant,
    kind: Kind,
    /// The process whose samples are kept.
    pid: i32,
}

impl CpuProfile {
    /// Starts recording process `pid`'s stacks of `kind` (`hz` per CPU for
    /// on-CPU sampling), writing into `dir`.
    pub fn start(kind: Kind, pid: i32, hz: u32, dir: &Path) -> Result<CpuProfile, String> {
        probe()?;
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let data = dir.join(format!(
            "perf-{}-{pid}-{}.data",
            kind.name(),
            std::process::id()
        ));
        let mut cmd = Command::new("perf");
        cmd.args(["record", "-q"]);
        let root = unsafe { libc::geteuid() } == 0;
        match kind {
            // System-wide per-CPU sampling, the process's samples kept when
            // read back: per-thread events (`-p`) make every context switch
            // of the server save and restore them, which cost its QPS far
            // more than the samples do.
            Kind::Cpu if root => cmd.args(["-a", "-g", "-e", "cpu-clock", "-F", &hz.to_string()]),
            Kind::Cpu => cmd.args(["-g", "-e", "cpu-clock", "-F", &hz.to_string()]),
            // A blocked thread's stack goes through libc's futex and
            // condition-variable wrappers, which keep no frame pointer:
            // DWARF unwinding of the stack's top 2 KB gets past them to
            // the lock's caller (thr_multi_lock, MDL_context::…). It
            // copies 2 KB per switch: heavy, so off-CPU is for short
            // windows.
            Kind::OffCpu => cmd.args(["--call-graph", "dwarf,2048", "-e", "sched:sched_switch"]),
        };
        if !(kind == Kind::Cpu && root) {
            cmd.arg("-p").arg(pid.to_string());
        }
        let child = cmd
            .arg("-o")
            .arg(&data)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start perf record: {e}"))?;
        Ok(CpuProfile {
            child,
            data,
            started: Instant::now(),
            kind,
            pid,
        })
    }

    /// Stops sampling and reads the stacks back (the data file is removed).
    pub fn stop(mut self) -> Result<(Folded, f64), String> {
        let secs = self.started.elapsed().as_secs_f64();
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGINT);
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break;
                }
            }
        }
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            use std::io::Read;
            let _ = e.read_to_string(&mut err);
        }
        let folded = read(&self.data, self.kind, self.pid);
        let _ = std::fs::remove_file(&self.data);
        match folded {
            Ok(f) => Ok((f, secs)),
            Err(e) => Err(format!(
                "{e}{}",
                err.lines()
                    .next()
                    .map(|l| format!(" ({l})"))
                    .unwrap_or_default()
            )),
        }
    }
}

/// Reads a perf.data file's samples as folded stacks.
fn read(data: &Path, kind: Kind, pid: i32) -> Result<Folded, String> {
    if !data.exists() {
        return Err("perf recorded nothing (the process may have gone)".into());
    }
    let fields = match kind {
        Kind::Cpu => "comm,pid,tid,ip,sym,dso",
        Kind::OffCpu => "comm,pid,tid,ip,sym,dso,trace",
    };
    let out = Command::new("perf")
        .args(["script", "-F", fields, "-i"])
        .arg(data)
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run perf script: {e}"))?;
    Ok(parse_script(&String::from_utf8_lossy(&out.stdout), pid))
}

/// `perf script` output (a header line per sample, then a frame per line,
/// innermost first, a blank line after) into folded stacks, one sample
/// each. Unknown symbols are named by their object (`[mariadbd]`). A
/// sched_switch whose thread was preempted (still runnable) is not a
/// wait and is left out, as are other processes' samples (the header's
/// `pid/tid`).
pub fn parse_script(text: &str, pid: i32) -> Folded {
    let ours = |header: &str| {
        header
            .split_whitespace()
            .find_map(|w| w.split_once('/'))
            .and_then(|(p, _)| p.parse::<i32>().ok())
            .is_none_or(|p| p == pid)
    };
    let mut f = Folded::default();
    let mut frames: Vec<String> = Vec::new();
    let mut keep = true;
    let mut flush = |frames: &mut Vec<String>, keep: bool| {
        if keep && !frames.is_empty() {
            let root_first: Vec<&str> = frames.iter().rev().map(String::as_str).collect();
            f.add(&root_first, 1);
        }
        frames.clear();
    };
    for line in text.lines() {
        if line.trim().is_empty() {
            flush(&mut frames, keep);
        } else if line.starts_with(char::is_whitespace) {
            frames.push(frame_name(line.trim()));
        } else {
            flush(&mut frames, keep);
            keep =
                ours(line) && !(line.contains("prev_state=R ") || line.contains("prev_state=R+"));
        }
    }
    flush(&mut frames, keep);
    f
}

/// `addr sym+off (dso)` → the symbol, or `[object]` when unknown.
fn frame_name(line: &str) -> String {
    let rest = line.split_once(' ').map(|x| x.1).unwrap_or(line).trim();
    let (sym, dso) = match rest.rfind(" (") {
        Some(i) => (&rest[..i], rest[i + 2..].trim_end_matches(')')),
        None => (rest, ""),
    };
    let sym = sym.split("+0x").next().unwrap_or(sym).trim();
    if sym.is_empty() || sym == "[unknown]" {
        let obj = Path::new(dso)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "unknown".into());
        format!("[{obj}]")
    } else if dso.starts_with("[kernel") {
        format!("{}_[k]", sym.replace(';', ","))
    } else {
        sym.replace(';', ",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perf_script_output_folds() {
        let text = "mariadbd 7/21249\n\t          e0fe65 [unknown] (/usr/sbin/mariadbd)\n\t          a77f9b handler::index_read_idx_map (/usr/sbin/mariadbd)\n\t          83bab9 dispatch_command (/usr/sbin/mariadbd)\n\t           891f5 start_thread (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\nswapper 0/0\n\t 1 x (y)\n\nmariadbd 7/21248\n\t          16395a __memcmp_evex_movbe (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\t           891f5 start_thread (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n";
        let f = parse_script(text, 7);
        assert_eq!(f.total(), 2);
        assert!(f
            .stacks
            .contains_key("start_thread;dispatch_command;handler::index_read_idx_map;[mariadbd]"));
        assert!(f.stacks.contains_key("start_thread;__memcmp_evex_movbe"));
        // preemptions are not waits
        let sw = "mariadbd 7/1 prev_comm=m prev_pid=1 prev_state=R ==> next_comm=x\n\t 1 __schedule ([kernel.kallsyms])\n\nmariadbd 7/2 prev_comm=m prev_pid=2 prev_state=S ==> next_comm=x\n\t 1 __schedule ([kernel.kallsyms])\n\t 2 thr_multi_lock (/usr/sbin/mariadbd)\n\n";
        let f = parse_script(sw, 7);
        assert_eq!(f.total(), 1);
        assert!(f.stacks.contains_key("thr_multi_lock;__schedule_[k]"));
    }
}
