//! Keeps a script from holding a run or ending the process. The Lua code
//! runs with no hook set: each state's thread publishes its step and the
//! step's deadline ([`Shared`], relaxed atomics, no clock read a resume),
//! and a watchdog thread ([`watchdog`]) looks every [`TICK`]. It arms the
//! state's hook (LuaJIT's `lua_sethook` may be called from another
//! thread) only for a step past its deadline, or, after Ctrl-C/SIGTERM,
//! one it saw running at the tick before too (so a connection's
//! `thread_done` or a report begun after the signal still gets a tick).
//! The hook then runs on the state's own thread at its next instruction
//! and stops the step in progress (the Lua code between two yields: part
//! of `thread_init`, an event, `thread_done`, a command, the script's
//! chunk), or disarms itself if it finds no reason. So a run that goes as
//! it should sets no hook from another thread, no instruction pays for
//! the guard, and the JIT compiles freely.
//! An event's deadline is the run's end plus [`GRACE`], `thread_done`'s
//! the same or the grace from its own start if later; `thread_init` runs
//! before the clock starts, so its deadline is the run's length plus the
//! grace from when it began. These count from the phase's first step,
//! never from the latest resume: a loop of queries yields at every one.
//! A run without `--time` and a command have none (Ctrl-C stops them).
//! The script's `os.exit` stops the step the same way instead of exiting.
//!
//! A stopped step stays stopped: the hook then fires on every instruction,
//! so a `pcall` in the script cannot swallow the stop; the step's failure
//! is reported with the guard's reason. LuaJIT calls no hook from
//! compiled code unless it is built with `LUAJIT_ENABLE_CHECKHOOK`
//! (.cargo/config.toml), where a compiled loop leaves its trace once the
//! hook is armed; [`compiled_loops_stop`] checks that on this build, and
//! the script's own functions run interpreted when it is not so
//! (state.rs, prelude.lua).

use mlua::{ffi, HookTriggers, Lua, Value, VmState};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How often the watchdog looks at the states: a step past its deadline
/// is stopped within about this long, one running at Ctrl-C within two.
pub(crate) const TICK: Duration = Duration::from_millis(50);

/// How long past its deadline a step may go on before it is stopped (the
/// executor's own grace for the event in flight at the end).
pub(crate) const GRACE: Duration = Duration::from_secs(2);

/// What a step is running, for its deadline and its name in the reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StepKind {
    /// Lua called outside a step (a report hook, help()).
    Idle,
    /// The script's chunk, run for a new connection.
    Load,
    Init,
    Event,
    Done,
    /// prepare, cleanup, or one of the script's own commands.
    Command,
    /// A report hook (`sysbench.hooks.report_intermediate`,
    /// `report_cumulative`): it holds the thread that reports, so it has
    /// [`REPORT_LIMIT`] to return, with or without a run length.
    Report,
}

/// How long a report hook may run: it holds the reporting thread (the
/// next interval's line, the run's end), so a hook stuck in a loop is
/// stopped after this, as an event is after the run's end.
pub(crate) const REPORT_LIMIT: Duration = GRACE;

/// Why a step was stopped: the one-line reason, and the code the script
/// passed to os.exit when that was it.
#[derive(Clone, Debug)]
pub struct Stop {
    pub why: String,
    pub exit: Option<i32>,
    /// Stopped by Ctrl-C/SIGTERM (the run is being stopped too).
    pub interrupted: bool,
}

/// One Lua state's watch over its steps (touched from its thread only).
pub(crate) struct Guard {
    /// The script's file name, for the reasons.
    script: String,
    /// The run's length (warm-up and --time); None: no time limit.
    run_length: Option<Duration>,
    /// When the first event began on this state (the run's clock, to
    /// within the coordinator's start signal).
    run_start: Cell<Option<Instant>>,
    kind: Cell<StepKind>,
    /// The phase the steps belong to (thread_init's, the events',
    /// thread_done's…) and when its first step began: a step ends at every
    /// query's yield, so the deadlines of `Init` and `Done` count from
    /// their phase's start, never from the latest resume (a loop of
    /// queries would otherwise never be overdue).
    phase: Cell<(StepKind, Instant)>,
    /// Steps begun so far, and when the latest report hook began (the one
    /// kind timed from its own step).
    steps: Cell<u64>,
    report_began: Cell<Instant>,
    /// The published deadline needs computing again (a new phase, the
    /// run's start, a report).
    deadline_stale: Cell<bool>,
    /// The command a Command step runs.
    command: RefCell<String>,
    stopped: RefCell<Option<Stop>>,
    /// The hook fires on every instruction until the step is over.
    sticky: Cell<bool>,
    /// The Lua state's main thread (hooks are per state in LuaJIT: any of
    /// its threads would do), for disarming the hook from Rust.
    state: Cell<usize>,
    /// What the watchdog reads of the steps.
    shared: Arc<Shared>,
}

