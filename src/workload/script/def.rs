//! What every connection's Lua state for a script is built from: the
//! script's text and path, its options' values with sysbench's own
//! (`sysbench.opt`), the random parameters. Loads nothing into Lua and
//! runs nothing (state.rs and script_family.rs do).

use crate::workload::options::{OptKind, OptValues};
use crate::workload::{RandParams, Unique};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A value in `sysbench.opt`.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(untagged)]
pub enum OptValue {
    /// A number.
    Num(f64),
    /// A flag.
    Bool(bool),
    /// Text.
    Text(String),
    /// A list option's words.
    List(Vec<String>),
}

/// sysbench's own options a script may read in `sysbench.opt` (the
/// password is never among them).
#[derive(Debug, Clone, Default)]
pub struct BuiltIns {
    /// (name, value) pairs in the order given.
    pub values: Vec<(String, OptValue)>,
}

impl BuiltIns {
    /// Adds a number option.
    pub fn num(&mut self, name: &str, v: f64) -> &mut Self {
        self.values.push((name.into(), OptValue::Num(v)));
        self
    }

    /// Adds a text option.
    pub fn text(&mut self, name: &str, v: &str) -> &mut Self {
        self.values.push((name.into(), OptValue::Text(v.into())));
        self
    }

    /// Adds a flag option.
    pub fn flag(&mut self, name: &str, v: bool) -> &mut Self {
        self.values.push((name.into(), OptValue::Bool(v)));
        self
    }

    fn get(&self, name: &str) -> Option<&OptValue> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// A list option's words, as sysbench splits them: on commas, empty
/// words dropped.
pub(crate) fn list_words(raw: &str) -> Vec<String> {
    raw.split(',')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Everything a Lua state for the script is built from.
pub struct ScriptDef {
    /// Unique in the process: the key of each thread's Lua state for it.
    pub id: u64,
    /// The script's path as given.
    pub path: PathBuf,
    /// The script's directory, searched first by `require`.
    pub dir: String,
    /// The script's source.
    pub text: String,
    /// SHA-256 of the source, hex (recorded with the run).
    pub sha256: String,
    /// `sysbench.opt`: the script's options, then sysbench's.
    pub opt_values: Vec<(String, OptValue)>,
    /// How `sysbench.rand` draws (the run's --rand-* options).
    pub rand: RandParams,
    /// `sysbench.rand.unique()`, shared by every connection.
    pub unique: Arc<Unique>,
    /// `--threads`: how many connections a parallel command uses.
    pub threads: u32,
    /// The run's length, warm-up included (None: no --time), which bounds
    /// how long a step of the script may run without yielding (guard.rs).
    pub run_length: Option<std::time::Duration>,
    /// No --events limit: an event's end may be said by the next event's
    /// first request (prelude.lua's `fold`), the next event begun ahead.
    pub fold_events: bool,
}

impl ScriptDef {
    /// Reads the script at `path`; `values` are its options' values.
    pub fn new(
        path: &Path,
        values: &OptValues,
        builtins: &BuiltIns,
        rand: RandParams,
        seed: u64,
    ) -> Result<ScriptDef, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read script {}: {e}", path.display()))?;
        let sha256 = hex(ring::digest::digest(&ring::digest::SHA256, text.as_bytes()).as_ref());
        let mut opt_values = Vec::new();
        for (spec, raw) in values.entries() {
            // An option declared without a default and not given is, in
            // sysbench 1.0.20's sysbench.opt, on when boolean, 0 when a
            // number or size.
            let v = match spec.kind {
                OptKind::Bool => OptValue::Bool(matches!(raw, "on" | "true" | "1" | "yes" | "")),
                OptKind::Count | OptKind::Float | OptKind::Size if raw.trim().is_empty() => {
                    OptValue::Num(0.0)
                }
                OptKind::Count | OptKind::Float => match raw.parse::<f64>() {
                    Ok(n) => OptValue::Num(n),
                    Err(_) => OptValue::Text(raw.to_string()),
                },
                OptKind::Text => OptValue::Text(raw.to_string()),
                OptKind::Size => match crate::workload::parse_size(raw.trim()) {
                    Some(n) => OptValue::Num(n as f64),
                    None => OptValue::Text(raw.to_string()),
                },
                OptKind::List => OptValue::List(list_words(raw)),
            };
            opt_values.push((spec.name.clone(), v));
        }
        for (n, v) in &builtins.values {
            if !opt_values.iter().any(|(o, _)| o == n) {
                opt_values.push((n.clone(), v.clone()));
            }
        }
        let threads = match builtins.get("threads") {
            Some(OptValue::Num(n)) => (*n as u32).max(1),
            _ => 1,
        };
        let num = |name| match builtins.get(name) {
            Some(OptValue::Num(n)) if n.is_finite() => *n,
            _ => 0.0,
        };
        let run_length = (num("time") > 0.0).then(|| {
            std::time::Duration::from_secs_f64((num("time") + num("warmup_time").max(0.0)).min(1e9))
        });
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Ok(ScriptDef {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            dir: path
                .parent()
                .map(|d| d.display().to_string())
                .filter(|d| !d.is_empty())
                .unwrap_or_else(|| ".".into()),
            path: path.to_path_buf(),
            text,
            sha256,
            opt_values,
            rand,
            unique: Arc::new(Unique::new(seed as u32)),
            threads,
            run_length,
            fold_events: num("events") <= 0.0,
        })
    }

    /// Whether `--db-ps-mode=disable` asks for text statements (rows
    /// read, as sysbench's emulated prepared statements return them).
    pub fn ps_disabled(&self) -> bool {
        self.opt_values
            .iter()
            .any(|(n, v)| n == "db_ps_mode" && matches!(v, OptValue::Text(t) if t == "disable"))
    }

    /// The script's file name.
    pub fn name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_else(|| self.path.display().to_string())
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
