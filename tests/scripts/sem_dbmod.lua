-- A module that queries while it loads (lua_semantics.lua): the rest of it
-- must run in the connection that required it.
db_before = sysbench.tid
con:query("SELECT SLEEP(0.05)")
db_after = sysbench.tid
function db_fn() return sysbench.tid end
