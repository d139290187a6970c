//! sysbench Lua scripts as a workload family: a script is found by path or
//! by name in sysbench's search path (find.rs), its options are read by
//! loading it (options.rs), and each load connection runs it in its own Lua
//! state (state.rs, with qpslab's side of the API in prelude.lua and
//! `sysbench.rand` in rand_api.rs) as a [`Session`](crate::workload::Session)
//! whose database calls yield to exec (session.rs). `prepare`, `cleanup`
//! and a script's own commands run outside exec (command.rs). A step of a
//! script that does not yield in time, or after Ctrl-C, is stopped, and
//! its os.exit ends the step, not the process (guard.rs).

mod command;
mod family;
mod find;
mod guard;
mod options;
mod rand_api;
mod report;
mod scan;
mod session;
mod state;

pub use family::{BuiltIns, Script, ScriptDef};
pub use find::find_script;
pub use guard::exit_code_for;
pub use options::script_help;
pub(crate) use options::script_options;

/// Whether a workload word names a script rather than a built-in workload
/// (a `.lua` file, as sysbench's names are: option values such as a
/// socket path are not mistaken for one).
pub fn is_script(word: &str) -> bool {
    word.ends_with(".lua")
}

/// Statement classes a script's latencies are reported by, from the
/// statement's first word.
pub(crate) const STAT_NAMES: [&str; 9] = [
    "other", "select", "insert", "update", "delete", "replace", "begin", "commit", "rollback",
];

/// The class of `sql` in [`STAT_NAMES`].
pub(crate) fn stat_class(sql: &str) -> usize {
    let word = sql
        .trim_start_matches(|c: char| c.is_whitespace() || c == '(')
        .split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or("");
    STAT_NAMES
        .iter()
        .position(|n| n.eq_ignore_ascii_case(word))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_are_classed_by_their_first_word() {
        assert_eq!(STAT_NAMES[stat_class("SELECT c FROM t")], "select");
        assert_eq!(STAT_NAMES[stat_class("  (select 1)")], "select");
        assert_eq!(STAT_NAMES[stat_class("Begin")], "begin");
        assert_eq!(STAT_NAMES[stat_class("SET autocommit=1")], "other");
        assert_eq!(STAT_NAMES[stat_class("")], "other");
    }
}
