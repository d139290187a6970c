//! monitor: watches the server's insides and the host, every second by
//! default, during a run or on its own (`qpslab monitor`, `iostat`, `top`).
//!
//! Owns the sources (SQL: global status, INNODB_METRICS, Performance Schema
//! waits and files, parsed InnoDB status, thread states; OS: /proc CPU,
//! server and client processes, disks, network, memory, pressure), the
//! capability probe that decides which apply, and the polling loop with its
//! time budgets and gap handling. It produces raw snapshots and notes on a
//! channel; it never stores, derives or prints anything (store, analyze and
//! report do), and it never touches the load's connections.
//!
//! A server on another host: an agent beside it (`HostReader`) reads
//! its host's OS sources with this module's code (`read_host`).
//!
//! Low intrusion: one connection, polls one after another on one thread,
//! expensive sources at lower rates, every poll's own duration recorded.

mod caps;
pub mod clients;
mod driver;
mod host;
mod innodb_status;
mod os;
mod source;
mod sql;

pub use caps::{filesystem_of, find_server_pid, on_this_host, Caps, NoteKind};
pub use driver::{Monitor, MonitorConfig};
pub use host::{locate_server, read_host, served_by_agent, HostReader, Located, Values};
pub use source::{Event, Note, Snapshot, SourceId, ALL_SOURCES};
