//! The differential test of qpslab's sysbench mode against Debian's
//! sysbench 1.0.20 (issue 31, item 4): every command line of
//! tests/sysbench_diff/corpus.txt runs once with /usr/bin/sysbench and once
//! with `sysbench`, a symlink to the qpslab binary, on the same argv, each
//! side from a work directory of its own against a fresh database of the
//! same name in a sandbox of its own (so the two passes run at once);
//! stdout, stderr and the exit code are compared after
//! masking only what is run-dependent, as sysbench's own cram tests do
//! (figures on the lines that carry timings and rates, the counts of a run
//! bounded by time, the banner's text in parentheses). It owns the
//! corpus, the masks and the verdict; it must not touch the sandbox's
//! other databases or anything outside its own directories.
//!
//! The verdict goes to target/sysbench-diff/report.txt (a compact diff
//! per differing line; the masked outputs of both sides beside it in
//! cases/) and a summary to stdout. The goal is 95% identical; the test
//! fails below FLOOR, the count reached when it was last raised.
//! SYSBENCH_DIFF_CALIBRATE=1 also runs the whole corpus a second time with
//! sysbench and asserts both sysbench passes identical after masking.

mod common;
use common::{bin, lab, require_sysbench};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Identical outputs at the time of the last commit, less the one line
/// that differs under load only (line 83's rate padding,
/// DIFFERENCES.md); raise it as qpslab improves (never lower it to make
/// the test pass). 201 of 203 on 2026-11-27 (stop 50); 209 of 211 on
/// 2026-12-04 (stop 62), one line's margin kept.
const FLOOR: usize = 207;
/// The goal of issue 31, in percent of the corpus.
const GOAL_PERCENT: usize = 95;
/// The database every corpus line works in (dropped and created afresh
/// before each pass).
const DB: &str = "sbtest";
/// The longest one command line may run before it is killed (a hang is
/// a difference, never a stuck test).
const LINE_LIMIT: Duration = Duration::from_secs(30);
/// Lines of the quick self-check: stateless ones, run twice with sysbench.
const SELF_CHECK: &[&str] = &[
    "cpu --cpu-max-prime=100 --events=20 --threads=2 run",
    "cpu --cpu-max-prime=100 --events=20 --histogram run",
    "memory --memory-total-size=1M run",
    "rand.lua --rand-seed=42 --rand-type=pareto --rand-pareto-h=0.5 --events=1 --verbosity=0 run",
    "hooks.lua --events=5 run",
    "--help",
];

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sysbench_diff")
}

/// One command line of the corpus.
struct Case {
    /// Its line number in corpus.txt.
    line: usize,
    /// The `## heading` it stands under.
    group: String,
    /// The line as written, placeholders and all.
    text: String,
}

fn read_corpus() -> Vec<Case> {
    let text = std::fs::read_to_string(corpus_dir().join("corpus.txt")).expect("corpus.txt");
    let mut group = String::new();
    let mut cases = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let l = l.trim();
        if let Some(h) = l.strip_prefix("## ") {
            group = h.to_string();
        } else if !l.is_empty() && !l.starts_with('#') {
            cases.push(Case {
                line: i + 1,
                group: group.clone(),
                text: l.to_string(),
            });
        }
    }
    cases
}

/// What one tool printed for one line.
#[derive(Clone, PartialEq, Debug)]
struct Seen {
    stdout: String,
    stderr: String,
    code: String,
}

/// The two sides: which `sysbench` a pass puts first in PATH.
#[derive(Clone, Copy, PartialEq)]
enum Tool {
    Sysbench,
    Qpslab,
}

/// Where one side's pass runs: its sandbox (each side has its own, with
/// the same database name, so both passes run at once), a work directory
/// with the corpus's scripts, and the PATH that makes `sysbench` its tool.
struct Side {
    work: PathBuf,
    path: String,
    conn: Vec<String>,
}

impl Side {
    /// The side of `tool` on sandbox `sandbox` of the shared lab (started
    /// here when it is not the lab's own; the lab destroys all of its
    /// sandboxes at exit).
    fn new(tool: Tool, sandbox: &str) -> Side {
        let lab = lab();
        if sandbox != common::SANDBOX {
            let o = lab.qpslab(&["server", "start", "--name", sandbox]);
            assert!(
                o.status.success(),
                "sandbox {sandbox}: {}",
                common::text(&o)
            );
        }
        let root = lab.home.join("sysbench-diff").join(sandbox);
        let path = match tool {
            Tool::Sysbench => "/usr/bin:/bin".to_string(),
            Tool::Qpslab => {
                let dir = root.join("bin");
                std::fs::create_dir_all(&dir).unwrap();
                std::os::unix::fs::symlink(bin(), dir.join("sysbench")).unwrap();
                format!("{}:/usr/bin:/bin", dir.display())
            }
        };
        let socket = lab.home.join("sandboxes").join(sandbox).join("mysqld.sock");
        let conn = vec![
            format!("--mysql-socket={}", socket.display()),
            "--mysql-user=root".to_string(),
            format!("--mysql-db={DB}"),
        ];
        Side {
            work: root.join("work"),
            path,
            conn,
        }
    }