/// What a state's thread publishes for the watchdog, and what the
/// watchdog poked it for (relaxed atomics: the watchdog only decides
/// whether to arm the hook; the hook's own check decides the stop).
#[derive(Default)]
struct Shared {
    /// Steps begun so far, and whether one runs now.
    step: AtomicU64,
    running: AtomicBool,
    /// The latest step's deadline ([`at`]; kept between the steps of a
    /// phase: a loop of queries is idle between them), or [`NO_DEADLINE`].
    deadline: AtomicU64,
    /// The step is stopped already (the hook fires on every instruction).
    stopped: AtomicBool,
    /// The watchdog saw one step running across a tick after Ctrl-C.
    interrupt: AtomicBool,
}

const NO_DEADLINE: u64 = u64::MAX;

/// `t` as nanoseconds since the process's first guard (at least 1).
fn at(t: Instant) -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = *EPOCH.get_or_init(Instant::now);
    (t.saturating_duration_since(epoch).as_nanos() as u64).max(1)
}

/// What a script's os.exit asked the process to end with, outside a run
/// (a command, loading the script): the code, and the error message that
/// carries it up. The code is used only for that error: a later,
/// unrelated failure (a campaign goes on after a failed point) exits as
/// any error does.
static EXIT_REQUEST: Mutex<Option<(i32, String)>> = Mutex::new(None);

/// Whether a script's os.exit(n) ends the process with n at once, as
/// under sysbench 1.0.20 (sysbench mode when nothing is stored: no run
/// is kept, so nothing measured is lost); else it stops the step and the
/// run ends as failed (or the command with its code).
static EXIT_AT_ONCE: AtomicBool = AtomicBool::new(false);
/// Held by the one thread that ends the process (two connections calling
/// os.exit at once: the second waits for the end).
static EXITING: Mutex<()> = Mutex::new(());

/// Makes a script's os.exit(n) end the process with n at once (`true`).
pub fn exit_at_once(on: bool) {
    EXIT_AT_ONCE.store(on, Ordering::Relaxed);
}

/// The exit code a script asked for with os.exit while loading or in a
/// command (prepare, cleanup, its own), if `error` (the message a command
/// failed with) is the one that carried it up.
pub fn exit_code_for(error: &str) -> Option<i32> {
    let request = EXIT_REQUEST.lock().unwrap_or_else(|e| e.into_inner());
    match &*request {
        Some((code, why)) if !why.is_empty() && error.contains(why.as_str()) => Some(*code),
        _ => None,
    }
}

/// Records that the command failing with `why` should end with `code`.
pub(crate) fn request_exit(code: i32, why: &str) {
    *EXIT_REQUEST.lock().unwrap_or_else(|e| e.into_inner()) =
        Some((code.clamp(0, 255), why.to_string()));
}

impl Guard {
    pub fn new(script: &str, run_length: Option<Duration>) -> Guard {
        Guard {
            script: script.to_string(),
            run_length,
            run_start: Cell::new(None),
            kind: Cell::new(StepKind::Idle),
            phase: Cell::new((StepKind::Idle, Instant::now())),
            steps: Cell::new(0),
            report_began: Cell::new(Instant::now()),
            deadline_stale: Cell::new(true),
            command: RefCell::new(String::new()),
            stopped: RefCell::new(None),
            sticky: Cell::new(false),
            state: Cell::new(0),
            shared: Arc::new(Shared {
                deadline: AtomicU64::new(NO_DEADLINE),
                ..Shared::default()
            }),
        }
    }

