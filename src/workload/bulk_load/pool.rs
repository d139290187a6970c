//! The loader pool: `loaders` threads, each with its own connection and
//! its own current-thread runtime, take work items in turn until none is
//! left, one fails, or `stop` says so; this thread meanwhile tells the
//! caller's progress sink the rows loaded every 100 ms (and the events the
//! loaders send). Owns the threads, the shared counters and the first
//! error; it must not know what a family's rows or tables are (that is the
//! family's [`ChunkLoader`]).
//!
//! A work item that fails on a deadlock is cleared and loaded again (up to
//! `DEADLOCK_RETRIES` times) when its loader can clear it. Loaders that
//! share tables keep out of MariaDB's bulk mode, whose table X lock made
//! two loaders reaching the same empty table at once deadlock
//! ([`super::SHARED_TABLES_SESSION`]); a deadlock with another session's
//! transaction is still possible, and the retry is kept for it.

use super::pipe::{load_data, through_pipe, Choice, Route};
use super::stream_error::{is_deadlock, StreamError};
use crate::protocol::{Conn, ConnOpts};
use crate::workload::prepare_events::Progress;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// How often the rows loaded are told while the loaders work.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);
/// Attempts again at a work item that failed on a deadlock.
const DEADLOCK_RETRIES: u32 = 3;

/// A family's loader: one value per loader thread, driven on that thread's
/// own connection (so it may keep generators, buffers and random streams).
pub(crate) trait ChunkLoader: Send + 'static {
    /// One unit of work: a chunk of ids, a table, a part of a table set.
    type Work: Send + Sync + 'static;

    /// Sets up a loader's fresh connection (session variables); none by
    /// default.
    async fn start(&mut self, conn: &mut Conn) -> anyhow::Result<()> {
        let _ = conn;
        Ok(())
    }

    /// Loads `work`, the `index`th item of the list, adding its rows to
    /// `ctx` as they go in (as often as it likes: the progress bar reads
    /// them) and polling `ctx.stopped()` where it can stop.
    async fn load(
        &mut self,
        conn: &mut Conn,
        index: usize,
        work: &Self::Work,
        ctx: &LoadCtx<'_>,
    ) -> anyhow::Result<()>;

    /// Removes what a failed attempt at `work` left, so that it can be
    /// loaded again; false (the default): it cannot be, the load fails.
    async fn clear(&mut self, conn: &mut Conn, work: &Self::Work) -> anyhow::Result<bool> {
        let _ = (conn, work);
        Ok(false)
    }

    /// Called once `work` is in and no stop was asked: records it for a
    /// resumed prepare (see [`super::resume`]); nothing by default.
    async fn done(&mut self, conn: &mut Conn, work: &Self::Work) -> anyhow::Result<()> {
        let _ = (conn, work);
        Ok(())
    }
}

/// What a loader is handed besides its work: the shared row count, the
/// stop flag, the progress channel and how its LOAD DATA statements get
/// their rows.
pub(crate) struct LoadCtx<'a> {
    rows: &'a AtomicU64,
    /// The route, chosen once before the loaders start ([`Route::choose`]).
    route: &'a Route,
    /// Rows this attempt at the current item added (taken back on a retry).
    attempt_rows: Cell<u64>,
    /// Work items in this load (a resumed prepare's: those still to go).
    items: usize,
    stop: fn() -> bool,
    tell: &'a mpsc::Sender<Progress>,
}

impl LoadCtx<'_> {
    /// Counts `n` more rows loaded.
    pub(crate) fn add_rows(&self, n: u64) {
        self.rows.fetch_add(n, Ordering::Relaxed);
        self.attempt_rows.set(self.attempt_rows.get() + n);
    }

    /// Whether the caller asked the load to stop.
    pub(crate) fn stopped(&self) -> bool {
        (self.stop)()
    }

    /// Tells the caller's progress sink `p` (from the pool's thread).
    pub(crate) fn tell(&self, p: Progress) {
        let _ = self.tell.send(p);
    }

    /// Runs LOAD DATA statement `sql` (written `LOAD DATA LOCAL INFILE
    /// '…' …`), `fill` writing each buffer of rows (false: the last), by
    /// this loader's route: over the connection, or through a named pipe
    /// the server reads (see pipe.rs). Returns the rows the server took.
    pub(crate) async fn load_data(
        &self,
        conn: &mut Conn,
        sql: &str,
        fill: impl FnMut(&mut Vec<u8>) -> bool,
    ) -> Result<u64, StreamError> {
        match self.route {
            Route::Local => load_data(conn, sql, fill).await,
            Route::Pipe(dir) => through_pipe(conn, dir.path(), sql, fill).await,
        }
    }
}

