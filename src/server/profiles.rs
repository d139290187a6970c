//! Named my.cnf profiles. A profile is a list of server variables; `--set`
//! overrides are applied after it. The host-dependent buffer pool size is
//! computed here so that both profiles fit the machine.

use anyhow::{bail, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Profile {
    /// Server defaults, with the buffer pool sized for the test data.
    Default,
    /// Benchmark settings in the style of published sysbench studies.
    Bench,
}

impl Profile {
    pub fn parse(s: &str) -> Result<Profile> {
        match s {
            "default" => Ok(Profile::Default),
            "bench" => Ok(Profile::Bench),
            _ => bail!("unknown profile '{s}'; known profiles: default, bench (see `qpslab server profiles`)"),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Profile::Default => "default",
            Profile::Bench => "bench",
        }
    }

    /// The profile's settings, in my.cnf order.
    pub fn settings(self) -> Vec<(&'static str, String)> {
        let bp = buffer_pool_size();
        let mut s = vec![("innodb_buffer_pool_size", bp)];
        if self == Profile::Bench {
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

/// A quarter of the host's memory, between 128 MiB and 4 GiB: enough for the
/// default test data (8 × 1M rows ≈ 2 GiB) without starving a small host.
fn buffer_pool_size() -> String {
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| {
                    l.split_whitespace()
                        .nth(1)
                        .and_then(|v| v.parse::<u64>().ok())
                })
        })
        .unwrap_or(4 << 20);
    let mib = (mem / 1024 / 4).clamp(128, 4096);
    format!("{mib}M")
}

pub fn render_profiles_help() -> String {
    let mut out = String::new();
    for p in [Profile::Default, Profile::Bench] {
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
