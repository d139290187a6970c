//! A campaign's host characterisation (`[host]`): sysbench's built-in
//! host tests run once before the campaign's points — `cpu` and `fileio`
//! on the filesystem of the first sandbox's datadir by default — and kept
//! in the store with the campaign, so its results say what the host could
//! do when they were measured. Owns the section's format, its validation
//! and each test's sysbench command line; lab runs them.

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The `[host]` section.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostStep {
    /// The tests, in order: `cpu`, `fileio`, `memory`, `threads`, `mutex`.
    #[serde(default = "default_tests")]
    pub tests: Vec<String>,
    /// Seconds each test runs; 10 by default.
    #[serde(default = "default_time")]
    pub time: u64,
    /// Threads each test runs; the host's CPUs by default.
    pub threads: Option<u32>,
    /// fileio's data size (sysbench's --file-total-size); "1G" by default.
    #[serde(default = "default_size")]
    pub file_total_size: String,
    /// fileio's mode (sysbench's --file-test-mode); "rndrw" by default.
    #[serde(default = "default_mode")]
    pub file_test_mode: String,
    /// fileio's extra open flags ("direct" to bypass the page cache, as
    /// InnoDB's O_DIRECT does); none by default.
    #[serde(default)]
    pub file_extra_flags: String,
    /// Where fileio writes its files; by default beside the first
    /// sandbox's datadir (the state directory for external servers).
    pub dir: Option<PathBuf>,
}

fn default_tests() -> Vec<String> {
    vec!["cpu".into(), "fileio".into()]
}
fn default_time() -> u64 {
    10
}
fn default_size() -> String {
    "1G".into()
}
fn default_mode() -> String {
    "rndrw".into()
}

/// fileio's modes (sysbench's --file-test-mode values).
const FILE_MODES: [&str; 6] = ["seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw"];

impl HostStep {
    /// Checks the section's values.
    pub fn validate(&self) -> Result<()> {
        if self.tests.is_empty() {
            bail!("[host] tests must name at least one of cpu, fileio, memory, threads, mutex");
        }
        for t in &self.tests {
            if !crate::hostbench::is_builtin(t) {
                bail!("[host] tests: '{t}' is not a host test: give cpu, fileio, memory, threads or mutex");
            }
        }
        if !(1..=86_400).contains(&self.time) {
            bail!(
                "[host] time = {} is out of range: give seconds from 1 to 86400",
                self.time
            );
        }
        if self.threads.is_some_and(|t| !(1..=100_000).contains(&t)) {
            bail!("[host] threads must be from 1 to 100000");
        }
        if crate::workload::parse_size(&self.file_total_size).is_none_or(|s| s == 0) {
            bail!(
                "[host] file_total_size = \"{}\" is not a size: give e.g. \"1G\" or \"512M\"",
                self.file_total_size
            );
        }
        if !FILE_MODES.contains(&self.file_test_mode.as_str()) {
            bail!(
                "[host] file_test_mode = \"{}\": give one of {}",
                self.file_test_mode,
                FILE_MODES.join(", ")
            );
        }
        Ok(())
    }

    /// The point hash a test's stored run carries: a rerun of the
    /// campaign skips the tests already kept (a changed section runs them
    /// again).
    pub fn point_hash(&self, test: &str) -> String {
        let def = format!(
            "host|{test}|{}|{:?}|{}|{}|{}",
            self.time,
            self.threads,
            self.file_total_size,
            self.file_test_mode,
            self.file_extra_flags
        );
        format!("host-{:016x}", crate::stats::fnv1a64(def.as_bytes()))
    }

    /// The sysbench-mode words of `test`'s `command` (`run`, or fileio's
    /// `prepare` and `cleanup`), options first, the command last;
    /// `threads` when the section gives none.
    pub fn words(&self, test: &str, command: &str, threads: u32) -> Vec<String> {
        let mut w = vec![
            test.to_string(),
            format!("--threads={}", self.threads.unwrap_or(threads)),
            format!("--time={}", self.time),
        ];
        if test == "fileio" {
            w.push(format!("--file-total-size={}", self.file_total_size));
            w.push(format!("--file-test-mode={}", self.file_test_mode));
            if !self.file_extra_flags.is_empty() {
                w.push(format!("--file-extra-flags={}", self.file_extra_flags));
            }
        }
        w.push(command.to_string());
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(extra: &str) -> Result<HostStep> {
        let s: HostStep = toml::from_str(extra)?;
        s.validate()?;
        Ok(s)
    }

    #[test]
    fn defaults_are_cpu_and_fileio_for_ten_seconds() {
        let s = step("").unwrap();
        assert_eq!(s.tests, ["cpu", "fileio"]);
        assert_eq!(
            s.words("fileio", "run", 4),
            [
                "fileio",
                "--threads=4",
                "--time=10",
                "--file-total-size=1G",
                "--file-test-mode=rndrw",
                "run"
            ]
        );
        assert_eq!(s.point_hash("cpu"), step("").unwrap().point_hash("cpu"));
        assert_ne!(
            s.point_hash("cpu"),
            step("time = 5").unwrap().point_hash("cpu")
        );
    }

    #[test]
    fn bad_values_are_refused_with_what_to_give() {
        for (toml, needle) in [
            ("tests = [\"disk\"]", "'disk' is not a host test"),
            ("tests = []", "at least one"),
            ("time = 0", "time = 0 is out of range"),
            ("file_total_size = \"lots\"", "not a size"),
            ("file_test_mode = \"rnd\"", "give one of"),
            ("colour = 1", "unknown field"),
        ] {
            let e = format!("{:#}", step(toml).unwrap_err());
            assert!(e.contains(needle), "{toml}: {e}");
        }
    }
}