    fn sql(&self, q: &str) {
        let socket = self.conn[0].trim_start_matches("--mysql-socket=");
        let out = Command::new("mariadb")
            .args(["-uroot", "-N", "-B", "--socket", socket, "-e", q])
            .output()
            .expect("mariadb client");
        assert!(out.status.success(), "{q}: {}", common::text(&out));
    }

    /// The argv of a corpus line, placeholders substituted.
    fn argv(&self, text: &str) -> Vec<String> {
        let mut argv = Vec::new();
        for w in text.split_whitespace() {
            match w {
                "{conn}" => argv.extend(self.conn.iter().cloned()),
                "{none}" => {}
                w => argv.push(w.to_string()),
            }
        }
        argv
    }

    /// A fresh database and a work directory holding only the scripts.
    fn reset(&self) {
        self.sql(&format!(
            "DROP DATABASE IF EXISTS {DB}; CREATE DATABASE {DB}"
        ));
        let _ = std::fs::remove_dir_all(&self.work);
        std::fs::create_dir_all(&self.work).unwrap();
        for e in std::fs::read_dir(corpus_dir()).unwrap().flatten() {
            let name = e.file_name();
            if name.to_string_lossy().ends_with(".lua") {
                std::fs::copy(e.path(), self.work.join(&name)).unwrap();
            }
        }
    }

    /// Runs the lines in order from a fresh state.
    fn pass(&self, lines: &[&str]) -> Vec<Seen> {
        self.reset();
        lines.iter().map(|l| self.run(l)).collect()
    }

    /// Runs one line as `sysbench ARGV` with the tool's `sysbench` first
    /// in PATH; stdout and stderr go to files (no pipe to fill), a line
    /// that outlives LINE_LIMIT is killed.
    fn run(&self, text: &str) -> Seen {
        let out_dir = self.work.with_file_name("out");
        std::fs::create_dir_all(&out_dir).unwrap();
        let (out, err) = (out_dir.join("stdout"), out_dir.join("stderr"));
        let mut child = Command::new("sysbench")
            .args(self.argv(text))
            .current_dir(&self.work)
            .env_clear()
            .env("PATH", &self.path)
            .env("HOME", &lab().home)
            .env("QPSLAB_HOME", &lab().home)
            .env("LANG", "C")
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&err).unwrap())
            .spawn()
            .expect("spawn sysbench");
        let start = Instant::now();
        let code = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break match status.code() {
                    Some(c) => c.to_string(),
                    None => format!("{status}"),
                };
            }
            if start.elapsed() > LINE_LIMIT {
                let _ = child.kill();
                let _ = child.wait();
                break format!("killed after {} s", LINE_LIMIT.as_secs());
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        // The side's own paths read as the placeholders (the two sides'
        // sandboxes and work directories differ; what sysbench says of
        // them must not).
        let socket = self.conn[0].trim_start_matches("--mysql-socket=");
        let work = self.work.display().to_string();
        let read = |p: &Path| {
            String::from_utf8_lossy(&std::fs::read(p).unwrap())
                .replace(socket, "{socket}")
                .replace(&work, "{work}")
        };
        Seen {
            stdout: read(&out),
            stderr: read(&err),
            code,
        }
    }
}

/// What the masks need to know of the command line.
struct MaskContext {
    /// A run bounded by time, not by --events: its counts depend on speed.
    timed: bool,
    /// --histogram: the latency histogram's rows depend on speed.
    histogram: bool,
}

impl MaskContext {
    fn of(text: &str) -> MaskContext {
        let mut events = 0u64;
        let mut histogram = false;
        let words: Vec<&str> = text.split_whitespace().collect();
        for (i, w) in words.iter().enumerate() {
            // `--name=value` or `--name value`.
            let value = |name: &str| match w.strip_prefix(name) {
                Some(r) if r.starts_with('=') => Some(r[1..].to_string()),
                Some("") => Some(words.get(i + 1).unwrap_or(&"").to_string()),
                _ => None,
            };
            if let Some(v) = value("--events").or_else(|| value("--max-requests")) {
                events = v.parse().unwrap_or(0);
            }
            if *w == "--histogram" {
                histogram = true; // a boolean alone is on
            } else if let Some(v) = value("--histogram") {
                histogram = matches!(v.as_str(), "on" | "true" | "1");
            }
        }
        // Without an event limit a run lasts --time (10 s by default).
        MaskContext {
            timed: events == 0 && words.contains(&"run"),
            histogram,
        }
    }
}

