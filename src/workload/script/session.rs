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
use mlua::thread::ThreadStatus;
use mlua::{Thread, Value};

/// A request the coroutine yielded: its code, then up to six values
/// (prelude.lua's `request`).
type Req = (Option<i64>, Value, Value, Value, Value, Value, Value);

/// What the next resume hands the coroutine.
enum Pending {
    /// Nothing: the phase begins, or a request without an answer (close,
    /// reconnect).
    Nothing,
    /// A prepare succeeded: the statement's index is the last one.
    Prepared,
    /// A statement's outcome: (has rows, rows or affected, columns).
    Done(bool, u64, usize),
    /// A statement failed.
    Failed(ServerError, bool),
}

pub(crate) struct ScriptSession {
    st: ScriptState,
    tid: u32,
    /// The coroutine of the phase in progress.
    co: Option<Thread>,
    /// The events coroutine is inside an event (an abandoned one must not
    /// be resumed: the connection it was using is gone).
    in_event: bool,
    /// The next event's first request, yielded with the last event's end
    /// (prelude.lua's AFTER_END): the next `next` takes it, not a resume.
    ahead: Option<Req>,
    /// A step that failed in the event begun ahead: the event before it
    /// is over (and counted); this is the next step (or tear-down's).
    failed_ahead: Option<String>,
    /// The bound types of each statement index's parameters (sql.lua
    /// sends them with a statement's first execution after bind_param).
    types: Vec<TypeList>,
    pending: Pending,
    /// The SQL of a query or prepare step; a failure's message.
    text: String,
    /// The statistic class of each statement index.
    stat_of: Vec<u8>,
    /// The class of the statement being prepared.
    preparing: usize,
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
            stat_of: Vec::new(),
            preparing: 0,
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
    /// `prepared` is the index a statement prepared by the last step took.
    /// Err is the guard's reason or the script's error.
    fn resume(&mut self, co: &Thread, prepared: usize) -> Result<Req, String> {
        self.st.host.guard.begin(self.kind);
        let r = self.resume_with(co, prepared);
        if let Some(stop) = self.st.end_step() {
            self.exit = stop.exit;
            self.stopped = true;
            if stop.interrupted
                && matches!(self.kind, StepKind::Init | StepKind::Event | StepKind::Done)
            {
                self.parked = Some(stop.why);
                let nil = || Value::Nil;
                return Ok((None, nil(), nil(), nil(), nil(), nil(), nil()));
            }
            return Err(stop.why);
        }
        r.map_err(|e| message(&e))
    }

