//! Where a script runs. Each OS thread that runs a script has one Lua state
//! for it (a [`Host`]: the libraries, qpslab's side of the API from
//! prelude.lua, `sysbench.rand`, and the script compiled once); each
//! connection gets its own global environment in that state, in which the
//! script's chunk runs ([`ScriptState`]). So a script keeps sysbench's
//! semantics of one state per thread (its globals are per connection)
//! while the bytecode, JIT traces and libraries are shared: a thousand
//! connections cost a thousand small environments, not a thousand states.

use super::def::{list_words, OptValue, ScriptDef};
use super::guard::{Guard, StepKind, Stop};
use super::rand_api::rand_table;
use crate::protocol::Rows;
use crate::workload::rand::stream_for;
use mlua::state::{GcIncParams, GcMode};
use mlua::{Function, Lua, Table, Value};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// One script's Lua state on one thread.
pub struct Host {
    /// The state under the guard's watchdog: first, so that it leaves the
    /// watch before `lua` closes the state (fields drop in order).
    _watched: super::guard::Watched,
    pub lua: StateLua,
    /// prelude.lua's `Phases`: guarded, events, new_env, run_chunk.
    phases: Table,
    /// The script, compiled.
    chunk: Function,
    /// The rows of each connection's latest query result (rs:fetch_row),
    /// by the connection's slot.
    rows: Rc<RefCell<Vec<Rows>>>,
    next_slot: Cell<usize>,
    /// Whether the collector still has the set-up's pause.
    setting_up: Cell<bool>,
    /// Stops a step that runs too long, after Ctrl-C, or at os.exit.
    pub guard: Rc<Guard>,
    /// The events' ends are folded into the next events' first requests
    /// ([`ScriptDef::fold_events`]).
    fold: bool,
}

/// Whether the process ends when the run in progress does (a one-shot
/// `qpslab run`, sysbench mode): its scripts' states are then left to the
/// process's exit rather than closed (see [`StateLua`]).
static LEFT_TO_EXIT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Says that this process ends with the run in progress: the Lua states of
/// its connections are not closed when their shards end, the exit gives
/// their memory back at once. Closing one frees each of its objects (and
/// mlua collects it in full first): ~0.15 s of CPU per shard at 1,024
/// read_write connections, which a one-shot run would spend just before
/// exiting (issue 37 item 3). The script's `thread_done` and `done` still
/// run, and the JSON arrays its reports opened are ended as the close
/// would end them; what differs is that a finalizer of the script's own
/// (`__gc`) on an object still alive at the end is not called (its open
/// files are flushed by the exit).
pub fn leave_states_to_exit() {
    LEFT_TO_EXIT.store(true, std::sync::atomic::Ordering::Relaxed);
}

impl Drop for Host {
    fn drop(&mut self) {
        if LEFT_TO_EXIT.load(std::sync::atomic::Ordering::Relaxed) {
            // (what closing the state would write: the JSON arrays of its
            // report_json calls)
            let close = self.phases.get::<Function>("close_all_reports");
            if let Err(e) = close.and_then(|f| f.call::<()>(())) {
                log::debug!("closing the script's reports: {}", first_line(&e));
            }
        }
    }
}

/// A host's Lua state: closed when the host drops, unless the process is
/// about to exit anyway ([`leave_states_to_exit`]).
pub struct StateLua(std::mem::ManuallyDrop<Lua>);

impl std::ops::Deref for StateLua {
    type Target = Lua;
    fn deref(&self) -> &Lua {
        &self.0
    }
}

impl Drop for StateLua {
    fn drop(&mut self) {
        if !LEFT_TO_EXIT.load(std::sync::atomic::Ordering::Relaxed) {
            // SAFETY: dropped once, here; never used again.
            unsafe { std::mem::ManuallyDrop::drop(&mut self.0) }
        }
    }
}

