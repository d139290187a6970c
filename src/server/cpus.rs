//! CPU lists (`0-3,6`, the kernel's and taskset's syntax): parsed and
//! checked against the host's online CPUs, for pinning a sandbox.

use anyhow::{bail, Context, Result};
use std::fs;

/// Parses a CPU list like `0-3,6`.
pub fn parse_cpu_list(s: &str) -> Result<Vec<usize>> {
    let out =
        parse_ranges(s).with_context(|| format!("bad CPU list '{s}': expected e.g. 0-3,6"))?;
    let online = online_cpus();
    if out.is_empty() {
        bail!("bad CPU list '{s}': no CPU in it");
    }
    if let Some(c) = out.iter().find(|c| !online.contains(c)) {
        bail!(
            "bad CPU list '{s}': CPU {c} is not online on this host (online: {})",
            fs::read_to_string(ONLINE).unwrap_or_default().trim()
        );
    }
    Ok(out)
}

const ONLINE: &str = "/sys/devices/system/cpu/online";

/// The host's online CPUs (not this process's affinity or cgroup quota:
/// a sandbox may be pinned to CPUs qpslab itself is kept off).
fn online_cpus() -> Vec<usize> {
    fs::read_to_string(ONLINE)
        .ok()
        .and_then(|t| parse_ranges(t.trim()).ok())
        .unwrap_or_else(|| {
            (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect()
        })
}

/// Parses the kernel's list format ("0-3,6"); ids above 65,535 are refused.
fn parse_ranges(s: &str) -> Result<Vec<usize>> {
    const MAX_ID: usize = 65_535;
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<usize>()?, b.trim().parse::<usize>()?),
            None => {
                let a = part.parse::<usize>()?;
                (a, a)
            }
        };
        if a > b || b > MAX_ID {
            bail!("'{part}' is not a range of CPU ids (0 to {MAX_ID})");
        }
        out.extend(a..=b);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0").unwrap(), vec![0]);
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("x").is_err());
        assert!(parse_cpu_list("0-99999999999").is_err());
        assert!(parse_cpu_list("").is_err());
        assert_eq!(parse_ranges("0-2, 5").unwrap(), vec![0, 1, 2, 5]);
        // The host's online list, not this process's affinity.
        assert!(online_cpus().contains(&0));
    }
}
