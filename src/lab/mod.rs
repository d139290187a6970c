//! lab: the use cases, composed from the layers below: which server
//! (`Target`), its environment, the monitor beside the load, recording
//! into the store (a row at the start, samples as they arrive, totals and
//! the monitor's figures at the end). Takes typed inputs; never parses
//! arguments or prints results (cli does), never talks the wire protocol
//! itself beyond checking a target (protocol does).

mod data;
mod environment;
mod record;
mod sweep;
mod target;
mod watch;

pub use data::{cleanup, prepare, ready};
pub use environment::{capture, Environment};
pub use record::{
    open_store, read_store, record_run, store_path, Recorder, RunTags, EXIT_NOT_STORED,
};
pub use sweep::{sweep, SweepPlan};
pub use target::{check, sandbox_target, Target};
pub use watch::{run_watched, Watch};

/// Runs a future to completion on a fresh current-thread runtime (the
/// synchronous use cases' way to talk to a server).
pub fn block_on<F: std::future::Future>(f: F) -> anyhow::Result<F::Output> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(f))
}
