//! Efficiency per query and the InnoDB IO classification, over any window
//! of a run, from the monitor's counters and the load's query counts.
//!
//! Server CPU comes from the server's /proc/PID/stat, client CPU from this
//! process (less the monitor thread), context switches from /proc/stat
//! (host-wide) and getrusage (client), bytes from the server's /proc/PID/io
//! (what reached the block layer) and from InnoDB's own counters, redo from
//! Innodb_os_log_written (MariaDB: equal to LSN growth; MySQL ≥ 8.0.30:
//! Innodb_redo_log_current_lsn is used when present).

use super::counters::{Counters, Keep};
use serde::{Deserialize, Serialize};

/// Which keys the derivations read, and how much history to keep.
pub fn keep(source: &str, name: &str) -> Option<Keep> {
    let all = match source {
        "cpu" => {
            name.starts_with("all.")
                || matches!(name, "ctxt" | "cpus" | "procs_running" | "procs_blocked")
        }
        "server_tasks" => matches!(name, "timeslices" | "runq_wait_s"),
        "server_proc" => matches!(
            name,
            "cpu_s" | "io.read_bytes" | "io.write_bytes" | "threads"
        ),
        "client_proc" => matches!(name, "cpu_s" | "monitor_cpu_s" | "csw"),
        "disk" => true,
        "status" => STATUS_KEYS.contains(&name),
        "ps_waits" => return name.ends_with(".wait_ps").then_some(Keep::Ends),
        "innodb_mutex" => return name.ends_with(".os_waits").then_some(Keep::Ends),
        _ => false,
    };
    all.then_some(Keep::All)
}

pub(crate) const STATUS_KEYS: &[&str] = &[
    "Questions",
    "Threads_running",
    "Threads_connected",
    "Innodb_data_reads",
    "Innodb_data_writes",
    "Innodb_data_read",
    "Innodb_data_written",
    "Innodb_data_fsyncs",
    "Innodb_buffer_pool_reads",
    "Innodb_buffer_pool_read_ahead",
    "Innodb_buffer_pool_read_ahead_rnd",
    "Innodb_buffer_pool_pages_flushed",
    "Innodb_log_writes",
    "Innodb_os_log_written",
    "Innodb_redo_log_current_lsn",
    "Innodb_dblwr_writes",
    "Innodb_dblwr_pages_written",
    "Innodb_row_lock_time",
    "Innodb_row_lock_waits",
    "Innodb_history_list_length",
    "Innodb_checkpoint_age",
    "Com_commit",
    "Com_rollback",
];

/// The counters of inniostat's "pre" column: pages read ahead, linear and
/// random (MariaDB/MySQL keep them apart). One definition for every view.
pub const READ_AHEAD: [&str; 2] = [
    "Innodb_buffer_pool_read_ahead",
    "Innodb_buffer_pool_read_ahead_rnd",
];

/// Load counts over a window, from the run's samples.
#[derive(Debug, Clone, Copy, Default)]
pub struct Load {
    /// Queries completed in the window.
    pub queries: f64,
    /// Events (transactions) completed in the window.
    pub transactions: f64,
}

/// Host CPU split over a window, as shares of all CPU time.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CpuSplit {
    /// The server process's share.
    pub server: f64,
    /// qpslab's share (its monitor thread excluded).
    pub client: f64,
    /// Every other process's share (what is left of busy time).
    pub other: f64,
    /// Idle share.
    pub idle: f64,
    /// Idle waiting for IO.
    pub iowait: f64,
    /// Taken by the hypervisor.
    pub steal: f64,
    /// CPUs × seconds in the window.
    pub cpu_seconds: f64,
}

const CPU_STATES: [&str; 8] = [
    "cpu.all.user",
    "cpu.all.nice",
    "cpu.all.system",
    "cpu.all.idle",
    "cpu.all.iowait",
    "cpu.all.irq",
    "cpu.all.softirq",
    "cpu.all.steal",
];