/// Replaces every figure (a run of digits and dots holding a digit) with
/// `#` and squeezes runs of blanks to one (the columns move with the
/// width of the figures).
fn mask_figures(line: &str) -> String {
    let mut out = String::new();
    let mut figure = false;
    for c in line.chars() {
        if c.is_ascii_digit() || (figure && c == '.') {
            if !figure {
                out.push('#');
                figure = true;
            }
        } else {
            figure = false;
            out.push(c);
        }
    }
    let squeezed: Vec<&str> = out.split_whitespace().collect();
    let indent = if line.starts_with(' ') { " " } else { "" };
    format!("{indent}{}", squeezed.join(" "))
}

/// The key of an indented `key: value` statistics line, if it is one.
fn stat_key(line: &str) -> Option<&str> {
    if !line.starts_with(' ') {
        return None;
    }
    let (key, value) = line.trim().split_once(':')?;
    value
        .trim_start()
        .starts_with(|c: char| c.is_ascii_digit())
        .then_some(key)
}

/// Keys of statistics lines whose figures are timings or rates.
const TIMING_KEYS: &[&str] = &[
    "total time",
    "min",
    "avg",
    "max",
    "sum",
    "events (avg/stddev)",
    "execution time (avg/stddev)",
    "events per second",
    "reads/s",
    "writes/s",
    "fsyncs/s",
    "read, MiB/s",
    "written, MiB/s",
];

/// One masked line, or None when the line is a histogram row (the rows
/// collapse to one marker: how many buckets show depends on speed).
fn mask_line(line: &str, ctx: &MaskContext) -> Option<String> {
    if let Some(rest) = line.strip_prefix("sysbench ") {
        if let Some((version, paren)) = rest.split_once(' ') {
            if paren.starts_with('(') && paren.ends_with(')') {
                return Some(format!("sysbench {version} (*)"));
            }
        }
    }
    if ctx.histogram {
        if let Some((value, _)) = line.trim().split_once(" |") {
            if value.parse::<f64>().is_ok() {
                return None;
            }
        }
    }
    // Interval reports: `[ 2s ] thds: 1` kept, the figures after masked.
    if line.starts_with('[') {
        if let Some(at) = line.find(" tps:").or_else(|| line.find(" eps:")) {
            return Some(format!("{}{}", &line[..at], mask_figures(&line[at..])));
        }
    }
    // --db-debug's query and fetch timings at --verbosity=5.
    if let Some(rest) = line.strip_prefix("DEBUG:") {
        if matches!(stat_key(rest), Some("min" | "avg" | "max" | "total")) {
            return Some(format!("DEBUG:{}", mask_figures(rest)));
        }
    }
    let rate = [
        "per sec",
        "per second",
        "/sec)",
        "bytes written in",
        "bytes read in",
    ]
    .iter()
    .any(|r| line.contains(r));
    let timing = match stat_key(line) {
        Some(k) => TIMING_KEYS.contains(&k) || k.ends_with("th percentile") || ctx.timed,
        None => false,
    };
    if rate || timing {
        return Some(mask_figures(line));
    }
    Some(line.to_string())
}

/// A stream as compared: each line masked, histogram rows collapsed.
fn mask(text: &str, ctx: &MaskContext) -> String {
    let mut out = String::new();
    let mut in_rows = false;
    for line in text.lines() {
        match mask_line(line, ctx) {
            Some(l) => {
                in_rows = false;
                out.push_str(&l);
                out.push('\n');
            }
            None if !in_rows => {
                in_rows = true;
                out.push_str("<histogram rows: # |* #>\n");
            }
            None => {}
        }
    }
    out
}

fn masked(seen: &Seen, text: &str) -> Seen {
    let ctx = MaskContext::of(text);
    Seen {
        stdout: mask(&seen.stdout, &ctx),
        stderr: mask(&seen.stderr, &ctx),
        code: seen.code.clone(),
    }
}

/// The first differing lines of a stream, both sides, at most `n` each.
fn first_difference(name: &str, a: &str, b: &str, n: usize) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let at = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut s = format!("  {name}: first difference at line {}\n", at + 1);
    for l in a.iter().skip(at).take(n) {
        let _ = writeln!(s, "    - sysbench | {l}");
    }
    if a.len() <= at {
        let _ = writeln!(s, "    - sysbench | <end>");
    }
    for l in b.iter().skip(at).take(n) {
        let _ = writeln!(s, "    + qpslab   | {l}");
    }
    if b.len() <= at {
        let _ = writeln!(s, "    + qpslab   | <end>");
    }
    s
}