    /// Installs the hook on `lua` with `guard` as its state, disarmed, and
    /// puts the state under the watchdog until the returned [`Watched`] is
    /// dropped (which must come before the state is closed).
    pub fn install(lua: &Lua, guard: Rc<Guard>) -> mlua::Result<Watched> {
        lua.set_app_data(guard.clone());
        // mlua keeps the callback, and arms the hook with these triggers
        // again on each new coroutine (the callback disarms it then).
        lua.set_global_hook(HookTriggers::new().every_nth_instruction(1), hook)?;
        let (state, hookf) = take_hook(lua)?;
        guard.state.set(state);
        // (the epoch of the published deadlines, fixed before any)
        at(Instant::now());
        Ok(watch(state, hookf, guard.shared.clone()))
    }

    /// Disarms the hook.
    fn disarm(&self) {
        // SAFETY: called on the state's own thread, while it is open.
        unsafe { ffi::lua_sethook(self.state.get() as *mut ffi::lua_State, None, 0, 0) };
    }

    /// An event begins: the first one marks the run's start.
    pub(crate) fn event_started(&self) {
        if self.run_start.get().is_none() {
            self.run_start.set(Some(Instant::now()));
            self.deadline_stale.set(true);
        }
    }

    pub(crate) fn set_command(&self, name: &str) {
        let mut c = self.command.borrow_mut();
        c.clear();
        c.push_str(name);
    }

    /// A step of `kind` is about to run (a resume, a call).
    pub fn begin(&self, kind: StepKind) {
        self.kind.set(kind);
        if self.phase.get().0 != kind {
            // A phase changes a few times in a connection's life: the
            // clock read is not on the per-query path.
            self.phase.set((kind, Instant::now()));
            self.deadline_stale.set(true);
        }
        if kind == StepKind::Report {
            self.report_began.set(Instant::now());
            self.deadline_stale.set(true);
        }
        let step = self.steps.get().wrapping_add(1);
        self.steps.set(step);
        // A stop left from outside a step (os.exit in an Idle call, where
        // no end() follows) does not carry into this one.
        if self.stopped.borrow_mut().take().is_some() {
            if self.sticky.replace(false) {
                self.disarm();
            }
            self.shared.stopped.store(false, Ordering::Relaxed);
        }
        // (the same for every step of a phase: published when it changes)
        if self.deadline_stale.replace(false) {
            let deadline = self.deadline().map_or(NO_DEADLINE, at);
            self.shared.deadline.store(deadline, Ordering::Relaxed);
        }
        self.shared.step.store(step, Ordering::Relaxed);
        self.shared.running.store(true, Ordering::Relaxed);
    }

    /// The step is over: why it was stopped, if it was (the hook is
    /// disarmed).
    pub fn end(&self) -> Option<Stop> {
        self.kind.set(StepKind::Idle);
        self.shared.running.store(false, Ordering::Relaxed);
        let stop = self.stopped.borrow_mut().take();
        if self.sticky.replace(false) {
            self.disarm();
        }
        self.shared.stopped.store(false, Ordering::Relaxed);
        self.shared.interrupt.store(false, Ordering::Relaxed);
        stop
    }

    /// The step in words.
    fn step_name(&self) -> String {
        match self.kind.get() {
            StepKind::Idle => "a hook".into(),
            StepKind::Load => "the script's main chunk".into(),
            StepKind::Init => "thread_init()".into(),
            StepKind::Event => "event()".into(),
            StepKind::Done => "thread_done()".into(),
            StepKind::Command => format!("the `{}` command", self.command.borrow()),
            StepKind::Report => "a report hook".into(),
        }
    }

    /// Stops the running step for `why` (kept until the step ends).
    fn stop(&self, lua: &Lua, why: String, exit: Option<i32>) -> String {
        let mut s = self.stopped.borrow_mut();
        if s.is_none() {
            *s = Some(Stop {
                why: why.clone(),
                exit,
                interrupted: exit.is_none() && crate::interrupt::interrupted(),
            });
        }
        self.shared.stopped.store(true, Ordering::Relaxed);
        if !self.sticky.replace(true) {
            let _ = lua.set_global_hook(HookTriggers::new().every_nth_instruction(1), hook);
        }
        why
    }

