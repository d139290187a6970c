//! The live views as text: the `monitor` line, the `iostat` line and the
//! `top` screen, from the rates `analyze::live_rates::Live` computes.

use super::monitor::IO_COLUMNS;
use super::num;
use crate::analyze::bottleneck::top_waits;
use crate::analyze::efficiency::IoRates;
use crate::analyze::live_rates::Live;
use crate::monitor::SourceId;
use crate::stats::clock;

/// The line a `monitor` session starts with.
pub fn watching(target: &str, version: &str, every: f64, time: f64) -> String {
    let until = if time > 0.0 {
        format!(" for {time} s")
    } else {
        String::new()
    };
    format!("Watching {target} ({version}) every {every} s{until}; Ctrl-C stops.")
}

/// Header of the `monitor` lines (repeated every 20 lines).
pub const MONITOR_HEADER: &str =
    "    time        qps        tps  thr_run  thr_conn   srv cpu%  host busy%  iowait%  innodb r/s  innodb w/s   hist len  ckpt age MB";

/// One `monitor` line at `t` seconds.
pub fn monitor_line(l: &Live, t: f64) -> String {
    let st = SourceId::Status;
    let f = num;
    let cpu = l.cpu_split();
    let pct = |v: Option<f64>| v.map(|x| x * 100.0);
    let server = cpu
        .filter(|_| l.has(SourceId::ServerProc, 1))
        .map(|c| c.server);
    format!(
        "{:>8.1} {:>10} {:>10} {:>8} {:>9} {:>10} {:>11} {:>8} {:>11} {:>11} {:>10} {:>12}",
        t,
        f(l.rate(st, "Questions"), 0),
        f(l.rate_sum(st, &["Com_commit", "Com_rollback"]), 0),
        f(l.value(st, "Threads_running"), 0),
        f(l.value(st, "Threads_connected"), 0),
        f(pct(server), 1),
        f(pct(cpu.map(|c| 1.0 - c.idle - c.iowait)), 1),
        f(pct(cpu.map(|c| c.iowait)), 1),
        f(l.rate(st, "Innodb_data_reads"), 0),
        f(l.rate(st, "Innodb_data_writes"), 0),
        f(l.value(st, "Innodb_history_list_length"), 0),
        f(
            l.value(st, "Innodb_checkpoint_age").map(|v| v / 1048576.0),
            1
        ),
    )
}

/// The `iostat` header for the columns shown (`local`: the physical ones too).
pub fn iostat_header(local: bool) -> String {
    let mut h = format!("{:>8}", "time");
    for c in IO_COLUMNS.iter().filter(|c| local || !c.physical) {
        h += &format!("{:>11}", c.header);
    }
    if local {
        h += &format!("{:>8}", "util%");
    }
    h
}

/// One `iostat` line: the SQL columns over the last two status polls, the
/// physical ones over the last two disk polls (each source's own window).
pub fn iostat_line(l: &Live, local: bool) -> String {
    let disk = l.caps().and_then(|c| c.disk.as_deref());
    let (c, a, b) = l.counters(&[SourceId::Status]);
    let sql = IoRates::over(&c, a, b, disk);
    let (c, a, b) = l.counters(&[SourceId::Disk]);
    let phys = IoRates::over(&c, a, b, disk);
    let mut line = format!("{:>8}", clock_time());
    for col in IO_COLUMNS.iter().filter(|c| local || !c.physical) {
        let io = if col.physical { &phys } else { &sql };
        line += &format!("{:>11}", num((col.get)(io), col.decimals));
    }
    if local {
        line += &format!("{:>8}", num(phys.disk_busy.map(|x| x * 100.0), 1));
    }
    line
}

/// What an `iostat` session watches, said once before its first line:
/// the device(s) behind the physical columns, the datadir's filesystem,
/// and the time zone of the time column.
pub fn iostat_preface(target: &str, caps: Option<&crate::monitor::Caps>) -> String {
    let zone = zone_name();
    let Some(c) = caps.filter(|c| c.local || c.host_reader.is_some()) else {
        return format!(
            "iostat on {target}: InnoDB's IO counters only (the server is not on this host, so no device columns; an agent beside it, --server-agent, reads them there); times are {zone}"
        );
    };
    let datadir = c
        .datadir
        .as_deref()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|| "?".into());
    // (the filesystem only where the datadir is this host's)
    let fs = c
        .datadir
        .as_deref()
        .filter(|_| c.local)
        .and_then(crate::monitor::filesystem_of)
        .map(|(fstype, mount)| format!(", {fstype} mounted on {mount}"))
        .unwrap_or_default();
    let device = match &c.disk {
        Some(d) => format!("device {d}"),
        None => "all whole disks (the datadir's device is not in /proc/diskstats)".into(),
    };
    let host = match (&c.host_reader, c.local) {
        (Some(who), false) => format!(" on the server's host (read by {who})"),
        _ => String::new(),
    };
    format!("iostat on {target}: phys and util% are {device}{host}, holding the datadir {datadir}{fs}; times are {zone}")
}