thread_local! {
    /// The hosts of this thread, by script definition.
    static HOSTS: RefCell<Vec<(u64, Rc<Host>)>> = const { RefCell::new(Vec::new()) };
    /// This thread's main state of the script in use (see [`main_state`]).
    static MAIN: RefCell<Option<Main>> = const { RefCell::new(None) };
}

/// A script's main state: the script (by path and text), the definition
/// whose values it was last bound to, the state.
struct Main {
    path: std::path::PathBuf,
    sha256: String,
    bound: u64,
    st: ScriptState,
}

/// A connection's view of the script: its environment in the host.
#[derive(Clone)]
pub(crate) struct ScriptState {
    pub host: Rc<Host>,
    pub env: Table,
    /// The connection's place in `Host::rows`.
    pub slot: usize,
}

/// The first line of a Lua error (it names the file and line).
pub(crate) fn first_line(e: &mlua::Error) -> String {
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
        // (frames only: a message raised in the prelude is kept)
        let frame = line.starts_with(char::is_whitespace);
        if frame
            && (line.contains("qpslab prelude")
                || line.contains("in function 'xpcall'")
                || line.contains("\"sysbench.sql.lua\"]"))
        {
            continue;
        }
        out.push(line);
    }
    out.join("\n")
}

/// Whether a script in this process asked for the SQL driver
/// (`sysbench.sql.driver()`): sysbench reports SQL statistics only then.
static SQL_USED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a script in this process used the SQL driver.
pub fn sql_used() -> bool {
    SQL_USED.load(std::sync::atomic::Ordering::Relaxed)
}

/// `Q` for prelude.lua: the options' values, versions, the random
/// functions, the row reader.
fn bridge_table(lua: &Lua, def: &ScriptDef, tid: u32, seed: u64) -> mlua::Result<Table> {
    let q = lua.create_table()?;
    q.set(
        "sql_used",
        lua.create_function(|_, ()| {
            SQL_USED.store(true, std::sync::atomic::Ordering::Relaxed);
            Ok(())
        })?,
    )?;
    // The API level scripts test for (sysbench 1.0.20's); the banner and
    // `sysbench.qpslab` say that qpslab runs them.
    q.set("version", "1.0.20")?;
    q.set("version_string", "sysbench 1.0.20")?;
    q.set("script_path", def.path.display().to_string())?;
    q.set("ps_disabled", def.ps_disabled())?;
    // SAFETY: `where_called` is a C function of the Lua API's contract
    // (it reads the stack, pushes one string and raises nothing).
    q.set("where_called", unsafe {
        lua.create_c_function(where_called)?
    })?;
    // A parameter's NULL (sql.lua: a value never nil in its table).
    q.set(
        "null",
        Value::LightUserData(mlua::LightUserData(std::ptr::null_mut())),
    )?;
    q.set("sql_source", include_str!("sql.lua"))?;
    q.set("api_source", include_str!("api.lua"))?;
    q.set("opt", opt_table(lua, def)?)?;
    q.set("rand", def_rand(lua, def, tid, seed)?)?;
    Ok(q)
}

/// `Q.where_called()`: the position (`file:line: `, or nothing where there
/// is none) of the caller of the Lua function that calls it, as Lua's
/// `error(message, 2)` would name it there, pushed as one interned
/// string (a statement's prepare keeps it in case the server refuses the
/// statement once its batch is sent: no table a prepare, as
/// debug.getinfo would make).
unsafe extern "C-unwind" fn where_called(l: *mut mlua::ffi::lua_State) -> std::os::raw::c_int {
    // (level 0 is this function, 1 its caller, 2 the caller's caller)
    mlua::ffi::luaL_where(l, 2);
    1
}

/// sysbench's own options that sysbench 1.0.20 gives a script as lists
/// (`sysbench.opt.mysql_port[1]` is "3306"), whatever qpslab keeps them
/// as (text or a number, in the run's stored options too). Its
/// mysql_socket is not among qpslab's sysbench.opt.
const SYSBENCH_LISTS: [&str; 3] = ["mysql_host", "mysql_port", "mysql_ignore_errors"];