    /// The script called os.exit(code).
    pub fn exit(&self, lua: &Lua, code: i32) -> String {
        let why = format!(
            "{}: script called os.exit({code}) in {}",
            self.script,
            self.step_name()
        );
        self.stop(lua, why, Some(code))
    }

    /// Why the running step must stop now, if it must.
    fn check(&self, lua: &Lua) -> Option<String> {
        if let Some(s) = self.stopped.borrow().as_ref() {
            return Some(s.why.clone());
        }
        // (Ctrl-C stops a step the watchdog saw running across a tick:
        // one begun after it, a connection's thread_done or a report,
        // gets that long to finish)
        let why = if self.shared.interrupt.swap(false, Ordering::Relaxed) {
            format!(
                "{}: {} interrupted (Ctrl-C or SIGTERM)",
                self.script,
                self.step_name()
            )
        } else {
            self.overdue()?
        };
        Some(self.stop(lua, why, None))
    }

    /// When the running step must be over: None for a step without a
    /// deadline (a command, the script's chunk, a run without `--time`).
    fn deadline(&self) -> Option<Instant> {
        let (_, phase_began) = self.phase.get();
        match self.kind.get() {
            StepKind::Report => Some(self.report_began.get() + REPORT_LIMIT),
            StepKind::Init => Some(phase_began + self.run_length? + GRACE),
            StepKind::Event | StepKind::Done => {
                let len = self.run_length?;
                let run_end = self.run_start.get().map_or(phase_began, |s| s + len);
                // thread_done may begin after the run's end (the last
                // event's grace): it gets the grace from its own start.
                let end = if self.kind.get() == StepKind::Done {
                    run_end.max(phase_began)
                } else {
                    run_end
                };
                Some(end + GRACE)
            }
            _ => None,
        }
    }

    /// The reason when the running step is past its deadline.
    fn overdue(&self) -> Option<String> {
        if Instant::now() < self.deadline()? {
            return None;
        }
        let grace = GRACE.as_secs();
        let what = match self.kind.get() {
            StepKind::Report => {
                return Some(format!(
                    "{}: a report hook did not return within {} s; interrupted",
                    self.script,
                    REPORT_LIMIT.as_secs()
                ))
            }
            StepKind::Init => format!(
                "did not return within {:.0} s (the run's length plus {grace} s)",
                (self.run_length? + GRACE).as_secs_f64()
            ),
            _ => format!("did not return within {grace} s after the run's end"),
        };
        Some(format!(
            "{}: {} {what}; interrupted",
            self.script,
            self.step_name()
        ))
    }
}

/// The hook, armed by the watchdog (or by mlua on a new coroutine):
/// stops the running step when its guard says so (a Lua error raised
/// where the script is); otherwise disarms itself.
fn hook(lua: &Lua, _: &mlua::debug::Debug) -> mlua::Result<VmState> {
    let Some(guard) = lua.app_data_ref::<Rc<Guard>>().map(|g| g.clone()) else {
        return Ok(VmState::Continue);
    };
    match guard.check(lua) {
        None => {
            guard.disarm();
            Ok(VmState::Continue)
        }
        Some(why) => Err(mlua::Error::runtime(why)),
    }
}

/// A watched state: its id, state (an address) and hook, what its thread
/// publishes, the step the watchdog saw running at its last tick (0:
/// none) and the last step it armed the hook for. A state leaves
/// [`WATCHED`] before it is closed, under its lock, so the watchdog never
/// arms a closed one.
struct Entry {
    id: usize,
    state: usize,
    hookf: Option<ffi::lua_Hook>,
    shared: Arc<Shared>,
    seen: u64,
    armed: u64,
}
static WATCHED: Mutex<Vec<Entry>> = Mutex::new(Vec::new());
static NEXT_ID: AtomicUsize = AtomicUsize::new(1);

/// A state under the watchdog; dropping it takes the state out.
pub struct Watched(usize);

impl Drop for Watched {
    fn drop(&mut self) {
        let mut w = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
        w.retain(|e| e.id != self.0);
    }
}

