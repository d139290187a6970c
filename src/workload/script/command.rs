//! A script's commands outside a measured run: `prepare`, `cleanup` and
//! its own (`sysbench.cmdline.commands`, such as oltp_common's `prewarm`).
//! A parallel command runs in `--threads` connections at once (each with
//! its `sysbench.tid`), any other in one. The loop here is exec's in
//! miniature, without timing or counting: these are set-up, not load.

use super::def::ScriptDef;
use super::session::ScriptSession;
use super::state;
use crate::protocol::{Conn, ConnOpts, ProtoError, Rows, Stmt};
use crate::workload::family::{place_prepared, take_closed, Op, Session};

/// Runs command `name` of the script; Err is one message (the script's
/// error with its traceback, or the connection's).
pub fn run_command(
    def: &std::sync::Arc<ScriptDef>,
    name: &str,
    opts: &ConnOpts,
    seed: u64,
    stop: fn() -> bool,
) -> Result<(), String> {
    // A command that runs once runs in the script's main state, as in
    // sysbench; a parallel one in a state per connection.
    let main = state::main_state(def, name, seed, true)?;
    main.set_command(name).map_err(|e| state::message(&e))?;
    let Some((_, parallel)) = main.command(name) else {
        return Err(format!(
            "{} has no `{name}` command (neither in sysbench.cmdline.commands nor as a function)",
            def.path.display()
        ));
    };
    let threads = if parallel { def.threads } else { 1 };
    if threads > 1 && sysbench_notices() {
        // (sysbench's notice before it starts a parallel command's
        // threads; the script's own print keeps it in its output's order)
        if let Some(print) = main.global_fn("print") {
            let _ = print.call::<()>("Initializing worker threads...\n");
        }
    }
    let main = (!parallel).then_some(main);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start a client runtime: {e}"))?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&rt, async {
        let mut tasks = Vec::new();
        for tid in 0..threads {
            let (def, opts, name) = (def.clone(), opts.clone(), name.to_string());
            let main = main.clone();
            tasks.push(tokio::task::spawn_local(async move {
                let mut conn = Conn::connect(&opts)
                    .await
                    .map_err(|e| format!("connecting for `{name}`: {e}"))?;
                let st = match main {
                    Some(st) => st,
                    None => state::load(&def, &name, tid, seed.wrapping_add(u64::from(tid)))?,
                };
                let r = drive_command(&def, st, &name, &mut conn, &opts, tid, stop).await;
                conn.quit().await;
                r
            }));
        }
        let mut first_err = None;
        for t in tasks {
            let r = t.await.map_err(|e| e.to_string()).and_then(|r| r);
            if let (Err(e), None) = (r, &first_err) {
                first_err = Some(e);
            }
        }
        first_err.map_or(Ok(()), Err)
    })
}

/// Whether sysbench's notices are printed: in sysbench mode (which passes
/// its verbosity) at verbosity 3 and up; never in qpslab's own mode.
fn sysbench_notices() -> bool {
    std::env::var("QPSLAB_SYSBENCH_VERBOSITY")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .is_some_and(|v| v >= 3)
}

/// Runs command `name` on `conn` as connection 0 (cleanup, on the
/// connection lab opened).
pub(crate) async fn on_conn(
    def: &ScriptDef,
    name: &str,
    conn: &mut Conn,
    seed: u64,
) -> Result<(), String> {
    let opts = ConnOpts::placeholder();
    let st = state::main_state(def, name, seed, true)?;
    st.set_command(name).map_err(|e| state::message(&e))?;
    drive_command(def, st, name, conn, &opts, 0, || false).await
}

/// Runs command `name` in state `st` on `conn` as connection `tid`.
async fn drive_command(
    def: &ScriptDef,
    st: state::ScriptState,
    name: &str,
    conn: &mut Conn,
    opts: &ConnOpts,
    tid: u32,
    stop: fn() -> bool,
) -> Result<(), String> {
    let Some((f, parallel)) = st.command(name) else {
        return Err(format!("{} has no `{name}` command", def.path.display()));
    };
    let mut s = ScriptSession::new(st, tid);
    s.begin_command(name, f, parallel)?;
    let mut stmts: Vec<Stmt> = Vec::new();
    let mut rows = Rows::new();
    while let Some(step) = s.next(&mut stmts) {
        if stop() {
            return Err(format!(
                "`{name}` interrupted; what it created may be incomplete"
            ));
        }
        let res = match step.op {
            Op::Execute(i) if stmts[i].is_text() => {
                conn.execute_into(&mut stmts[i], &mut rows).await
            }
            Op::Execute(i) => conn.execute(&mut stmts[i]).await,
            Op::Query => conn.query_into(s.text(), &mut rows).await,
            Op::Prepare(n) => {
                let texts: Vec<&str> = (0..n).map(|i| s.prepare_text(i)).collect();
                let made = if def.ps_disabled() {
                    texts
                        .iter()
                        .map(|&t| Ok(Stmt::new_dynamic_text(t)))
                        .collect()
                } else {
                    let likes: Vec<Stmt> =
                        texts.iter().map(|&t| Stmt::to_prepare_dynamic(t)).collect();
                    let likes: Vec<&Stmt> = likes.iter().collect();
                    conn.prepare_like_batch(&likes)
                        .await
                        .map_err(|e| format!("`{name}`: {e}"))?
                };
                // (over the text protocol where the server cannot prepare)
                let made = made
                    .into_iter()
                    .zip(&texts)
                    .map(|(r, &t)| match r {
                        Err(e) if crate::protocol::TEXT_FALLBACK_CODES.contains(&e.code) => {
                            Ok(Stmt::new_dynamic_text(t))
                        }
                        r => r,
                    })
                    .collect();
                match place_prepared(made, &mut stmts) {
                    Some((i, se)) => {
                        s.prepare_failed(i);
                        Err(ProtoError::Server(se))
                    }
                    None => continue,
                }
            }
            Op::Close(i) => {
                if let Some(id) = take_closed(&mut stmts, i) {
                    conn.close_stmt(id).await.map_err(|e| e.to_string())?;
                }
                continue;
            }
            Op::Reconnect => {
                let fresh = Conn::connect(opts).await.map_err(|e| e.to_string())?;
                std::mem::replace(conn, fresh).quit().await;
                for st in stmts
                    .iter_mut()
                    .filter(|s| !s.sql.is_empty() && s.id().is_some())
                {
                    *st = conn.prepare_like(st).await.map_err(|e| e.to_string())?;
                }
                continue;
            }
            Op::Sleep(us) => {
                tokio::time::sleep(std::time::Duration::from_micros(us)).await;
                continue;
            }
            // (only an event ends its connection: a command has none)
            Op::Finish(_) => return Ok(()),
            Op::Fail => {
                // os.exit(code) ends the command: success for 0, else the
                // command's exit code (after its connections close).
                return match s.exit_code() {
                    Some(0) => Ok(()),
                    Some(code) => {
                        super::guard::request_exit(code, s.text());
                        Err(s.text().to_string())
                    }
                    None => Err(s.text().to_string()),
                };
            }
        };
        match res {
            Ok(out) => s.result(out, &mut rows),
            Err(ProtoError::Server(se)) => {
                s.error(&se, false);
            }
            Err(e) => return Err(format!("`{name}`: {e}")),
        }
    }
    Ok(())
}
