//! cli: the command line. Parses arguments (clap) into typed options,
//! interprets the connection options into a target (a sandbox by default),
//! calls the lab's use cases and prints through report. Context-rich,
//! one-line error messages are made here. It must not hold use-case logic
//! that another front end (the UI, an API) would need again (that is
//! lab's), nor statistics (analyze), SQL (lab, workload) or rendering
//! beyond choosing what to print (report).

mod args;
mod campaign;
mod commands;
mod help_topics;
#[cfg(test)]
mod input_tests;
mod live;
mod load_config;
mod monitor_args;
mod pages;
mod profile;
mod target;
mod tpcc;

pub use args::parse_command_line;
pub use commands::dispatch;