fn watch(state: usize, hookf: Option<ffi::lua_Hook>, shared: Arc<Shared>) -> Watched {
    static STARTED: OnceLock<()> = OnceLock::new();
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    WATCHED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Entry {
            id,
            state,
            hookf,
            shared,
            seen: 0,
            armed: 0,
        });
    STARTED.get_or_init(|| {
        // (if the thread cannot start, steps are not stopped: said once)
        if let Err(e) = std::thread::Builder::new()
            .name("qpslab-lua-watch".into())
            .spawn(watchdog)
        {
            log::warn!("cannot start the script watchdog ({e}): a script step that never yields will not be stopped");
        }
    });
    Watched(id)
}

/// Each tick, arms the hook (count 1) of every watched state whose
/// latest step is past its deadline (once a step: running, or idle
/// between the steps of a loop of queries, where the hook waits for the
/// next resume), or, after Ctrl-C/SIGTERM, whose step was running at the
/// tick before too; never one already stopped. So in a run that goes as
/// it should, no hook is set from this thread at all.
fn watchdog() {
    loop {
        std::thread::sleep(TICK);
        let now = at(Instant::now());
        let interrupted = crate::interrupt::interrupted();
        let mut w = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
        for e in w.iter_mut() {
            let sh = &e.shared;
            if sh.stopped.load(Ordering::Relaxed) {
                e.seen = 0;
                continue;
            }
            let step = sh.step.load(Ordering::Relaxed);
            let running = sh.running.load(Ordering::Relaxed);
            let interrupt = interrupted && running && e.seen == step;
            e.seen = if running { step } else { 0 };
            let overdue = now >= sh.deadline.load(Ordering::Relaxed) && e.armed != step;
            if interrupt {
                sh.interrupt.store(true, Ordering::Relaxed);
            }
            if interrupt || overdue {
                e.armed = step;
                arm(e.state, e.hookf);
            }
        }
    }
}

/// The state's main thread and the hook mlua just set on it, which is
/// disarmed (the watchdog arms it again when there is a reason).
fn take_hook(lua: &Lua) -> mlua::Result<(usize, Option<ffi::lua_Hook>)> {
    let mut found = (0, None);
    // SAFETY: exec_raw gives the state's running thread, on its own OS
    // thread; its hook is read and disarmed there.
    unsafe {
        lua.exec_raw::<()>((), |l| {
            found = (l as usize, ffi::lua_gethook(l));
            ffi::lua_sethook(l, None, 0, 0);
        })?;
    }
    Ok(found)
}

/// Arms the hook `hookf` on `state` from any thread.
fn arm(state: usize, hookf: Option<ffi::lua_Hook>) {
    if hookf.is_none() {
        return;
    }
    // SAFETY: `state` is open (a watched state leaves before it is
    // closed, under the lock the caller holds); lua_sethook "can be called
    // asynchronously" (LuaJIT's lj_dispatch.c), and `hookf` is the hook
    // mlua set on this state.
    unsafe {
        ffi::lua_sethook(state as *mut ffi::lua_State, hookf, ffi::LUA_MASKCOUNT, 1);
    }
}

/// `os.exit` for scripts: stops the step (and so the run, as failed, or
/// the command with that code) instead of the process.
pub(crate) fn exit_function(lua: &Lua) -> mlua::Result<mlua::Function> {
    lua.create_function(|lua, code: mlua::Value| {
        let code = match code {
            mlua::Value::Nil | mlua::Value::Boolean(true) => 0,
            mlua::Value::Boolean(false) => 1,
            // As the process's status would be: the low 8 bits.
            mlua::Value::Integer(i) => i.rem_euclid(256) as i32,
            mlua::Value::Number(n) if n.is_finite() => (n as i64).rem_euclid(256) as i32,
            // (LuaJIT's os.exit takes a numeric string as its number)
            mlua::Value::String(s) => {
                match s.to_str().ok().and_then(|t| t.trim().parse::<f64>().ok()) {
                    Some(n) if n.is_finite() => (n as i64).rem_euclid(256) as i32,
                    _ => 1,
                }
            }
            _ => 1,
        };
        if EXIT_AT_ONCE.load(Ordering::Relaxed) {
            let _only_one = EXITING.lock();
            use std::io::Write as _;
            let _ = std::io::stdout().flush();
            let _ = std::io::stderr().flush();
            // (libc's exit flushes what the script printed through C's stdio)
            std::process::exit(code);
        }
        let why = match lua.app_data_ref::<Rc<Guard>>().map(|g| g.clone()) {
            Some(g) => g.exit(lua, code),
            None => format!("script called os.exit({code})"),
        };
        Err::<(), _>(mlua::Error::runtime(why))
    })
}

