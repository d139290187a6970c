//! One Lua state running a script: the `sysbench` table with the options'
//! values, qpslab's side of the API (prelude.lua), the random functions and
//! row reader in Rust, then the script itself. Each connection has its own
//! state, as each sysbench thread has, so a script's globals stay per
//! connection.

use super::family::{OptValue, ScriptDef};
use super::rand_api::rand_table;
use crate::protocol::Rows;
use crate::workload::Rng;
use mlua::{Function, Lua, Table, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// What the Rust functions of one state share with its session.
#[derive(Default)]
pub struct Bridge {
    /// The latest result read by `con:query`.
    pub rows: RefCell<Rows>,
}

/// A loaded script, ready for its phases.
pub struct ScriptState {
    pub lua: Lua,
    /// prelude.lua's `Phases`: guarded(fn, ...), events(tid).
    pub phases: Table,
    pub bridge: Rc<Bridge>,
}

/// The first line of a Lua error (it names the file and line).
pub fn first_line(e: &mlua::Error) -> String {
    let m = e.to_string();
    m.lines().next().unwrap_or("error").to_string()
}

/// The whole message of a Lua error, traceback included, without mlua's
/// own stack of Rust frames.
pub fn message(e: &mlua::Error) -> String {
    let m = match e {
        mlua::Error::CallbackError { cause, .. } => return message(cause),
        mlua::Error::RuntimeError(m) => m.clone(),
        other => other.to_string(),
    };
    // One traceback (the script's), without qpslab's own frames.
    let mut out = Vec::new();
    let mut tracebacks = 0;
    for line in m.lines() {
        if line.trim_start().starts_with("stack traceback:") {
            tracebacks += 1;
            if tracebacks > 1 {
                break;
            }
        }
        if line.contains("qpslab prelude") || line.contains("in function 'xpcall'") {
            continue;
        }
        out.push(line);
    }
    out.join("\n")
}

/// Creates the `sysbench` table a script expects while loading, with
/// `sysbench.opt` holding the run's options, and the module path of the
/// script's directory and sysbench's (for `require("oltp_common")`).
fn base_tables(lua: &Lua, def: &ScriptDef, command: &str, tid: u32) -> mlua::Result<()> {
    let search: Vec<String> = std::iter::once(def.dir.clone())
        .chain(super::find::SEARCH_PATH.iter().map(|d| d.to_string()))
        .map(|d| format!("{d}/?.lua"))
        .collect();
    let g = lua.globals();
    let package: Table = g.get("package")?;
    let path: String = package.get("path")?;
    package.set("path", format!("{};{path}", search.join(";")))?;
    let sb = lua.create_table()?;
    let ver = env!("CARGO_PKG_VERSION");
    sb.set("version", format!("1.0.20 (qpslab {ver})"))?;
    sb.set("version_string", format!("sysbench 1.0.20 (qpslab {ver})"))?;
    let cmdline = lua.create_table()?;
    if !command.is_empty() {
        cmdline.set("command", command)?;
    }
    cmdline.set("script_path", def.path.display().to_string())?;
    cmdline.set("options", lua.create_table()?)?;
    cmdline.set("commands", lua.create_table()?)?;
    let argv = lua.create_table()?;
    argv.set(0, "qpslab")?;
    cmdline.set("argv", argv)?;
    sb.set("cmdline", cmdline)?;
    let opt = lua.create_table()?;
    for (name, v) in &def.opt_values {
        let v = match v {
            OptValue::Num(n) => Value::Number(*n),
            OptValue::Bool(b) => Value::Boolean(*b),
            OptValue::Text(s) => Value::String(lua.create_string(s)?),
        };
        opt.set(name.as_str(), v)?;
    }
    sb.set("opt", opt)?;
    sb.set("hooks", lua.create_table()?)?;
    let sql = lua.create_table()?;
    sb.set("sql", sql)?;
    sb.set("tid", tid)?;
    g.set("sysbench", sb)?;
    // sysbench 0.5's global, still read by bulk_insert.lua.
    g.set("thread_id", tid)?;
    Ok(())
}

/// Loads the script for `command` in a fresh state as connection `tid`.
/// Err is the script's error (file:line and message).
pub fn load(def: &ScriptDef, command: &str, tid: u32, seed: u64) -> Result<ScriptState, String> {
    // SAFETY: a script is the user's own program, given every library
    // sysbench gives it (debug and ffi included), as sysbench does.
    let lua = unsafe { Lua::unsafe_new_with(mlua::StdLib::ALL, mlua::LuaOptions::new()) };
    let fail = |e: mlua::Error| message(&e);
    base_tables(&lua, def, command, tid).map_err(fail)?;
    let bridge = Rc::new(Bridge::default());
    let rng = Rc::new(RefCell::new(Rng::new(&def.rand, seed)));
    let q = lua.create_table().map_err(fail)?;
    q.set(
        "rand",
        rand_table(&lua, rng, def.unique.clone()).map_err(fail)?,
    )
    .map_err(fail)?;
    let rows = bridge.clone();
    let row = lua
        .create_function(move |lua, i: usize| {
            let rows = rows.rows.borrow();
            let t = lua.create_table_with_capacity(rows.columns(), 0)?;
            for c in 0..rows.columns() {
                if let Some(v) = rows.get(i, c) {
                    t.raw_set(c + 1, lua.create_string(v)?)?;
                }
            }
            Ok(t)
        })
        .map_err(fail)?;
    q.set("row", row).map_err(fail)?;
    let phases: Table = lua
        .load(include_str!("prelude.lua"))
        .set_name("=qpslab prelude")
        .call(q)
        .map_err(fail)?;
    lua.load(def.text.as_str())
        .set_name(format!("@{}", def.path.display()))
        .exec()
        .map_err(|e| format!("script {}: {}", def.path.display(), message(&e)))?;
    Ok(ScriptState {
        lua,
        phases,
        bridge,
    })
}

impl ScriptState {
    /// A global function of the script, if it defines one.
    pub fn global_fn(&self, name: &str) -> Option<Function> {
        self.lua.globals().get::<Function>(name).ok()
    }

    /// The function of a command: `sysbench.cmdline.commands[name][1]`,
    /// with whether it runs in every thread; else the global of that name
    /// (sysbench 1.0's `prepare`/`cleanup`), run once.
    pub fn command(&self, name: &str) -> Option<(Function, bool)> {
        let listed = self
            .lua
            .globals()
            .get::<Table>("sysbench")
            .and_then(|s| s.get::<Table>("cmdline"))
            .and_then(|c| c.get::<Table>("commands"))
            .and_then(|c| c.get::<Table>(name));
        if let Ok(entry) = listed {
            if let Ok(f) = entry.get::<Function>(1) {
                let parallel = entry.get::<bool>(2).unwrap_or(false);
                return Some((f, parallel));
            }
        }
        self.global_fn(name).map(|f| (f, false))
    }

    /// A coroutine running `f(args…)` guarded (errors become messages with
    /// their traceback).
    pub fn guarded_thread(&self, f: Function, tid: u32) -> mlua::Result<mlua::Thread> {
        let guarded: Function = self.phases.get("guarded")?;
        let wrapper: Function = self
            .lua
            .load("local g, f, tid = ... return function() return g(f, tid) end")
            .call((guarded, f, tid))?;
        self.lua.create_thread(wrapper)
    }

    /// A coroutine running the script's events, one per resume cycle.
    pub fn events_thread(&self, tid: u32) -> mlua::Result<mlua::Thread> {
        let events: Function = self.phases.get("events")?;
        let wrapper: Function = self
            .lua
            .load("local e, tid = ... return function() return e(tid) end")
            .call((events, tid))?;
        self.lua.create_thread(wrapper)
    }
}
