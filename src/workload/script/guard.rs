//! Keeps a script from holding a run or ending the process. Each script
//! Lua state carries an instruction-count hook ([`hook`], every
//! [`HOOK_EVERY`] instructions) that stops the step in progress (the Lua
//! code between two yields: part of `thread_init`, an event, `thread_done`,
//! a command, the script's chunk) once it runs past its deadline, or after
//! Ctrl-C/SIGTERM. An event's deadline is the run's end plus [`GRACE`],
//! `thread_done`'s the same or the grace from its own start if later;
//! `thread_init` runs before the clock starts, so its deadline is the
//! run's length plus the grace from when it began. These count from the
//! phase's first step, never from the latest resume: a loop of queries
//! yields at every one. A run without `--time` and a command have none
//! (Ctrl-C stops them). The script's `os.exit` stops the step the same way
//! instead of exiting.
//!
//! A stopped step stays stopped: the hook then fires on every instruction,
//! so a `pcall` in the script cannot swallow the stop; the step's failure
//! is reported with the guard's reason. LuaJIT never calls hooks from
//! compiled traces, so the script's own functions run interpreted
//! (prelude.lua and state.rs turn the JIT off for them); they yield on
//! every query, which ends a trace anyway.

use mlua::{HookTriggers, Lua, VmState};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Instructions between two checks: about a tenth of a millisecond of
/// interpreted Lua, far more than an event runs between two queries, so a
/// normal event meets the hook rarely (and the check is a clock read).
pub(crate) const HOOK_EVERY: u32 = 100_000;

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
    /// Steps begun so far, and (step, when the hook first saw it): the
    /// hook times a step without a clock read on every resume.
    steps: Cell<u64>,
    seen: Cell<(u64, Instant)>,
    /// The command a Command step runs.
    command: RefCell<String>,
    stopped: RefCell<Option<Stop>>,
    /// The hook fires on every instruction until the step is over.
    sticky: Cell<bool>,
}

/// What a script's os.exit asked the process to end with, outside a run
/// (a command, loading the script): the code, and the error message that
/// carries it up. The code is used only for that error: a later,
/// unrelated failure (a campaign goes on after a failed point) exits as
/// any error does.
static EXIT_REQUEST: Mutex<Option<(i32, String)>> = Mutex::new(None);

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
            seen: Cell::new((0, Instant::now())),
            command: RefCell::new(String::new()),
            stopped: RefCell::new(None),
            sticky: Cell::new(false),
        }
    }

    /// Installs the hook on `lua` with `guard` as its state.
    pub fn install(lua: &Lua, guard: Rc<Guard>) -> mlua::Result<()> {
        lua.set_app_data(guard);
        lua.set_global_hook(HookTriggers::new().every_nth_instruction(HOOK_EVERY), hook)
    }

    /// An event begins: the first one marks the run's start.
    pub(crate) fn event_started(&self) {
        if self.run_start.get().is_none() {
            self.run_start.set(Some(Instant::now()));
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
        }
        self.steps.set(self.steps.get().wrapping_add(1));
    }

    /// The step is over: why it was stopped, if it was (the hook goes back
    /// to its normal pace).
    pub fn end(&self, lua: &Lua) -> Option<Stop> {
        self.kind.set(StepKind::Idle);
        let stop = self.stopped.borrow_mut().take();
        if self.sticky.replace(false) {
            // Only fails on a state being closed, where no Lua runs again.
            let _ =
                lua.set_global_hook(HookTriggers::new().every_nth_instruction(HOOK_EVERY), hook);
        }
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
        let why = if crate::interrupt::interrupted() {
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

    /// The reason when the running step is past its deadline.
    fn overdue(&self) -> Option<String> {
        let now = Instant::now();
        let (step, since) = self.seen.get();
        let began = if step == self.steps.get() {
            since
        } else {
            self.seen.set((self.steps.get(), now));
            now
        };
        let grace = GRACE.as_secs();
        if self.kind.get() == StepKind::Report {
            return (now >= began + REPORT_LIMIT).then(|| {
                format!(
                    "{}: a report hook did not return within {} s; interrupted",
                    self.script,
                    REPORT_LIMIT.as_secs()
                )
            });
        }
        let len = self.run_length?;
        let (_, phase_began) = self.phase.get();
        let (deadline, what) = match self.kind.get() {
            StepKind::Init => (
                phase_began + len + GRACE,
                format!(
                    "did not return within {:.0} s (the run's length plus {grace} s)",
                    (len + GRACE).as_secs_f64()
                ),
            ),
            StepKind::Event | StepKind::Done => {
                let run_end = self.run_start.get().map_or(phase_began, |s| s + len);
                // thread_done may begin after the run's end (the last
                // event's grace): it gets the grace from its own start.
                let end = if self.kind.get() == StepKind::Done {
                    run_end.max(phase_began)
                } else {
                    run_end
                };
                (
                    end + GRACE,
                    format!("did not return within {grace} s after the run's end"),
                )
            }
            _ => return None,
        };
        (now >= deadline)
            .then(|| format!("{}: {} {what}; interrupted", self.script, self.step_name()))
    }
}

/// The instruction-count hook: stops the running step when its guard says
/// so (a Lua error raised where the script is).
fn hook(lua: &Lua, _: &mlua::debug::Debug) -> mlua::Result<VmState> {
    let Some(guard) = lua.app_data_ref::<Rc<Guard>>().map(|g| g.clone()) else {
        return Ok(VmState::Continue);
    };
    match guard.check(lua) {
        None => Ok(VmState::Continue),
        Some(why) => Err(mlua::Error::runtime(why)),
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
            _ => 1,
        };
        let why = match lua.app_data_ref::<Rc<Guard>>().map(|g| g.clone()) {
            Some(g) => g.exit(lua, code),
            None => format!("script called os.exit({code})"),
        };
        Err::<(), _>(mlua::Error::runtime(why))
    })
}