/// `sysbench.opt` of `def`: its option values, sysbench's list options as
/// lists, and the --rand-* parameters sysbench's table has.
fn opt_table(lua: &Lua, def: &ScriptDef) -> mlua::Result<Table> {
    let opt = lua.create_table()?;
    for (name, v) in &def.opt_values {
        let listed = SYSBENCH_LISTS.contains(&name.as_str());
        let v = match v {
            OptValue::Num(n) if listed => Value::Table(lua.create_sequence_from([n.to_string()])?),
            OptValue::Text(s) if listed => Value::Table(lua.create_sequence_from(list_words(s))?),
            OptValue::Num(n) => Value::Number(*n),
            OptValue::Bool(b) => Value::Boolean(*b),
            OptValue::Text(s) => Value::String(lua.create_string(s)?),
            OptValue::List(words) => Value::Table(lua.create_sequence_from(words.iter().cloned())?),
        };
        // sysbench.opt names an option with its dashes as underscores
        // (`--dash-opt` is sysbench.opt.dash_opt), as sysbench 1.0.20 does.
        opt.set(name.replace('-', "_"), v)?;
    }
    let r = &def.rand;
    for (name, v) in [
        ("rand_spec_iter", f64::from(r.spec_iter)),
        ("rand_spec_pct", r.spec_pct),
        ("rand_spec_res", r.spec_res),
        ("rand_pareto_h", r.pareto_h),
    ] {
        if opt.raw_get::<Value>(name)?.is_nil() {
            opt.set(name, v)?;
        }
    }
    Ok(opt)
}

/// The script state's collector pause, in percent of the live heap after
/// a cycle: the heap may grow to this share before the next cycle starts.
/// 120 bounds a shard's Lua heap to 1.2× what is live (issue 37 item 3).
const GC_PAUSE_PERCENT: i32 = 120;

/// The pause while the host's connections are set up (their chunks run,
/// their `thread_init`s): what they make is mostly kept, so the collector
/// waits for the heap to grow 4× rather than 1.2× between cycles (at 1,024
/// read_write connections, ~20 MB live: a few cycles rather than ~40, each
/// marking all that is live so far). The first event restores
/// GC_PAUSE_PERCENT ([`Host::set_up_over`]).
const GC_SET_UP_PAUSE_PERCENT: i32 = 400;

/// `sysbench.rand` drawing as `def` asks: the stream of connection `tid`
/// (sysbench's thread `tid` with a fixed --rand-seed); the host's other
/// connections share it.
fn def_rand(lua: &Lua, def: &ScriptDef, tid: u32, seed: u64) -> mlua::Result<Table> {
    let stream = stream_for(&def.rand, tid, seed);
    rand_table(lua, def.unique.clone(), &def.rand, stream)
}

