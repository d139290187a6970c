//! A script's connection as a [`Session`]: its Lua state runs `thread_init`,
//! the events and `thread_done` as coroutines; each database call in them
//! yields a request (prelude.lua), which becomes the next [`Step`] exec
//! executes, and the step's result resumes the coroutine. One OS thread so
//! drives as many script connections as exec gives it.

use super::guard::StepKind;
use super::stat_class::stat_class;
use super::state::{message, ScriptState};
use crate::protocol::{IntWidth, Outcome, Rows, ServerError, Stmt};
use crate::workload::family::{Consume, OnError, Op, Session, Step};
use mlua::ffi::{self, lua_State};
use mlua::{Thread, Value};
use std::io::Write as _;

/// What a resume ended with: a request yielded (its code; its values are
/// on the coroutine's own stack, read from there by `request` and popped:
/// prelude.lua's `request`), or the phase returned.
enum Resumed {
    Request(i64),
    Returned,
}

/// What the next resume hands the coroutine.
enum Pending {
    /// Nothing: the phase begins, or a request without an answer (close,
    /// reconnect).
    Nothing,
    /// A batch of this many prepares was sent and none refused: their
    /// indexes are the last ones.
    Prepared(usize),
    /// A statement's outcome: (has rows, rows or affected, columns).
    Done(bool, u64, usize),
    /// A statement failed.
    Failed(ServerError, bool),
    /// The batch of this many prepares was sent, and its statement at this
    /// index (from 0) is the first the server refused, with this error.
    Refused(ServerError, bool, usize, usize),
}

pub(crate) struct ScriptSession {
    st: ScriptState,
    tid: u32,
    /// The coroutine of the phase in progress.
    co: Option<Thread>,
    /// The events coroutine is inside an event (an abandoned one must not
    /// be resumed: the connection it was using is gone).
    in_event: bool,
    /// The code of the next event's first request, yielded with the last
    /// event's end (prelude.lua's AFTER_END; its values stay on the
    /// coroutine's stack): the next `next` takes it, not a resume.
    ahead: Option<i64>,
    /// A step that failed in the event begun ahead: the event before it
    /// is over (and counted); this is the next step (or tear-down's).
    failed_ahead: Option<String>,
    /// The bound types of each statement index's parameters (sql.lua
    /// sends them with a statement's first execution after bind_param).
    types: Vec<TypeList>,
    pending: Pending,
    /// The SQL of a query step; a failure's message.
    text: String,
    /// The SQL of a prepare step's statements, end to end, and where each
    /// ends; the statistic class of each.
    prep_text: String,
    prep_ends: Vec<usize>,
    prep_class: Vec<u8>,
    /// The statement of the prepare step just taken that the server
    /// refused first (its error is the next `error`).
    refused: Option<usize>,
    /// The error number of the connection's last statement, 0 when it
    /// succeeded (sysbench's `sql_errno`, which a refused prepare names;
    /// a prepare leaves it).
    last_errno: u16,
    /// The statistic class of each statement index.
    stat_of: Vec<u8>,
    /// The phase in progress, for the guard (guard.rs).
    kind: StepKind,
    /// The code of the script's os.exit, once it called it.
    exit: Option<i32>,
    /// A step Ctrl-C stopped, reported at the next call (see `next`).
    parked: Option<String>,
    /// The guard stopped a step (past its deadline, os.exit, Ctrl-C).
    stopped: bool,
}

/// How long a step stopped by Ctrl-C waits for the run to stop before it
/// reports its failure (the executor's nap ends as soon as the run stops).
const PARK_US: u64 = 10_000_000;

