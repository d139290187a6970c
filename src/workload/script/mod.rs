//! sysbench Lua scripts as a workload family: a script is found by path or
//! by name in sysbench's search path (find.rs), its options are read by
//! loading it (cmdline_options.rs), what its Lua states are built from is def.rs,
//! and each load connection runs it in its own Lua state (state.rs, with
//! qpslab's side of the API in prelude.lua and `sysbench.rand` in
//! rand_api.rs) as a [`Session`](crate::workload::Session)
//! whose database calls yield to exec (session.rs). `prepare`, `cleanup`
//! and a script's own commands run outside exec (command.rs). A step of a
//! script that does not yield in time, or after Ctrl-C, is stopped, and
//! its os.exit ends the step, not the process (guard.rs). Latencies are
//! classed by statement (stat_class.rs). The children import from each
//! other, never from this file.

mod cmdline_options;
mod command;
mod def;
mod find;
mod guard;
mod rand_api;
mod report;
mod scan;
mod script_family;
mod session;
mod stat_class;
mod state;

pub(crate) use cmdline_options::{declared_options, script_options};
pub use cmdline_options::{load_only, script_help};
pub use def::{BuiltIns, ScriptDef};
pub use find::find_script;
pub use guard::{exit_at_once, exit_code_for};
pub use script_family::Script;
pub use state::{leave_states_to_exit, sql_used};

/// Whether a workload word names a script rather than a built-in workload
/// (a `.lua` file, as sysbench's names are: option values such as a
/// socket path are not mistaken for one).
pub fn is_script(word: &str) -> bool {
    word.ends_with(".lua")
}
