//! A script's own options: what it puts in `sysbench.cmdline.options`
//! when loaded (`name = {"description", default}`), typed by the default
//! as sysbench does (a boolean, a number, else text).

use crate::workload::options::{OptKind, OptSpec};
use mlua::{Lua, Table, Value};
use std::path::Path;

/// Lua run before the script: the `sysbench` table as a script sees it
/// while being loaded, and the module path of its directory and
/// sysbench's (for `require("oltp_common")`).
fn prelude(dir: &str, command: &str) -> String {
    let search: Vec<String> = std::iter::once(dir.to_string())
        .chain(super::find::SEARCH_PATH.iter().map(|d| d.to_string()))
        .map(|d| format!("{d}/?.lua"))
        .collect();
    format!(
        r#"
package.path = {path:?} .. ";" .. package.path
sysbench = {{
  version = "1.0.20 (qpslab {ver})",
  version_string = "sysbench 1.0.20 (qpslab {ver})",
  cmdline = {{ command = {command:?}, options = {{}}, commands = {{}}, argv = {{}} }},
  opt = {{}}, hooks = {{}}, rand = {{}}, sql = {{ type = {{}}, error = {{}} }},
  error = {{}}, tid = 0,
}}
"#,
        path = search.join(";"),
        ver = env!("CARGO_PKG_VERSION"),
    )
}

/// Loads the script at `path` for `command` and returns the options it
/// declares, in name order. Err is one line (the Lua error's first line,
/// which names the file and line).
pub fn script_options(path: &Path, command: &str) -> Result<Vec<OptSpec>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read script {}: {e}", path.display()))?;
    let dir = path
        .parent()
        .map(|d| d.display().to_string())
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| ".".into());
    let lua = Lua::new();
    let first_line = |e: mlua::Error| {
        let m = e.to_string();
        m.lines().next().unwrap_or("error").to_string()
    };
    lua.load(prelude(&dir, command))
        .exec()
        .map_err(first_line)?;
    lua.load(text.as_str())
        .set_name(format!("@{}", path.display()))
        .exec()
        .map_err(|e| format!("script {}: {}", path.display(), first_line(e)))?;
    let options: Table = lua
        .globals()
        .get::<Table>("sysbench")
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
