//! sysbench mode's built-in tests against Debian's sysbench 1.0.20: the
//! same command line through `sysbench` and `qpslab sysbench` must give
//! the same stdout and stderr, line for line, and the same exit code —
//! only the run-dependent figures differ (masked: every number from
//! "Threads started!" on, the histogram's rows, the interval lines'
//! count). No mock: without sysbench installed these tests fail.

use std::path::Path;
use std::process::{Command, Output};

fn qpslab() -> &'static str {
    env!("CARGO_BIN_EXE_qpslab")
}

#[path = "common/scratch.rs"]
mod scratch;
use scratch::Scratch;

fn run(prog: &str, pre: &[&str], args: &[&str], dir: &Path) -> Output {
    Command::new(prog)
        .args(pre)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {prog} (is Debian's sysbench installed?): {e}"))
}

/// Numbers (with the spaces that pad them) become " N".
fn mask_numbers(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            while out.ends_with(' ') {
                out.pop();
            }
            out.push_str(" N");
            while let Some(&d) = chars.peek() {
                if d.is_ascii_digit() || d == '.' {
                    chars.next();
                } else {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// (masked text, masked interval lines). The worker threads' DEBUG lines
/// ("Worker thread (#N) started/initialized") come in whatever order the
/// OS starts the threads, in sysbench as in qpslab: each run of them is
/// compared sorted (every line must still be there).
fn mask(text: &str) -> (String, Vec<String>) {
    let mut lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let start = i;
        while i < lines.len() && lines[i].starts_with("DEBUG: Worker thread (#") {
            i += 1;
        }
        lines[start..i].sort_unstable();
        i = i.max(start + 1);
    }
    let mut out = Vec::new();
    let mut intervals = Vec::new();
    let mut running = false;
    for (i, line) in lines.into_iter().enumerate() {
        if i == 0 && line.starts_with("sysbench 1.0.20 (using ") {
            out.push("sysbench 1.0.20 (using …)".to_string());
            continue;
        }
        running |= line == "Threads started!" || line.contains("bytes written in");
        if !running {
            out.push(line.to_string());
        } else if line.starts_with("[ ") {
            intervals.push(mask_numbers(line));
        } else if line.contains(" |") && line.trim_start().starts_with(|c: char| c.is_ascii_digit())
        {
            if out.last().map(String::as_str) != Some("<histogram rows>") {
                out.push("<histogram rows>".to_string());
            }
        } else {
            out.push(mask_numbers(line));
        }
    }
    (out.join("\n"), intervals)
}

/// Runs `args` through both and asserts they agree.
fn same(args: &[&str]) {
    let dir = Scratch::new("hostbench", &args.join("_").replace(['/', '-', '='], ""));
    same_in(args, &dir.0);
}

fn same_in(args: &[&str], dir: &Path) {
    let want = run("sysbench", &[], args, dir);
    let got = run(qpslab(), &["sysbench"], args, dir);
    compare(args, &want, &got);
}

fn compare(args: &[&str], want: &Output, got: &Output) {
    let line = args.join(" ");
    let (w_out, w_iv) = mask(&String::from_utf8_lossy(&want.stdout));
    let (g_out, g_iv) = mask(&String::from_utf8_lossy(&got.stdout));
    assert_eq!(g_out, w_out, "stdout of `sysbench {line}`");
    let (w_err, _) = mask(&String::from_utf8_lossy(&want.stderr));
    let (g_err, _) = mask(&String::from_utf8_lossy(&got.stderr));
    assert_eq!(g_err, w_err, "stderr of `sysbench {line}`");
    assert_eq!(
        got.status.code(),
        want.status.code(),
        "exit code of `sysbench {line}`"
    );
    if let Some(shape) = w_iv.first() {
        assert!(!g_iv.is_empty(), "no interval lines for `sysbench {line}`");
        for l in &g_iv {
            assert_eq!(l, shape, "interval line of `sysbench {line}`");
        }
    }
}

#[test]
fn cpu_runs_as_sysbench_prints_them() {
    same(&["cpu", "--time=1", "run"]);
    same(&[
        "cpu",
        "--events=200",
        "--threads=2",
        "--verbosity=4",
        "--histogram",
        "run",
    ]);
    same(&[
        "--verbosity=5",
        "cpu",
        "--events=50",
        "--percentile=0",
        "--rand-seed=3",
        "run",
    ]);
    same(&[
        "cpu",
        "--time=3",
        "--report-interval=1",
        "--cpu-max-prime=2000",
        "--percentile=99",
        "run",
    ]);
    same(&["cpu", "--events=10", "--verbosity=0", "run"]);
}

#[test]
fn threads_mutex_and_memory_run_as_sysbench_prints_them() {
    same(&[
        "threads",
        "--time=1",
        "--threads=2",
        "--thread-yields=100",
        "--verbosity=4",
        "run",
    ]);
    same(&["threads", "--events=100", "--thread-locks=2", "run"]);
    same(&["mutex", "--threads=2", "--mutex-locks=2000", "run"]);
    same(&[
        "mutex",
        "--mutex-locks=100",
        "--mutex-num=16",
        "--verbosity=4",
        "--histogram",
        "run",
    ]);
    same(&["memory", "--memory-total-size=10M", "run"]);
    same(&[
        "memory",
        "--time=1",
        "--memory-oper=read",
        "--memory-access-mode=rnd",
        "--memory-scope=local",
        "--threads=2",
        "--verbosity=4",
        "run",
    ]);
    same(&[
        "memory",
        "--time=3",
        "--report-interval=1",
        "--memory-block-size=8K",
        "--memory-oper=none",
        "run",
    ]);
}

#[test]
fn refusals_and_help_come_on_sysbenchs_streams_with_its_codes() {
    for args in [
        &["cpu", "prepare"][..],
        &["cpu", "cleanup"],
        &["threads", "frob"],
        &["cpu", "--foo=1", "run"],
        &["mutex", "--cpu-max-prime=5", "run"],
        &["cpu", "--cpu-max-prime=0", "run"],
        &["cpu", "--cpu-max-prime=x", "run"],
        &["memory", "--memory-oper=foo", "run"],
        &["memory", "--memory-access-mode=x", "run"],
        &["memory", "--memory-scope=x", "run"],
        &["memory", "--memory-block-size=100", "run"],
        &["--verbosity=0", "cpu", "prepare"],
        &["cpu", "help"],
        &["memory", "help"],
        &["threads", "help"],
        &["mutex", "help"],
        &["fileio", "help"],
    ] {
        same(args);
    }
}

#[test]
fn a_sysbench_link_to_the_binary_is_sysbench() {
    let dir = Scratch::new("hostbench", "link");
    let link = dir.0.join("sysbench");
    std::os::unix::fs::symlink(qpslab(), &link).expect("symlink");
    let args = ["cpu", "--events=20", "--threads=2", "run"];
    let want = run("sysbench", &[], &args, &dir.0);
    let got = run(link.to_str().expect("utf-8 path"), &[], &args, &dir.0);
    compare(&args, &want, &got);
}

/// Runs `args` in two directories (sysbench's files apart from qpslab's)
/// and asserts they agree.
fn same_apart(args: &[&str], theirs: &Path, ours: &Path) {
    let want = run("sysbench", &[], args, theirs);
    let got = run(qpslab(), &["sysbench"], args, ours);
    compare(args, &want, &got);
}

#[test]
fn fileio_prepares_runs_and_cleans_up_as_sysbench() {
    let theirs = Scratch::new("hostbench", "fileio-theirs");
    let ours = Scratch::new("hostbench", "fileio-ours");
    let files = ["fileio", "--file-total-size=4M", "--file-num=4"];
    let with = |more: &[&'static str]| -> Vec<&'static str> {
        files.iter().chain(more).copied().collect()
    };
    same_apart(
        &with(&["--file-test-mode=rndrd", "--events=1", "run"]),
        &theirs.0,
        &ours.0,
    );
    same_apart(&with(&["run"]), &theirs.0, &ours.0);
    same_apart(&with(&["prepare"]), &theirs.0, &ours.0);
    same_apart(&with(&["prepare"]), &theirs.0, &ours.0);
    for mode in ["seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw"] {
        let m = format!("--file-test-mode={mode}");
        let args: Vec<&str> = files
            .iter()
            .copied()
            .chain([m.as_str(), "--events=300", "run"])
            .collect();
        same_apart(&args, &theirs.0, &ours.0);
        let mut mmap = args.clone();
        mmap.insert(3, "--file-io-mode=mmap");
        same_apart(&mmap, &theirs.0, &ours.0);
    }
    same_apart(
        &with(&[
            "--file-test-mode=rndrw",
            "--events=200",
            "--file-extra-flags=direct",
            "--file-block-size=4096",
            "--file-fsync-freq=0",
            "--file-fsync-end=off",
            "--verbosity=5",
            "--threads=2",
            "run",
        ]),
        &theirs.0,
        &ours.0,
    );
    same_apart(
        &with(&[
            "--file-test-mode=rndwr",
            "--file-fsync-all",
            "--file-fsync-mode=fdatasync",
            "--events=50",
            "--file-extra-flags=dsync",
            "run",
        ]),
        &theirs.0,
        &ours.0,
    );
    same_apart(
        &with(&[
            "--file-test-mode=rndrd",
            "--time=3",
            "--report-interval=1",
            "run",
        ]),
        &theirs.0,
        &ours.0,
    );
    for bad in [
        &["--file-test-mode=foo", "run"][..],
        &["--file-io-mode=x", "--file-test-mode=seqrd", "run"],
        &["--file-block-size=0", "--file-test-mode=seqrd", "run"],
        &["frob"],
    ] {
        same_apart(&with(bad), &theirs.0, &ours.0);
    }
    same_apart(&with(&["cleanup"]), &theirs.0, &ours.0);
    let left: Vec<_> = std::fs::read_dir(&ours.0).expect("dir").collect();
    assert!(left.is_empty(), "cleanup left {left:?}");
}