impl CpuSplit {
    /// The split over [a, b] (seconds since measuring began); None without
    /// the host's CPU counters.
    pub fn over(c: &Counters, a: f64, b: f64) -> Option<CpuSplit> {
        c.delta("cpu.all.idle", a, b)?;
        let total: f64 = CPU_STATES.iter().filter_map(|k| c.delta(k, a, b)).sum();
        if total <= 0.0 {
            return None;
        }
        let share = |k: &str| c.delta(k, a, b).map(|v| v / total);
        let idle = share("cpu.all.idle").unwrap_or(0.0);
        let iowait = share("cpu.all.iowait").unwrap_or(0.0);
        let steal = share("cpu.all.steal").unwrap_or(0.0);
        let server = share("server_proc.cpu_s").unwrap_or(0.0);
        let client = client_cpu(c, a, b).map(|v| v / total).unwrap_or(0.0);
        Some(CpuSplit {
            server,
            client,
            other: (1.0 - idle - iowait - steal - server - client).max(0.0),
            idle,
            iowait,
            steal,
            cpu_seconds: total,
        })
    }
}

/// The load generator's CPU seconds over [a, b], the monitor thread excluded.
fn client_cpu(c: &Counters, a: f64, b: f64) -> Option<f64> {
    let all = c.delta("client_proc.cpu_s", a, b)?;
    Some((all - c.delta("client_proc.monitor_cpu_s", a, b).unwrap_or(0.0)).max(0.0))
}

/// What a query (or transaction) costs; None where the source is absent.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Efficiency {
    /// The window's length in seconds.
    pub seconds: f64,
    /// Queries in the window.
    pub queries: f64,
    /// Server process CPU µs per query.
    pub server_cpu_us_per_query: Option<f64>,
    /// qpslab's CPU µs per query (monitor thread excluded).
    pub client_cpu_us_per_query: Option<f64>,
    /// Host-wide context switches (server, client and the rest).
    pub context_switches_per_query: Option<f64>,
    /// qpslab's own context switches per query.
    pub client_context_switches_per_query: Option<f64>,
    /// The server's threads: times scheduled in, and µs waiting for a CPU.
    pub server_context_switches_per_query: Option<f64>,
    /// µs the server's threads waited for a CPU, per query.
    pub server_runq_wait_us_per_query: Option<f64>,
    /// Bytes the server read from / wrote to storage (/proc/PID/io).
    pub read_bytes_per_query: Option<f64>,
    /// Bytes the server wrote to storage per query.
    pub write_bytes_per_query: Option<f64>,
    /// InnoDB data file bytes (Innodb_data_read / Innodb_data_written).
    pub innodb_read_bytes_per_query: Option<f64>,
    /// InnoDB data file bytes written per query.
    pub innodb_write_bytes_per_query: Option<f64>,
    /// InnoDB redo bytes per transaction (LSN growth, else
    /// Innodb_os_log_written).
    pub redo_bytes_per_transaction: Option<f64>,
    /// Transactions the server ended per minute: Δ (Com_commit +
    /// Com_rollback), every session's (HammerDB's TPM).
    pub server_commits_per_min: Option<f64>,
    /// The monitor thread's own CPU, in µs per second of run.
    pub monitor_cpu_us_per_s: Option<f64>,
    /// Where the host's CPU went.
    pub cpu: Option<CpuSplit>,
}

