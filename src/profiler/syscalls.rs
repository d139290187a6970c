//! The syscalls collector: syscall entries by name and second, the
//! server's apart from qpslab's load threads' and the rest of qpslab's.
//!
//! One `perf record` of the raw_syscalls:sys_enter tracepoint, system-wide
//! per CPU, sampling 1 entry in `PERIOD` (a prime, so that the strictly
//! alternating syscalls of a client and its server thread do not alias
//! with it). Per-thread counting (`perf stat -p`) was measured first: its
//! events, saved and restored at every context switch of the server, cost
//! about 30% of point-select QPS. perf's own syscalls are left out.

use super::perf::{script, Recorded, Recording};
use std::collections::BTreeMap;
use std::path::Path;

/// One syscall entry in this many is recorded; counts are scaled back.
pub(crate) const PERIOD: u64 = 7;

/// Whose syscalls a series counts.
pub const SIDES: [&str; 3] = ["server", "load", "qpslab"];

/// Syscall entries by (side, name), per second of the recording
/// (estimated: samples × period).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Syscalls {
    /// Sampling period: one sample stands for this many entries.
    pub period: u64,
    /// Estimated entries per second of the recording, by (side, name).
    pub counts: BTreeMap<(String, String), Vec<u64>>,
}

impl Syscalls {
    /// Entries of `side` over the whole recording.
    pub fn total(&self, side: &str) -> u64 {
        self.counts
            .iter()
            .filter(|((s, _), _)| s == side)
            .map(|(_, v)| v.iter().sum::<u64>())
            .sum()
    }

    /// `side`'s syscalls by name, most frequent first.
    pub fn by_name(&self, side: &str) -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = self
            .counts
            .iter()
            .filter(|((s, _), _)| s == side)
            .map(|((_, n), c)| (n.clone(), c.iter().sum()))
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    }
}

/// Starts recording syscall entries host-wide (perf, sampling the
/// raw_syscalls:sys_enter tracepoint) into `dir`.
pub fn start(dir: &Path) -> Result<Recording, String> {
    super::perf::probe_tracepoint("raw_syscalls:sys_enter")?;
    let period = PERIOD.to_string();
    let a: Vec<String> = [
        "-a",
        "-e",
        "raw_syscalls:sys_enter",
        "--exclude-perf",
        "-c",
        &period,
        // Without this, perf asks for the period in each sample, and the
        // kernel then records every tracepoint hit, whatever -c says.
        "--no-period",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    Recording::start(&a, dir, "syscalls")
}

/// Reads a finished recording back (the data file is removed): the
/// server's (`server_pid`) and this process's syscalls.
pub fn read(r: &Recorded, server_pid: i32) -> Result<Syscalls, String> {
    let text = script(&r.data, &["-F", "comm,pid,tid,time,trace"]);
    let _ = std::fs::remove_file(&r.data);
    Ok(parse_script(
        &text?,
        server_pid,
        std::process::id() as i32,
        PERIOD,
    ))
}

/// `comm pid/tid time: NR n (args)` lines into counts per side, name and
/// second (from the first sample). qpslab's load threads are those named
/// `qpslab-shard-*`.
pub(crate) fn parse_script(text: &str, server: i32, me: i32, period: u64) -> Syscalls {
    let mut s = Syscalls {
        period,
        ..Default::default()
    };
    let mut t0: Option<f64> = None;
    for line in text.lines() {
        let Some(nr_at) = line.find(": NR ") else {
            continue;
        };
        let (head, rest) = (&line[..nr_at], &line[nr_at + 5..]);
        let mut words = head.split_whitespace().rev();
        let Some(time) = words.next().and_then(|w| w.parse::<f64>().ok()) else {
            continue;
        };
        let Some(pid) = words
            .next()
            .and_then(|w| w.split_once('/'))
            .and_then(|(p, _)| p.parse::<i32>().ok())
        else {
            continue;
        };
        let comm = head.split_whitespace().next().unwrap_or("");
        let side = if pid == server {
            "server"
        } else if pid == me && comm.starts_with("qpslab-shard") {
            "load"
        } else if pid == me {
            "qpslab"
        } else {
            continue;
        };
        let nr = rest
            .split_whitespace()
            .next()
            .and_then(|n| n.parse::<usize>().ok());
        let name = match nr.and_then(syscalls::Sysno::new) {
            Some(sys) => sys.name().to_string(),
            None => format!("nr{}", nr.map(|n| n.to_string()).unwrap_or_default()),
        };
        let sec = (time - *t0.get_or_insert(time)).max(0.0) as usize;
        let v = s.counts.entry((side.to_string(), name)).or_default();
        if v.len() <= sec {
            v.resize(sec + 1, 0);
        }
        v[sec] += period;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_count_by_side_name_and_second() {
        let text = "        mariadbd  7/9  100.10: NR 45 (2b, 7, 4, 40, 0, 0)\n\
                    qpslab-shard-0  50/51  100.20: NR 44 (9, 1, 2, 0, 0, 0)\n\
                    qpslab-monitor  50/52  101.30: NR 0 (1, 2, 3, 0, 0, 0)\n\
                    bash  60/60  101.40: NR 45 (1, 2, 3, 0, 0, 0)\n\
                    mariadbd  7/10  101.50: NR 45 (2b, 7, 4, 40, 0, 0)\n";
        let s = parse_script(text, 7, 50, 7);
        assert_eq!(s.by_name("server"), vec![("recvfrom".to_string(), 14)]);
        assert_eq!(s.counts[&("server".into(), "recvfrom".into())], vec![7, 7]);
        assert_eq!(s.by_name("load"), vec![("sendto".to_string(), 7)]);
        assert_eq!(s.total("qpslab"), 7);
        assert_eq!(s.by_name("qpslab")[0].0, "read");
    }
}
