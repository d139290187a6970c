//! sysbench Lua scripts as a workload family (issue 11), first slice: a
//! script is found by path or by name in sysbench's search path, loaded in
//! an embedded LuaJIT with the `sysbench` table it expects at load time, and
//! its `sysbench.cmdline.options` become the family's options (so `qpslab
//! run script.lua --help` lists them and `--name=value` is checked against
//! them). Running a script's events comes next: the bridge is a coroutine
//! per connection whose `con:query`/`stmt:execute` yield to exec.

mod find;
mod options;

pub use find::find_script;
pub use options::script_options;

/// Whether a workload word names a script rather than a built-in workload
/// (a `.lua` file, as sysbench's names are: option values such as a
/// socket path are not mistaken for one).
pub fn is_script(word: &str) -> bool {
    word.ends_with(".lua")
}
