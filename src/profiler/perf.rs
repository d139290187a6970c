//! `perf` as the profiler's recorder: probing whether it (and a
//! tracepoint) can run, running `perf record` for as long as asked with
//! its CPU cost accounted, and `perf script` to read the samples back.

use std::os::unix::process::CommandExt;
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
    let root = rustix::process::geteuid().is_root();
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

/// Why a tracepoint (`sched:sched_switch`) cannot be recorded here, as a
/// note; Ok when it can.
pub(crate) fn probe_tracepoint(name: &str) -> Result<(), String> {
    let (sys, ev) = name.split_once(':').unwrap_or(("", name));
    let found = [
        "/sys/kernel/tracing/events",
        "/sys/kernel/debug/tracing/events",
    ]
    .iter()
    .any(|root| Path::new(root).join(sys).join(ev).join("id").exists());
    if found {
        Ok(())
    } else {
        Err(format!(
            "the {name} tracepoint is not readable: run as root, or mount tracefs (mount -t tracefs nodev /sys/kernel/tracing) and make it readable"
        ))
    }
}

/// A `perf record` in progress.
pub struct Recording {
    child: Child,
    data: PathBuf,
    started: Instant,
    started_unix: f64,
    stopped_at: Option<f64>,
}

/// What a finished `perf record` left: its data file, how long it ran,
/// and the CPU seconds perf itself used (the collector's cost).
pub struct Recorded {
    pub data: PathBuf,
    pub secs: f64,
    /// When its events were enabled, in seconds since the Unix epoch
    /// (to line the recording up with other clocks: strace -ttt, the
    /// monitor's seconds).
    pub started_unix: f64,
    pub cpu_s: f64,
}

impl Recording {
    /// Starts `perf record <args> -o <dir>/perf-<tag>-<pid>.data` and
    /// returns once its events are enabled: perf starts with them
    /// disabled, is told to enable them through a control FIFO and
    /// acknowledges (a load started right after is recorded from its
    /// first query; perf takes a few hundred milliseconds to set up).
    pub fn start(args: &[String], dir: &Path, tag: &str) -> Result<Recording, String> {
        probe()?;
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let base = dir.join(format!("perf-{tag}-{}", std::process::id()));
        let data = base.with_extension("data");
        let (ctl, ack) = (base.with_extension("ctl"), base.with_extension("ack"));
        for f in [&ctl, &ack] {
            let _ = std::fs::remove_file(f);
            let mode = rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR;
            rustix::fs::mkfifoat(rustix::fs::CWD, f.as_path(), mode)
                .map_err(|e| format!("cannot create {}: {e}", f.display()))?;
        }
        let control = format!("--control=fifo:{},{}", ctl.display(), ack.display());
        let child = Command::new("perf")
            .args(["record", "-q", "--delay=-1", &control])
            .args(args)
            .arg("-o")
            .arg(&data)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            // Its own process group: a Ctrl-C meant for qpslab does not
            // stop it before qpslab has read what it recorded.
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start perf record: {e}"))?;
        let mut r = Recording {
            child,
            data,
            started: Instant::now(),
            started_unix: 0.0,
            stopped_at: None,
        };
        let enabled = enable(&ctl, &ack);
        let _ = std::fs::remove_file(&ctl);
        let _ = std::fs::remove_file(&ack);
        if let Err(e) = enabled {
            let _ = r.child.kill();
            let _ = r.child.wait();
            let mut err = String::new();
            if let Some(mut s) = r.child.stderr.take() {
                use std::io::Read;
                let _ = s.read_to_string(&mut err);
            }
            let _ = std::fs::remove_file(&r.data);
            return Err(match err.lines().find(|l| !l.trim().is_empty()) {
                Some(l) => format!("perf record did not start: {}", l.trim()),
                None => e,
            });
        }
        r.started = Instant::now();
        r.started_unix = crate::stats::clock::now_unix();
        Ok(r)
    }

    /// Asks perf to stop (it then writes out what it buffered); the
    /// recording's length is taken here. `stop` waits for it.
    pub fn interrupt(&mut self) {
        if self.stopped_at.is_none() {
            self.stopped_at = Some(self.started.elapsed().as_secs_f64());
            let pid = i32::try_from(self.child.id()).ok();
            if let Some(p) = pid.and_then(rustix::process::Pid::from_raw) {
                let _ = rustix::process::kill_process(p, rustix::process::Signal::INT);
            }
        }
    }

    /// Stops recording; the data file is the caller's to read and remove.
    pub fn stop(mut self) -> Result<Recorded, String> {
        self.interrupt();
        let secs = self.stopped_at.unwrap_or_default();
        let pid = self.child.id() as i32;
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut cpu_s = 0.0;
        loop {
            let mut status = 0;
            // SAFETY: an all-zero rusage is a valid value (integers only).
            let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
            // SAFETY: wait4 writes only into `status` and `ru`, live locals;
            // kept on libc because rustix's waitpid does not return the
            // child's rusage (its CPU time is what this reads).
            let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut ru) };
            if r == pid {
                let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
                cpu_s = tv(ru.ru_utime) + tv(ru.ru_stime);
                break;
            }
            if r < 0 || Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            use std::io::Read;
            let _ = e.read_to_string(&mut err);
        }
        if !self.data.exists() {
            return Err(format!(
                "perf recorded nothing (the process may have gone){}",
                err.lines()
                    .find(|l| !l.trim().is_empty())
                    .map(|l| format!(": {}", l.trim()))
                    .unwrap_or_default()
            ));
        }
        Ok(Recorded {
            data: self.data.clone(),
            secs,
            started_unix: self.started_unix,
            cpu_s,
        })
    }
}

/// Tells a starting perf to enable its events and waits (10 s at most)
/// for its acknowledgement. Both FIFOs are opened read-write so that
/// neither open blocks if perf has died.
fn enable(ctl: &Path, ack: &Path) -> Result<(), String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let open = |p: &Path| {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(p)
            .map_err(|e| format!("{}: {e}", p.display()))
    };
    let mut c = open(ctl)?;
    let a = open(ack)?;
    c.write_all(b"enable\n")
        .map_err(|e| format!("cannot tell perf to start: {e}"))?;
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut buf = [0u8; 16];
    loop {
        // Non-blocking: nothing there yet reads as an error (WouldBlock).
        let n = std::io::Read::read(&mut &a, &mut buf).unwrap_or(0);
        if n > 0 && buf[..n].starts_with(b"ack") {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err("perf record did not start within 10 s".into());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

impl Drop for Recording {
    /// A recording dropped unread (the run's thread panicked) does not
    /// leave perf running.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `perf script` of a data file with `args`; its text (the file is left).
///
/// `--no-inline`: resolving inlined frames runs addr2line, and perf 6.1
/// waits on it with a timeout per address when the binary has no DWARF
/// (Debian's mariadbd): a 3-second off-CPU recording at 16 users read
/// back in 38 s with it and 2 s without (same lines but the inlined ones).
pub fn script(data: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("perf")
        .arg("script")
        .arg("--no-inline")
        .args(args)
        .arg("-i")
        .arg(data)
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run perf script: {e}"))?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