impl Host {
    /// A fresh state for `def`: libraries, module path, prelude, the
    /// script compiled (not run: each connection runs it in its own
    /// environment).
    fn new(def: &ScriptDef, tid: u32, seed: u64) -> Result<Rc<Host>, String> {
        // SAFETY: a script is the user's own program, given every library
        // sysbench gives it (debug and ffi included), as sysbench does.
        let lua = unsafe { Lua::unsafe_new_with(mlua::StdLib::ALL, mlua::LuaOptions::new()) };
        let fail = |e: mlua::Error| message(&e);
        // The collector starts a cycle once the heap has grown to
        // GC_PAUSE_PERCENT of what was live after the last one (LuaJIT's
        // default, 200, lets a shard's heap double: at 1,024 connections
        // ~20 MB live could reach ~40 MB before a cycle); during set-up,
        // to GC_SET_UP_PAUSE_PERCENT.
        lua.gc_set_mode(GcMode::Incremental(
            GcIncParams::default().pause(GC_SET_UP_PAUSE_PERCENT),
        ));
        let guard = Rc::new(Guard::new(&def.name(), def.run_length));
        let watched = Guard::install(&lua, guard.clone()).map_err(fail)?;
        // Before the prelude copies the globals: os.exit ends the step.
        let os: Table = lua.globals().get("os").map_err(fail)?;
        os.set("exit", super::guard::exit_function(&lua).map_err(fail)?)
            .map_err(fail)?;
        let package: Table = lua.globals().get("package").map_err(fail)?;
        let (path, cpath) = module_paths(&def.dir);
        package.set("path", path).map_err(fail)?;
        package.set("cpath", cpath).map_err(fail)?;
        let chunk = lua
            .load(def.text.as_str())
            .set_name(format!("@{}", def.path.display()))
            .into_function()
            .map_err(|e| format!("script {}: {}", def.path.display(), message(&e)))?;
        // Compiled where the guard's hook stops compiled loops (a LuaJIT
        // built with LUAJIT_ENABLE_CHECKHOOK); interpreted otherwise, so
        // that the hook sees its loops.
        let jit_guarded = super::guard::compiled_loops_stop();
        if !jit_guarded {
            let jit: Table = lua.globals().get("jit").map_err(fail)?;
            let off: Function = jit.get("off").map_err(fail)?;
            off.call::<()>((chunk.clone(), true)).map_err(fail)?;
        }
        let q = bridge_table(&lua, def, tid, seed).map_err(fail)?;
        q.set("jit_guarded", jit_guarded).map_err(fail)?;
        let rows: Rc<RefCell<Vec<Rows>>> = Rc::default();
        let all = rows.clone();
        let row = lua
            .create_function(move |lua, (slot, i): (usize, usize)| {
                let all = all.borrow();
                let Some(rows) = all.get(slot) else {
                    return Ok(Value::Nil);
                };
                let t = lua.create_table_with_capacity(rows.columns(), 0)?;
                for c in 0..rows.columns() {
                    if let Some(v) = rows.get(i, c) {
                        t.raw_set(c + 1, lua.create_string(v)?)?;
                    }
                }
                Ok(Value::Table(t))
            })
            .map_err(fail)?;
        q.set("row", row).map_err(fail)?;
        let phases: Table = lua
            .load(include_str!("prelude.lua"))
            .set_name("=qpslab prelude")
            .call(q)
            .map_err(fail)?;
        Ok(Rc::new(Host {
            _watched: watched,
            lua: StateLua(std::mem::ManuallyDrop::new(lua)),
            phases,
            chunk,
            rows,
            next_slot: Cell::new(0),
            setting_up: Cell::new(true),
            guard,
            fold: def.fold_events,
        }))
    }

    /// The host's connections are set up, their events begin: the
    /// collector's pause becomes GC_PAUSE_PERCENT, its next cycle due at
    /// that share of the heap as it is now (LUA_GCRESTART with -1, where
    /// LuaJIT recomputes the threshold; mlua's gc_restart would start a
    /// cycle at once). A pause the script set itself (`collectgarbage
    /// "setpause"` in its chunk or thread_init) stays, and a collector it
    /// stopped stays stopped. Cheap after the first call.
    pub(crate) fn set_up_over(&self) {
        if !self.setting_up.replace(false) {
            return;
        }
        // (LuaJIT's lua.h; mlua's bindings for Lua 5.1 lack it)
        const LUA_GCISRUNNING: std::ffi::c_int = 9;
        // SAFETY: lua_gc on the state exec_raw hands over (the collector
        // is the whole state's); it touches no stack slot.
        let _ = unsafe {
            self.lua.exec_raw::<()>((), |l| {
                use mlua::ffi::{lua_gc, LUA_GCRESTART, LUA_GCSETPAUSE};
                let was = lua_gc(l, LUA_GCSETPAUSE, GC_PAUSE_PERCENT);
                if was != GC_SET_UP_PAUSE_PERCENT {
                    lua_gc(l, LUA_GCSETPAUSE, was);
                } else if lua_gc(l, LUA_GCISRUNNING, 0) != 0 {
                    lua_gc(l, LUA_GCRESTART, -1);
                }
            })
        };
    }

