//! One load connection's events: once its link is up (worker_link.rs:
//! connect, prepare the family's statements), run events until told to
//! stop. The connection's `Session` says what each event executes; this
//! loop times, counts, retries and reconnects. The per-event path
//! allocates nothing: statements and buffers are reused.

use super::config::RunConfig;
use super::state::{ShardState, Shared};
use super::worker_link::{describe, go_direct, open, prepare_batch, reconnect, Link, Statements};
use crate::protocol::{Conn, Outcome, ProtoError, Rows, Stmt, CR_SERVER_LOST};
use crate::workload::family::{place_prepared, take_closed, Op};
use crate::workload::{Consume, OnError, Session};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

enum Failure {
    /// The connection is gone (or was cut by the watchdog); the code
    /// counted for it (the server's, or 2013 for a client-side loss).
    Lost(u16),
    Ignored(u16),
    Fatal(String),
}

/// How an event ended that ran to its end.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// The connection runs its next event.
    Event,
    /// The session ended its connection's events with this one
    /// ([`Op::Finish`]), counted as an event if `true`.
    Connection(bool),
}

/// How often a connection on direct I/O yields to its shard's other tasks
/// (the ticker, which sends each interval, and the watchdog).
const DIRECT_YIELD: Duration = Duration::from_millis(10);