/// The local wall-clock time of day as HH:MM:SS.
pub(crate) fn clock_time() -> String {
    clock::now_text(clock::Zone::Local, "%H:%M:%S")
}

/// "local time (UTC+01:00)": how `clock_time` is to be read.
pub(crate) fn zone_name() -> String {
    format!(
        "local time (UTC{})",
        clock::now_text(clock::Zone::Local, "%:z")
    )
}

/// Rows read, inserted, updated and deleted per second: InnoDB's
/// counters where the server has them, else the handler's; with the line's
/// label.
fn rows_per_s(l: &Live) -> ([f64; 4], &'static str) {
    let st = SourceId::Status;
    let r = |n: &str| l.rate(st, n).unwrap_or(0.0);
    if l.value(st, "Innodb_rows_read").is_some() {
        (
            [
                r("Innodb_rows_read"),
                r("Innodb_rows_inserted"),
                r("Innodb_rows_updated"),
                r("Innodb_rows_deleted"),
            ],
            "InnoDB rows/s",
        )
    } else {
        let read = l
            .rate_sum(
                st,
                &[
                    "Handler_read_key",
                    "Handler_read_next",
                    "Handler_read_prev",
                    "Handler_read_first",
                    "Handler_read_last",
                    "Handler_read_rnd",
                    "Handler_read_rnd_next",
                ],
            )
            .unwrap_or(0.0);
        (
            [
                read,
                r("Handler_write"),
                r("Handler_update"),
                r("Handler_delete"),
            ],
            "Rows/s (Handler)",
        )
    }
}

/// The buffer pool's and the redo log's lines.
fn innodb_lines(o: &mut String, l: &Live) {
    use std::fmt::Write as _;
    let st = SourceId::Status;
    let r = |n: &str| l.rate(st, n).unwrap_or(0.0);
    let req = r("Innodb_buffer_pool_read_requests");
    let miss = r("Innodb_buffer_pool_reads");
    let _ = writeln!(
        o,
        "Buffer pool       reads/s {:.0}  read-ahead/s {:.0}  flushed/s {:.0}  dirty {:.0}  free {:.0}  hit {}",
        miss,
        crate::analyze::efficiency::READ_AHEAD.iter().map(|n| r(n)).sum::<f64>(),
        r("Innodb_buffer_pool_pages_flushed"),
        l.value(st, "Innodb_buffer_pool_pages_dirty").unwrap_or(0.0),
        l.value(st, "Innodb_buffer_pool_pages_free").unwrap_or(0.0),
        if req > 0.0 { format!("{:.2}%", 100.0 * (1.0 - miss / req)) } else { "-".into() }
    );
    let _ = writeln!(
        o,
        "Redo              {:.2} MB/s  log writes/s {:.0}  fsyncs/s {:.0}  checkpoint age {:.1} MB  history list {:.0}",
        r("Innodb_os_log_written") / 1048576.0,
        r("Innodb_log_writes"),
        r("Innodb_data_fsyncs"),
        l.value(st, "Innodb_checkpoint_age").unwrap_or(0.0) / 1048576.0,
        l.value(st, "Innodb_history_list_length").unwrap_or(0.0)
    );
}

/// The top waits by share of wait time (performance_schema), or why none.
fn top_waits_lines(o: &mut String, l: &Live) {
    use std::fmt::Write as _;
    if l.caps().is_some_and(|c| c.ps_on) {
        let (c, a0, b0) = l.counters(&[SourceId::PsWaits]);
        let waits = top_waits(&c, a0, b0, 10);
        let _ = writeln!(o, "Top waits (performance_schema, share of wait time)");
        for (name, share) in waits {
            let per_s = l
                .rate(SourceId::PsWaits, &format!("{name}.count"))
                .unwrap_or(0.0);
            let _ = writeln!(o, "  {:>5.1}%  {:>10.0}/s  {name}", share * 100.0, per_s);
        }
    } else {
        let _ = writeln!(
            o,
            "Top waits: performance_schema is OFF (performance_schema=ON in my.cnf, then restart)"
        );
    }
}

