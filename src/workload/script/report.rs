//! The report functions a script may install as hooks
//! (`sysbench.hooks.report_intermediate = sysbench.report_csv`).

use mlua::{Lua, Table};

/// Puts the report functions in `q` (prelude.lua's `Q`).
pub fn install(_lua: &Lua, _q: &Table) -> mlua::Result<()> {
    Ok(())
}