/// The compact diff of one differing line.
fn case_diff(case: &Case, a: &Seen, b: &Seen) -> String {
    let mut s = format!(
        "line {} [{}]: sysbench {}\n",
        case.line, case.group, case.text
    );
    if a.code != b.code {
        let _ = writeln!(s, "  exit code: sysbench {} vs qpslab {}", a.code, b.code);
    }
    if a.stdout != b.stdout {
        s += &first_difference("stdout", &a.stdout, &b.stdout, 3);
    }
    if a.stderr != b.stderr {
        s += &first_difference("stderr", &a.stderr, &b.stderr, 3);
    }
    s
}

fn show(seen: &Seen) -> String {
    format!(
        "exit {}\n--- stdout\n{}--- stderr\n{}",
        seen.code, seen.stdout, seen.stderr
    )
}

/// Writes the report and the masked outputs; returns the identical count
/// and the summary.
fn verdict(cases: &[Case], refs: &[Seen], ours: &[Seen]) -> (usize, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/sysbench-diff");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("cases")).unwrap();
    let mut report = String::new();
    let mut groups: Vec<(String, usize, usize)> = Vec::new();
    let mut same = 0;
    for ((case, a), b) in cases.iter().zip(refs).zip(ours) {
        let (a, b) = (masked(a, &case.text), masked(b, &case.text));
        let equal = a == b;
        same += usize::from(equal);
        match groups.last_mut() {
            Some(g) if g.0 == case.group => {
                g.1 += usize::from(equal);
                g.2 += 1;
            }
            _ => groups.push((case.group.clone(), usize::from(equal), 1)),
        }
        if !equal {
            report += &case_diff(case, &a, &b);
            let base = dir.join("cases").join(format!("line{:03}", case.line));
            let header = format!("sysbench {}\n", case.text);
            std::fs::write(
                base.with_extension("sysbench.txt"),
                header.clone() + &show(&a),
            )
            .unwrap();
            std::fs::write(base.with_extension("qpslab.txt"), header + &show(&b)).unwrap();
        }
    }
    let total = cases.len();
    let goal = (total * GOAL_PERCENT).div_ceil(100);
    let mut summary = format!("sysbench diff: {same}/{total} identical after masking\n");
    for (g, s, n) in &groups {
        let _ = writeln!(summary, "  {s:>3}/{n:<3} {g}");
    }
    let reached = if same >= goal {
        "reached"
    } else {
        "not reached"
    };
    let _ = writeln!(
        summary,
        "goal {GOAL_PERCENT}%: {reached} ({same}/{total}; {goal} needed)"
    );
    let _ = writeln!(
        summary,
        "floor: {FLOOR}; report: {}",
        dir.join("report.txt").display()
    );
    std::fs::write(dir.join("report.txt"), format!("{summary}\n{report}")).unwrap();
    (same, summary)
}

#[test]
fn sysbench_mode_prints_what_sysbench_prints() {
    require_sysbench();
    let cases = read_corpus();
    assert!(cases.len() >= 80, "the corpus holds {} lines", cases.len());
    let lines: Vec<&str> = cases.iter().map(|c| c.text.as_str()).collect();
    let sysbench = Side::new(Tool::Sysbench, common::SANDBOX);
    let qpslab = Side::new(Tool::Qpslab, "diff");
    // Both passes at once, each on its own sandbox: only what the masks
    // hide (timings) can feel the other.
    let (refs, ours, again) = std::thread::scope(|s| {
        let theirs = s.spawn(|| {
            let refs = sysbench.pass(&lines);
            (refs, sysbench.pass(SELF_CHECK))
        });
        let ours = qpslab.pass(&lines);
        let (refs, again) = theirs.join().expect("the sysbench pass");
        (refs, ours, again)
    });
    for (text, seen) in SELF_CHECK.iter().zip(&again) {
        let first = cases
            .iter()
            .position(|c| c.text == *text)
            .unwrap_or_else(|| panic!("self-check line not in the corpus: {text}"));
        assert_eq!(
            masked(&refs[first], text),
            masked(seen, text),
            "the masks leave run-dependent text: sysbench twice differs on `{text}`"
        );
    }
    if std::env::var_os("SYSBENCH_DIFF_CALIBRATE").is_some() {
        let again = sysbench.pass(&lines);
        let (same, summary) = verdict(&cases, &refs, &again);
        assert_eq!(
            same,
            cases.len(),
            "calibration: sysbench twice differs\n{summary}"
        );
    }
    let (same, summary) = verdict(&cases, &refs, &ours);
    // Straight to the process's stdout: libtest captures println! of a
    // passing test, and the count is wanted in every run's log.
    let _ = std::io::Write::write_all(&mut std::io::stdout(), summary.as_bytes());
    assert!(
        same >= FLOOR,
        "sysbench diff: {same} identical, below the floor of {FLOOR}\n{summary}"
    );
}
