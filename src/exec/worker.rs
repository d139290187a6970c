//! One load connection: connect, prepare, then run events until told to stop.
//! The per-event path allocates nothing: the plan vector, statement
//! templates and buffers are reused.

use super::config::{PsMode, RunConfig};
use super::shard::{ShardState, Shared};
use crate::protocol::{Conn, Outcome, ProtoError, Stmt, CR_SERVER_LOST};
use crate::workload::statements::{Kind, ALL_KINDS};
use crate::workload::{Op, Rng};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

const NKINDS: usize = ALL_KINDS.len();

/// Statements of one connection, indexed by table and kind.
struct Statements {
    v: Vec<Option<Stmt>>,
}

impl Statements {
    #[inline]
    fn slot(table: u32, kind: Kind) -> usize {
        let t = if kind.per_table() {
            table as usize - 1
        } else {
            0
        };
        t * NKINDS + kind.index()
    }
}

/// Prepares every statement the workload needs on `conn`.
async fn prepare_all(
    conn: &mut Conn,
    cfg: &RunConfig,
    state: &Rc<RefCell<ShardState>>,
) -> Result<Statements, ProtoError> {
    let o = &cfg.oltp;
    let tables = o.tables.max(1);
    let mut v: Vec<Option<Stmt>> = (0..tables as usize * NKINDS).map(|_| None).collect();
    for kind in cfg.workload.kinds(o) {
        let n = cfg.workload.arity(kind, o);
        let ts = if kind.per_table() { 1..=tables } else { 1..=1 };
        for t in ts {
            let sql = kind.sql(t, n);
            let params = kind.params(n);
            let stmt = if cfg.ps_mode == PsMode::Disable {
                Stmt::new_text(&sql, &params)
            } else {
                match conn.prepare(&sql, &params).await {
                    Ok(s) => s,
                    // max_prepared_stmt_count reached: run this one as text.
                    Err(ProtoError::Server(e)) if e.code == 1461 => {
                        state.borrow_mut().text_fallbacks += 1;
                        Stmt::new_text(&sql, &params)
                    }
                    Err(e) => return Err(e),
                }
            };
            v[Statements::slot(t, kind)] = Some(stmt);
        }
    }
    Ok(Statements { v })
}

fn describe(e: &ProtoError, cfg: &RunConfig) -> String {
    match e {
        ProtoError::Server(se) if se.code == 1146 => format!(
            "{se}; the workload's tables are missing ({} tables of {} rows expected): prepare them first",
            cfg.oltp.tables, cfg.oltp.table_size
        ),
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
    let stmts = prepare_all(&mut conn, cfg, state).await?;
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
    let (mut conn, mut stmts) = match open(cfg, &cfg.conn, shared, state).await {
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

    let w = cfg.workload;
    let o = &cfg.oltp;
    let groups = w.groups(o);
    let mut rng = Rng::new(
        &o.rand,
        cfg.seed
            .wrapping_add(u64::from(id).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
    );
    let mut ops: Vec<Op> = Vec::with_capacity(64);
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
        w.plan(o, &groups, &mut rng, &mut ops);
        let done = loop {
            match run_event(
                &mut conn, &mut stmts, &ops, cfg, shared, &mut rng, id, slot, state,
            )
            .await
            {
                Ok(()) => break true,
                Err(Failure::Fatal(m)) => return Err(m),
                Err(Failure::Ignored(code)) => {
                    state.borrow_mut().cur.errors.add(code, 1);
                    if conn.exec("ROLLBACK").await.is_err()
                        && !reconnect(&mut conn, &mut stmts, cfg, shared, slot, state).await?
                    {
                        break false;
                    }
                    // Like sysbench, the event starts over with fresh random
                    // draws; its latency still counts from the first attempt.
                    w.plan(o, &groups, &mut rng, &mut ops);
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
                    reconnect(&mut conn, &mut stmts, cfg, shared, slot, state).await?;
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
            reconnect(&mut conn, &mut stmts, cfg, shared, slot, state).await?;
        }
    }
    conn.quit().await;
    Ok(())
}

/// Executes the planned statements of one event, counting each as it completes.
#[allow(clippy::too_many_arguments)]
async fn run_event(
    conn: &mut Conn,
    stmts: &mut Statements,
    ops: &[Op],
    cfg: &RunConfig,
    shared: &Shared,
    rng: &mut Rng,
    id: u32,
    slot: usize,
    state: &Rc<RefCell<ShardState>>,
) -> Result<(), Failure> {
    for op in ops {
        let Some(stmt) = stmts.v[Statements::slot(op.table, op.kind)].as_mut() else {
            return Err(Failure::Fatal(format!(
                "internal: statement {} not prepared",
                op.kind.name()
            )));
        };
        cfg.workload
            .bind(&cfg.oltp, op, stmt, rng, id, &shared.unique);
        let t = Instant::now();
        state.borrow_mut().watch[slot].since = Some(t);
        let res = conn.execute(stmt).await;
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
        match out {
            Outcome::Rows(_) => st.cur.reads += 1,
            Outcome::Affected(n) if n > 0 => st.cur.writes += 1,
            Outcome::Affected(_) => st.cur.others += 1,
        }
        let acc = &mut st.kinds[op.kind.index()];
        acc.count += 1;
        acc.hist.record(us);
    }
    Ok(())
}

/// Replaces a lost connection, retrying with backoff until it works or the
/// run stops. Counted as a reconnect; each failed attempt is counted, and
/// the time no attempt could reach the server is accounted in `Shared`.
/// Returns whether the connection was replaced (false: the run stopped).
async fn reconnect(
    conn: &mut Conn,
    stmts: &mut Statements,
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
        match open(cfg, &opts, shared, state).await {
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
