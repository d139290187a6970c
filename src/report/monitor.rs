//! The monitor's figures as text: efficiency per query, the inniostat
//! columns, the bottleneck hint with its evidence, and the monitor's notes.
//! Takes the typed figures the run recorded, so `run` and `show` print the same.

use super::num;
use crate::analyze::efficiency::IoRates;
use crate::analyze::run_figures::MonitorFigures;
use std::fmt::Write;

fn pct(v: f64) -> String {
    format!("{:.0}%", v * 100.0)
}

/// One inniostat column: its header, whether it is a physical (device)
/// column, how it is read from the IO rates, and its decimals. The one
/// definition used by `run`, `show`, `iostat` and the UI.
pub(crate) struct IoColumn {
    /// The column's title.
    pub header: &'static str,
    /// A device (physical) column rather than a logical one.
    pub physical: bool,
    /// Reads the column's value; None prints as blank.
    pub get: fn(&IoRates) -> Option<f64>,
    /// Decimals printed.
    pub decimals: usize,
}

/// The inniostat columns, in order.
pub(crate) const IO_COLUMNS: &[IoColumn] = &[
    IoColumn {
        header: "phys r/s",
        physical: true,
        get: |r| r.phys_r,
        decimals: 0,
    },
    IoColumn {
        header: "phys w/s",
        physical: true,
        get: |r| r.phys_w,
        decimals: 0,
    },
    IoColumn {
        header: "innodb r/s",
        physical: false,
        get: |r| r.innodb_r,
        decimals: 0,
    },
    IoColumn {
        header: "innodb w/s",
        physical: false,
        get: |r| r.innodb_w,
        decimals: 0,
    },
    IoColumn {
        header: "data",
        physical: false,
        get: |r| r.data,
        decimals: 0,
    },
    IoColumn {
        header: "pre",
        physical: false,
        get: |r| r.pre,
        decimals: 0,
    },
    IoColumn {
        header: "log",
        physical: false,
        get: |r| r.log,
        decimals: 0,
    },
    IoColumn {
        header: "dblbuf",
        physical: false,
        get: |r| r.dblwr,
        decimals: 0,
    },
    IoColumn {
        header: "dflush",
        physical: false,
        get: |r| r.dflush,
        decimals: 0,
    },
    IoColumn {
        header: "rd MB/s",
        physical: false,
        get: |r| r.read_mb,
        decimals: 2,
    },
    IoColumn {
        header: "wr MB/s",
        physical: false,
        get: |r| r.write_mb,
        decimals: 2,
    },
    IoColumn {
        header: "fsync/s",
        physical: false,
        get: |r| r.fsyncs,
        decimals: 0,
    },
];

/// The section printed after the sysbench-style summary.
pub fn run_text(f: &MonitorFigures) -> String {
    let mut o = String::new();
    if f.bottleneck.is_none() {
        // A failed run: per-query figures over what did not run would
        // mislead; the failure and the monitor's notes are what it has.
        let _ = writeln!(
            o,
            "\nBottleneck: not judged (the run failed or measured no query)"
        );
        notes_text(&mut o, f);
        return o;
    }
    let e = &f.efficiency;
    let _ = writeln!(
        o,
        "\nEfficiency per query (measured window, from the monitor):"
    );
    let _ = writeln!(
        o,
        "    server CPU:                          {} us",
        num(e.server_cpu_us_per_query, 2)
    );
    let _ = writeln!(
        o,
        "    qpslab process CPU:                  {} us",
        num(e.client_cpu_us_per_query, 2)
    );
    let _ = writeln!(
        o,
        "    context switches (host/server/client): {} / {} / {}",
        num(e.context_switches_per_query, 2),
        num(e.server_context_switches_per_query, 2),
        num(e.client_context_switches_per_query, 2)
    );
    let _ = writeln!(
        o,
        "    server wait for a CPU:               {} us",
        num(e.server_runq_wait_us_per_query, 2)
    );
    let _ = writeln!(
        o,
        "    bytes read / written (server):       {} / {}",
        num(e.read_bytes_per_query, 1),
        num(e.write_bytes_per_query, 1)
    );
    let _ = writeln!(
        o,
        "    InnoDB data read / written:          {} / {}",
        num(e.innodb_read_bytes_per_query, 1),
        num(e.innodb_write_bytes_per_query, 1)
    );
    let _ = writeln!(
        o,
        "    redo bytes per transaction:          {}",
        num(e.redo_bytes_per_transaction, 1)
    );
    if let Some(t) = e.server_commits_per_min.filter(|t| *t > 0.0) {
        let _ = writeln!(o, "    server TPM (Com_commit + Com_rollback): {t:.1}");
    }
    if let Some(c) = &e.cpu {
        let _ = writeln!(
            o,
            "    host CPU:                            server {}, client {}, other {}, idle {}, iowait {}, steal {}",
            pct(c.server),
            pct(c.client),
            pct(c.other),
            pct(c.idle),
            pct(c.iowait),
            pct(c.steal)
        );
    }
    let _ = writeln!(o, "\nInnoDB IO per second (inniostat columns):");
    let heads: Vec<String> = IO_COLUMNS
        .iter()
        .map(|c| format!("{:>11}", c.header))
        .collect();
    let vals: Vec<String> = IO_COLUMNS
        .iter()
        .map(|c| format!("{:>11}", num((c.get)(&f.io), c.decimals)))
        .collect();
    let _ = writeln!(o, "  {}", heads.join(""));
    let _ = writeln!(o, "  {}", vals.join(""));
    let _ = writeln!(
        o,
        "\nBottleneck: {}",
        if f.verdict().is_empty() {
            "unknown"
        } else {
            f.verdict()
        }
    );
    for ev in f.bottleneck.iter().flat_map(|b| &b.evidence) {
        let _ = writeln!(o, "    - {ev}");
    }
    notes_text(&mut o, f);
    o
}

fn notes_text(o: &mut String, f: &MonitorFigures) {
    let notes: Vec<_> = f.shown_notes().collect();
    if !notes.is_empty() {
        let _ = writeln!(o, "\nMonitor notes:");
        for n in notes {
            let _ = writeln!(o, "    [{:>7.1}s] {}: {}", n.t, n.kind, n.text);
        }
    }
}
