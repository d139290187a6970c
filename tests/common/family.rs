//! What the workload families' test files (tpcc, linkbench, dbstress, and
//! next dbt3) share on the lab's sandbox: a command that must succeed on a
//! database, a query's count, the server's statement counters, a
//! campaign on a sandbox of its own with the runs it stored, and a
//! prepare stopped by Ctrl-C and resumed.
//!
//! To adopt: `use common::family::{ok, count, …}` in place of the file's
//! own copies.

use super::{json, lab, outcome, text};
use std::collections::BTreeMap;
use std::process::Output;

/// Runs qpslab `args` on database `db`; fails the test unless it succeeds,
/// saying how it ended (exit code or signal), what it printed, and how the
/// sandbox's error log ends.
pub fn ok(args: &[&str], db: &str) -> Output {
    let o = lab().on_db(db, args);
    assert!(
        o.status.success(),
        "{args:?}: {}\n{}",
        outcome(&o),
        lab().server_log_tail(20)
    );
    o
}

/// Runs qpslab `args` on `db`; fails the test unless it fails saying each
/// of `wants`. Returns what it printed.
pub fn refused(args: &[&str], db: &str, wants: &[&str]) -> String {
    let o = lab().on_db(db, args);
    let s = text(&o);
    assert!(
        !o.status.success() && wants.iter().all(|w| s.contains(w)),
        "{args:?}: {}",
        outcome(&o)
    );
    s
}

/// The number query `q` returns on `db`.
pub fn count(db: &str, q: &str) -> i64 {
    lab()
        .sql(db, q)
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("{q}"))
}

/// The server's statement counters (`Com_*`), every one.
pub fn com_counters() -> BTreeMap<String, i64> {
    lab()
        .sql("mysql", "SHOW GLOBAL STATUS LIKE 'Com\\_%'")
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once('\t')?;
            Some((k.to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

/// How much each counter moved while `f` ran (zeros kept).
pub fn com_delta(f: impl FnOnce()) -> BTreeMap<String, i64> {
    let before = com_counters();
    f();
    com_counters()
        .into_iter()
        .map(|(k, v)| {
            let d = v - before.get(&k).copied().unwrap_or(0);
            (k, d)
        })
        .collect()
}

/// A campaign file and the store its runs went to.
pub struct Campaign {
    /// The campaign file (in the lab's home).
    pub path: std::path::PathBuf,
    /// The store's path.
    pub store: String,
}

/// Writes campaign NAME.toml (`body`: its threads, time, [data] and
/// workloads; one server added, sandbox `sandbox` with a 256M buffer
/// pool), runs it into NAME.db, destroys the sandbox and fails the test
/// unless the campaign succeeded.
pub fn run_campaign(name: &str, body: &str, sandbox: &str) -> Campaign {
    let l = lab();
    let path = l.home.join(format!("{name}.toml"));
    let toml = format!(
        "name = \"{name}\"\n{body}\n[[server]]\nlabel = \"maria\"\nsandbox = \"{sandbox}\"\nset = {{ innodb_buffer_pool_size = \"256M\" }}\n"
    );
    std::fs::write(&path, toml).unwrap();
    let store = l.home.join(format!("{name}.db")).display().to_string();
    let o = l.qpslab(&["campaign", "run", path.to_str().unwrap(), "--store", &store]);
    let _ = l.qpslab(&["server", "destroy", "--name", sandbox]);
    assert!(o.status.success(), "{}", outcome(&o));
    Campaign { path, store }
}

/// The runs of `store` that ended ok (`runs --format json`), and the
/// command's output for messages.
pub fn ok_runs(store: &str) -> (Vec<serde_json::Value>, Output) {
    let o = lab().qpslab(&[
        "runs", "--store", store, "--status", "ok", "--format", "json",
    ]);
    let runs = json(&o).as_array().cloned().unwrap_or_default();
    (runs, o)
}

/// The figures `N of M` right after `label` in `s`.
pub fn n_of_m_after(s: &str, label: &str) -> (u64, u64) {
    let rest = &s[s
        .find(label)
        .unwrap_or_else(|| panic!("no `{label}` in: {s}"))
        + label.len()..];
    let mut w = rest.split_whitespace();
    let n = w.next().and_then(|v| v.parse().ok());
    let m = w.nth(1).and_then(|v| v.parse().ok());
    match (n, m) {
        (Some(n), Some(m)) => (n, m),
        _ => panic!("no `N of M` after `{label}` in: {s}"),
    }
}

/// Stops prepare `args` on `db` by Ctrl-C once its progress table
/// `progress` holds a part (`parts`: the condition on `part` that picks
/// the parts out), then checks that its line `… rows sent: N of M …`
/// counts the parts the table holds, and that a resume's first line (the
/// `N of M` after `resume_label`) says the same; the resume is stopped
/// too. The prepare must be long enough not to end before the signal.
pub fn interrupt_and_resume(
    db: &str,
    args: &[&str],
    progress: &str,
    parts: &str,
    resume_label: &str,
) {
    use std::io::BufRead;
    let mut all = args.to_vec();
    all.extend(["--server", super::SANDBOX, "--db", db]);
    let spawn = || {
        lab()
            .command()
            .args(&all)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("qpslab prepare")
    };
    let held = || {
        count(
            db,
            &format!("SELECT COUNT(*) FROM {progress} WHERE {parts}"),
        )
    };
    let child = spawn();
    let committed = || {
        lab()
            .sql(db, &format!("SHOW TABLES LIKE '{progress}'"))
            .contains(progress)
            && held() > 0
    };
    super::await_cond(
        std::time::Duration::from_secs(120),
        "a part committed",
        committed,
    );
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out));
    let said = n_of_m_after(&err, "rows sent: ");
    assert_eq!(said.0, held() as u64, "{err}");
    let mut again = spawn();
    let mut lines = std::io::BufReader::new(again.stdout.take().unwrap()).lines();
    let line = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.contains(resume_label))
        .unwrap_or_else(|| panic!("the resume said no `{resume_label}`"));
    unsafe { libc::kill(again.id() as i32, libc::SIGINT) };
    drop(lines);
    again.wait().expect("wait");
    assert_eq!(n_of_m_after(&line, resume_label), said, "{line} / {err}");
}
