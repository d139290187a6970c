//! One load connection: connect, prepare the family's statements, then run
//! events until told to stop. The connection's `Session` says what each
//! event executes; this loop times, counts, retries and reconnects. The
//! per-event path allocates nothing: statements and buffers are reused.

use super::config::{IoMode, PsMode, RunConfig};
use super::state::{ShardState, Shared, STOP_GRACE};
use crate::protocol::{Conn, Outcome, ProtoError, Rows, Stmt, CR_SERVER_LOST, TEXT_FALLBACK_CODES};
use crate::workload::family::Op;
use crate::workload::{Consume, OnError, Session, StatementSpec};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The prepared statements of one connection, in the family's order.
struct Statements {
    v: Vec<Stmt>,
}

/// Prepares every statement the workload needs on `conn`: the family's
/// (`specs`) on a first connect, else those of the connection it replaces
/// (the session's own included).
async fn prepare_all(
    conn: &mut Conn,
    specs: &[StatementSpec],
    previous: Option<&[Stmt]>,
    cfg: &RunConfig,
    state: &Rc<RefCell<ShardState>>,
) -> Result<Statements, ProtoError> {
    let fresh: Vec<Stmt>;
    let wanted = match previous {
        Some(p) => p,
        None => {
            fresh = specs
                .iter()
                .map(|s| {
                    if s.dynamic {
                        Stmt::new_dynamic_text(&s.sql)
                    } else {
                        Stmt::new_text(&s.sql, &s.params)
                    }
                })
                .collect();
            &fresh
        }
    };
    let mut v = Vec::with_capacity(wanted.len());
    for old in wanted {
        v.push(prepare_one(conn, old, cfg, state).await?);
    }
    Ok(Statements { v })
}

/// Prepares `like` on `conn` (its SQL and parameters), over the text
/// protocol when prepared statements are off or the server refuses.
async fn prepare_one(
    conn: &mut Conn,
    like: &Stmt,
    cfg: &RunConfig,
    state: &Rc<RefCell<ShardState>>,
) -> Result<Stmt, ProtoError> {
    if cfg.ps_mode == PsMode::Disable || like.sql.is_empty() {
        return Ok(like.as_text());
    }
    match conn.prepare_like(like).await {
        Ok(s) => Ok(s),
        // max_prepared_stmt_count reached, or a statement this server
        // cannot prepare (BEGIN/COMMIT on MySQL 5.5): this one as text.
        Err(ProtoError::Server(e)) if TEXT_FALLBACK_CODES.contains(&e.code) => {
            state.borrow_mut().text_fallbacks += 1;
            Ok(like.as_text())
        }
        Err(e) => Err(e),
    }
}

fn describe(e: &ProtoError, cfg: &RunConfig) -> String {
    let advice = e.code().and_then(|c| cfg.workload.advice(c));
    match e {
        ProtoError::Server(se) if advice.is_some() => {
            format!("{se}; {}", advice.unwrap_or_default())
        }
        ProtoError::Server(se) if se.code == 1461 => format!("{se}; raise max_prepared_stmt_count or use --db-ps-mode disable"),
        ProtoError::Server(se) if se.code == 1040 => format!("{se}; raise max_connections on the server or use fewer --threads"),
        ProtoError::Timeout { .. } => format!("{e}; the server is overloaded or stalled (raise --connect-timeout/--read-timeout if it is just slow)"),
        other => other.to_string(),
    }
}

enum Failure {
    /// The connection is gone (or was cut by the watchdog); the code
    /// counted for it (the server's, or 2013 for a client-side loss).
    Lost(u16),
    Ignored(u16),
    Fatal(String),
}

/// How often a connection on direct I/O yields to its shard's other tasks
/// (the ticker, which sends each interval, and the watchdog).
const DIRECT_YIELD: Duration = Duration::from_millis(10);

