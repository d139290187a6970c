//! cli: the command line. Parses arguments (clap) into typed options,
//! interprets the connection options into a target (a sandbox by default),
//! scrubs secrets from the process title, calls the lab's use cases and
//! prints through report. Context-rich, one-line error messages are made
//! here. It must not hold use-case logic that another front end (the UI, an
//! API) would need again: that belongs in lab. (Still here, to move: the
//! sweep, campaign, quickstart and monitor-session loops, and the table
//! check before a run.)

mod args;
mod campaign;
mod commands;
#[cfg(test)]
mod input_tests;
mod live;
mod monitor_args;
mod pages;
mod secret;
mod target;

pub use args::parse_command_line;
pub use commands::dispatch;
pub use secret::scrub_process_title;