    fn resume_with(&mut self, co: &Thread, prepared: usize) -> mlua::Result<Req> {
        match std::mem::replace(&mut self.pending, Pending::Nothing) {
            Pending::Nothing => co.resume(()),
            Pending::Prepared => {
                if self.stat_of.len() <= prepared {
                    self.stat_of.resize(prepared + 1, 0);
                }
                self.stat_of[prepared] = self.preparing as u8;
                co.resume((true, prepared))
            }
            Pending::Done(rows, n, nf) => co.resume((true, rows, n, nf)),
            Pending::Failed(e, ignored) => co.resume((
                false,
                i64::from(e.code),
                e.state.as_str(),
                e.message.as_str(),
                ignored,
            )),
        }
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

    /// The step for a request of the coroutine.
    fn request(&mut self, req: Req, stmts: &mut [Stmt]) -> Option<Step> {
        let (code, a, b, v1, v2, v3, v4) = req;
        let code = code.unwrap_or(-1);
        let step = |op, consume, stat| Some(Step { op, consume, stat });
        match code {
            0 => {
                self.in_event = false;
                None
            }
            1 => {
                let i = stmt_index(&a);
                let Some(stmt) = stmts.get_mut(i) else {
                    return self.fail(format!("internal: statement {i} is not prepared"));
                };
                if let Value::Table(t) = &b {
                    if self.types.len() <= i {
                        self.types.resize_with(i + 1, TypeList::default);
                    }
                    self.types[i] = TypeList::new(t);
                }
                let types = self.types.get(i).map_or(&[][..], TypeList::as_slice);
                if let Err(e) = bind_all(stmt, types, [v1, v2, v3, v4]) {
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
            2 | 3 => {
                self.text.clear();
                if let Value::String(s) = &a {
                    match std::str::from_utf8(&s.as_bytes()) {
                        Ok(t) => self.text.push_str(t),
                        Err(_) => self.text.push_str(&s.to_string_lossy()),
                    }
                }
                let class = stat_class(&self.text);
                if code == 2 {
                    step(Op::Query, Consume::Decode, class)
                } else {
                    self.preparing = class;
                    self.pending = Pending::Prepared;
                    step(Op::Prepare, Consume::Skip, class)
                }
            }
            4 => {
                let i = stmt_index(&a);
                step(Op::Close(i), Consume::Skip, 0)
            }
            5 => step(Op::Reconnect, Consume::Skip, 0),
            7 => {
                // event() returned a value (or thread_run() returned): this
                // connection's events are over.
                self.in_event = false;
                self.co = None;
                step(Op::Finish, Consume::Skip, 0)
            }
            6 => {
                let secs = match a {
                    Value::Integer(i) => i as f64,
                    Value::Number(n) => n,
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

/// sysbench.sql.type's BIGINT and DOUBLE: what bind_create binds every
/// integer and floating type as (sql.lua), as sysbench does.
const BIGINT: i64 = 4;
const DOUBLE: i64 = 6;

/// Writes a parameter's value into the statement as its bound type asks
/// (BIGINT, DOUBLE, else text).
fn bind_one(b: &mut crate::protocol::Binder<'_>, ty: u8, v: Value) -> mlua::Result<()> {
    let ty = i64::from(ty);
    match v {
        // (sql.lua's NULL: Q.null)
        Value::Nil | Value::LightUserData(_) => b.null(),
        Value::Integer(i) => match ty {
            DOUBLE => b.double(i as f64, false),
            BIGINT => b.int(i, IntWidth::LongLong),
            _ => b.bytes(i.to_string().as_bytes()),
        },
        Value::Number(n) => match ty {
            BIGINT if n.fract() == 0.0 => b.int(n as i64, IntWidth::LongLong),
            BIGINT | DOUBLE => b.double(n, false),
            _ => b.bytes(n.to_string().as_bytes()),
        },
        Value::Boolean(x) => b.int(i64::from(x), IntWidth::Tiny),
        Value::String(s) => b.bytes(&s.as_bytes()),
        other => {
            return Err(mlua::Error::runtime(format!(
                "param:set() got a {}, not a number, string or nil",
                other.type_name()
            )))
        }
    }
    Ok(())
}

/// Added to a request's code when the event before it is over too
/// (prelude.lua's AFTER_END).
const AFTER_END: i64 = 8;

/// The statement index a request names (usize::MAX when it names none).
fn stmt_index(v: &Value) -> usize {
    match v {
        Value::Integer(i) => *i as usize,
        Value::Number(n) => *n as usize,
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
    /// The types of the Lua list `t`.
    fn new(t: &mlua::Table) -> TypeList {
        let mut inline = [0u8; 7];
        let mut n = 0;
        for v in t.sequence_values::<i64>() {
            let ty = v.unwrap_or(0) as u8;
            match inline.get_mut(n) {
                Some(slot) => *slot = ty,
                None => {
                    let all: Vec<u8> = t
                        .sequence_values::<i64>()
                        .map(|v| v.unwrap_or(0) as u8)
                        .collect();
                    return TypeList::Boxed(all.into_boxed_slice());
                }
            }
            n += 1;
        }
        TypeList::Inline(n as u8, inline)
    }

    fn as_slice(&self) -> &[u8] {
        match self {
            TypeList::Inline(n, t) => &t[..usize::from(*n)],
            TypeList::Boxed(t) => t,
        }
    }
}

/// Binds an execution's values (`vals`, or, past four, one list of them
/// in `vals[0]`) as `types` says.
fn bind_all(stmt: &mut Stmt, types: &[u8], vals: [Value; 4]) -> mlua::Result<()> {
    let mut b = stmt.binder();
    if types.len() <= vals.len() {
        for (ty, v) in types.iter().zip(vals) {
            bind_one(&mut b, *ty, v)?;
        }
    } else if let [Value::Table(t), ..] = &vals {
        for (i, ty) in types.iter().enumerate() {
            bind_one(&mut b, *ty, t.raw_get(i + 1)?)?;
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
        if let Some(req) = self.ahead.take() {
            return self.request(req, stmts);
        }
        let Some(co) = self.co.clone() else {
            if !self.text.is_empty() && self.in_event {
                let m = std::mem::take(&mut self.text);
                return self.fail(m);
            }
            return None;
        };
        let req = match self.resume(&co, stmts.len().saturating_sub(1)) {
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
        if co.status() != ThreadStatus::Resumable {
            // The phase returned.
            self.co = None;
            return None;
        }
        if let Some(code) = req.0.filter(|c| *c >= AFTER_END) {
            // The event is over; the request is the next one's first.
            self.in_event = false;
            let (_, a, b, c, d, e, f) = req;
            self.ahead = Some((Some(code - AFTER_END), a, b, c, d, e, f));
            return None;
        }
        self.request(req, stmts)
    }

    fn result(&mut self, out: Outcome, rows: &mut Rows) {
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

    fn error(&mut self, e: &ServerError, ignored: bool) -> OnError {
        self.pending = Pending::Failed(e.clone(), ignored);
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
        let t = TypeList::new(&four);
        assert!(matches!(t, TypeList::Inline(4, _)));
        assert_eq!(t.as_slice(), &[4, 4, 12, 12]);
        let nine = lua.create_sequence_from(1..=9i64).unwrap();
        let t = TypeList::new(&nine);
        assert!(matches!(t, TypeList::Boxed(_)));
        assert_eq!(t.as_slice(), &[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(TypeList::default().as_slice(), &[] as &[u8]);
    }
}
