//! A script's own options: what it puts in `sysbench.cmdline.options`
//! when loaded (`name = {"description", default}`), typed by the default
//! as sysbench does (a boolean, a number, else text).

use super::family::{BuiltIns, ScriptDef};
use super::state;
use crate::workload::options::{OptKind, OptSpec, OptValues};
use crate::workload::RandParams;
use mlua::{Table, Value};
use std::path::Path;

/// Loads the script at `path` for `command` and returns the options it
/// declares, in name order. Err is one line (the Lua error's first line,
/// which names the file and line).
pub fn script_options(path: &Path, command: &str) -> Result<Vec<OptSpec>, String> {
    let st =
        bare_state(path, command).map_err(|m| m.lines().next().unwrap_or("error").to_string())?;
    let first_line = |e: mlua::Error| state::first_line(&e);
    let options: Table = st
        .sysbench()
        .and_then(|s| s.get::<Table>("cmdline"))
        .and_then(|c| c.get::<Table>("options"))
        .map_err(first_line)?;
    let mut specs = Vec::new();
    for pair in options.pairs::<String, Value>() {
        let (name, v) = pair.map_err(first_line)?;
        let Value::Table(t) = v else {
            return Err(format!(
                "script {}: sysbench.cmdline.options.{name} is not {{\"description\", default}}",
                path.display()
            ));
        };
        let help: String = t.get(1).unwrap_or_default();
        let default: Value = t.get(2).unwrap_or(Value::Nil);
        let (kind, default) = match default {
            Value::Boolean(b) => (OptKind::Bool, if b { "on" } else { "off" }.to_string()),
            // Lua numbers are doubles: 10 is shown as 10, 0.5 as 0.5.
            Value::Integer(i) => (OptKind::Float, i.to_string()),
            Value::Number(n) => (OptKind::Float, n.to_string()),
            Value::String(s) => (OptKind::Text, s.to_string_lossy().to_string()),
            _ => (OptKind::Text, String::new()),
        };
        specs.push(OptSpec::new(&name, kind, &default, &help));
    }
    specs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(specs)
}

/// Runs the script's own `help()` function, if it defines one (it prints
/// what it wants), as `sysbench SCRIPT help` does; returns whether it did.
pub fn script_help(path: &Path) -> Result<bool, String> {
    let st = bare_state(path, "help")?;
    match st.global_fn("help") {
        Some(f) => f
            .call::<()>(())
            .map(|_| true)
            .map_err(|e| format!("script {}: {}", path.display(), state::message(&e))),
        None => Ok(false),
    }
}

/// The script loaded for `command` with no option given (what it declares
/// and defines, before any value is known).
fn bare_state(path: &Path, command: &str) -> Result<state::ScriptState, String> {
    let def = ScriptDef::new(
        path,
        &OptValues::default(),
        &BuiltIns::default(),
        RandParams::default(),
        1,
    )?;
    state::load(&def, command, 0, 1)
}