impl Efficiency {
    /// The costs over [a, b] (seconds since measuring began) of the `load`
    /// the run counted in that window.
    pub fn over(c: &Counters, a: f64, b: f64, load: Load) -> Efficiency {
        let q = load.queries;
        let per_q = |v: Option<f64>| v.filter(|_| q > 0.0).map(|v| v / q);
        let redo = c
            .delta("status.Innodb_redo_log_current_lsn", a, b)
            .or_else(|| c.delta("status.Innodb_os_log_written", a, b));
        Efficiency {
            seconds: b - a,
            queries: q,
            server_cpu_us_per_query: per_q(c.delta("server_proc.cpu_s", a, b).map(|s| s * 1e6)),
            client_cpu_us_per_query: per_q(client_cpu(c, a, b).map(|s| s * 1e6)),
            context_switches_per_query: per_q(c.delta("cpu.ctxt", a, b)),
            client_context_switches_per_query: per_q(c.delta("client_proc.csw", a, b)),
            server_context_switches_per_query: per_q(c.delta("server_tasks.timeslices", a, b)),
            server_runq_wait_us_per_query: per_q(
                c.delta("server_tasks.runq_wait_s", a, b).map(|s| s * 1e6),
            ),
            read_bytes_per_query: per_q(c.delta("server_proc.io.read_bytes", a, b)),
            write_bytes_per_query: per_q(c.delta("server_proc.io.write_bytes", a, b)),
            innodb_read_bytes_per_query: per_q(c.delta("status.Innodb_data_read", a, b)),
            innodb_write_bytes_per_query: per_q(c.delta("status.Innodb_data_written", a, b)),
            redo_bytes_per_transaction: redo
                .filter(|_| load.transactions > 0.0)
                .map(|r| r / load.transactions),
            server_commits_per_min: c
                .delta_sum(&["status.Com_commit", "status.Com_rollback"], a, b)
                .filter(|_| b > a)
                .map(|n| n * 60.0 / (b - a)),
            monitor_cpu_us_per_s: c
                .delta("client_proc.monitor_cpu_s", a, b)
                .filter(|_| b > a)
                .map(|s| s * 1e6 / (b - a)),
            cpu: CpuSplit::over(c, a, b),
        }
    }
}

/// The inniostat view of a window, per second.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct IoRates {
    /// Device reads/writes completed (the datadir's disk, else all disks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phys_r: Option<f64>,
    /// Device writes completed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phys_w: Option<f64>,
    /// MiB read from the device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phys_read_mb: Option<f64>,
    /// MiB written to the device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phys_write_mb: Option<f64>,
    /// Share of the window the device was busy (0–1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disk_busy: Option<f64>,
    /// InnoDB file IO operations (Innodb_data_reads / _writes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub innodb_r: Option<f64>,
    /// InnoDB file writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub innodb_w: Option<f64>,
    /// Pages read on demand (buffer pool misses).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<f64>,
    /// Pages read ahead (linear + random).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pre: Option<f64>,
    /// Redo log writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<f64>,
    /// Doublewrite batches written (and pages in them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dblwr: Option<f64>,
    /// Pages in those batches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dblwr_pages: Option<f64>,
    /// Pages flushed from the buffer pool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dflush: Option<f64>,
    /// InnoDB bytes read, and written to data files plus redo.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_mb: Option<f64>,
    /// InnoDB MiB written (data files and redo).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_mb: Option<f64>,
    /// InnoDB fsync calls (Innodb_data_fsyncs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fsyncs: Option<f64>,
}

const MB: f64 = 1024.0 * 1024.0;

impl IoRates {
    /// `disk`: the datadir's device, when known.
    pub fn over(c: &Counters, a: f64, b: f64, disk: Option<&str>) -> IoRates {
        let secs = b - a;
        if secs <= 0.0 {
            return IoRates::default();
        }
        let rate = |k: &str| c.delta(&format!("status.{k}"), a, b).map(|v| v / secs);
        let disks: Vec<String> = match disk {
            Some(d) => vec![d.to_string()],
            None => {
                let mut v: Vec<String> = c
                    .keys_with_prefix("disk.")
                    .filter_map(|k| k.strip_suffix(".reads"))
                    .map(|k| k.trim_start_matches("disk.").to_string())
                    .filter(|d| whole_disk(d))
                    .collect();
                v.sort();
                v
            }
        };
        let disk_rate = |field: &str| -> Option<f64> {
            let keys: Vec<String> = disks.iter().map(|d| format!("disk.{d}.{field}")).collect();
            let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
            (!refs.is_empty())
                .then(|| c.delta_sum(&refs, a, b))
                .flatten()
                .map(|v| v / secs)
        };
        let sum = |x: Option<f64>, y: Option<f64>| match (x, y) {
            (Some(x), Some(y)) => Some(x + y),
            (x, None) => x,
            (None, y) => y,
        };
        let redo = rate("Innodb_redo_log_current_lsn").or_else(|| rate("Innodb_os_log_written"));
        IoRates {
            phys_r: disk_rate("reads"),
            phys_w: disk_rate("writes"),
            phys_read_mb: disk_rate("sectors_read").map(|s| s * 512.0 / MB),
            phys_write_mb: disk_rate("sectors_written").map(|s| s * 512.0 / MB),
            disk_busy: disk_rate("busy_ms")
                .map(|ms| (ms / 1000.0 / disks.len().max(1) as f64).min(1.0)),
            innodb_r: rate("Innodb_data_reads"),
            innodb_w: rate("Innodb_data_writes"),
            data: rate("Innodb_buffer_pool_reads"),
            pre: sum(rate(READ_AHEAD[0]), rate(READ_AHEAD[1])),
            log: rate("Innodb_log_writes"),
            dblwr: rate("Innodb_dblwr_writes"),
            dblwr_pages: rate("Innodb_dblwr_pages_written"),
            dflush: rate("Innodb_buffer_pool_pages_flushed"),
            read_mb: rate("Innodb_data_read").map(|v| v / MB),
            write_mb: sum(rate("Innodb_data_written"), redo).map(|v| v / MB),
            fsyncs: rate("Innodb_data_fsyncs"),
        }
    }
}

