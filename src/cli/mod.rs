//! cli: the command line. Parses arguments (clap), resolves the target
//! server (a sandbox by default), scrubs secrets from the process title, and
//! dispatches to the modules. Context-rich error messages are made here.

mod args;
mod campaign;
mod commands;
mod environment;
#[cfg(test)]
mod input_tests;
mod live;
mod pages;
mod record;
mod secret;
mod target;
mod watch;

pub use args::parse_command_line;
pub use commands::dispatch;
pub use secret::scrub_process_title;
