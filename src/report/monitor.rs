//! The monitor's figures as text: efficiency per query, the inniostat
//! columns, the bottleneck hint with its evidence, and the monitor's notes.
//! Reads the JSON the run recorded, so `run` and `show` print the same.

use super::num;
use serde_json::Value;
use std::fmt::Write;

fn pct(v: &Value) -> String {
    v.as_f64()
        .map(|x| format!("{:.0}%", x * 100.0))
        .unwrap_or_else(|| "-".into())
}

/// The inniostat columns: (header, JSON key, decimals).
pub const IO_COLUMNS: &[(&str, &str, usize)] = &[
    ("phys r/s", "phys_r", 0),
    ("phys w/s", "phys_w", 0),
    ("innodb r/s", "innodb_r", 0),
    ("innodb w/s", "innodb_w", 0),
    ("data", "data", 0),
    ("pre", "pre", 0),
    ("log", "log", 0),
    ("dblbuf", "dblwr", 0),
    ("dflush", "dflush", 0),
    ("rd MB/s", "read_mb", 2),
    ("wr MB/s", "write_mb", 2),
    ("fsync/s", "fsyncs", 0),
];

/// The section printed after the sysbench-style summary.
pub fn run_text(f: &Value) -> String {
    let mut o = String::new();
    let e = &f["efficiency"];
    let _ = writeln!(
        o,
        "\nEfficiency per query (measured window, from the monitor):"
    );
    let _ = writeln!(
        o,
        "    server CPU:                          {} us",
        num(e["server_cpu_us_per_query"].as_f64(), 2)
    );
    let _ = writeln!(
        o,
        "    client CPU:                          {} us",
        num(e["client_cpu_us_per_query"].as_f64(), 2)
    );
    let _ = writeln!(
        o,
        "    context switches (host/server/client): {} / {} / {}",
        num(e["context_switches_per_query"].as_f64(), 2),
        num(e["server_context_switches_per_query"].as_f64(), 2),
        num(e["client_context_switches_per_query"].as_f64(), 2)
    );
    let _ = writeln!(
        o,
        "    server wait for a CPU:               {} us",
        num(e["server_runq_wait_us_per_query"].as_f64(), 2)
    );
    let _ = writeln!(
        o,
        "    bytes read / written (server):       {} / {}",
        num(e["read_bytes_per_query"].as_f64(), 1),
        num(e["write_bytes_per_query"].as_f64(), 1)
    );
    let _ = writeln!(
        o,
        "    InnoDB data read / written:          {} / {}",
        num(e["innodb_read_bytes_per_query"].as_f64(), 1),
        num(e["innodb_write_bytes_per_query"].as_f64(), 1)
    );
    let _ = writeln!(
        o,
        "    redo bytes per transaction:          {}",
        num(e["redo_bytes_per_transaction"].as_f64(), 1)
    );
    let c = &e["cpu"];
    if c.is_object() {
        let _ = writeln!(
            o,
            "    host CPU:                            server {}, client {}, other {}, idle {}, iowait {}, steal {}",
            pct(&c["server"]),
            pct(&c["client"]),
            pct(&c["other"]),
            pct(&c["idle"]),
            pct(&c["iowait"]),
            pct(&c["steal"])
        );
    }
    let io = &f["io"];
    let _ = writeln!(o, "\nInnoDB IO per second (inniostat columns):");
    let heads: Vec<String> = IO_COLUMNS
        .iter()
        .map(|(h, _, _)| format!("{h:>11}"))
        .collect();
    let vals: Vec<String> = IO_COLUMNS
        .iter()
        .map(|(_, k, d)| format!("{:>11}", num(io[*k].as_f64(), *d)))
        .collect();
    let _ = writeln!(o, "  {}", heads.join(""));
    let _ = writeln!(o, "  {}", vals.join(""));
    let b = &f["bottleneck"];
    let _ = writeln!(
        o,
        "\nBottleneck: {}",
        b["verdict"].as_str().unwrap_or("unknown")
    );
    for ev in b["evidence"].as_array().into_iter().flatten() {
        let _ = writeln!(o, "    - {}", ev.as_str().unwrap_or(""));
    }
    let notes: Vec<&Value> = f["notes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|n| n["kind"] != "info")
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(o, "\nMonitor notes:");
        for n in notes {
            let _ = writeln!(
                o,
                "    [{:>7.1}s] {}: {}",
                n["t"].as_f64().unwrap_or(0.0),
                n["kind"].as_str().unwrap_or(""),
                n["text"].as_str().unwrap_or("")
            );
        }
    }
    o
}