/// Whole disks, not partitions or device-mapper children (counted twice otherwise).
pub(crate) fn whole_disk(name: &str) -> bool {
    std::path::Path::new(&format!("/sys/block/{name}")).exists()
}

/// Adds a snapshot's kept values to `c` at run time `t`.
pub fn absorb(c: &mut Counters, source: &str, t: f64, values: &[(String, f64)]) {
    for (name, v) in values {
        if let Some(k) = keep(source, name) {
            c.push(format!("{source}.{name}"), k, t, *v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counters() -> Counters {
        let mut c = Counters::default();
        for i in 0..=10 {
            let t = i as f64;
            absorb(
                &mut c,
                "cpu",
                t,
                &[
                    ("all.user".into(), 1.2 * t),
                    ("all.system".into(), 0.3 * t),
                    ("all.idle".into(), 0.4 * t),
                    ("all.iowait".into(), 0.1 * t),
                    ("ctxt".into(), 5000.0 * t),
                ],
            );
            absorb(&mut c, "server_proc", t, &[("cpu_s".into(), 1.0 * t)]);
            absorb(
                &mut c,
                "client_proc",
                t,
                &[
                    ("cpu_s".into(), 0.21 * t),
                    ("monitor_cpu_s".into(), 0.01 * t),
                ],
            );
            absorb(
                &mut c,
                "status",
                t,
                &[
                    ("Innodb_os_log_written".into(), 1000.0 * t),
                    ("Innodb_data_writes".into(), 30.0 * t),
                    ("Innodb_buffer_pool_pages_flushed".into(), 28.0 * t),
                    ("Innodb_dblwr_writes".into(), 2.0 * t),
                    ("Com_select".into(), 9.0 * t),
                ],
            );
        }
        c
    }

    #[test]
    fn efficiency_per_query() {
        let c = counters();
        let e = Efficiency::over(
            &c,
            2.0,
            7.0,
            Load {
                queries: 50_000.0,
                transactions: 500.0,
            },
        );
        assert!((e.server_cpu_us_per_query.unwrap() - 100.0).abs() < 1e-6);
        assert!((e.client_cpu_us_per_query.unwrap() - 20.0).abs() < 1e-6);
        assert!((e.context_switches_per_query.unwrap() - 0.5).abs() < 1e-9);
        assert!((e.redo_bytes_per_transaction.unwrap() - 10.0).abs() < 1e-9);
        let cpu = e.cpu.unwrap();
        assert!((cpu.server - 0.5).abs() < 1e-9 && (cpu.client - 0.1).abs() < 1e-9);
        assert!((cpu.idle - 0.2).abs() < 1e-9 && (cpu.iowait - 0.05).abs() < 1e-9);
        assert!(
            !c.has("status.Com_select"),
            "only the keys derivations need are kept"
        );
    }

    #[test]
    fn io_classes_add_up() {
        let io = IoRates::over(&counters(), 0.0, 10.0, Some("none"));
        assert_eq!(io.innodb_w, Some(30.0));
        assert_eq!(io.dflush.unwrap() + io.dblwr.unwrap(), io.innodb_w.unwrap());
        assert_eq!(io.log, None);
    }
}