/// Whether a connection is alone on its shard in the closed model (where
/// direct I/O serves it best, with `--io-backend auto` or `uring`).
fn alone_in_closed_model(cfg: &RunConfig, state: &Rc<RefCell<ShardState>>) -> bool {
    cfg.rate <= 0.0 && state.borrow().watch.len() == 1
}

/// Puts `conn` on direct I/O when it is alone on its shard in the closed
/// model and `--io-backend auto` or `uring`: it waits for its server in
/// poll() (auto) or in its own io_uring ring (uring: one system call a
/// round trip), not in the shard's reactor (see protocol/direct.rs).
/// Returns whether it did. The read timeout still holds, and a stopping
/// run gives up a wait after its grace.
fn go_direct(
    conn: &mut Conn,
    cfg: &RunConfig,
    shared: &Arc<Shared>,
    state: &Rc<RefCell<ShardState>>,
) -> bool {
    if cfg.io == IoMode::Epoll || !alone_in_closed_model(cfg, state) {
        return false;
    }
    let s = shared.clone();
    let direct = crate::protocol::Direct {
        ring: cfg.io == IoMode::Uring,
        limit: cfg.conn.read_timeout,
        give_up: Box::new(move |waited| s.stopping() && waited >= STOP_GRACE),
    };
    conn.set_direct(Some(direct)).is_ok()
}

/// Opens a load connection within the shared connect gate (and at the
/// paced rate, if any) and prepares its statements (see `prepare_all`).
async fn open(
    link: &Link<'_>,
    opts: &crate::protocol::ConnOpts,
    previous: Option<&[Stmt]>,
) -> Result<(Conn, Statements), ProtoError> {
    if let Some(at) = link.shared.connect_slot(link.cfg.connect_rate) {
        tokio::time::sleep_until(at.into()).await;
    }
    let mut conn = {
        let _permit = link.shared.connect_gate.acquire().await;
        Conn::connect(opts).await?
    };
    let stmts = prepare_all(&mut conn, link.specs, previous, link.cfg, link.state).await?;
    // Column definitions are known from the prepares: the server need not
    // send them again with each result (MySQL 8). A server that refuses
    // keeps sending them.
    match conn.skip_result_metadata().await {
        Ok(()) | Err(ProtoError::Server(_)) => {}
        Err(e) => return Err(e),
    }
    if link.cfg.io == IoMode::Uring && !alone_in_closed_model(link.cfg, link.state) {
        // TLS stays on the reactor.
        let _ = conn.set_uring(true);
    }
    Ok((conn, stmts))
}

/// What one connection's loop needs besides its connection.
struct Link<'a> {
    cfg: &'a RunConfig,
    shared: &'a Shared,
    state: &'a Rc<RefCell<ShardState>>,
    slot: usize,
    specs: &'a [StatementSpec],
}

