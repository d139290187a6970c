//! Named my.cnf presets. A preset is a list of server variables; `--set`
//! overrides are applied after it. The host-dependent buffer pool size is
//! computed here so that both presets fit the machine.

use anyhow::{bail, Result};

/// A sandbox's my.cnf preset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CnfPreset {
    /// Server defaults, with the buffer pool sized for the test data and
    /// the connection limits a sweep to 1,024 users needs.
    Default,
    /// Benchmark settings in the style of published sysbench studies.
    Bench,
}

impl CnfPreset {
    /// The preset of that name ("default", "bench").
    pub fn parse(s: &str) -> Result<CnfPreset> {
        match s {
            "default" => Ok(CnfPreset::Default),
            "bench" => Ok(CnfPreset::Bench),
            _ => bail!("unknown my.cnf preset '{s}'; known presets: default, bench (see `qpslab server presets`)"),
        }
    }

    /// Its name in my.cnf and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            CnfPreset::Default => "default",
            CnfPreset::Bench => "bench",
        }
    }

    /// The preset's settings, in my.cnf order.
    pub fn settings(self) -> Vec<(&'static str, String)> {
        let bp = buffer_pool_size();
        let mut s = vec![("innodb_buffer_pool_size", bp)];
        if self == CnfPreset::Default {
            for (k, v) in SWEEP_LIMITS {
                s.push((k, v.to_string()));
            }
        }
        if self == CnfPreset::Bench {
            for (k, v) in [
                ("innodb_flush_log_at_trx_commit", "2"),
                ("innodb_doublewrite", "0"),
                ("innodb_log_file_size", "2G"),
                ("innodb_log_buffer_size", "64M"),
                ("innodb_flush_method", "O_DIRECT"),
                ("innodb_adaptive_hash_index", "0"),
                ("innodb_io_capacity", "2000"),
                ("max_connections", "4000"),
                ("max_prepared_stmt_count", "1048576"),
                ("table_open_cache", "4000"),
                ("thread_cache_size", "1024"),
                ("back_log", "4000"),
                ("performance_schema", "OFF"),
                ("skip-log-bin", ""),
                ("query_cache_type", "0"),
                ("query_cache_size", "0"),
            ] {
                s.push((k, v.to_string()));
            }
        }
        s
    }
}

/// What a lab's sweep to 1,024 users (and the monitor's connection) needs
/// from a default sandbox; the server's own defaults (151 connections,
/// 16,382 prepared statements) refuse a 256-user step with error 1040.
///
/// - max_connections 2,000: 1,024 load connections with room for a
///   sweep's next step, the monitor and a client. The server sizes
///   open_files_limit from it (the larger of 10 + connections + 2 ×
///   table_open_cache = 6,011 and 5 × connections = 10,000 descriptors, up
///   to the process's hard limit, which the sandbox's start raises its
///   soft limit to); table_open_cache keeps its default (2,000).
/// - max_prepared_stmt_count 148,000: each load connection prepares
///   sysbench's oltp_read_write statements, 9 per table plus BEGIN and
///   COMMIT (`qpslab run` prepares the same 9 + 2). sysbench's default
///   --tables 1 makes 11 a connection: 22,000 for 2,000 connections, over
///   the default limit already; a lab's usual 8 tables make 9 × 8 + 2 = 74:
///   2,000 × 74 = 148,000. The limit costs no memory until statements exist.
const SWEEP_LIMITS: [(&str, &str); 2] = [
    ("max_connections", "2000"),
    ("max_prepared_stmt_count", "148000"),
];

/// A quarter of the host's memory, between 128 MiB and 4 GiB: enough for the
/// default test data (8 × 1M rows ≈ 2 GiB) without starving a small host.
fn buffer_pool_size() -> String {
    use procfs::Current;
    // MemTotal in bytes; 4 GiB when /proc/meminfo cannot be read.
    let mem = procfs::Meminfo::current().map_or(4 << 30, |m| m.mem_total);
    let mib = ((mem >> 20) / 4).clamp(128, 4096);
    format!("{mib}M")
}

/// Every preset's settings as my.cnf sections (`qpslab server presets`).
pub fn render_presets_help() -> String {
    let mut out = String::new();
    for p in [CnfPreset::Default, CnfPreset::Bench] {
        out.push_str(&format!("[{}]\n", p.name()));
        for (k, v) in p.settings() {
            if v.is_empty() {
                out.push_str(&format!("  {k}\n"));
            } else {
                out.push_str(&format!("  {k} = {v}\n"));
            }
        }
        out.push('\n');
    }
    out.push_str("Override any variable with --set name=value (repeatable).\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_takes_a_sweep_to_1024_users() {
        for p in [CnfPreset::Default, CnfPreset::Bench] {
            let s = p.settings();
            let get = |k: &str| -> u64 {
                s.iter()
                    .find(|(n, _)| *n == k)
                    .and_then(|(_, v)| v.parse().ok())
                    .unwrap_or_else(|| panic!("{} has no {k}", p.name()))
            };
            // 1,024 load connections, the monitor and a client
            assert!(get("max_connections") >= 1_100, "{}", p.name());
            // sysbench's oltp_read_write: 9 statements a table + 2, 8 tables
            assert!(
                get("max_prepared_stmt_count") >= 1_024 * (9 * 8 + 2),
                "{}",
                p.name()
            );
        }
    }
}
