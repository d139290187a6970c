//! What can go wrong streaming rows to the server, as one typed error,
//! and which of those a loader may meet again by trying again (a
//! deadlock). Owns no SQL and no connection.

use crate::protocol::ProtoError;

/// Why a stream of rows failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StreamError {
    /// The server has local_infile off.
    #[error("the server refuses LOAD DATA LOCAL (local_infile is off); enable it with SET GLOBAL local_infile=1, or start the sandbox with --set local_infile=1")]
    LocalInfileRefused,
    /// `--load-via pipe` was asked for and the named pipe cannot be used
    /// (the reason), or the pipe's statement could not be made.
    #[error(
        "the named pipe for LOAD DATA INFILE cannot be used: {0}; use --load-via auto or local"
    )]
    PipeRefused(String),
    /// `--load-via auto` found neither route open: the pipe cannot be
    /// used (the reason) and the server has local_infile off.
    #[error(
        "the server refuses LOAD DATA LOCAL (local_infile is off) and the named pipe for LOAD DATA INFILE cannot be used: {0}; enable local_infile (SET GLOBAL local_infile=1, or start the sandbox with --set local_infile=1) or let the server read the pipe"
    )]
    NoRoute(String),
    /// Making or writing the named pipe failed.
    #[error("the named pipe {path}: {source}")]
    Pipe {
        /// The pipe's path.
        path: String,
        /// What failed.
        source: std::io::Error,
    },
    /// The statement failed otherwise.
    #[error(transparent)]
    Protocol(#[from] ProtoError),
    /// The caller asked to stop mid-stream.
    #[error("interrupted while loading {0}")]
    Interrupted(String),
    /// The server took fewer rows than were sent (bad values, duplicates).
    #[error("{table}: the server took {loaded} rows of {sent} (see SHOW WARNINGS)")]
    Short {
        /// The table loaded.
        table: String,
        /// Rows the server says it took.
        loaded: u64,
        /// Rows sent.
        sent: u64,
    },
}

/// Whether `e` is the server's deadlock error (1213), wrapped or not.
pub(crate) fn is_deadlock(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        let proto = match c.downcast_ref::<StreamError>() {
            Some(StreamError::Protocol(p)) => Some(p),
            _ => c.downcast_ref::<ProtoError>(),
        };
        proto.is_some_and(|p| p.code() == Some(1213))
    })
}