/// Runs one connection; returns Err with a message for a fatal error.
pub async fn worker(
    id: u32,
    slot: usize,
    cfg: &RunConfig,
    shared: &Arc<Shared>,
    state: &Rc<RefCell<ShardState>>,
) -> Result<(), String> {
    let specs = cfg.workload.statements();
    let link = Link {
        cfg,
        shared,
        state,
        slot,
        specs: &specs,
    };
    let (mut conn, mut stmts) = match open(&link, &cfg.conn, None).await {
        Ok(x) => x,
        Err(e) => {
            shared.ready.fetch_add(1, Ordering::SeqCst);
            return Err(format!("connection {id}: {}", describe(&e, cfg)));
        }
    };
    {
        let mut st = state.borrow_mut();
        if id == 0 {
            st.server_version = conn.server_version().to_string();
        }
        st.watch[slot].breaker = Some(conn.breaker());
    }
    let mut session = cfg.workload.session(
        id,
        cfg.threads.max(1),
        cfg.seed
            .wrapping_add(u64::from(id).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
    );
    let mut rows = Rows::new();
    // The connection's set-up (a script's thread_init), not counted.
    let setup = Event {
        link: &link,
        counted: false,
    };
    if session.init() {
        if let Err(f) = setup
            .run_alone(&mut conn, &mut stmts, session.as_mut(), &mut rows)
            .await
        {
            shared.ready.fetch_add(1, Ordering::SeqCst);
            return Err(format!("connection {id} setting up: {}", f.message()));
        }
    }
    shared.ready.fetch_add(1, Ordering::SeqCst);
    while !shared.go.load(Ordering::SeqCst) {
        if shared.stopping() {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }

    let ev = Event {
        link: &link,
        counted: true,
    };
    let direct = go_direct(&mut conn, cfg, shared, state);
    if direct {
        shared.direct.fetch_add(1, Ordering::Relaxed);
        if conn.is_direct_ring() {
            shared.direct_ring.fetch_add(1, Ordering::Relaxed);
        }
    }
    if conn.is_uring() {
        shared.uring.fetch_add(1, Ordering::Relaxed);
    }
    if conn.result_metadata_off() {
        shared.metadata_off.fetch_add(1, Ordering::Relaxed);
    }
    let mut next_yield = Instant::now() + DIRECT_YIELD;
    let mut done_since_reconnect = 0u64;
    // Rate mode's precise wake-up (tokio's timer rounds up to whole
    // milliseconds); without a timerfd, tokio's sleep.
    let mut alarm = if cfg.rate > 0.0 {
        super::alarm::Alarm::new().ok()
    } else {
        None
    };

    while !shared.stopping() {
        // (an atomic shared by every shard: only touched under --events)
        if shared.limited && shared.events_left.fetch_sub(1, Ordering::Relaxed) <= 0 {
            shared.stop.store(true, Ordering::SeqCst);
            break;
        }
        // A terminal's keying and think times, outside the latency.
        let pause = session.pause_us();
        if pause > 0 {
            nap(shared, pause).await;
            if shared.stopping() {
                break;
            }
        }
        // Rate mode: an arrival still ahead is waited for precisely, and
        // the event's latency counts from the wake-up (how late it came is
        // the generator's, recorded as lag); one already due (every
        // connection was busy: the server is behind) counts from its
        // arrival time, so no queueing is omitted.
        let mut intended = state.borrow_mut().arrivals.as_mut().map(|a| a.take());
        let mut woke_at = None;
        if let Some(t) = intended {
            if t > Instant::now() {
                let woke = match alarm.as_mut() {
                    Some(a) => a.until(t).await.is_ok(),
                    None => false,
                };
                if !woke {
                    tokio::time::sleep_until(t.into()).await;
                }
                if shared.stopping() {
                    break;
                }
                let now = Instant::now();
                woke_at = Some(now);
                let lag = now.saturating_duration_since(t).as_micros() as u64;
                state
                    .borrow_mut()
                    .cur
                    .lag
                    .get_or_insert_with(Default::default)
                    .record(lag);
                intended = None;
            }
        }
        let start = woke_at.unwrap_or_else(Instant::now);
        session.start();
        let mut clock = Clock {
            first: Some(start),
            last_end: None,
        };
        let done = loop {
            match ev
                .run(
                    &mut conn,
                    &mut stmts,
                    session.as_mut(),
                    &mut rows,
                    &mut clock,
                )
                .await
            {
                Ok(()) => break true,
                Err(Failure::Fatal(m)) => return Err(m),
                Err(Failure::Ignored(code)) => {
                    state.borrow_mut().cur.errors.add(code, 1);
                    if conn.exec("ROLLBACK").await.is_err()
                        && !reconnect(&link, &mut conn, &mut stmts).await?
                    {
                        break false;
                    }
                    // Like sysbench, the event starts over with fresh random
                    // draws; its latency still counts from the first attempt
                    // (its statements' from their own start).
                    session.start();
                    clock.first = None;
                }
                Err(Failure::Lost(code)) => {
                    // The server rolled the transaction back with the
                    // connection: the event failed. It is counted as such,
                    // never as a transaction or a latency sample.
                    {
                        let mut st = state.borrow_mut();
                        st.cur.errors.add(code, 1);
                        st.cur.lost += 1;
                        st.cur.failed += 1;
                    }
                    reconnect(&link, &mut conn, &mut stmts).await?;
                    break false;
                }
            }
            if shared.stopping() {
                break false;
            }
        };
        if !done {
            continue;
        }
        let end = clock.last_end.unwrap_or_else(Instant::now);
        let from = intended.unwrap_or(start);
        let us = end.saturating_duration_since(from).as_micros() as u64;
        {
            let mut st = state.borrow_mut();
            if let Some(c) = session.class() {
                let i = st.class_base + c;
                if let Some(acc) = st.kinds.get_mut(i) {
                    acc.count += 1;
                    acc.hist.record(us);
                }
                if let Some(n) = st.cur.classes.get_mut(c) {
                    *n += 1;
                }
            }
            st.cur.events += 1;
            st.cur.hist.record(us);
            st.thread_events[slot] += 1;
            st.thread_time[slot] += (end - start).as_secs_f64();
        }
        done_since_reconnect += 1;
        if cfg.reconnect_every > 0 && done_since_reconnect >= cfg.reconnect_every {
            done_since_reconnect = 0;
            reconnect(&link, &mut conn, &mut stmts).await?;
        }
        // Direct I/O never waits in the reactor: hand the thread to the
        // shard's ticker and watchdog now and then.
        if direct && end >= next_yield {
            next_yield = end + DIRECT_YIELD;
            tokio::task::yield_now().await;
            if !conn.is_direct() {
                // reconnected since
                go_direct(&mut conn, cfg, shared, state);
            }
        }
    }
    // The connection's tear-down (thread_done): its errors no longer
    // matter to the run, which is over.
    if session.done() {
        let _ = setup
            .run_alone(&mut conn, &mut stmts, session.as_mut(), &mut rows)
            .await;
    }
    conn.quit().await;
    Ok(())
}

impl Failure {
    fn message(self) -> String {
        match self {
            Failure::Fatal(m) => m,
            Failure::Lost(c) | Failure::Ignored(c) => format!("server error {c}"),
        }
    }
}

/// An event's clock readings, so that a one-statement event reads the
/// clock twice (its start, its statement's end) instead of four times: the
/// event's first statement starts when the event did (`first`), and the
/// event ends when its last statement did (`last_end`). Later statements
/// read their own start, so that what a script does between statements is
/// not counted in the next one's latency.
#[derive(Default)]
struct Clock {
    first: Option<Instant>,
    last_end: Option<Instant>,
}

/// One event's (or set-up's) execution on a connection.
struct Event<'a> {
    link: &'a Link<'a>,
    /// Whether its statements count among the run's queries.
    counted: bool,
}

impl Event<'_> {
    /// Executes the session's steps until it says the event is complete,
    /// counting each statement as it completes.
    async fn run(
        &self,
        conn: &mut Conn,
        stmts: &mut Statements,
        session: &mut dyn Session,
        rows: &mut Rows,
        clock: &mut Clock,
    ) -> Result<(), Failure> {
        let (cfg, state, slot) = (self.link.cfg, self.link.state, self.link.slot);
        while let Some(step) = session.next(&mut stmts.v) {
            let t = clock.first.take().unwrap_or_else(Instant::now);
            let decode = step.consume == Consume::Decode;
            let res = match step.op {
                Op::Execute(i) => {
                    let Some(stmt) = stmts.v.get_mut(i) else {
                        return Err(Failure::Fatal(format!(
                            "internal: the workload asked for statement {i} of {}",
                            stmts.v.len()
                        )));
                    };
                    {
                        let w = &mut state.borrow_mut().watch[slot];
                        w.since = Some(t);
                        w.in_event = self.counted;
                    }
                    if decode {
                        conn.execute_into(stmt, rows).await
                    } else {
                        conn.execute(stmt).await
                    }
                }
                Op::Query => {
                    {
                        let w = &mut state.borrow_mut().watch[slot];
                        w.since = Some(t);
                        w.in_event = self.counted;
                    }
                    if decode {
                        conn.query_into(session.text(), rows).await
                    } else {
                        conn.exec_unbounded(session.text()).await
                    }
                }
                Op::Fail => return Err(Failure::Fatal(session.text().to_string())),
                // The cold path, boxed so that the per-connection future
                // the hot path polls stays small.
                Op::Prepare | Op::Close(_) | Op::Reconnect | Op::Sleep(_) => {
                    Box::pin(self.manage(step.op, conn, stmts, session)).await?;
                    // (a sleep or reconnect at the event's end is in it)
                    clock.last_end = None;
                    continue;
                }
            };
            let end = Instant::now();
            clock.last_end = Some(end);
            let us = end.saturating_duration_since(t).as_micros() as u64;
            let mut st = state.borrow_mut();
            let watch = &mut st.watch[slot];
            watch.since = None;
            if std::mem::take(&mut watch.cut) {
                // The watchdog cut it: the server did not answer in time.
                return Err(Failure::Lost(CR_SERVER_LOST));
            }
            let out = match res {
                Ok(o) => o,
                Err(e) if e.is_connection_lost() => {
                    return Err(Failure::Lost(e.code().unwrap_or(CR_SERVER_LOST)))
                }
                Err(ProtoError::Server(se)) => {
                    drop(st);
                    let sql = step_sql(step.op, stmts, session);
                    self.server_error(&se, session, &sql)?;
                    continue;
                }
                Err(e) => {
                    return Err(Failure::Fatal(format!(
                        "error in `{}`: {}",
                        step_sql(step.op, stmts, session),
                        describe(&e, cfg)
                    )))
                }
            };
            if self.counted {
                if step.consume != Consume::Skip {
                    match out {
                        Outcome::Rows(_) => st.cur.reads += 1,
                        Outcome::Affected(n) if n > 0 => st.cur.writes += 1,
                        Outcome::Affected(_) => st.cur.others += 1,
                    }
                }
                if let Some(acc) = st.kinds.get_mut(step.stat) {
                    acc.count += 1;
                    acc.hist.record(us);
                }
            }
            drop(st);
            if matches!(step.consume, Consume::Outcome | Consume::Decode) {
                session.result(out, rows);
            }
        }
        Ok(())
    }

    /// Runs the session's steps outside any event (set-up, tear-down).
    async fn run_alone(
        &self,
        conn: &mut Conn,
        stmts: &mut Statements,
        session: &mut dyn Session,
        rows: &mut Rows,
    ) -> Result<(), Failure> {
        self.run(conn, stmts, session, rows, &mut Clock::default())
            .await
    }

    /// A server error for a step: the session decides whether the event
    /// restarts, the run ends, or it goes on (a script's `sql_error`).
    fn server_error(
        &self,
        se: &crate::protocol::ServerError,
        session: &mut dyn Session,
        sql: &str,
    ) -> Result<(), Failure> {
        let cfg = self.link.cfg;
        let ignored = cfg.ignore.ignores(se.code);
        match session.error(se, ignored) {
            OnError::Restart if ignored => Err(Failure::Ignored(se.code)),
            OnError::Resume => {
                if ignored && self.counted {
                    self.link.state.borrow_mut().cur.errors.add(se.code, 1);
                }
                Ok(())
            }
            _ => {
                let e = ProtoError::Server(se.clone());
                Err(Failure::Fatal(format!(
                    "error in `{sql}`: {}",
                    describe(&e, cfg)
                )))
            }
        }
    }

    /// The steps that manage the connection rather than run a query:
    /// prepare, close, reconnect, sleep.
    async fn manage(
        &self,
        op: Op,
        conn: &mut Conn,
        stmts: &mut Statements,
        session: &mut dyn Session,
    ) -> Result<(), Failure> {
        let (cfg, state) = (self.link.cfg, self.link.state);
        let lost = |e: &ProtoError| Failure::Lost(e.code().unwrap_or(CR_SERVER_LOST));
        match op {
            Op::Prepare => {
                let like = crate::protocol::Stmt::new_dynamic_text(session.text());
                match prepare_one(conn, &like, cfg, state).await {
                    Ok(s) => stmts.v.push(s),
                    Err(e) if e.is_connection_lost() => return Err(lost(&e)),
                    Err(ProtoError::Server(se)) => {
                        let sql = session.text().to_string();
                        self.server_error(&se, session, &sql)?;
                    }
                    Err(e) => {
                        return Err(Failure::Fatal(format!(
                            "preparing `{}`: {}",
                            session.text(),
                            describe(&e, cfg)
                        )))
                    }
                }
            }
            Op::Close(i) => {
                if let Some(s) = stmts.v.get_mut(i) {
                    let old = std::mem::replace(s, Stmt::new_text("", &[]));
                    if let Some(id) = old.id() {
                        if let Err(e) = conn.close_stmt(id).await {
                            return Err(lost(&e));
                        }
                    }
                }
            }
            Op::Sleep(us) => nap(self.link.shared, us).await,
            Op::Reconnect
                if !reconnect(self.link, conn, stmts)
                    .await
                    .map_err(Failure::Fatal)? =>
            {
                return Err(Failure::Fatal("the run stopped while reconnecting".into()));
            }
            _ => {}
        }
        Ok(())
    }
}

