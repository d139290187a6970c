//! Stack collectors: on-CPU samples and off-CPU switch-outs of one
//! process, recorded by one `perf record` and read back as folded stacks.
//!
//! On-CPU alone is sampled system-wide per CPU (as root) and filtered to
//! the process when read: per-thread events (`-p`) make every context
//! switch of the server save and restore them, which cost its QPS far
//! more than the samples do. Off-CPU needs per-thread events (the
//! sched_switch tracepoint and the context-switch records that say when a
//! thread ran again); with it, on-CPU sampling joins the same session.

use super::fold::Folded;
use super::perf::{script, Recorded, Recording};
use std::collections::HashMap;
use std::path::Path;

/// What one stack recording collects.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StackKinds {
    pub cpu: bool,
    pub offcpu: bool,
    /// On-CPU samples per second (per CPU, or per thread with off-CPU).
    pub hz: u32,
}

/// Starts recording process `pid`'s stacks.
pub fn start(k: StackKinds, pid: i32, dir: &Path) -> Result<Recording, String> {
    if k.offcpu {
        super::perf::probe_tracepoint("sched:sched_switch")?;
    }
    let root = rustix::process::geteuid().is_root();
    let hz = k.hz.to_string();
    let mut a: Vec<String> = Vec::new();
    let mut arg = |s: &str| a.push(s.to_string());
    if k.offcpu {
        // A blocked thread's stack goes through libc's futex and
        // condition-variable wrappers, which keep no frame pointer: DWARF
        // unwinding of the stack's top 2 KB gets past them to the lock's
        // caller (thr_multi_lock, MDL_context::…). It copies 2 KB per
        // sample: heavy, so off-CPU is for short windows.
        for x in ["--call-graph", "dwarf,2048", "--switch-events"] {
            arg(x);
        }
        for x in ["-e", "sched:sched_switch"] {
            arg(x);
        }
        if k.cpu {
            arg("-e");
            arg(&format!("cpu-clock/freq={hz}/"));
        }
    } else {
        if root {
            arg("-a");
        }
        for x in ["-g", "-e", "cpu-clock", "-F", &hz] {
            arg(x);
        }
    }
    if k.offcpu || !root {
        arg("-p");
        arg(&pid.to_string());
    }
    Recording::start(&a, dir, "stacks")
}

/// Reads a finished recording back: (on-CPU stacks counted in samples,
/// off-CPU stacks weighted in microseconds blocked); the data file is
/// removed.
pub fn read(r: &Recorded, pid: i32) -> Result<(Folded, Folded), String> {
    let text = script(
        &r.data,
        &[
            "--show-switch-events",
            "-F",
            "comm,pid,tid,time,event,ip,sym,dso,trace",
        ],
    );
    let _ = std::fs::remove_file(&r.data);
    Ok(parse_script(&text?, pid))
}

/// One sample's header: `comm pid/tid time: event: trace…`.
struct Header<'a> {
    pid: Option<i32>,
    tid: i32,
    time: f64,
    rest: &'a str,
}

fn header(line: &str) -> Option<Header<'_>> {
    let mut words = line.split_whitespace();
    let (pid, tid) = words.by_ref().find_map(|w| {
        let (p, t) = w.split_once('/')?;
        Some((p.parse::<i32>().ok(), t.parse::<i32>().ok()?))
    })?;
    let time = words.next()?.trim_end_matches(':').parse().ok()?;
    let at = line.find(": ").map(|i| i + 2).unwrap_or(line.len());
    Some(Header {
        pid,
        tid,
        time,
        // perf pads the event's column when events of other widths share
        // the recording
        rest: line[at..].trim_start(),
    })
}

