//! What the workload families' test files (tpcc, linkbench, dbstress, and
//! next dbt3) share on the lab's sandbox: a command that must succeed on a
//! database, a query's count, the server's statement counters, and a
//! campaign on a sandbox of its own with the runs it stored.
//!
//! To adopt: `use common::family::{ok, count, …}` in place of the file's
//! own copies.

use super::{json, lab, outcome, text};
use std::collections::BTreeMap;
use std::process::Output;

/// Runs qpslab `args` on database `db`; fails the test unless it succeeds,
/// saying how it ended (exit code or signal) and what it printed.
pub fn ok(args: &[&str], db: &str) -> Output {
    let o = lab().on_db(db, args);
    assert!(o.status.success(), "{args:?}: {}", outcome(&o));
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