    /// This thread's host for `def`, made on first use.
    fn for_def(def: &ScriptDef, tid: u32, seed: u64) -> Result<Rc<Host>, String> {
        if let Some(h) = HOSTS.with(|h| {
            h.borrow()
                .iter()
                .find(|(id, _)| *id == def.id)
                .map(|(_, h)| h.clone())
        }) {
            return Ok(h);
        }
        let h = Host::new(def, tid, seed)?;
        HOSTS.with(|all| all.borrow_mut().push((def.id, h.clone())));
        Ok(h)
    }
}

/// A connection `tid` of the script for `command`: its environment, with
/// the script's chunk run in it. Err is the script's error (file:line and
/// message).
pub fn load(def: &ScriptDef, command: &str, tid: u32, seed: u64) -> Result<ScriptState, String> {
    let host = Host::for_def(def, tid, seed)?;
    let slot = host.next_slot.get();
    host.next_slot.set(slot + 1);
    host.rows.borrow_mut().push(Rows::new());
    let fail = |e: mlua::Error| message(&e);
    let command = (!command.is_empty()).then_some(command);
    let new_env: Function = host.phases.get("new_env").map_err(fail)?;
    let env: Table = new_env.call((tid, command, slot)).map_err(fail)?;
    let run: Function = host.phases.get("run_chunk").map_err(fail)?;
    let st = ScriptState { host, env, slot };
    let lua_error = |m| format!("script {}: {m}", def.path.display());
    st.call(
        StepKind::Load,
        run,
        (st.host.chunk.clone(), st.env.clone()),
        lua_error,
    )?;
    Ok(st)
}

/// The script's main state on this thread, made on first use (for `command`,
/// as connection 0): sysbench's global state, in which the script's chunk
/// runs once and its options are read, `init()`, `done()`, the report hooks
/// and the commands that run once are called (each connection of a run or
/// a parallel command has a state of its own). `bind`: the state takes
/// `def`'s option values and random functions (it may have been made
/// before they were known, to read the options).
pub(crate) fn main_state(
    def: &ScriptDef,
    command: &str,
    seed: u64,
    bind: bool,
) -> Result<ScriptState, String> {
    let found = MAIN.with(|m| {
        m.borrow()
            .as_ref()
            .filter(|m| m.path == def.path && m.sha256 == def.sha256)
            .map(|m| (m.st.clone(), m.bound))
    });
    match found {
        Some((st, bound)) => {
            if bind && bound != def.id {
                st.rebind(def, seed).map_err(|e| message(&e))?;
                MAIN.with(|m| {
                    if let Some(m) = m.borrow_mut().as_mut() {
                        m.bound = def.id;
                    }
                });
            }
            Ok(st)
        }
        None => {
            let st = load(def, command, 0, seed)?;
            MAIN.with(|m| {
                *m.borrow_mut() = Some(Main {
                    path: def.path.clone(),
                    sha256: def.sha256.clone(),
                    bound: def.id,
                    st: st.clone(),
                })
            });
            Ok(st)
        }
    }
}

impl ScriptState {
    /// Binds the state to `def`'s option values and random functions.
    fn rebind(&self, def: &ScriptDef, seed: u64) -> mlua::Result<()> {
        let lua = &self.host.lua;
        let rebind: Function = self.host.phases.get("rebind")?;
        rebind.call::<()>((
            self.env.clone(),
            opt_table(lua, def)?,
            // (the main state's: sysbench's main thread)
            def_rand(lua, def, 0, seed)?,
            def.ps_disabled(),
        ))
    }