/// Waits `us` microseconds without blocking the shard; the run's stop cuts
/// it short.
async fn nap(shared: &Shared, us: u64) {
    let until = Instant::now() + Duration::from_micros(us);
    while !shared.stopping() && Instant::now() < until {
        let left = until.saturating_duration_since(Instant::now());
        tokio::time::sleep(left.min(Duration::from_millis(100))).await;
    }
}

/// The SQL a step ran, for an error message.
fn step_sql(op: Op, stmts: &Statements, session: &dyn Session) -> String {
    match op {
        Op::Execute(i) => stmts.v.get(i).map(|s| s.sql.clone()).unwrap_or_default(),
        _ => session.text().to_string(),
    }
}

/// Replaces a lost connection, retrying with backoff until it works or the
/// run stops, and prepares every statement of the old one again. Counted
/// as a reconnect; each failed attempt is counted, and the time no attempt
/// could reach the server is accounted in `Shared`. Returns whether the
/// connection was replaced (false: the run stopped).
async fn reconnect(
    link: &Link<'_>,
    conn: &mut Conn,
    stmts: &mut Statements,
) -> Result<bool, String> {
    let (cfg, shared, state, slot) = (link.cfg, link.shared, link.state, link.slot);
    // This loop is the retry: each attempt reports a refusal at once.
    let mut opts = cfg.conn.clone();
    opts.retry_refused = false;
    let mut backoff = Duration::from_millis(10);
    state.borrow_mut().watch[slot].breaker = None;
    loop {
        if shared.stopping() {
            return Ok(false);
        }
        match open(link, &opts, Some(&stmts.v)).await {
            Ok((c, s)) => {
                *conn = c;
                *stmts = s;
                shared.mark_reachable();
                let mut st = state.borrow_mut();
                st.cur.reconnects += 1;
                st.watch[slot].breaker = Some(conn.breaker());
                return Ok(true);
            }
            Err(e) if e.is_connection_lost() || e.is_backpressure(true) => {
                state.borrow_mut().cur.failed_connects += 1;
                shared.mark_unreachable(&e.to_string());
            }
            Err(e) => return Err(describe(&e, cfg)),
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(1));
    }
}
