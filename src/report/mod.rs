//! report: turns a run's results into text for people and scripts.
//!
//! Owns sysbench-compatible interval lines and final summary (so scripts that
//! parse sysbench keep working), qpslab's extra sections (percentiles,
//! latency per statement, errors by code, client CPU), the monitor's
//! figures, the live views' lines and screens, campaign/sweep/quickstart
//! text, metric exports, SVG charts, and analyze's tables (scalability,
//! best-to-best, ratio matrices, run comparisons). It computes nothing
//! that stats, exec or analyze did not, never talks to a server or writes
//! the store, and never calls lab (lab calls it through cli).

pub mod agents_text;
pub mod analysis;
pub mod campaign_text;
pub mod chart;
pub mod counter_diff;
pub mod dbt3_text;
pub mod exposition;
pub mod exposition_proto;
pub mod flame;
pub mod host_text;
pub mod ibench_text;
pub mod latency_charts;
pub mod live_text;
pub mod metric_families;
pub mod metrics;
pub mod monitor;
pub mod openmetrics;
pub mod profile_text;
pub mod runs;
pub mod sysbench;
mod sysbench_db_debug;
pub mod table;
pub mod tpcc_text;

/// Error codes a performance engineer meets under load, by name.
pub(crate) fn error_name(code: u16) -> &'static str {
    match code {
        1205 => "ER_LOCK_WAIT_TIMEOUT",
        1213 => "ER_LOCK_DEADLOCK",
        1020 => "ER_CHECKREAD",
        1062 => "ER_DUP_ENTRY",
        1040 => "ER_CON_COUNT_ERROR",
        1461 => "ER_MAX_PREPARED_STMT_COUNT_REACHED",
        1146 => "ER_NO_SUCH_TABLE",
        1927 => "ER_CONNECTION_KILLED",
        1053 => "ER_SERVER_SHUTDOWN",
        2006 => "CR_SERVER_GONE_ERROR",
        2013 => "CR_SERVER_LOST (lost, or no answer in time)",
        _ => "",
    }
}

/// The share of the host's CPU above which the client may limit the result.
pub(crate) const CLIENT_SHARE_WARNING: f64 = 0.25;

/// How a prepare's rows reached the server, for a prepare's summary line
/// (sysbench tables, LinkBench, DBT3); where `--load-via auto` fell back
/// to LOCAL, why the pipe was not used.
pub fn load_route(rep: &crate::workload::PrepareReport) -> String {
    match (&rep.piped, &rep.pipe_note) {
        (true, _) => "LOAD DATA INFILE through a named pipe".into(),
        (false, Some(why)) => format!("LOAD DATA LOCAL; no named pipe: {why}"),
        (false, None) => "LOAD DATA LOCAL".into(),
    }
}

/// A figure with `digits` decimals, or "-" when absent (or NaN).
pub fn num(v: Option<f64>, digits: usize) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:.digits$}"),
        _ => "-".into(),
    }
}

/// A size in bytes in binary units with one decimal ("23.5 GiB",
/// "512.0 KiB", "17 B").
pub fn human_bytes(bytes: f64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes;
    let mut u = 0;
    while v.abs() >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{v:.0} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// /proc/meminfo's "24683656 kB" in binary units ("23.5 GiB"); any other
/// text as it is.
pub fn meminfo_size(text: &str) -> String {
    match text
        .trim()
        .strip_suffix(" kB")
        .map(|n| n.trim().parse::<f64>())
    {
        Some(Ok(kb)) => human_bytes(kb * 1024.0),
        _ => text.to_string(),
    }
}

/// A run's recorded host in words: "vm: AMD EPYC, 2 CPUs, 23.5 GiB
/// memory, kernel 6.1.0".
pub fn host_text(h: &crate::stats::document::HostDocument) -> String {
    let cpus = match h.cpus {
        0 => "? CPUs".to_string(),
        n => crate::out::counted(n, "CPU"),
    };
    format!(
        "{}: {}, {}, {} memory, kernel {}",
        h.hostname,
        h.cpu_model,
        cpus,
        meminfo_size(&h.memory),
        h.kernel
    )
}

/// A run's recorded sandbox in words: "t (my.cnf preset default; set
/// innodb_buffer_pool_size=1G; CPUs 0-3; basedir /opt/mariadb-11.4)".
pub fn sandbox_text(sb: &crate::stats::document::SandboxDocument) -> String {
    let profile = if sb.preset.is_empty() {
        "default"
    } else {
        &sb.preset
    };
    let mut parts = vec![format!("my.cnf preset {profile}")];
    let sets: Vec<String> = sb.sets.iter().map(|(k, v)| format!("{k}={v}")).collect();
    if !sets.is_empty() {
        parts.push(format!("set {}", sets.join(", ")));
    }
    if let Some(c) = &sb.cpus {
        parts.push(format!("CPUs {c}"));
    }
    if let Some(b) = &sb.basedir {
        parts.push(format!("basedir {b}"));
    }
    let name = if sb.name.is_empty() { "?" } else { &sb.name };
    format!("{name} ({})", parts.join("; "))
}

#[cfg(test)]
mod words_tests {
    use crate::stats::document::{HostDocument, SandboxDocument};

    #[test]
    fn sizes_hosts_and_sandboxes_read_as_words() {
        assert_eq!(super::meminfo_size("24683656 kB"), "23.5 GiB");
        assert_eq!(super::human_bytes(512.0), "512 B");
        let h: HostDocument = serde_json::from_value(serde_json::json!({"cpu_model":"AMD EPYC","cpus":2,"hostname":"vm","kernel":"6.1","memory":"24683656 kB"})).unwrap();
        assert_eq!(
            super::host_text(&h),
            "vm: AMD EPYC, 2 CPUs, 23.5 GiB memory, kernel 6.1"
        );
        let sb: SandboxDocument = serde_json::from_value(serde_json::json!({"basedir":null,"cpus":"0-1","name":"t","profile":"bench","sets":[["port","1"]]})).unwrap();
        assert_eq!(
            super::sandbox_text(&sb),
            "t (my.cnf preset bench; set port=1; CPUs 0-1)"
        );
    }
}