impl ScriptSession {
    pub fn new(st: ScriptState, tid: u32) -> ScriptSession {
        ScriptSession {
            st,
            tid,
            co: None,
            in_event: false,
            ahead: None,
            failed_ahead: None,
            types: Vec::new(),
            pending: Pending::Nothing,
            text: String::new(),
            prep_text: String::new(),
            prep_ends: Vec::new(),
            prep_class: Vec::new(),
            refused: None,
            last_errno: 0,
            stat_of: Vec::new(),
            kind: StepKind::Idle,
            exit: None,
            parked: None,
            stopped: false,
        }
    }

    /// The code the script passed to os.exit, if it called it.
    pub fn exit_code(&self) -> Option<i32> {
        self.exit
    }

    /// A session whose every phase fails with `msg` (the script could not
    /// be loaded for this connection).
    fn fail(&mut self, msg: String) -> Option<Step> {
        self.text = msg;
        self.co = None;
        self.ahead = None;
        Some(Step {
            op: Op::Fail,
            consume: Consume::Skip,
            stat: 0,
        })
    }

    /// Begins a guarded phase running global `name`, if the script has it.
    fn phase(&mut self, name: &str, kind: StepKind) -> bool {
        self.kind = kind;
        self.ahead = None;
        let Some(f) = self.st.global_fn(name) else {
            return false;
        };
        match self.st.guarded_thread(f, Some(self.tid)) {
            Ok(co) => self.co = Some(co),
            Err(e) => {
                self.text = message(&e);
                self.co = None;
                return false;
            }
        }
        self.pending = Pending::Nothing;
        true
    }

    /// Resumes `co` with the pending answer, as a step the guard watches;
    /// `have` is how many statements the connection has (those a prepare
    /// step just made are the last). Err is the guard's reason or the
    /// script's error.
    fn resume(&mut self, co: &Thread, have: usize) -> Result<Resumed, String> {
        self.st.host.guard.begin(self.kind);
        let r = self.resume_with(co, have);
        let stop = self.st.end_step();
        if r.is_err() || stop.is_some() {
            // (a step that failed leaves its prepares unsent: they are no
            // other connection's to send)
            self.st.drop_unsent_prepares();
        }
        if let Some(stop) = stop {
            self.exit = stop.exit;
            self.stopped = true;
            if stop.interrupted
                && matches!(self.kind, StepKind::Init | StepKind::Event | StepKind::Done)
            {
                self.parked = Some(stop.why);
                return Ok(Resumed::Returned);
            }
            return Err(stop.why);
        }
        r.map_err(|e| message(&e))
    }

    /// The resume itself, on the coroutine's own stack (no value crosses
    /// through mlua's conversions: the answer is pushed, the request read
    /// where it was yielded). An error is made as mlua's `Thread::resume`
    /// makes it (a message with the coroutine's traceback).
    fn resume_with(&mut self, co: &Thread, have: usize) -> mlua::Result<Resumed> {
        let l = co.state();
        // SAFETY: `co` is alive (held by the caller), suspended or new,
        // and not running: its stack is ours between resumes. At most
        // eight values are pushed (checked room); the last request's
        // values were popped by `request`.
        unsafe {
            if ffi::lua_checkstack(l, 9) == 0 {
                return Err(mlua::Error::StackError);
            }
            let nargs = match std::mem::replace(&mut self.pending, Pending::Nothing) {
                Pending::Nothing => 0,
                Pending::Prepared(n) => {
                    let base = self.classify_prepared(have, n);
                    ffi::lua_pushboolean(l, 1);
                    ffi::lua_pushnumber(l, base as f64);
                    2
                }
                Pending::Refused(e, ignored, k, n) => {
                    let base = self.classify_prepared(have, n);
                    ffi::lua_pushboolean(l, 0);
                    ffi::lua_pushnumber(l, f64::from(e.code));
                    push_str(l, e.state.as_bytes());
                    push_str(l, e.message.as_bytes());
                    ffi::lua_pushboolean(l, i32::from(ignored));
                    ffi::lua_pushnumber(l, (k + 1) as f64);
                    ffi::lua_pushnumber(l, base as f64);
                    ffi::lua_pushnumber(l, f64::from(self.last_errno));
                    8
                }
                Pending::Done(rows, n, nf) => {
                    ffi::lua_pushboolean(l, 1);
                    ffi::lua_pushboolean(l, i32::from(rows));
                    ffi::lua_pushnumber(l, n as f64);
                    ffi::lua_pushnumber(l, nf as f64);
                    4
                }
                Pending::Failed(e, ignored) => {
                    ffi::lua_pushboolean(l, 0);
                    ffi::lua_pushnumber(l, f64::from(e.code));
                    push_str(l, e.state.as_bytes());
                    push_str(l, e.message.as_bytes());
                    ffi::lua_pushboolean(l, i32::from(ignored));
                    5
                }
            };
            match ffi::lua_resume_(l, nargs) {
                ffi::LUA_YIELD => {
                    let code = match arg(l, 1) {
                        Arg::Int(c) => c,
                        _ => -1,
                    };
                    Ok(Resumed::Request(code))
                }
                ffi::LUA_OK => {
                    ffi::lua_settop(l, 0);
                    Ok(Resumed::Returned)
                }
                status => Err(thread_error(&self.st.host.lua, l, status)),
            }
        }
    }

