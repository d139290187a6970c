//! A load connection's link to its server: opened within the shared
//! connect gate, its statements prepared (over the text protocol where the
//! server refuses), put on direct I/O when alone on its shard, and
//! replaced with backoff when lost.

use super::config::{IoMode, PsMode, RunConfig};
use super::state::{ShardState, Shared, STOP_GRACE};
use crate::protocol::{Conn, ProtoError, ServerError, Stmt, TEXT_FALLBACK_CODES};
use crate::workload::StatementSpec;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

/// The prepared statements of one connection, in the family's order.
pub(super) struct Statements {
    pub(super) v: Vec<Stmt>,
}

/// The family's statements as templates to prepare connections' own from
/// (over the text protocol until prepared).
pub(super) fn templates(specs: &[StatementSpec]) -> Rc<[Stmt]> {
    specs
        .iter()
        .map(|s| {
            if s.dynamic {
                Stmt::new_dynamic_text(s.sql.as_str())
            } else {
                Stmt::new_text(s.sql.as_str(), &s.params)
            }
        })
        .collect()
}

/// Prepares every statement in `wanted` on `conn` (the family's templates
/// on a first connect, else those of the connection it replaces, the
/// session's own included), in one list of exactly their number, in one
/// pipelined batch (`prepare_batch`); the first the server refuses fails
/// them all.
async fn prepare_all(
    conn: &mut Conn,
    wanted: &[Stmt],
    cfg: &RunConfig,
    state: &Rc<RefCell<ShardState>>,
) -> Result<Statements, ProtoError> {
    let made = prepare_batch(conn, wanted, cfg, state).await?;
    let v = made
        .into_iter()
        .collect::<Result<Vec<Stmt>, ServerError>>()
        .map_err(ProtoError::Server)?;
    Ok(Statements { v })
}

/// Prepares each of `likes` on `conn` (the same SQL and parameters, or
/// types bound at each execution) in one pipelined batch, each over the
/// text protocol when prepared statements are off, for an empty one (a
/// closed statement's place) or when the server refuses it with
/// max_prepared_stmt_count reached or as a statement it cannot prepare
/// (BEGIN/COMMIT on MySQL 5.5); an inner error is a statement the server
/// refused otherwise.
pub(super) async fn prepare_batch(
    conn: &mut Conn,
    likes: &[Stmt],
    cfg: &RunConfig,
    state: &Rc<RefCell<ShardState>>,
) -> Result<Vec<Result<Stmt, ServerError>>, ProtoError> {
    if cfg.ps_mode == PsMode::Disable {
        return Ok(likes.iter().map(|l| Ok(l.as_text())).collect());
    }
    let sent: Vec<&Stmt> = likes.iter().filter(|l| !l.sql.is_empty()).collect();
    let mut answers = conn.prepare_like_batch(&sent).await?.into_iter();
    let mut out = Vec::with_capacity(likes.len());
    for like in likes {
        if like.sql.is_empty() {
            out.push(Ok(like.as_text()));
            continue;
        }
        out.push(match answers.next() {
            Some(Ok(s)) => Ok(s),
            Some(Err(e)) if TEXT_FALLBACK_CODES.contains(&e.code) => {
                state.borrow_mut().text_fallbacks += 1;
                Ok(like.as_text())
            }
            Some(Err(e)) => Err(e),
            None => {
                return Err(ProtoError::Protocol(
                    "a prepare batch lost an answer".into(),
                ))
            }
        });
    }
    Ok(out)
}

pub(super) fn describe(e: &ProtoError, cfg: &RunConfig) -> String {
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

/// Whether a connection is alone on its shard in the closed model (where
/// direct I/O serves it best, with `--io-backend auto` or `uring`).
pub(super) fn alone_in_closed_model(cfg: &RunConfig, state: &Rc<RefCell<ShardState>>) -> bool {
    cfg.rate <= 0.0 && state.borrow().watch.len() == 1
}

/// Puts `conn` on direct I/O when it is alone on its shard in the closed
/// model and `--io-backend auto` or `uring`: it waits for its server in
/// poll() (auto) or in its own io_uring ring (uring: one system call a
/// round trip), not in the shard's reactor (see protocol/direct.rs).
/// Returns whether it did. The read timeout still holds, and a stopping
/// run gives up a wait after its grace.
pub(super) fn go_direct(
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
/// paced rate, if any) and prepares its statements (`previous`, else the
/// family's: see `prepare_all`).
pub(super) async fn open(
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
    let wanted = previous.unwrap_or(link.templates);
    let stmts = prepare_all(&mut conn, wanted, link.cfg, link.state).await?;
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
pub(super) struct Link<'a> {
    pub(super) cfg: &'a RunConfig,
    pub(super) shared: &'a Shared,
    pub(super) state: &'a Rc<RefCell<ShardState>>,
    pub(super) slot: usize,
    /// The family's statements, unprepared (the shard's `templates`).
    pub(super) templates: &'a [Stmt],
}

/// Replaces a lost connection, retrying with backoff until it works or the
/// run stops, and prepares every statement of the old one again. Counted
/// as a reconnect; each failed attempt is counted, and the time no attempt
/// could reach the server is accounted in `Shared`. Returns whether the
/// connection was replaced (false: the run stopped).
pub(super) async fn reconnect(
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
    // (the old connection is closed as sysbench's reconnect closes it: its
    // held closes and a COM_QUIT; a lost connection's send fails, which
    // is moot)
    conn.say_goodbye().await;
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
