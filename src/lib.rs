//! qpslab: a MySQL/MariaDB performance lab, as a library the `qpslab`
//! binary wraps (src/main.rs only calls [`cli::main`]).
//!
//! # Layers
//!
//! Data flows one way. A module may import from the modules on its left
//! (and from the shared leaves), never from those on its right:
//!
//! ```text
//! secret, out, stats,          shared leaves: no qpslab imports
//! interrupt
//! server → protocol → workload → exec → store → analyze → report → ui
//!          monitor, profiler    beside exec: may use server, protocol, stats
//! hostbench                     sysbench's built-in host tests (cpu, fileio …): no server
//! campaign                      campaign files and their points (parse, hash)
//! lab                           composes the above into use cases; never renders
//! cli                           parses and prints; everything may be used from here
//! ```
//!
//! The exact rule table and its reasons live in `tests/layers.rs`, which
//! reads every `use crate::…` and `crate::…` path in src/ and fails on an
//! edge against these rules or on a cycle between files.

// Every unsafe block says why it is sound (a `// SAFETY:` comment).
#![deny(clippy::undocumented_unsafe_blocks)]
// Every public item says what it is (issue 30).
#![warn(missing_docs)]

#[macro_use]
pub mod out;

pub mod analyze;
pub mod campaign;
pub mod cli;
pub mod exec;
pub mod hostbench;
pub mod interrupt;
pub mod lab;
pub mod monitor;
pub mod profiler;
pub mod protocol;
pub mod report;
pub mod secret;
pub mod server;
pub mod stats;
pub mod store;
pub mod ui;
pub mod workload;