    /// Keeps the statistic class of each of the last `n` of `have`
    /// statements (a prepare step's); the index of the first.
    fn classify_prepared(&mut self, have: usize, n: usize) -> usize {
        let base = have.saturating_sub(n);
        if self.stat_of.len() < have {
            self.stat_of.resize(have, 0);
        }
        for (slot, class) in self.stat_of[base..have].iter_mut().zip(&self.prep_class) {
            *slot = *class;
        }
        // (their texts are not kept: a thousand connections' set-up)
        self.prep_text = String::new();
        self.prep_ends = Vec::new();
        self.prep_class = Vec::new();
        base
    }

    /// Runs `command`'s coroutine from outside exec (prepare, cleanup,
    /// custom commands): the caller drives it like `next`. A parallel
    /// command's function gets its thread's id; any other none (sysbench
    /// 1.0.20 calls a script's prepare() or cleanup() with no argument).
    pub(crate) fn begin_command(
        &mut self,
        name: &str,
        f: mlua::Function,
        parallel: bool,
    ) -> Result<(), String> {
        self.kind = StepKind::Command;
        self.ahead = None;
        self.st.host.guard.set_command(name);
        let co = self
            .st
            .guarded_thread(f, parallel.then_some(self.tid))
            .map_err(|e| message(&e))?;
        self.co = Some(co);
        self.pending = Pending::Nothing;
        Ok(())
    }

    /// The step for the request the coroutine yielded with `code` (its
    /// values on the coroutine's stack, popped here).
    fn request(&mut self, code: i64, stmts: &mut [Stmt]) -> Option<Step> {
        let Some(l) = self.co.as_ref().map(Thread::state) else {
            return self.fail("internal: a request without its coroutine".into());
        };
        // SAFETY: the coroutine is suspended in its yield; the values read
        // (strings included) stay on its stack until the settop below.
        let step = unsafe { self.step_for(l, code, stmts) };
        // SAFETY: the same suspended coroutine; nothing of its stack is
        // borrowed past here (the step owns what it took)
        unsafe { ffi::lua_settop(l, 0) };
        step
    }