/// What a load did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Loaded {
    /// Rows loaded.
    pub rows: u64,
    /// Whether the loaders' rows went through named pipes the server read
    /// (LOAD DATA INFILE) rather than over their connections.
    pub piped: bool,
    /// Why they did not, where `--load-via auto` fell back to LOCAL.
    pub pipe_note: Option<String>,
}

/// Why a load did not finish.
#[derive(Debug)]
pub(crate) enum LoadFailure {
    /// `stop` said so; this many rows were in by then.
    Interrupted {
        /// Rows loaded before the loaders stopped (sent: a chunk cut off
        /// counts its rows, though they are rolled back).
        rows: u64,
        /// Work items whose [`ChunkLoader::done`] committed them: what a
        /// resumable load keeps of this run.
        committed: usize,
    },
    /// A loader failed: its error (the first one; the others stopped).
    Failed(anyhow::Error),
    /// The load could not begin (its route refused, see [`Route::choose`]):
    /// no loader started, nothing was loaded.
    Refused(anyhow::Error),
}

/// What the loader threads share.
struct Shared<W> {
    work: Vec<W>,
    next: AtomicUsize,
    rows: AtomicU64,
    /// Items through [`ChunkLoader::done`].
    committed: AtomicUsize,
    /// How the loaders' LOAD DATA statements get their rows.
    route: Route,
    failed: AtomicBool,
    first_error: Mutex<Option<anyhow::Error>>,
}

/// The runtime a prepare's own statements (create, resume, finish) and
/// each loader thread run on: one thread, timers and I/O.
pub(crate) fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

/// Runs `work` on up to `loaders` connections (at least one, at most one
/// per item), `make(l)` building loader l; tells `progress` LoadStart
/// (`total` rows, about), the rows loaded as they grow, the loaders'
/// events, then LoadEnd. Returns the rows loaded and whether they went
/// through named pipes ([`LoadCtx::load_data`]).
pub(crate) fn run_loaders<L: ChunkLoader>(
    opts: &ConnOpts,
    work: Vec<L::Work>,
    loaders: usize,
    mut make: impl FnMut(usize) -> L,
    total: u64,
    progress: &mut dyn FnMut(Progress),
    stop: fn() -> bool,
) -> Result<Loaded, LoadFailure> {
    // (before any loader starts, so that a refused route fails the load
    // before a table is made or a chunk begun)
    let choice = choose_route(opts).map_err(LoadFailure::Refused)?;
    progress(Progress::LoadStart(total));
    let loaders = loaders.clamp(1, work.len().max(1));
    let shared = Arc::new(Shared {
        work,
        next: AtomicUsize::new(0),
        rows: AtomicU64::new(0),
        committed: AtomicUsize::new(0),
        route: choice.route,
        failed: AtomicBool::new(false),
        first_error: Mutex::new(None),
    });
    let (tell, told) = mpsc::channel();
    let mut handles = Vec::with_capacity(loaders);
    for l in 0..loaders {
        let (opts, shared, tell, loader) = (opts.clone(), shared.clone(), tell.clone(), make(l));
        handles.push(std::thread::spawn(move || {
            if let Err(e) = loader_thread(&opts, loader, &shared, &tell, stop) {
                shared.failed.store(true, Ordering::Relaxed);
                if let Ok(mut f) = shared.first_error.lock() {
                    f.get_or_insert(e);
                }
            }
        }));
    }
    drop(tell);
    while handles.iter().any(|h| !h.is_finished()) {
        told.try_iter().for_each(&mut *progress);
        progress(Progress::Loaded(shared.rows.load(Ordering::Relaxed)));
        std::thread::sleep(PROGRESS_EVERY);
    }
    told.try_iter().for_each(&mut *progress);
    progress(Progress::LoadEnd);
    let panicked = handles.into_iter().any(|h| h.join().is_err());
    let rows = shared.rows.load(Ordering::Relaxed);
    if panicked {
        return Err(LoadFailure::Failed(anyhow::anyhow!(
            "a loader thread panicked"
        )));
    }
    if stop() {
        return Err(LoadFailure::Interrupted {
            rows,
            committed: shared.committed.load(Ordering::Relaxed),
        });
    }
    match shared.first_error.lock().ok().and_then(|mut f| f.take()) {
        Some(e) => Err(LoadFailure::Failed(e)),
        None => Ok(Loaded {
            rows,
            piped: matches!(shared.route, Route::Pipe(_)),
            pipe_note: choice.why_not_pipe,
        }),
    }
}

/// The route the loaders' LOAD DATA statements take, chosen on a
/// connection of its own. A load by INSERTs (`opts.local_infile` off) has
/// none to choose.
fn choose_route(opts: &ConnOpts) -> anyhow::Result<Choice> {
    if !opts.local_infile || !opts.reaches_server() {
        // (a dry run told to use the pipe says why it shows LOCAL)
        let dry = opts.local_infile && opts.load_via == crate::protocol::LoadVia::Pipe;
        return Ok(Choice {
            route: Route::Local,
            why_not_pipe: dry.then(|| "a dry run (no server to read a pipe)".into()),
        });
    }
    runtime()?.block_on(async {
        let mut conn = Conn::connect(opts).await?;
        let choice = Route::choose(&mut conn, opts).await;
        conn.quit().await;
        Ok(choice?)
    })
}