    /// Calls `f` (not a coroutine) as a step of `kind`; Err is the guard's
    /// reason when it stopped it (an os.exit outside a run asks the
    /// command to end with its code), else the Lua error's message as
    /// `lua_error` words it.
    pub fn call(
        &self,
        kind: StepKind,
        f: Function,
        args: impl mlua::IntoLuaMulti,
        lua_error: impl FnOnce(String) -> String,
    ) -> Result<(), String> {
        self.host.guard.begin(kind);
        let r = self.in_env(|| f.call::<()>(args));
        if let Some(stop) = self.end_step() {
            if let Some(code) = stop.exit {
                super::guard::request_exit(code, &stop.why);
            }
            return Err(stop.why);
        }
        r.map_err(|e| lua_error(message(&e)))
    }

    /// Runs `f` (a call on the state's own thread, not a coroutine) with
    /// the connection's environment as the thread's: what sysbench's state
    /// per thread has as its globals. Lua 5.1 gives a chunk that `load`,
    /// `loadstring`, `loadfile` or `dofile` compiles the running thread's
    /// environment (and `getfenv(0)` returns it), so a script's
    /// `dofile("common.lua")` defines its functions where the script sees
    /// them. The coroutines set theirs as they begin (prelude.lua's `bind`).
    fn in_env<R>(&self, f: impl FnOnce() -> mlua::Result<R>) -> mlua::Result<R> {
        let lua = &self.host.lua;
        let before = lua.globals();
        set_thread_env(lua, &self.env)?;
        let r = f();
        set_thread_env(lua, &before)?;
        r
    }

    /// The step in progress is over: why the guard stopped it, if it did.
    pub(crate) fn end_step(&self) -> Option<Stop> {
        self.host.guard.end()
    }

    /// Makes `name` the command the script sees (`sysbench.cmdline.command`:
    /// the main state may have been made for another).
    pub(crate) fn set_command(&self, name: &str) -> mlua::Result<()> {
        self.sysbench()?
            .get::<Table>("cmdline")?
            .set("command", name)
    }

    /// Ends what the environment's reports left open (a JSON array), as
    /// the closing of a sysbench state would.
    pub(crate) fn close_reports(&self) -> mlua::Result<()> {
        let close: Function = self.host.phases.get("close_reports")?;
        close.call::<()>(self.env.clone())
    }

    /// The connection's `sysbench` table.
    pub fn sysbench(&self) -> mlua::Result<Table> {
        self.env.get("sysbench")
    }

    /// A global function of the script, if it defines one.
    pub(crate) fn global_fn(&self, name: &str) -> Option<Function> {
        self.env.get::<Function>(name).ok()
    }