    /// The step for request `code` (prelude.lua's codes), read from `l`'s
    /// stack: 2 the statement's index or the text, 3 the types, 4-7 the
    /// values.
    unsafe fn step_for(
        &mut self,
        l: *mut lua_State,
        code: i64,
        stmts: &mut [Stmt],
    ) -> Option<Step> {
        let step = |op, consume, stat| Some(Step { op, consume, stat });
        match code {
            0 => {
                self.in_event = false;
                None
            }
            1 => {
                let i = stmt_index(arg(l, 2));
                let Some(stmt) = stmts.get_mut(i) else {
                    return self.fail(format!("internal: statement {i} is not prepared"));
                };
                if ffi::lua_type(l, 3) == ffi::LUA_TTABLE {
                    if self.types.len() <= i {
                        self.types.resize_with(i + 1, TypeList::default);
                    }
                    self.types[i] = TypeList::from_stack(l, 3);
                }
                let types = self.types.get(i).map_or(&[][..], TypeList::as_slice);
                if let Err(e) = bind_all(stmt, types, l) {
                    return self.fail(message(&e));
                }
                let stat = usize::from(self.stat_of.get(i).copied().unwrap_or(0));
                // A text statement (--db-ps-mode=disable) has its rows
                // read, as sysbench's emulated statements do.
                let consume = if stmt.is_text() {
                    Consume::Decode
                } else {
                    Consume::Outcome
                };
                step(Op::Execute(i), consume, stat)
            }
            2 => {
                self.text.clear();
                if let Arg::Str(s) = arg(l, 2) {
                    push_text(&mut self.text, s);
                }
                let class = stat_class(&self.text);
                step(Op::Query, Consume::Decode, class)
            }
            3 => {
                // (a list of the statements' texts, and how many)
                let n = match (arg(l, 2), arg(l, 3)) {
                    (Arg::Table, Arg::Int(n)) if n > 0 => n as usize,
                    _ => return self.fail("internal: a prepare request without its list".into()),
                };
                if ffi::lua_checkstack(l, 1) == 0 {
                    return self.fail("internal: no stack room for a prepare".into());
                }
                self.prep_text.clear();
                self.prep_ends.clear();
                self.prep_class.clear();
                self.refused = None;
                for i in 1..=n {
                    ffi::lua_rawgeti_(l, 2, i as i32);
                    if let Arg::Str(s) = arg(l, -1) {
                        push_text(&mut self.prep_text, s);
                    }
                    ffi::lua_settop(l, -2);
                    let start = self.prep_ends.last().copied().unwrap_or(0);
                    self.prep_class
                        .push(stat_class(&self.prep_text[start..]) as u8);
                    self.prep_ends.push(self.prep_text.len());
                }
                self.pending = Pending::Prepared(n);
                step(Op::Prepare(n), Consume::Skip, 0)
            }
            4 => {
                let i = stmt_index(arg(l, 2));
                step(Op::Close(i), Consume::Skip, 0)
            }
            5 => step(Op::Reconnect, Consume::Skip, 0),
            7 => {
                // event() returned a value (not counted as an event, as
                // sysbench's loop leaves before sb_event_stop) or
                // thread_run() returned (counted as one, unless it ended
                // its events itself with sb_event_stop): this
                // connection's events are over.
                let counted = !matches!(arg(l, 2), Arg::Bool(true));
                self.in_event = false;
                self.co = None;
                step(Op::Finish(counted), Consume::Skip, 0)
            }
            6 => {
                let secs = match arg(l, 2) {
                    Arg::Int(i) => i as f64,
                    Arg::Num(n) => n,
                    _ => 0.0,
                };
                step(Op::Sleep((secs.max(0.0) * 1e6) as u64), Consume::Skip, 0)
            }
            other => self.fail(format!(
                "internal: unknown request {other} from the prelude"
            )),
        }
    }
}

/// Appends the bytes of a Lua string to `out` (UTF-8 where they are not).
fn push_text(out: &mut String, s: &[u8]) {
    match std::str::from_utf8(s) {
        Ok(t) => out.push_str(t),
        Err(_) => out.push_str(&String::from_utf8_lossy(s)),
    }
}

/// Pushes `s` as a Lua string on `l`.
unsafe fn push_str(l: *mut lua_State, s: &[u8]) {
    ffi::lua_pushlstring_(l, s.as_ptr().cast(), s.len());
}

