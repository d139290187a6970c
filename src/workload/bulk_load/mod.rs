//! Bulk loading, shared by the families' `prepare`: the loader pool
//! (pool.rs: N connections take work items in turn, progress, stop, the
//! first error), the LOAD DATA streams and their checks (stream.rs), the
//! named pipe a server on this host reads them from instead of the LOCAL
//! protocol (pipe.rs), and the progress table that makes a load resumable
//! (resume.rs). Owns no family's tables or rows and prints nothing.
//!
//! How a family adopts it (tpcc/load.rs is the fullest example,
//! dbstress/chunk_loader.rs the smallest):
//! 1. Create the tables on one connection; for a resumable load, create
//!    the progress table too ([`resume::create_sql`], [`resume::shape_sql`])
//!    or read what an earlier prepare left ([`resume::read`]).
//! 2. List the work (chunks of ids, parts of tables), largest first so
//!    the loaders finish together, and count the rows.
//! 3. Implement [`ChunkLoader`] for a per-thread loader: `start` sets the
//!    session up, `load` writes one item's rows (with [`stream_rows`] or
//!    [`LoadCtx::load_data`] for LOAD DATA, by the loader's route, or
//!    multi-row INSERTs) and counts them into the [`LoadCtx`], `done`
//!    records the item in the progress table ([`resume::part_done_sql`]).
//! 4. Call [`run_loaders`] (set `ConnOpts::local_infile` first for LOAD
//!    DATA: the pool then chooses the route once, before any loader starts,
//!    so a refused `--load-via` fails before a table is made) and turn a
//!    [`LoadFailure`] into the family's advice (cleanup,
//!    or run again to resume); then build indexes and mark it complete
//!    ([`resume::complete_sql`]).

mod pipe;
mod pipe_dir;
mod pool;
pub(crate) mod resume;
mod stream;
mod stream_error;

/// How a loader whose tables other loaders of the same load write too
/// (tpcc's parts, linkbench's and dbt3's chunks) sets its session up:
/// unique_checks off, foreign_key_checks left on. With both off, MariaDB
/// 10.6+ loads an empty InnoDB table in bulk under a table X lock, so
/// loaders whose first statements reach the same empty table at once
/// deadlock (error 1213) or wait for each other's whole statement. On
/// MariaDB 10.11.19 the deadlock's victim, retried (its clear, a DELETE,
/// first), ran beside the winner's bulk insert and the server hung on
/// dict_sys.latch until its 600-s watchdog aborted it (stop 66, the CI of
/// 4e354e1; which statement held the latch was not found). Those tables
/// have no foreign keys, so the checks left on cost nothing but the bulk
/// mode, which did not make their loads faster (docs/BENCHMARKS.md, stop
/// 66). oltp's loader, with a table to itself, keeps both off.
pub(crate) const SHARED_TABLES_SESSION: &str = "SET SESSION unique_checks=0";

pub use pipe::sweep_left_pipes;
pub(crate) use pool::{run_loaders, runtime, ChunkLoader, LoadCtx, LoadFailure};
pub(crate) use stream::{existing_tables, stream_rows, Batching};
pub(crate) use stream_error::StreamError;