/// One loader thread: connects, then takes items until none is left.
fn loader_thread<L: ChunkLoader>(
    opts: &ConnOpts,
    mut loader: L,
    shared: &Shared<L::Work>,
    tell: &mpsc::Sender<Progress>,
    stop: fn() -> bool,
) -> anyhow::Result<()> {
    runtime()?.block_on(async {
        let mut conn = Conn::connect(opts).await?;
        loader.start(&mut conn).await?;
        let ctx = LoadCtx {
            rows: &shared.rows,
            route: &shared.route,
            attempt_rows: Cell::new(0),
            items: shared.work.len(),
            stop,
            tell,
        };
        loop {
            if shared.failed.load(Ordering::Relaxed) || stop() {
                break;
            }
            let i = shared.next.fetch_add(1, Ordering::Relaxed);
            let Some(work) = shared.work.get(i) else {
                break;
            };
            load_with_retries(&mut loader, &mut conn, i, work, &ctx).await?;
            if stop() {
                break;
            }
            loader.done(&mut conn, work).await?;
            shared.committed.fetch_add(1, Ordering::Relaxed);
        }
        conn.quit().await;
        Ok(())
    })
}

/// Loads item `i`, clearing it and loading it again after a deadlock.
async fn load_with_retries<L: ChunkLoader>(
    loader: &mut L,
    conn: &mut Conn,
    i: usize,
    work: &L::Work,
    ctx: &LoadCtx<'_>,
) -> anyhow::Result<()> {
    let mut retries = 0;
    loop {
        ctx.attempt_rows.set(0);
        match loader.load(conn, i, work, ctx).await {
            Err(e) if retries < DEADLOCK_RETRIES && is_deadlock(&e) && !ctx.stopped() => {
                if !loader.clear(conn, work).await? {
                    return Err(e);
                }
                ctx.rows
                    .fetch_sub(ctx.attempt_rows.get(), Ordering::Relaxed);
                retries += 1;
                ctx.tell(Progress::LoadRetried {
                    chunk: i + 1,
                    chunks: ctx.items,
                    rows: ctx.attempt_rows.get(),
                    retry: retries,
                    of: DEADLOCK_RETRIES,
                });
            }
            r => return r,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ProtoError, ServerError};
    use crate::workload::bulk_load::StreamError;

    /// Fails each item's first attempt on a deadlock after 5 rows.
    struct Flaky {
        clears: bool,
        failed_once: Vec<usize>,
    }

    impl ChunkLoader for Flaky {
        type Work = u64;

        async fn load(
            &mut self,
            _: &mut Conn,
            i: usize,
            &rows: &u64,
            ctx: &LoadCtx<'_>,
        ) -> anyhow::Result<()> {
            ctx.add_rows(rows);
            if self.failed_once.contains(&i) {
                return Ok(());
            }
            self.failed_once.push(i);
            let deadlock = ProtoError::Server(ServerError {
                code: 1213,
                state: "40001".into(),
                message: "Deadlock found".into(),
            });
            Err(anyhow::Error::from(StreamError::Protocol(deadlock)).context("loading part"))
        }

        async fn clear(&mut self, _: &mut Conn, _: &u64) -> anyhow::Result<bool> {
            Ok(self.clears)
        }
    }

    fn load(clears: bool, told: &mut Vec<Progress>) -> Result<Loaded, LoadFailure> {
        let mut opts = ConnOpts::placeholder();
        opts.detached = true;
        let make = |_| Flaky {
            clears,
            failed_once: Vec::new(),
        };
        let mut tell = |p| told.push(p);
        run_loaders(&opts, vec![5, 7], 1, make, 12, &mut tell, || false)
    }

    #[test]
    fn a_deadlocked_item_is_cleared_and_loaded_again_once() {
        let mut told = Vec::new();
        assert_eq!(load(true, &mut told).ok().map(|l| l.rows), Some(12));
        let retried: Vec<_> = told
            .iter()
            .filter(|p| matches!(p, Progress::LoadRetried { .. }))
            .collect();
        let said = |chunk, rows| Progress::LoadRetried {
            chunk,
            chunks: 2,
            rows,
            retry: 1,
            of: DEADLOCK_RETRIES,
        };
        assert_eq!(retried, [&said(1, 5), &said(2, 7)], "{told:?}");
        match load(false, &mut Vec::new()) {
            Err(LoadFailure::Failed(e)) => assert!(is_deadlock(&e), "{e:#}"),
            r => panic!("{r:?}"),
        }
    }
}