/// The error a resume ended with (`status`, the error value on top of
/// `l`), as mlua's `Thread::resume` makes it: a Rust error raised inside
/// as it was, a memory error as it says, any other value in words with
/// the coroutine's traceback.
unsafe fn thread_error(lua: &mlua::Lua, l: *mut lua_State, status: i32) -> mlua::Error {
    // SAFETY (both calls): runs protected on the main state; the value is
    // moved off the dead coroutine, whose frames stay for the traceback.
    let value = lua.exec_raw::<Value>((), |state| ffi::lua_xmove(l, state, 1));
    let value = match value {
        Ok(Value::Error(e)) => return *e,
        Ok(v) => v,
        Err(e) => return e,
    };
    if status == ffi::LUA_ERRMEM {
        let m = value.to_string().unwrap_or_default();
        return mlua::Error::MemoryError(m);
    }
    let words = lua.exec_raw::<(Value, String)>(value, |state| {
        let s = ffi::luaL_tolstring(state, -1, std::ptr::null_mut());
        if ffi::lua_checkstack(state, ffi::LUA_TRACEBACK_STACK) != 0 {
            ffi::luaL_traceback(state, l, s, 0);
            ffi::lua_remove(state, -2);
        }
    });
    match words {
        Ok((_, m)) => mlua::Error::RuntimeError(m),
        Err(e) => e,
    }
}

/// A value the coroutine yielded, read where it is (a string borrows the
/// stack slot: valid until the values are popped). Numbers are integers
/// where mlua's `Value` would be one.
enum Arg<'a> {
    Nil,
    /// A light userdata: sql.lua's NULL (Q.null).
    Null,
    Bool(bool),
    Int(i64),
    Num(f64),
    Str(&'a [u8]),
    Table,
    /// Anything else, by the name mlua's `Value::type_name` gives it.
    Other(&'static str),
}

/// The value at `idx` of `l`'s stack.
unsafe fn arg<'a>(l: *mut lua_State, idx: i32) -> Arg<'a> {
    match ffi::lua_type(l, idx) {
        ffi::LUA_TNIL | ffi::LUA_TNONE => Arg::Nil,
        ffi::LUA_TBOOLEAN => Arg::Bool(ffi::lua_toboolean(l, idx) != 0),
        ffi::LUA_TLIGHTUSERDATA => Arg::Null,
        ffi::LUA_TNUMBER => {
            let n = ffi::lua_tonumber(l, idx);
            let i = n as i64;
            // (mlua's test: exactly an i64, -0.0 and 2^63 not)
            if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&n)
                && (i as f64).to_bits() == n.to_bits()
            {
                Arg::Int(i)
            } else {
                Arg::Num(n)
            }
        }
        ffi::LUA_TSTRING => {
            let mut len = 0usize;
            let p = ffi::lua_tolstring(l, idx, &mut len);
            Arg::Str(std::slice::from_raw_parts(p.cast::<u8>(), len))
        }
        ffi::LUA_TTABLE => Arg::Table,
        ffi::LUA_TFUNCTION => Arg::Other("function"),
        ffi::LUA_TUSERDATA => Arg::Other("userdata"),
        ffi::LUA_TTHREAD => Arg::Other("thread"),
        _ => Arg::Other("other"),
    }
}

/// sysbench.sql.type's BIGINT and DOUBLE: what bind_create binds every
/// integer and floating type as (sql.lua), as sysbench does.
const BIGINT: i64 = 4;
const DOUBLE: i64 = 6;