/// The `top` screen for the target described as `target`; `client_cpus`
/// is the CPU (in CPUs) of the processes connected to this server,
/// measured outside the monitor (None: the server is not on this host).
pub fn top_screen(l: &Live, target: &str, client_cpus: Option<f64>) -> String {
    use std::fmt::Write as _;
    let st = SourceId::Status;
    let r = |n: &str| l.rate(st, n).unwrap_or(0.0);
    let mut o = String::new();
    let version = l.caps().map(|c| c.version.as_str()).unwrap_or("");
    let _ = writeln!(
        o,
        "qpslab top  {}  {}  {} {}   (Ctrl-C quits)\n",
        target,
        version,
        clock_time(),
        zone_name()
    );
    let cpus = l.value(SourceId::Cpu, "cpus").unwrap_or(1.0);
    if let Some(cpu) = l.cpu_split() {
        let pct = |v: f64| format!("{:.0}%", v * 100.0);
        let server = l.has(SourceId::ServerProc, 1).then_some(cpu.server);
        // The load generators are other processes: their share is measured
        // here, not by the monitor.
        let client = client_cpus.map(|c| c / cpus.max(1.0));
        let other = 1.0 - cpu.idle - cpu.iowait - server.unwrap_or(0.0) - client.unwrap_or(0.0);
        let _ = writeln!(
            o,
            "CPU ({cpus} CPUs)   server {}  client {}  other {}  idle {}  iowait {}",
            server.map(pct).unwrap_or_else(|| "-".into()),
            client.map(pct).unwrap_or_else(|| "-".into()),
            pct(other.max(0.0)),
            pct(cpu.idle),
            pct(cpu.iowait)
        );
    }
    let _ = writeln!(
        o,
        "Queries/s         total {:.0}   select {:.0}  insert {:.0}  update {:.0}  delete {:.0}  commit {:.0}  rollback {:.0}",
        r("Questions"),
        r("Com_select"),
        r("Com_insert"),
        r("Com_update"),
        r("Com_delete"),
        r("Com_commit"),
        r("Com_rollback")
    );
    let _ = writeln!(
        o,
        "Threads           connected {:.0}  running {:.0}  created/s {:.1}  aborted connects/s {:.1}",
        l.value(st, "Threads_connected").unwrap_or(0.0),
        l.value(st, "Threads_running").unwrap_or(0.0),
        r("Threads_created"),
        r("Aborted_connects")
    );
    let (rows, label) = rows_per_s(l);
    let _ = writeln!(
        o,
        "{label:<18}read {:.0}  inserted {:.0}  updated {:.0}  deleted {:.0}",
        rows[0], rows[1], rows[2], rows[3]
    );
    innodb_lines(&mut o, l);
    let _ = writeln!(o);
    top_waits_lines(&mut o, l);
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::{Caps, Event, Snapshot};
    use std::time::{Duration, Instant};

    fn snap(source: SourceId, t0: Instant, at: f64, values: &[(&str, f64)]) -> Event {
        Event::Snapshot(Snapshot {
            source,
            at: t0 + Duration::from_secs_f64(at),
            took_us: 1,
            values: values.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        })
    }

    /// Disk polls that land just before the status polls still give each
    /// line its own second of disk writes: 100/s, then 300/s, never the
    /// previous line's figure again.
    #[test]
    fn iostat_columns_each_read_their_own_source_window() {
        let t0 = Instant::now();
        let mut l = Live::default();
        let caps = Caps {
            local: true,
            disk: Some("vdz".into()),
            ..Default::default()
        };
        l.feed(&Event::Caps(caps), t0);
        let mut lines = Vec::new();
        for (i, w) in [0.0, 100.0, 400.0].iter().enumerate() {
            let t = 10.0 + i as f64;
            l.feed(
                &snap(
                    SourceId::Disk,
                    t0,
                    t - 0.002,
                    &[("vdz.writes", *w), ("vdz.busy_ms", 0.0)],
                ),
                t0,
            );
            assert_eq!(l.all_fresh(&[SourceId::Status, SourceId::Disk]), i == 0);
            l.feed(
                &snap(SourceId::Status, t0, t, &[("Innodb_data_writes", 2.0 * *w)]),
                t0,
            );
            assert!(l.all_fresh(&[SourceId::Status, SourceId::Disk]));
            l.take_fresh();
            if i > 0 {
                lines.push(iostat_line(&l, true));
            }
        }
        let col = |line: &str, n: usize| line.split_whitespace().nth(n).unwrap().to_string();
        assert_eq!(
            (col(&lines[0], 2), col(&lines[1], 2)),
            ("100".into(), "300".into()),
            "{lines:?}"
        );
        // innodb w/s: the status window.
        assert_eq!(
            (col(&lines[0], 4), col(&lines[1], 4)),
            ("200".into(), "600".into()),
            "{lines:?}"
        );
    }

    #[test]
    fn the_zone_is_named_with_its_offset() {
        let z = zone_name();
        assert!(z.starts_with("local time (UTC") && z.ends_with(')'), "{z}");
        assert_eq!(clock_time().len(), 8);
    }
}