/// Calls of [`probe_arm`] so far, and the probe state's hook to arm.
static PROBE_CALLS: AtomicUsize = AtomicUsize::new(0);
static PROBE_HOOK: Mutex<Option<(usize, Option<ffi::lua_Hook>)>> = Mutex::new(None);
/// The call of [`probe_arm`] that arms the hook, and the loop's length.
const PROBE_ARM_AT: usize = 1_000;
const PROBE_LOOP: usize = 100_000;

/// Called from the probe's compiled loop through the FFI: arms the hook
/// at its [`PROBE_ARM_AT`]th call.
extern "C" fn probe_arm() {
    if PROBE_CALLS.fetch_add(1, Ordering::Relaxed) + 1 == PROBE_ARM_AT {
        if let Some((state, hookf)) = *PROBE_HOOK.lock().unwrap_or_else(|e| e.into_inner()) {
            arm(state, hookf);
        }
    }
}

/// Whether a loop compiled by LuaJIT's JIT leaves its trace once the hook
/// is armed on this build (LuaJIT built with `LUAJIT_ENABLE_CHECKHOOK`):
/// then the guard stops a script's endless loop with the JIT on. Found
/// once a process, in a throw-away state: a loop of [`PROBE_LOOP`] calls
/// `probe_arm` through the FFI (a call compiled into the loop's trace),
/// which arms the hook at its [`PROBE_ARM_AT`]th call; the hook's error
/// ends the loop there if compiled code sees the hook, and only after
/// the loop if it does not. False when the loop was not compiled at all.
pub fn compiled_loops_stop() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| match probe() {
        Ok(stops) => stops,
        Err(e) => {
            log::debug!("the JIT probe failed ({e}): script code runs interpreted");
            false
        }
    })
}

fn probe() -> mlua::Result<bool> {
    // SAFETY: the probe's own code, which uses the FFI.
    let lua = unsafe { Lua::unsafe_new_with(mlua::StdLib::ALL, mlua::LuaOptions::new()) };
    lua.set_global_hook(HookTriggers::new().every_nth_instruction(1), |_, _| {
        Err(mlua::Error::runtime("probe stopped"))
    })?;
    let f = lua
        .load(
            r#"local ffi, arm, n = require("ffi"), ...
            local f = ffi.cast("void (*)(void)", arm)
            for _ = 1, n do f() end"#,
        )
        .into_function()?;
    let taken = take_hook(&lua)?;
    // (nothing fails between this and clearing it below)
    *PROBE_HOOK.lock().unwrap_or_else(|e| e.into_inner()) = Some(taken);
    PROBE_CALLS.store(0, Ordering::Relaxed);
    let arm_fn = mlua::LightUserData(probe_arm as *mut std::ffi::c_void);
    let stopped = f.call::<()>((arm_fn, PROBE_LOOP)).is_err();
    let calls = PROBE_CALLS.load(Ordering::Relaxed);
    *PROBE_HOOK.lock().unwrap_or_else(|e| e.into_inner()) = None;
    lua.remove_global_hook();
    let util: mlua::Table = lua.load("return require('jit.util')").eval()?;
    let compiled = !matches!(
        util.get::<mlua::Function>("traceinfo")?.call::<Value>(1)?,
        Value::Nil
    );
    Ok(compiled && stopped && calls < PROBE_LOOP)
}

#[cfg(test)]
mod tests {
    #[test]
    fn compiled_loops_stop_when_the_hook_is_armed_on_this_build() {
        // .cargo/config.toml builds LuaJIT with LUAJIT_ENABLE_CHECKHOOK;
        // without it scripts would lose the JIT (still guarded).
        assert!(
            super::compiled_loops_stop(),
            "LuaJIT was built without LUAJIT_ENABLE_CHECKHOOK (is CFLAGS_<target> set in the environment over .cargo/config.toml's?)"
        );
    }
}