/// Writes a parameter's value into the statement as its bound type asks
/// (BIGINT, DOUBLE, else text).
fn bind_one(b: &mut crate::protocol::Binder<'_>, ty: u8, v: Arg<'_>) -> mlua::Result<()> {
    let ty = i64::from(ty);
    match v {
        // (sql.lua's NULL: Q.null)
        Arg::Nil | Arg::Null => b.null(),
        Arg::Int(i) => match ty {
            DOUBLE => b.double(i as f64, false),
            BIGINT => b.int(i, IntWidth::LongLong),
            _ => {
                // (its digits, written where they are kept: no allocation)
                let mut digits = [0u8; 20];
                let mut w = &mut digits[..];
                let _ = write!(w, "{i}");
                let n = 20 - w.len();
                b.bytes(&digits[..n])
            }
        },
        Arg::Num(n) => match ty {
            BIGINT if n.fract() == 0.0 => b.int(n as i64, IntWidth::LongLong),
            BIGINT | DOUBLE => b.double(n, false),
            _ => b.bytes(n.to_string().as_bytes()),
        },
        Arg::Bool(x) => b.int(i64::from(x), IntWidth::Tiny),
        Arg::Str(s) => b.bytes(s),
        Arg::Table => return Err(not_a_value("table")),
        Arg::Other(what) => return Err(not_a_value(what)),
    }
    Ok(())
}

/// param:set()'s value that is none a statement takes.
fn not_a_value(what: &str) -> mlua::Error {
    mlua::Error::runtime(format!(
        "param:set() got a {what}, not a number, string or nil"
    ))
}

/// Added to a request's code when the event before it is over too
/// (prelude.lua's AFTER_END).
const AFTER_END: i64 = 8;

/// The statement index a request names (usize::MAX when it names none).
fn stmt_index(v: Arg<'_>) -> usize {
    match v {
        Arg::Int(i) => i as usize,
        Arg::Num(n) => n as usize,
        _ => usize::MAX,
    }
}

/// The types a statement's parameters were bound with (sql.lua's
/// bind_param: sysbench's type codes). A connection keeps one list per
/// statement for the run: up to seven types (every sysbench OLTP
/// statement's) are kept in the 16 bytes of the entry, more in a box.
#[derive(Debug, Clone, PartialEq, Eq)]
enum TypeList {
    Inline(u8, [u8; 7]),
    Boxed(Box<[u8]>),
}

impl Default for TypeList {
    fn default() -> Self {
        TypeList::Inline(0, [0; 7])
    }
}

impl TypeList {
    /// The types of `all` (sysbench's type codes).
    fn new(all: impl ExactSizeIterator<Item = u8>) -> TypeList {
        if all.len() > 7 {
            return TypeList::Boxed(all.collect());
        }
        let mut inline = [0u8; 7];
        let n = all.len();
        for (slot, ty) in inline.iter_mut().zip(all) {
            *slot = ty;
        }
        TypeList::Inline(n as u8, inline)
    }

    /// The types of the Lua list at `idx` of `l`'s stack (its items up to
    /// the first that is not a number).
    unsafe fn from_stack(l: *mut lua_State, idx: i32) -> TypeList {
        let mut n = 0;
        while {
            ffi::lua_rawgeti_(l, idx, n + 1);
            let more = ffi::lua_type(l, -1) == ffi::LUA_TNUMBER;
            ffi::lua_settop(l, -2);
            more
        } {
            n += 1;
        }
        TypeList::new((1..n + 1).map(|i| {
            ffi::lua_rawgeti_(l, idx, i);
            let ty = ffi::lua_tonumber(l, -1) as i64 as u8;
            ffi::lua_settop(l, -2);
            ty
        }))
    }

    fn as_slice(&self) -> &[u8] {
        match self {
            TypeList::Inline(n, t) => &t[..usize::from(*n)],
            TypeList::Boxed(t) => t,
        }
    }
}