    /// The function of a command: `sysbench.cmdline.commands[name][1]`,
    /// with whether it runs in every thread; else the global of that name
    /// (sysbench 1.0's `prepare`/`cleanup`), run once.
    pub fn command(&self, name: &str) -> Option<(Function, bool)> {
        let listed = self
            .sysbench()
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

    /// A coroutine running `f(tid)` guarded (errors become messages with
    /// their traceback); `f()` when `tid` is None.
    pub(crate) fn guarded_thread(
        &self,
        f: Function,
        tid: Option<u32>,
    ) -> mlua::Result<mlua::Thread> {
        let guarded: Function = self.host.phases.get("guarded")?;
        self.thread_of(guarded, (f, tid))
    }

    /// Forgets the prepares the state's running connection queued and did
    /// not send (sql.lua's batch): its step failed. Raw table writes: no
    /// Lua runs (the guard's hook may be armed).
    pub(crate) fn drop_unsent_prepares(&self) {
        if let Ok(batch) = self.host.phases.raw_get::<Table>("batch") {
            let _ = batch.raw_set("n", 0);
        }
    }

    /// A coroutine running the script's events (prelude.lua's
    /// `Phases.events`).
    pub(crate) fn events_thread(&self, tid: u32) -> mlua::Result<mlua::Thread> {
        let events: Function = self.host.phases.get("events")?;
        self.thread_of(events, (self.env.clone(), tid, self.host.fold))
    }

    /// A coroutine whose body is `f(args…)` (prelude.lua's `bind`: no
    /// chunk compiled per connection).
    fn thread_of(&self, f: Function, args: impl mlua::IntoLuaMulti) -> mlua::Result<mlua::Thread> {
        let bind: Function = self.host.phases.get("bind")?;
        let body: Function = bind.call((self.env.clone(), f, args))?;
        self.host.lua.create_thread(body)
    }

    /// Whether `co`'s last event was over when its step stopped (it ran
    /// on into the next event: prelude.lua's `FOLD.ended`); clears the mark.
    pub(crate) fn ended_ahead(&self, co: &mlua::Thread) -> bool {
        let Ok(fold) = self.host.phases.get::<Table>("fold") else {
            return false;
        };
        match fold.raw_get::<Value>("ended") {
            Ok(Value::Thread(t)) if t == *co => fold.raw_set("ended", Value::Nil).is_ok(),
            _ => false,
        }
    }

    /// Keeps `rows` as the connection's latest query result (swapped, not
    /// copied).
    pub(crate) fn keep_rows(&self, rows: &mut Rows) {
        if let Some(r) = self.host.rows.borrow_mut().get_mut(self.slot) {
            std::mem::swap(r, rows);
        }
    }
}

/// package.path and package.cpath: sysbench 1.0.20's (sb_lua.c: the
/// current directory's, LuaRocks' under $HOME, the system's Lua 5.1
/// directories, its own script directory), with the script's own directory
/// first.
fn module_paths(script_dir: &str) -> (String, String) {
    let rocks = std::env::var("HOME").ok().filter(|h| !h.is_empty());
    let mut path = Vec::new();
    if script_dir != "." {
        path.push(format!("{script_dir}/?.lua"));
    }
    path.extend(["./?.lua", "./?/init.lua", "./src/lua/?.lua"].map(String::from));
    if let Some(h) = &rocks {
        for d in ["share/lua/5.1", "share/lua"] {
            path.push(format!("{h}/.luarocks/{d}/?.lua"));
            path.push(format!("{h}/.luarocks/{d}/?/init.lua"));
        }
    }
    path.extend(
        [
            "/usr/local/share/lua/5.1/?.lua",
            "/usr/share/lua/5.1/?.lua",
            "/usr/share/sysbench/?.lua",
        ]
        .map(String::from),
    );
    // (sysbench's lists end with a ';': a script's `package.path ..
    // ";/dir/?.lua"` makes the same string)
    path.push(String::new());
    let mut cpath = vec!["./?.so".to_string()];
    if let Some(h) = &rocks {
        cpath.push(format!("{h}/.luarocks/lib/lua/5.1/?.so"));
        cpath.push(format!("{h}/.luarocks/lib/lua/?.so"));
    }
    cpath.extend(["/usr/local/lib/lua/5.1/?.so", "/usr/lib/lua/5.1/?.so", ""].map(String::from));
    (path.join(";"), cpath.join(";"))
}

/// Makes `env` the environment of `lua`'s running thread (LuaJIT's
/// `LUA_GLOBALSINDEX`: what `lua.globals()` returns from then on).
fn set_thread_env(lua: &Lua, env: &Table) -> mlua::Result<()> {
    // SAFETY: the one value pushed is the table, popped into the thread's
    // environment (lua_replace on LUA_GLOBALSINDEX takes a table)
    unsafe {
        lua.exec_raw::<()>(env, |l| {
            mlua::ffi::lua_replace(l, mlua::ffi::LUA_GLOBALSINDEX)
        })
    }
}
