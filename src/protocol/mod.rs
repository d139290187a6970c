//! protocol: the MySQL/MariaDB client wire protocol.
//!
//! Owns sockets, packet framing, the handshake and authentication, the text
//! protocol for everything that is not load (DDL, status queries, prepare), and
//! the hot path: COM_STMT_EXECUTE from a pre-built packet template patched in
//! place, with result rows skipped without decoding unless a workload asks
//! to read them (`Rows`, decoded into reused buffers). Nothing here knows about
//! workloads, schedules or statistics; callers get outcomes and typed errors.
//!
//! Handshake and auth state machines come from `mysql_common`; the per-query
//! path is written by hand because a general-purpose codec costs a dozen
//! allocations per query (figures in docs/BENCHMARKS.md).

mod auth;
mod bind;
mod conn;
mod direct;
mod dry_run;
mod error;
#[cfg(test)]
mod footprint;
#[cfg(test)]
mod fuzz;
mod io;
mod literal;
mod opts;
mod pubkey;
mod rows;
mod stmt;
mod tls;
pub mod uring;

pub use bind::{Binder, IntWidth};
pub use conn::{Breaker, Conn, Outcome};
pub use direct::Direct;
pub use error::{ProtoError, ServerError, CR_SERVER_LOST, TEXT_FALLBACK_CODES};
pub use literal::string_literal;
pub use opts::{ConnOpts, Endpoint, LoadVia};
pub use rows::Rows;
pub use stmt::{Param, Stmt};
pub use tls::SslMode;
