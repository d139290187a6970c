//! One load connection: connect, prepare the family's statements, then run
//! events until told to stop. The connection's `Session` says what each
//! event executes; this loop times, counts, retries and reconnects. The
//! per-event path allocates nothing: statements and buffers are reused.

use super::config::{PsMode, RunConfig};
use super::state::{ShardState, Shared};
use crate::protocol::{Conn, Outcome, ProtoError, Rows, Stmt, CR_SERVER_LOST};
use crate::workload::{Consume, Session, StatementSpec};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The prepared statements of one connection, in the family's order.
struct Statements {
    v: Vec<Stmt>,
}

/// Prepares every statement the workload needs on `conn`.
async fn prepare_all(
    conn: &mut Conn,
    specs: &[StatementSpec],
    cfg: &RunConfig,
    state: &Rc<RefCell<ShardState>>,
) -> Result<Statements, ProtoError> {
    let mut v = Vec::with_capacity(specs.len());
    for spec in specs {
        let stmt = if cfg.ps_mode == PsMode::Disable {
            Stmt::new_text(&spec.sql, &spec.params)
        } else {
            match conn.prepare(&spec.sql, &spec.params).await {
                Ok(s) => s,
                // max_prepared_stmt_count reached: run this one as text.
                Err(ProtoError::Server(e)) if e.code == 1461 => {
                    state.borrow_mut().text_fallbacks += 1;
                    Stmt::new_text(&spec.sql, &spec.params)
                }
                Err(e) => return Err(e),
            }
        };
        v.push(stmt);
    }
    Ok(Statements { v })
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

/// Opens a load connection within the shared connect gate (and at the
/// paced rate, if any) and prepares its statements.
async fn open(
    cfg: &RunConfig,
    specs: &[StatementSpec],
    opts: &crate::protocol::ConnOpts,
    shared: &Shared,
    state: &Rc<RefCell<ShardState>>,
) -> Result<(Conn, Statements), ProtoError> {
    if let Some(at) = shared.connect_slot(cfg.connect_rate) {
        tokio::time::sleep_until(at.into()).await;
    }
    let mut conn = {
        let _permit = shared.connect_gate.acquire().await;
        Conn::connect(opts).await?
    };
    let stmts = prepare_all(&mut conn, specs, cfg, state).await?;
    Ok((conn, stmts))
}

/// Runs one connection; returns Err with a message for a fatal error.
pub async fn worker(
    id: u32,
    slot: usize,
    cfg: &RunConfig,
    shared: &Shared,
    state: &Rc<RefCell<ShardState>>,
) -> Result<(), String> {
    let specs = cfg.workload.statements();
    // The statement class each prepared statement is counted under.
    let stat_of: Vec<usize> = specs.iter().map(|s| s.stat).collect();
    let (mut conn, mut stmts) = match open(cfg, &specs, &cfg.conn, shared, state).await {
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
    shared.ready.fetch_add(1, Ordering::SeqCst);
    while !shared.go.load(Ordering::SeqCst) {
        if shared.stopping() {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }

    let mut session = cfg.workload.session(
        id,
        cfg.threads.max(1),
        cfg.seed
            .wrapping_add(u64::from(id).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
    );
    let mut rows = Rows::new();
    let ev = Event {
        cfg,
        state,
        slot,
        stat_of: &stat_of,
    };
    let mut done_since_reconnect = 0u64;

    while !shared.stopping() {
        // (an atomic shared by every shard: only touched under --events)
        if shared.limited && shared.events_left.fetch_sub(1, Ordering::Relaxed) <= 0 {
            shared.stop.store(true, Ordering::SeqCst);
            break;
        }
        let intended = state.borrow_mut().arrivals.as_mut().map(|a| a.take());
        if let Some(t) = intended {
            if t > Instant::now() {
                tokio::time::sleep_until(t.into()).await;
                if shared.stopping() {
                    break;
                }
            }
        }
        let start = Instant::now();
        session.start();
        let done = loop {
            match ev
                .run(&mut conn, &mut stmts, session.as_mut(), &mut rows)
                .await
            {
                Ok(()) => break true,
                Err(Failure::Fatal(m)) => return Err(m),
                Err(Failure::Ignored(code)) => {
                    state.borrow_mut().cur.errors.add(code, 1);
                    if conn.exec("ROLLBACK").await.is_err()
                        && !reconnect(&mut conn, &mut stmts, &specs, cfg, shared, slot, state)
                            .await?
                    {
                        break false;
                    }
                    // Like sysbench, the event starts over with fresh random
                    // draws; its latency still counts from the first attempt.
                    session.start();
                }
                Err(Failure::Lost(code)) => {
                    // The server rolled the transaction back with the
                    // connection: the event failed. It is counted as such,
                    // never as a transaction or a latency sample.
                    {
                        let mut st = state.borrow_mut();
                        st.cur.errors.add(code, 1);
                        st.cur.failed += 1;
                    }
                    reconnect(&mut conn, &mut stmts, &specs, cfg, shared, slot, state).await?;
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
        let end = Instant::now();
        let from = intended.unwrap_or(start);
        {
            let mut st = state.borrow_mut();
            st.cur.events += 1;
            st.cur
                .hist
                .record(end.saturating_duration_since(from).as_micros() as u64);
            st.thread_events[slot] += 1;
            st.thread_time[slot] += (end - start).as_secs_f64();
        }
        done_since_reconnect += 1;
        if cfg.reconnect_every > 0 && done_since_reconnect >= cfg.reconnect_every {
            done_since_reconnect = 0;
            reconnect(&mut conn, &mut stmts, &specs, cfg, shared, slot, state).await?;
        }
    }
    conn.quit().await;
    Ok(())
}

/// What one event's execution needs besides the connection.
struct Event<'a> {
    cfg: &'a RunConfig,
    state: &'a Rc<RefCell<ShardState>>,
    slot: usize,
    stat_of: &'a [usize],
}

impl Event<'_> {
    /// Executes the session's statements of one event, counting each as it
    /// completes.
    async fn run(
        &self,
        conn: &mut Conn,
        stmts: &mut Statements,
        session: &mut dyn Session,
        rows: &mut Rows,
    ) -> Result<(), Failure> {
        let (cfg, state, slot) = (self.cfg, self.state, self.slot);
        while let Some(step) = session.next(&mut stmts.v) {
            let Some(stmt) = stmts.v.get_mut(step.stmt) else {
                return Err(Failure::Fatal(format!(
                    "internal: the workload asked for statement {} of {}",
                    step.stmt,
                    stmts.v.len()
                )));
            };
            let t = Instant::now();
            state.borrow_mut().watch[slot].since = Some(t);
            let res = if step.consume == Consume::Decode {
                conn.execute_into(stmt, rows).await
            } else {
                conn.execute(stmt).await
            };
            let us = t.elapsed().as_micros() as u64;
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
                Err(ProtoError::Server(se)) if cfg.ignore.ignores(se.code) => {
                    return Err(Failure::Ignored(se.code))
                }
                Err(e) => {
                    return Err(Failure::Fatal(format!(
                        "error in `{}`: {}",
                        stmt.sql,
                        describe(&e, cfg)
                    )))
                }
            };
            if step.consume != Consume::Skip {
                match out {
                    Outcome::Rows(_) => st.cur.reads += 1,
                    Outcome::Affected(n) if n > 0 => st.cur.writes += 1,
                    Outcome::Affected(_) => st.cur.others += 1,
                }
            }
            if let Some(acc) = st.kinds.get_mut(self.stat_of[step.stmt]) {
                acc.count += 1;
                acc.hist.record(us);
            }
            drop(st);
            if step.consume == Consume::Decode {
                session.rows(rows);
            }
        }
        Ok(())
    }
}

/// Replaces a lost connection, retrying with backoff until it works or the
/// run stops. Counted as a reconnect; each failed attempt is counted, and
/// the time no attempt could reach the server is accounted in `Shared`.
/// Returns whether the connection was replaced (false: the run stopped).
async fn reconnect(
    conn: &mut Conn,
    stmts: &mut Statements,
    specs: &[StatementSpec],
    cfg: &RunConfig,
    shared: &Shared,
    slot: usize,
    state: &Rc<RefCell<ShardState>>,
) -> Result<bool, String> {
    // This loop is the retry: each attempt reports a refusal at once.
    let mut opts = cfg.conn.clone();
    opts.retry_refused = false;
    let mut backoff = Duration::from_millis(10);
    state.borrow_mut().watch[slot].breaker = None;
    loop {
        if shared.stopping() {
            return Ok(false);
        }
        match open(cfg, specs, &opts, shared, state).await {
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