/// Runs one connection (`templates`: the family's statements, unprepared);
/// returns Err with a message for a fatal error.
///
/// This future is the connection's task, kept for the whole run a
/// thousand times over: the paths that run once or on failure (set-up,
/// reconnects, the rollback after an error, tear-down) are boxed, so that
/// it holds the event loop's state only (`tests::a_connection_task_stays_small`).
pub async fn worker(
    id: u32,
    slot: usize,
    cfg: &RunConfig,
    shared: &Arc<Shared>,
    state: &Rc<RefCell<ShardState>>,
    templates: &[Stmt],
) -> Result<(), String> {
    let link = Link {
        cfg,
        shared,
        state,
        slot,
        templates,
    };
    // The connection's set-up (a script's thread_init) and tear-down, not counted.
    let setup = Event {
        link: &link,
        counted: false,
        tallied: false,
    };
    let Some((mut conn, mut stmts, mut session)) = Box::pin(set_up(id, &setup)).await? else {
        return Ok(());
    };
    let mut rows = Rows::new();
    let ev = Event {
        link: &link,
        counted: true,
        tallied: true,
    };
    let direct = go_direct(&mut conn, cfg, shared, state);
    count_io(shared, &conn, direct);
    let mut next_yield = Instant::now() + DIRECT_YIELD;
    let mut done_since_reconnect = 0u64;
    // Rate mode's precise wake-up (tokio's timer rounds up to whole
    // milliseconds); without a timerfd, tokio's sleep.
    let paced = cfg.rate > 0.0;
    // A session keeping its own schedule: its pauses end on time, and how
    // late they end is its lag.
    let scheduled = session.paced();
    let mut alarm = (paced || scheduled)
        .then(|| super::alarm::Alarm::new().ok())
        .flatten();
    let evened = !direct && !paced; // ahead of its shard: waits a pass (`record`)

    // A dry run's connection never waits either (every answer is ready in
    // the process): it yields as direct I/O does, or the shard's ticker
    // would not run until the end.
    let yields = direct || cfg.conn.dry_run;

    while !shared.stopping() {
        // (an atomic shared by every shard: only touched under --events)
        if shared.limited && shared.events_left.fetch_sub(1, Ordering::Relaxed) <= 0 {
            shared.stop.store(true, Ordering::SeqCst);
            break;
        }
        // A terminal's keying and think times, outside the latency.
        let pause = session.pause_us();
        if pause > 0 {
            if scheduled {
                wake_at(shared, state, &mut alarm, pause).await;
            } else {
                nap(shared, pause).await;
            }
            if shared.abandon_events() {
                break;
            }
        }
        // (closed runs start now: no arrival to await)
        let (intended, start) = if paced {
            match arrival(shared, state, &mut alarm).await {
                Some(x) => x,
                None => break,
            }
        } else {
            (None, Instant::now())
        };
        session.start();
        let mut clock = Clock {
            first: Some(start),
            last_end: None,
        };
        let Some(ended) = attempt(
            &ev,
            &mut conn,
            &mut stmts,
            session.as_mut(),
            &mut rows,
            &mut clock,
        )
        .await?
        else {
            continue;
        };
        if ended == Ended::Connection(false) {
            break;
        }
        let end = clock.last_end.unwrap_or_else(Instant::now);
        if record(state, slot, session.class(), intended, start, end) && evened {
            tokio::task::yield_now().await;
        }
        if ended == Ended::Connection(true) {
            break;
        }
        if !yields {
            // An event that never waits (a script's event() without a
            // query) would keep the shard's ticker from running: it
            // yields once the task's cooperative budget is spent (a
            // counter; an event that waited on its socket never spends it).
            tokio::task::coop::consume_budget().await;
        }
        done_since_reconnect += 1;
        if cfg.reconnect_every > 0 && done_since_reconnect >= cfg.reconnect_every {
            done_since_reconnect = 0;
            Box::pin(reconnect(&link, &mut conn, &mut stmts)).await?;
        }
        // Direct I/O never waits in the reactor: hand the thread to the
        // shard's ticker and watchdog now and then.
        if yields && end >= next_yield {
            next_yield = end + DIRECT_YIELD;
            tokio::task::yield_now().await;
            if direct && !conn.is_direct() {
                // reconnected since
                go_direct(&mut conn, cfg, shared, state);
            }
        }
    }
    // The connection's tear-down (thread_done): an error in it is said and
    // the run keeps its status, as sysbench's does (a bulk insert's last
    // flush may fail on rows already there); a step the script's guard
    // had to stop (a loop past the run's end, os.exit) fails the run.
    let teardown = if session.done() {
        let tear_down = Event {
            link: &link,
            counted: false,
            tallied: true,
        };
        Box::pin(tear_down.run_alone(&mut conn, &mut stmts, session.as_mut(), &mut rows)).await
    } else {
        Ok(())
    };
    Box::pin(conn.quit()).await;
    match teardown {
        Err(Failure::Fatal(m)) if session.stopped() => {
            Err(format!("connection {id} tearing down: {m}"))
        }
        Err(Failure::Fatal(m)) => {
            log::warn!("connection {id} tearing down: {m} (the run is over: its figures stand)");
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Opens the connection, runs the session's set-up, counts the connection
/// ready and waits for the run's start. None: the run stopped before it
/// started.
async fn set_up(
    id: u32,
    setup: &Event<'_>,
) -> Result<Option<(Conn, Statements, Box<dyn Session>)>, String> {
    let link = setup.link;
    let (cfg, shared, state) = (link.cfg, link.shared, link.state);
    let (mut conn, mut stmts) = match open(link, &cfg.conn, None).await {
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
        st.watch[link.slot].breaker = Some(conn.breaker());
    }
    let mut session = cfg.workload.session(
        id,
        cfg.threads.max(1),
        cfg.seed
            .wrapping_add(u64::from(id).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
    );
    if session.init() {
        let mut rows = Rows::new();
        if let Err(f) = setup
            .run_alone(&mut conn, &mut stmts, session.as_mut(), &mut rows)
            .await
        {
            // (not counted ready: the run waits for this failure, which
            // stops it before it starts)
            return Err(format!("connection {id} setting up: {}", f.message()));
        }
    }
    // (a script prepares its statements one at a time: its list grew by
    // doubling, and is kept for the run)
    stmts.v.shrink_to_fit();
    shared.ready.fetch_add(1, Ordering::SeqCst);
    while !shared.go.load(Ordering::SeqCst) {
        if shared.stopping() {
            return Ok(None);
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    Ok(Some((conn, stmts, session)))
}

/// Counts the connection's I/O path among the run's.
fn count_io(shared: &Shared, conn: &Conn, direct: bool) {
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
}

/// When the next event starts: (its intended start when already due, the
/// instant its latency counts from); None when the run stopped meanwhile.
///
/// Rate mode: an arrival still ahead is waited for precisely, and the
/// event's latency counts from the wake-up (how late it came is the
/// generator's, recorded as lag); one already due (every connection was
/// busy: the server is behind) counts from its arrival time, so no
/// queueing is omitted. The closed model starts now.
#[inline]
async fn arrival(
    shared: &Shared,
    state: &Rc<RefCell<ShardState>>,
    alarm: &mut Option<super::alarm::Alarm>,
) -> Option<(Option<Instant>, Instant)> {
    let intended = state.borrow_mut().arrivals.as_mut().map(|a| a.take());
    let Some(t) = intended else {
        return Some((None, Instant::now()));
    };
    if t <= Instant::now() {
        return Some((intended, Instant::now()));
    }
    let woke = match alarm.as_mut() {
        Some(a) => a.until(t).await.is_ok(),
        None => false,
    };
    if !woke {
        tokio::time::sleep_until(t.into()).await;
    }
    if shared.stopping() {
        return None;
    }
    let now = Instant::now();
    let lag = now.saturating_duration_since(t).as_micros() as u64;
    state
        .borrow_mut()
        .cur
        .lag
        .get_or_insert_with(Default::default)
        .record(lag);
    Some((None, now))
}

/// Runs the event, starting it over after an ignored error (like sysbench,
/// with fresh random draws; its latency still counts from the first
/// attempt, its statements' from their own start). Ok(None): the event
/// failed or the run stopped; it is not counted as done.
#[inline]
async fn attempt(
    ev: &Event<'_>,
    conn: &mut Conn,
    stmts: &mut Statements,
    session: &mut dyn Session,
    rows: &mut Rows,
    clock: &mut Clock,
) -> Result<Option<Ended>, String> {
    let (shared, state) = (ev.link.shared, ev.link.state);
    loop {
        // (two builds of the loop: the timed one is the normal path,
        // without a test a statement for the untimed one)
        let ran = if ev.link.cfg.statement_latency {
            ev.run::<true>(conn, stmts, session, rows, clock).await
        } else {
            ev.run::<false>(conn, stmts, session, rows, clock).await
        };
        match ran {
            Ok(ended) => return Ok(Some(ended)),
            Err(Failure::Fatal(m)) => return Err(m),
            Err(Failure::Ignored(code)) => {
                state.borrow_mut().cur.errors.add(code, 1);
                if Box::pin(conn.exec("ROLLBACK")).await.is_err()
                    && !Box::pin(reconnect(ev.link, conn, stmts)).await?
                {
                    return Ok(None);
                }
                if conn.is_direct() {
                    // Direct I/O never waits in the reactor: an event that
                    // keeps failing must not starve the shard's ticker.
                    tokio::task::yield_now().await;
                }
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
                Box::pin(reconnect(ev.link, conn, stmts)).await?;
                return Ok(None);
            }
        }
        if shared.abandon_events() {
            return Ok(None);
        }
    }
}

/// Counts a completed event: its latency from its intended start (rate
/// mode, when it was already due) or else `start`, to `end` (in its
/// class's histogram too), and the connection's events and busy time
/// (from `start`).
///
/// Returns whether the connection is now ahead of its shard's others:
/// more than 1/32 of the mean plus 8 events above it. Served the moment
/// its answer is read, a connection whose server thread answers early is
/// first in the next wait as well, and the same few connections run 2-3x
/// the events of the rest (issue 37); one that is ahead sends its next
/// query at the end of the pass instead (its yield defers it past the
/// reactor's next poll), until the others catch up. The test is a
/// multiply and a compare on counters kept anyway: no cost a query beyond
/// them, and a yield only for the connections ahead.
#[inline]
fn record(
    state: &Rc<RefCell<ShardState>>,
    slot: usize,
    class: Option<usize>,
    intended: Option<Instant>,
    start: Instant,
    end: Instant,
) -> bool {
    let busy = end.saturating_duration_since(start);
    let us = match intended {
        Some(from) => end.saturating_duration_since(from),
        None => busy,
    }
    .as_micros() as u64;
    let mut st = state.borrow_mut();
    if let Some(c) = class {
        let i = st.class_base + c;
        if let Some(h) = st.cur.kinds.get_mut(i) {
            h.record(us);
        }
        if let Some(n) = st.cur.classes.get_mut(c) {
            *n += 1;
        }
    }
    st.cur.events += 1;
    st.cur.hist.record(us);
    st.thread_events[slot] += 1;
    st.thread_time[slot] += busy.as_secs_f64();
    st.events_total += 1;
    let (mine, total) = (st.thread_events[slot], st.events_total);
    let n = st.thread_events.len() as u64;
    mine * n > total + total / 32 + 8 * n
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
/// not counted in the next one's latency. A run that keeps no statement
/// latency (`RunConfig::statement_latency` off) reads the clock at the
/// event's start and end only: two reads an event, as sysbench's (`first`
/// is then kept for every statement of the event).
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
    /// Whether its statements count in the reads/writes/other tallies
    /// though it is no event (a tear-down's, as sysbench counts a bulk
    /// insert's last flush in thread_done).
    tallied: bool,
}

impl Event<'_> {
    /// Executes the session's steps until it says the event is complete,
    /// counting each statement as it completes; says whether the session
    /// also ended its connection's events.
    async fn run<const TIMED: bool>(
        &self,
        conn: &mut Conn,
        stmts: &mut Statements,
        session: &mut dyn Session,
        rows: &mut Rows,
        clock: &mut Clock,
    ) -> Result<Ended, Failure> {
        let (cfg, state, slot) = (self.link.cfg, self.link.state, self.link.slot);
        // (set-up and tear-down are timed: their statements are few)
        let timed = TIMED || !self.counted;
        // (untimed: whether a statement came before in this event)
        let mut later = false;
        while let Some(step) = session.next(&mut stmts.v) {
            // The timed path reads each later statement's start; untimed,
            // every statement starts at the event's start (the watchdog
            // then times a later one from its own first look: `fresh`).
            let (t, fresh) = if timed {
                (clock.first.take().unwrap_or_else(Instant::now), false)
            } else {
                let t = *clock.first.get_or_insert_with(Instant::now);
                (t, std::mem::replace(&mut later, true))
            };
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
                        if !TIMED {
                            w.fresh = fresh;
                        }
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
                        if !TIMED {
                            w.fresh = fresh;
                        }
                        w.in_event = self.counted;
                    }
                    if decode {
                        conn.query_into(session.text(), rows).await
                    } else {
                        conn.exec_unbounded(session.text()).await
                    }
                }
                Op::Fail => return Err(Failure::Fatal(session.text().to_string())),
                Op::Finish(counted) => return Ok(Ended::Connection(counted)),
                // The cold path, boxed so that the per-connection future
                // the hot path polls stays small.
                Op::Prepare(_) | Op::Close(_) | Op::Reconnect | Op::Sleep(_) => {
                    Box::pin(self.manage(step.op, conn, stmts, session)).await?;
                    // (a sleep or reconnect at the event's end is in it)
                    clock.last_end = None;
                    continue;
                }
            };
            // (untimed: the event's end is read once, after its last step)
            let us = if timed {
                let end = Instant::now();
                clock.last_end = Some(end);
                end.saturating_duration_since(t).as_micros() as u64
            } else {
                0
            };
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
            if self.tallied && step.consume != Consume::Skip {
                match out {
                    Outcome::Rows(_) => st.cur.reads += 1,
                    Outcome::Affected(n) if n > 0 => st.cur.writes += 1,
                    Outcome::Affected(_) => st.cur.others += 1,
                }
            }
            if self.counted && timed {
                if let Some(h) = st.cur.kinds.get_mut(step.stat) {
                    h.record(us);
                }
            }
            drop(st);
            if matches!(step.consume, Consume::Outcome | Consume::Decode) {
                session.result(out, rows);
            }
        }
        Ok(Ended::Event)
    }

    /// Runs the session's steps outside any event (set-up, tear-down).
    async fn run_alone(
        &self,
        conn: &mut Conn,
        stmts: &mut Statements,
        session: &mut dyn Session,
        rows: &mut Rows,
    ) -> Result<(), Failure> {
        self.run::<true>(conn, stmts, session, rows, &mut Clock::default())
            .await
            .map(|_| ())
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
        if ignored && self.counted && self.link.shared.abandon_events() {
            // The run is over: an event that a script would start over
            // itself (sysbench's restart, inside Lua) is given up here, as
            // the executor gives up its own restarts.
            return Err(Failure::Ignored(se.code));
        }
        match session.error(se, ignored) {
            OnError::Restart if ignored => Err(Failure::Ignored(se.code)),
            OnError::Resume => {
                // Every error the session sees counts, ignored or not (a
                // script may catch it), as sysbench's error counter does.
                if self.counted {
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
            Op::Prepare(n) => {
                let likes: Vec<Stmt> = {
                    let mut st = state.borrow_mut();
                    (0..n)
                        .map(|i| Stmt::to_prepare_dynamic(st.shared_text(session.prepare_text(i))))
                        .collect()
                };
                match prepare_batch(conn, &likes, cfg, state).await {
                    Ok(made) => {
                        if let Some((i, se)) = place_prepared(made, &mut stmts.v) {
                            session.prepare_failed(i);
                            let sql = session.prepare_text(i).to_string();
                            self.server_error(&se, session, &sql)?;
                        }
                    }
                    Err(e) if e.is_connection_lost() => return Err(lost(&e)),
                    Err(e) => {
                        return Err(Failure::Fatal(format!(
                            "preparing `{}`: {}",
                            session.prepare_text(0),
                            describe(&e, cfg)
                        )))
                    }
                }
            }
            Op::Close(i) => {
                if let Some(id) = take_closed(&mut stmts.v, i) {
                    conn.close_stmt(id).await.map_err(|e| lost(&e))?;
                }
            }
            Op::Sleep(us) => sleep_precisely(self.link, us).await,
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

/// A session's sleep of `us` (a script's `usleep`, `sysbench.sleep`):
/// waited out as precisely as the thread's own sleep would be (tokio's
/// timer rounds up to whole milliseconds: a 1 ms usleep took 2.3), on the
/// connection's own timerfd, made at its first sleep; the shard's other
/// connections go on meanwhile.
async fn sleep_precisely(link: &Link<'_>, us: u64) {
    let due = Instant::now() + Duration::from_micros(us);
    let slot = link.slot;
    let mut alarm = link.state.borrow_mut().sleep_alarms[slot].take();
    if alarm.is_none() && due > Instant::now() {
        alarm = super::alarm::Alarm::new().ok();
    }
    wait_until(link.shared, due, &mut alarm).await;
    link.state.borrow_mut().sleep_alarms[slot] = alarm;
}

/// Returns at `due`: tokio's timer for all but the last 100 ms (the run's
/// stop cuts that part short), then `alarm` (tokio's timer without one).
async fn wait_until(shared: &Shared, due: Instant, alarm: &mut Option<super::alarm::Alarm>) {
    let coarse = Duration::from_millis(100);
    while !shared.stopping() && due.saturating_duration_since(Instant::now()) > coarse {
        tokio::time::sleep(coarse).await;
    }
    if shared.stopping() {
        return;
    }
    let woke = match alarm.as_mut() {
        Some(a) => a.until(due).await.is_ok(),
        None => false,
    };
    if !woke {
        tokio::time::sleep_until(due.into()).await;
    }
}

/// A scheduled session's pause of `us`: waited out precisely (the
/// timerfd for its last stretch; the run's stop cuts it short), and how
/// late it ended recorded as the interval's lag, as rate mode's arrivals.
async fn wake_at(
    shared: &Shared,
    state: &Rc<RefCell<ShardState>>,
    alarm: &mut Option<super::alarm::Alarm>,
    us: u64,
) {
    let due = Instant::now() + Duration::from_micros(us);
    wait_until(shared, due, alarm).await;
    if shared.stopping() {
        return;
    }
    let lag = Instant::now().saturating_duration_since(due).as_micros() as u64;
    state
        .borrow_mut()
        .cur
        .lag
        .get_or_insert_with(Default::default)
        .record(lag);
}

/// The SQL a step ran, for an error message.
fn step_sql(op: Op, stmts: &Statements, session: &dyn Session) -> String {
    match op {
        Op::Execute(i) => stmts
            .v
            .get(i)
            .map(|s| s.sql.to_string())
            .unwrap_or_default(),
        _ => session.text().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size of what `f` returns (never called).
    fn output_size<A, F>(_: fn(A) -> F) -> usize {
        std::mem::size_of::<F>()
    }

    /// A connection's task lives for the whole run, one per connection:
    /// its future is the event loop's state, the cold paths boxed (issue
    /// 37 item 3; it was 7,072 bytes before, 7 MB at 1,024 connections).
    #[test]
    fn a_connection_task_stays_small() {
        type Args = (
            &'static RunConfig,
            &'static Arc<Shared>,
            &'static Rc<RefCell<ShardState>>,
        );
        let size = output_size(|(cfg, shared, state): Args| worker(0, 0, cfg, shared, state, &[]));
        // 1,792 bytes when written
        assert!(size <= 2560, "a connection's task future is {size} bytes");
    }
}