/// Binds an execution's values (at 4-7 of `l`'s stack, or, past four,
/// one list of them at 4) as `types` says.
unsafe fn bind_all(stmt: &mut Stmt, types: &[u8], l: *mut lua_State) -> mlua::Result<()> {
    let mut b = stmt.binder();
    if types.len() <= 4 {
        for (i, ty) in types.iter().enumerate() {
            bind_one(&mut b, *ty, arg(l, 4 + i as i32))?;
        }
    } else if ffi::lua_type(l, 4) == ffi::LUA_TTABLE {
        if ffi::lua_checkstack(l, 1) == 0 {
            return Err(mlua::Error::StackError);
        }
        for (i, ty) in types.iter().enumerate() {
            ffi::lua_rawgeti_(l, 4, i as i32 + 1);
            // (the value stays on the stack while it is written)
            let r = bind_one(&mut b, *ty, arg(l, -1));
            ffi::lua_settop(l, -2);
            r?;
        }
    }
    Ok(())
}

impl Session for ScriptSession {
    fn stopped(&self) -> bool {
        self.stopped
    }

    fn start(&mut self) {
        if self.co.is_none() || self.in_event {
            self.st.host.set_up_over();
            self.ahead = None;
            match self.st.events_thread(self.tid) {
                Ok(co) => self.co = Some(co),
                Err(e) => {
                    self.text = message(&e);
                    self.co = None;
                }
            }
        }
        self.in_event = true;
        self.pending = Pending::Nothing;
        self.kind = StepKind::Event;
        self.st.host.guard.event_started();
    }

    fn next(&mut self, stmts: &mut [Stmt]) -> Option<Step> {
        if let Some(m) = self.parked.take() {
            return self.fail(m);
        }
        if let Some(m) = self.failed_ahead.take() {
            return self.fail(m);
        }
        if let Some(code) = self.ahead.take() {
            return self.request(code, stmts);
        }
        // (taken, not cloned: a clone of mlua's Thread takes a registry
        // slot and its drop frees it, at every query)
        let Some(co) = self.co.take() else {
            if !self.text.is_empty() && self.in_event {
                let m = std::mem::take(&mut self.text);
                return self.fail(m);
            }
            return None;
        };
        let resumed = match self.resume(&co, stmts.len()) {
            Ok(r) => r,
            Err(m) if self.kind == StepKind::Event && self.st.ended_ahead(&co) => {
                // Stopped in the event begun ahead: the one before is over.
                self.in_event = false;
                self.co = None;
                self.failed_ahead = Some(m);
                return None;
            }
            Err(m) => return self.fail(m),
        };
        self.co = Some(co);
        if self.parked.is_some() {
            // Stopped by Ctrl-C in a run: a nap the run's stop cuts short
            // first, so that the run ends as interrupted, not as failed by
            // this step; its failure is the next step.
            self.co = None;
            return Some(Step {
                op: Op::Sleep(PARK_US),
                consume: Consume::Skip,
                stat: 0,
            });
        }
        let Resumed::Request(code) = resumed else {
            // The phase returned.
            self.co = None;
            return None;
        };
        if code >= AFTER_END {
            // The event is over; the request is the next one's first.
            self.in_event = false;
            self.ahead = Some(code - AFTER_END);
            return None;
        }
        self.request(code, stmts)
    }

    fn result(&mut self, out: Outcome, rows: &mut Rows) {
        self.last_errno = 0;
        self.pending = match out {
            Outcome::Rows(n) => {
                // A query's rows, kept for rs:fetch_row until the next one.
                let nf = rows.columns();
                self.st.keep_rows(rows);
                Pending::Done(true, n, nf)
            }
            Outcome::Affected(n) => Pending::Done(false, n, 0),
        };
    }

    fn text(&self) -> &str {
        &self.text
    }

    fn prepare_text(&self, i: usize) -> &str {
        let start = match i {
            0 => Some(&0),
            _ => self.prep_ends.get(i - 1),
        };
        match (start, self.prep_ends.get(i)) {
            (Some(&a), Some(&b)) => &self.prep_text[a..b],
            _ => "",
        }
    }

    fn prepare_failed(&mut self, i: usize) {
        self.refused = Some(i);
    }

