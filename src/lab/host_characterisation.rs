//! A campaign's host characterisation (`[host]`, campaign::HostStep):
//! each host test not yet kept for the campaign runs once, before its
//! first point, as a child qpslab in sysbench mode (`sysbench TEST … run`) recording itself
//! in the campaign's store under the campaign, label "host" (fileio
//! prepares and removes its files in a directory of its own). A test
//! that fails is said and the campaign goes on: its points are what was
//! asked for. Nothing of the tests' output is printed; their figures are
//! said from the store.

use crate::campaign::HostStep;
use crate::store::Store;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where a campaign's host tests are kept: its store and its id there.
pub(super) struct Keep<'a> {
    pub(super) store: &'a Store,
    pub(super) id: i64,
}

/// Runs the tests of `[host]` section `h` not yet kept for the campaign;
/// fileio's files go under `dir`. Says each step; false when Ctrl-C
/// stopped it.
pub(super) fn characterise(
    h: &HostStep,
    r: &Keep,
    dir: &Path,
    say: &mut dyn FnMut(&str),
) -> Result<bool> {
    let done = r.store.done_points(r.id)?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    for test in &h.tests {
        let hash = h.point_hash(test);
        if let Some(id) = done.get(&hash) {
            say(&format!(
                "Host characterisation: {test} kept as run {id}, not run again"
            ));
            continue;
        }
        say(&format!(
            "Host characterisation: {test}, {} s{}",
            h.time,
            if test == "fileio" {
                format!(
                    ", {} {} in {}",
                    h.file_total_size,
                    h.file_test_mode,
                    dir.display()
                )
            } else {
                String::new()
            }
        ));
        match run_test(r, h, test, &hash, dir, cpus) {
            Ok(id) => say(&figures_line(r, test, id)),
            Err(e) if crate::exec::interrupted() => {
                say(&format!("Host characterisation: {test} stopped: {e:#}"));
                return Ok(false);
            }
            Err(e) => say(&format!(
                "note: host characterisation: {test} failed, the campaign goes on: {e:#}"
            )),
        }
    }
    Ok(!crate::exec::interrupted())
}

/// One test (fileio with its prepare and cleanup); its stored run's id.
fn run_test(r: &Keep, h: &HostStep, test: &str, hash: &str, dir: &Path, cpus: u32) -> Result<i64> {
    let work = if test == "fileio" {
        let d = dir.join(format!("qpslab-host-fileio-{}", std::process::id()));
        std::fs::create_dir_all(&d).with_context(|| format!("cannot create {}", d.display()))?;
        Some(d)
    } else {
        None
    };
    let cwd: PathBuf = work.clone().unwrap_or_else(std::env::temp_dir);
    let sysbench = |command: &str, extra: &[String]| -> Result<String> {
        let mut words = h.words(test, command, cpus);
        let last = words.pop().unwrap_or_default();
        words.extend_from_slice(extra);
        words.push(last);
        child(&words, &cwd)
    };
    let result = (|| {
        if work.is_some() {
            sysbench("prepare", &[])?;
        }
        let stderr = sysbench(
            "run",
            &[
                format!("--qpslab-store={}", r.store.path().display()),
                format!("--qpslab-campaign={}", r.id),
                format!("--qpslab-point={hash}"),
                "--qpslab-label=host".to_string(),
            ],
        )?;
        stored_id(&stderr).context("the test did not say which run it stored")
    })();
    if let Some(d) = &work {
        let _ = sysbench("cleanup", &[]);
        let _ = std::fs::remove_dir_all(d);
    }
    result
}

/// Runs qpslab in sysbench mode with WORDS in `cwd`; its stderr when it exits 0,
/// else an error with its last line of output.
fn child(words: &[String], cwd: &Path) -> Result<String> {
    let exe = std::env::current_exe().context("cannot find qpslab's own executable")?;
    let out = Command::new(exe)
        .arg("sysbench")
        .args(words)
        .current_dir(cwd)
        .output()
        .context("cannot start qpslab sysbench")?;
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    if !out.status.success() {
        // its last word on stderr, else on stdout (sysbench's FATAL lines)
        let last = stderr
            .lines()
            .rev()
            .chain(stdout.lines().rev())
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .to_string();
        anyhow::bail!(
            "qpslab sysbench {} exited with {}: {last}",
            words.join(" "),
            out.status
        );
    }
    Ok(stderr)
}

/// The run id in "qpslab: stored as run N …".
fn stored_id(stderr: &str) -> Option<i64> {
    stderr.lines().find_map(|l| {
        l.strip_prefix("qpslab: stored as run ")?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    })
}

/// "Host characterisation: cpu kept as run 12: events_per_s 3768.25".
fn figures_line(r: &Keep, test: &str, id: i64) -> String {
    let figures = r
        .store
        .run_detail(id)
        .ok()
        .flatten()
        .and_then(|d| d.host_test)
        .map(|h| {
            h.figures
                .iter()
                .map(|f| format!("{} {:.2}", f.name, f.value))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    format!("Host characterisation: {test} kept as run {id}: {figures}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_stored_run_is_read_from_the_child_s_line() {
        assert_eq!(
            super::stored_id("x\nqpslab: stored as run 12 (qpslab show 12 --store /a)\n"),
            Some(12)
        );
        assert_eq!(
            super::stored_id("qpslab: the run was measured but not stored"),
            None
        );
    }
}
