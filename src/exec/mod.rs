//! exec: runs a workload against a server.
//!
//! Drives any workload family through `workload::Family`/`Session` and
//! knows nothing else about it: it prepares the family's statements on each
//! connection, asks each connection's session for the next statement,
//! executes, times and counts it, and retries or reconnects on errors.
//! Owns connections for load, their distribution over shards (one tokio
//! current_thread runtime per client core, connections as tasks), the
//! closed-loop and rate-driven schedules (with a high-resolution wake-up
//! and the generator's lateness recorded apart), warm-up, per-interval sampling,
//! error handling (ignore list, retries, reconnects) and stopping (time,
//! event count, fatal error, Ctrl-C). It records into `stats` and hands
//! samples to a callback; it never formats output or gives advice beyond
//! what the family says about an error.

mod alarm;
mod config;
mod rate;
mod run;
mod shard;
mod stall;
mod state;
mod worker;
mod worker_link;

pub use crate::interrupt::{install_ctrl_c, interrupted, sleep_unless_interrupted, Cooperative};
pub use crate::protocol::TEXT_FALLBACK_CODES;
pub use config::{IgnoreErrors, IoMode, PsMode, RunConfig};
pub use run::run_clocked;
pub use state::STOP_GRACE;
