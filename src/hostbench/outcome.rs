//! What a built-in test measured, kept for the results store: the run's
//! statistics, each interval with the file operations it did, the
//! process's and host's CPU over it, and the figures sysbench reports,
//! named with their units. Plain data and arithmetic: no printing, no
//! store (lab records it).

use super::driver::{Interval, RunStats};
use super::fileio::FileOps;
use crate::stats::document::HostFigure;

/// A finished test's measurements.
#[derive(Debug, Clone)]
pub struct Measured {
    /// The run's totals and histogram.
    pub stats: RunStats,
    /// Each interval (one a second unless `--report-interval` says
    /// otherwise) with the file operations it did (zero for other tests).
    pub intervals: Vec<(Interval, FileOps)>,
    /// File operations over the run (zero for other tests).
    pub ops: FileOps,
    /// This process's CPU seconds over the run.
    pub client_cpu_s: f64,
    /// The host's CPU seconds over the run (all CPUs).
    pub host_cpu_s: f64,
    /// The host's busy share over the run, 0 to 1.
    pub host_busy: f64,
    /// When it started, seconds since the Unix epoch.
    pub started_unix: f64,
}

/// Per second of `seconds`; 0 for an empty run.
fn per_s(n: f64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        n / seconds
    } else {
        0.0
    }
}

const MIB: f64 = 1024.0 * 1024.0;

/// The figures sysbench prints for `test`, in its units and order:
/// `block` is the bytes one memory event or one file request moves
/// (ignored by the other tests); `moves_data` is false for memory's
/// `--memory-oper=none`.
pub fn figures(test: &str, m: &Measured, block: u64, moves_data: bool) -> Vec<HostFigure> {
    let t = m.stats.total_s;
    let fig = |name: &str, value: f64| HostFigure {
        name: name.to_string(),
        value,
    };
    let events = per_s(m.stats.events as f64, t);
    match test {
        "memory" if moves_data => vec![
            fig("operations_per_s", events),
            fig(
                "memory_mib_per_s",
                per_s(m.stats.events as f64 * block as f64 / MIB, t),
            ),
        ],
        "memory" => vec![fig("operations_per_s", events)],
        "fileio" => vec![
            fig("reads_per_s", per_s(m.ops.reads as f64, t)),
            fig("writes_per_s", per_s(m.ops.writes as f64, t)),
            fig("fsyncs_per_s", per_s(m.ops.fsyncs as f64, t)),
            fig(
                "read_mib_per_s",
                per_s(m.ops.reads as f64 * block as f64 / MIB, t),
            ),
            fig(
                "written_mib_per_s",
                per_s(m.ops.writes as f64 * block as f64 / MIB, t),
            ),
        ],
        _ => vec![fig("events_per_s", events)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(events: u64, total_s: f64, ops: FileOps) -> Measured {
        Measured {
            stats: RunStats {
                total_s,
                events,
                ..RunStats::default()
            },
            intervals: Vec::new(),
            ops,
            client_cpu_s: 0.0,
            host_cpu_s: 0.0,
            host_busy: 0.0,
            started_unix: 0.0,
        }
    }

    #[test]
    fn figures_are_sysbench_s_in_its_units() {
        let ops = FileOps {
            reads: 300,
            writes: 200,
            fsyncs: 10,
        };
        let f = figures("fileio", &measured(500, 2.0, ops), 16384, true);
        let get = |n: &str| f.iter().find(|x| x.name == n).map(|x| x.value);
        assert_eq!(get("reads_per_s"), Some(150.0));
        assert_eq!(get("fsyncs_per_s"), Some(5.0));
        assert_eq!(get("read_mib_per_s"), Some(300.0 * 16384.0 / MIB / 2.0));
        let f = figures(
            "memory",
            &measured(2048, 2.0, FileOps::default()),
            1024,
            true,
        );
        assert_eq!(f[1].value, 1.0, "2 MiB in 2 s");
        let f = figures("cpu", &measured(10, 0.0, FileOps::default()), 0, true);
        assert_eq!(f[0].value, 0.0, "no time, no rate");
    }
}
