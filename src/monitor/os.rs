//! The OS sources, read from /proc: host CPU, the server's and this
//! process's CPU and IO, disks, network, memory, pressure. CPU times are in
//! seconds, everything else as the kernel counts it.

use super::{Caps, SourceId};
use procfs::{Current, CurrentSI};
use serde_json::Value;

type Values = Vec<(String, f64)>;

/// Numeric leaves of a serialised procfs struct as `prefix.field` values.
fn flatten(prefix: &str, v: &Value, out: &mut Values) {
    match v {
        Value::Number(n) => {
            if let Some(x) = n.as_f64() {
                out.push((prefix.to_string(), x));
            }
        }
        Value::Object(m) => {
            for (k, v) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        _ => {}
    }
}

fn flat<T: serde::Serialize>(prefix: &str, x: &T, out: &mut Values) {
    if let Ok(v) = serde_json::to_value(x) {
        flatten(prefix, &v, out);
    }
}

fn cpu_time(prefix: &str, c: &procfs::CpuTime, hz: f64, out: &mut Values) {
    let o = |x: Option<u64>| x.unwrap_or(0) as f64 / hz;
    for (name, v) in [
        ("user", c.user as f64 / hz),
        ("nice", c.nice as f64 / hz),
        ("system", c.system as f64 / hz),
        ("idle", c.idle as f64 / hz),
        ("iowait", o(c.iowait)),
        ("irq", o(c.irq)),
        ("softirq", o(c.softirq)),
        ("steal", o(c.steal)),
    ] {
        out.push((format!("{prefix}.{name}"), v));
    }
}

/// A process's CPU (seconds), threads, memory and IO.
fn process(pid: i32, hz: f64, out: &mut Values) -> Result<(), String> {
    let p = procfs::process::Process::new(pid).map_err(|e| e.to_string())?;
    let st = p.stat().map_err(|e| e.to_string())?;
    out.push(("utime_s".into(), st.utime as f64 / hz));
    out.push(("stime_s".into(), st.stime as f64 / hz));
    out.push(("cpu_s".into(), (st.utime + st.stime) as f64 / hz));
    out.push(("threads".into(), st.num_threads as f64));
    out.push(("rss_bytes".into(), (st.rss * procfs::page_size()) as f64));
    out.push(("minflt".into(), st.minflt as f64));
    out.push(("majflt".into(), st.majflt as f64));
    if let Ok(io) = p.io() {
        flat("io", &io, out);
    }
    Ok(())
}

fn rusage(who: i32) -> libc::rusage {
    // SAFETY: an all-zero rusage is a valid value (integers only).
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes only into `ru`, a live local; rustix has no
    // getrusage. On failure `ru` stays zero.
    unsafe { libc::getrusage(who, &mut ru) };
    ru
}

fn secs(t: libc::timeval) -> f64 {
    t.tv_sec as f64 + t.tv_usec as f64 / 1e6
}

/// Polls an OS source. Errors are strings: the driver notes them once.
pub fn poll(source: SourceId, caps: &Caps) -> Result<Values, String> {
    let hz = procfs::ticks_per_second() as f64;
    let mut out = Vec::new();
    match source {
        SourceId::Cpu => cpu(hz, &mut out)?,
        SourceId::ServerProc => {
            let pid = caps.server_pid.ok_or("the server's process is unknown")?;
            process(pid, hz, &mut out)?;
        }
        SourceId::ServerTasks => {
            let pid = caps.server_pid.ok_or("the server's process is unknown")?;
            server_tasks(pid, &mut out)?;
        }
        SourceId::ClientProc => client_process(&mut out),
        SourceId::Disk => disks(caps, &mut out)?,
        SourceId::Net => net(&mut out)?,
        SourceId::Mem => {
            let m = procfs::Meminfo::current().map_err(|e| e.to_string())?;
            flat("", &m, &mut out);
        }
        SourceId::Pressure => pressure(&mut out)?,
        _ => {}
    }
    Ok(out)
}

/// The host's CPU times (all CPUs and each), context switches, processes.
fn cpu(hz: f64, out: &mut Values) -> Result<(), String> {
    let k = procfs::KernelStats::current().map_err(|e| e.to_string())?;
    cpu_time("all", &k.total, hz, out);
    for (i, c) in k.cpu_time.iter().enumerate() {
        cpu_time(&format!("cpu{i}"), c, hz, out);
    }
    out.push(("cpus".into(), k.cpu_time.len() as f64));
    out.push(("ctxt".into(), k.ctxt as f64));
    out.push(("processes".into(), k.processes as f64));
    out.push(("procs_running".into(), k.procs_running.unwrap_or(0) as f64));
    out.push(("procs_blocked".into(), k.procs_blocked.unwrap_or(0) as f64));
    Ok(())
}

/// The server's threads' scheduler figures: CPU time, run-queue wait,
/// time slices (from each task's schedstat).
fn server_tasks(pid: i32, out: &mut Values) -> Result<(), String> {
    let dir = std::fs::read_dir(format!("/proc/{pid}/task")).map_err(|e| e.to_string())?;
    let (mut tasks, mut run, mut wait, mut slices) = (0u64, 0u64, 0u64, 0u64);
    for e in dir.flatten() {
        let Ok(s) = std::fs::read_to_string(e.path().join("schedstat")) else {
            continue;
        };
        let mut f = s.split_whitespace().map(|x| x.parse::<u64>().unwrap_or(0));
        run += f.next().unwrap_or(0);
        wait += f.next().unwrap_or(0);
        slices += f.next().unwrap_or(0);
        tasks += 1;
    }
    out.push(("tasks".into(), tasks as f64));
    out.push(("cpu_s".into(), run as f64 / 1e9));
    out.push(("runq_wait_s".into(), wait as f64 / 1e9));
    out.push(("timeslices".into(), slices as f64));
    Ok(())
}

/// qpslab's own process: CPU, context switches, memory, I/O, and the
/// monitor thread's CPU.
fn client_process(out: &mut Values) {
    let me = rusage(libc::RUSAGE_SELF);
    out.push(("utime_s".into(), secs(me.ru_utime)));
    out.push(("stime_s".into(), secs(me.ru_stime)));
    out.push(("cpu_s".into(), secs(me.ru_utime) + secs(me.ru_stime)));
    out.push(("vcsw".into(), me.ru_nvcsw as f64));
    out.push(("ivcsw".into(), me.ru_nivcsw as f64));
    out.push(("csw".into(), (me.ru_nvcsw + me.ru_nivcsw) as f64));
    out.push(("maxrss_bytes".into(), me.ru_maxrss as f64 * 1024.0));
    // The monitor thread's own share, to tell it apart from the load.
    let mon = rusage(libc::RUSAGE_THREAD);
    out.push((
        "monitor_cpu_s".into(),
        secs(mon.ru_utime) + secs(mon.ru_stime),
    ));
    if let Ok(io) = procfs::process::Process::myself().and_then(|p| p.io()) {
        flat("io", &io, out);
    }
}

/// Each block device's counters (loop, ram and zram devices left out,
/// idle ones too unless it is the datadir's).
fn disks(caps: &Caps, out: &mut Values) -> Result<(), String> {
    for d in procfs::diskstats().map_err(|e| e.to_string())? {
        if d.name.starts_with("loop") || d.name.starts_with("ram") || d.name.starts_with("zram") {
            continue;
        }
        if d.reads == 0 && d.writes == 0 && caps.disk.as_deref() != Some(d.name.as_str()) {
            continue;
        }
        let n = &d.name;
        for (k, v) in [
            ("reads", d.reads),
            ("reads_merged", d.merged),
            ("sectors_read", d.sectors_read),
            ("read_ms", d.time_reading),
            ("writes", d.writes),
            ("writes_merged", d.writes_merged),
            ("sectors_written", d.sectors_written),
            ("write_ms", d.time_writing),
            ("in_progress", d.in_progress),
            ("busy_ms", d.time_in_progress),
            ("weighted_ms", d.weighted_time_in_progress),
            ("flushes", d.flushes.unwrap_or(0)),
        ] {
            out.push((format!("{n}.{k}"), v as f64));
        }
    }
    Ok(())
}

/// Each network interface's counters.
fn net(out: &mut Values) -> Result<(), String> {
    for (name, d) in procfs::net::dev_status().map_err(|e| e.to_string())? {
        for (k, v) in [
            ("recv_bytes", d.recv_bytes),
            ("recv_packets", d.recv_packets),
            ("sent_bytes", d.sent_bytes),
            ("sent_packets", d.sent_packets),
            ("recv_errs", d.recv_errs),
            ("sent_errs", d.sent_errs),
        ] {
            out.push((format!("{name}.{k}"), v as f64));
        }
    }
    Ok(())
}

/// Pressure stall information (CPU, I/O, memory); an error without PSI.
fn pressure(out: &mut Values) -> Result<(), String> {
    if let Ok(p) = procfs::CpuPressure::current() {
        flat("cpu", &p, out);
    }
    if let Ok(p) = procfs::IoPressure::current() {
        flat("io", &p, out);
    }
    if let Ok(p) = procfs::MemoryPressure::current() {
        flat("memory", &p, out);
    }
    if out.is_empty() {
        return Err("/proc/pressure is not available (kernel without PSI)".into());
    }
    Ok(())
}