    fn error(&mut self, e: &ServerError, ignored: bool) -> OnError {
        self.pending = match (self.refused.take(), &self.pending) {
            (Some(k), Pending::Prepared(n)) => Pending::Refused(e.clone(), ignored, k, *n),
            _ => {
                self.last_errno = e.code;
                Pending::Failed(e.clone(), ignored)
            }
        };
        OnError::Resume
    }

    fn init(&mut self) -> bool {
        self.phase("thread_init", StepKind::Init)
    }

    fn done(&mut self) -> bool {
        if self.failed_ahead.is_some() {
            // (its failure is the tear-down's first step)
            return true;
        }
        self.phase("thread_done", StepKind::Done)
    }
}

/// A connection whose Lua state could not be built: its set-up fails with
/// the reason, so the run ends before it starts.
pub(crate) struct FailedSession(pub String);

impl Session for FailedSession {
    fn start(&mut self) {}

    fn next(&mut self, _stmts: &mut [Stmt]) -> Option<Step> {
        Some(Step {
            op: Op::Fail,
            consume: Consume::Skip,
            stat: 0,
        })
    }

    fn text(&self) -> &str {
        &self.0
    }

    fn init(&mut self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection keeps one entry per statement (38 under read_write
    /// with 4 tables): 16 bytes and no allocation of its own for up to
    /// seven parameters.
    #[test]
    fn a_statements_types_are_kept_inline() {
        assert_eq!(std::mem::size_of::<TypeList>(), 16);
        let lua = mlua::Lua::new();
        let four = lua.create_sequence_from([4i64, 4, 12, 12]).unwrap();
        let t = types_of(&lua, four);
        assert!(matches!(t, TypeList::Inline(4, _)));
        assert_eq!(t.as_slice(), &[4, 4, 12, 12]);
        let nine = lua.create_sequence_from(1..=9i64).unwrap();
        let t = types_of(&lua, nine);
        assert!(matches!(t, TypeList::Boxed(_)));
        assert_eq!(t.as_slice(), &[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(TypeList::default().as_slice(), &[] as &[u8]);
    }

    /// The TypeList of the Lua list `t`, read from a stack as a request's.
    fn types_of(lua: &mlua::Lua, t: mlua::Table) -> TypeList {
        let mut out = TypeList::default();
        // SAFETY: the list is the one value pushed on the main state's stack
        unsafe {
            lua.exec_raw::<()>(t, |l| out = TypeList::from_stack(l, 1))
                .unwrap();
        }
        out
    }

    /// A request's values as the session reads them off the coroutine's
    /// stack: integers where mlua's Value says integer, strings in place,
    /// NULL as a light userdata.
    #[test]
    fn a_requests_values_are_read_where_they_were_yielded() {
        let lua = mlua::Lua::new();
        let f: mlua::Function = lua
            .load("return function() coroutine.yield(1, 7, false, 42, 1.5, 'ab', -0.0) end")
            .eval()
            .unwrap();
        let co = lua.create_thread(f).unwrap();
        let l = co.state();
        // SAFETY: the coroutine is new and ours; it is resumed once and its
        // yielded values read before they are popped
        unsafe {
            assert_eq!(ffi::lua_resume_(l, 0), ffi::LUA_YIELD);
            assert!(matches!(arg(l, 1), Arg::Int(1)));
            assert_eq!(stmt_index(arg(l, 2)), 7);
            assert!(matches!(arg(l, 3), Arg::Bool(false)));
            assert!(matches!(arg(l, 4), Arg::Int(42)));
            assert!(matches!(arg(l, 5), Arg::Num(n) if n == 1.5));
            assert!(matches!(arg(l, 6), Arg::Str(b"ab")));
            assert!(matches!(arg(l, 7), Arg::Num(n) if n == 0.0));
            assert!(matches!(arg(l, 8), Arg::Nil));
            ffi::lua_settop(l, 0);
        }
    }
}