/// `perf script` output (a header line per sample, its frames on
/// tab-led lines innermost first, a blank line after; context-switch
/// records as single lines) into (on-CPU, off-CPU) folded stacks of
/// process `pid`. An off-CPU stack weighs the microseconds from the
/// switch-out to the thread's next switch-in (to the end of the recording
/// when it never ran again). A sched_switch whose thread was preempted
/// (still runnable) is not a wait and is left out; unknown symbols are
/// named by their object (`[mariadbd]`).
pub(crate) fn parse_script(text: &str, pid: i32) -> (Folded, Folded) {
    let mut cpu = Folded::default();
    let mut off = Folded::default();
    // tid → (stack root first, switched out at)
    let mut parked: HashMap<i32, (String, f64)> = HashMap::new();
    let mut frames: Vec<String> = Vec::new();
    // the sample being read: on-CPU (false) or off-CPU (true), its tid
    // and time; None when it is not kept
    let mut cur: Option<(bool, i32, f64)> = None;
    let mut last_time = 0.0f64;
    let mut flush = |frames: &mut Vec<String>,
                     cur: &mut Option<(bool, i32, f64)>,
                     parked: &mut HashMap<i32, (String, f64)>| {
        if let Some((offcpu, tid, t)) = cur.take() {
            if !frames.is_empty() {
                let root_first: Vec<&str> = frames.iter().rev().map(String::as_str).collect();
                if offcpu {
                    parked.insert(tid, (root_first.join(";"), t));
                } else {
                    cpu.add(&root_first, 1);
                }
            }
        }
        frames.clear();
    };
    let resume = |off: &mut Folded, stack: String, from: f64, to: f64| {
        let us = ((to - from) * 1e6).round().max(1.0) as u64;
        *off.stacks.entry(stack).or_default() += us;
    };
    for line in text.lines() {
        if line.starts_with('\t') {
            if cur.is_some() {
                frames.push(frame_name(line.trim()));
            }
            continue;
        }
        flush(&mut frames, &mut cur, &mut parked);
        let Some(h) = header(line) else { continue };
        last_time = last_time.max(h.time);
        if h.pid.is_some_and(|p| p != pid) {
            continue;
        }
        if h.rest.starts_with("PERF_RECORD_SWITCH") {
            if h.rest.contains(" IN") || h.rest.ends_with("IN") {
                if let Some((stack, from)) = parked.remove(&h.tid) {
                    resume(&mut off, stack, from, h.time);
                }
            }
        } else if h.rest.starts_with("sched:sched_switch") {
            let preempted = h.rest.contains("prev_state=R ") || h.rest.contains("prev_state=R+");
            if !preempted {
                cur = Some((true, h.tid, h.time));
            }
        } else {
            cur = Some((false, h.tid, h.time));
        }
    }
    flush(&mut frames, &mut cur, &mut parked);
    for (_, (stack, from)) in parked {
        resume(&mut off, stack, from, last_time);
    }
    (cpu, off)
}

/// `addr sym+off (dso)` → the symbol, or `[object]` when unknown; kernel
/// frames end in `_[k]`.
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
    fn on_cpu_samples_fold() {
        let text = "        mariadbd  7/21249  10.000100: cpu-clock: \n\t          e0fe65 [unknown] (/usr/sbin/mariadbd)\n\t          a77f9b handler::index_read_idx_map (/usr/sbin/mariadbd)\n\t          83bab9 dispatch_command (/usr/sbin/mariadbd)\n\t           891f5 start_thread (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n         swapper  0/0  10.0002: cpu-clock: \n\t 1 x (y)\n\n        mariadbd  7/21248  10.0003: cpu-clock: \n\t          16395a __memcmp_evex_movbe (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\t           891f5 start_thread (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n";
        let (cpu, off) = parse_script(text, 7);
        assert_eq!((cpu.total(), off.total()), (2, 0));
        assert!(cpu
            .stacks
            .contains_key("start_thread;dispatch_command;handler::index_read_idx_map;[mariadbd]"));
        assert!(cpu.stacks.contains_key("start_thread;__memcmp_evex_movbe"));
    }

    #[test]
    fn off_cpu_stacks_weigh_the_time_blocked() {
        let sw = "mariadbd  7/1  1.000000: sched:sched_switch: prev_comm=m prev_pid=1 prev_state=R ==> next_comm=x\n\t 1 __schedule ([kernel.kallsyms])\n\n\
mariadbd  7/2  1.000000:  sched:sched_switch: prev_comm=m prev_pid=2 prev_state=S ==> next_comm=x\n\t 1 __schedule ([kernel.kallsyms])\n\t 2 thr_multi_lock (/usr/sbin/mariadbd)\n\n\
mariadbd  7/3  1.000100: PERF_RECORD_SWITCH IN\n\
mariadbd  7/2  1.002500: PERF_RECORD_SWITCH IN\n\
mariadbd  7/3  1.003000: sched:sched_switch: prev_comm=m prev_pid=3 prev_state=S ==> next_comm=x\n\t 1 __schedule ([kernel.kallsyms])\n\t 2 vio_read (/usr/sbin/mariadbd)\n\n\
mariadbd  7/1  1.004000: PERF_RECORD_SWITCH OUT\n";
        let (cpu, off) = parse_script(sw, 7);
        assert_eq!(cpu.total(), 0);
        // 2.5 ms parked in the table lock; the preemption is no wait; the
        // last switch-out weighs up to the end of the recording (1 ms)
        assert_eq!(off.stacks.get("thr_multi_lock;__schedule_[k]"), Some(&2500));
        assert_eq!(off.stacks.get("vio_read;__schedule_[k]"), Some(&1000));
        assert_eq!(off.total(), 3500);
    }
}
