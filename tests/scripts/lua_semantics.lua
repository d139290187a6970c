-- What a script's Lua sees, as under sysbench's Lua state per thread
-- (script_runs.rs compares each line with sysbench's): modules (module(),
-- package.loaded, one that queries while it loads), the script's own
-- coroutines querying, errors raised inside qpslab's prelude, the
-- options as globals of a script that declares none, and what a statement
-- without rows returns.
local dir = (sysbench.cmdline.script_path:gsub("[^/]*$", ""))
package.path = dir .. "?.lua;" .. package.path
local ffi = require("ffi")
pcall(ffi.cdef, "int usleep(unsigned int);")

local function say(...)
  local t = { "check" }
  for i = 1, select("#", ...) do t[#t + 1] = tostring((select(i, ...))) end
  -- (one write a line: two threads' prints may interleave under sysbench)
  io.write(table.concat(t, " ") .. "\n")
end

function thread_init()
  local w = "t" .. sysbench.tid
  con = sysbench.sql.driver():connect()
  require("sem_oldmod")
  say(w, "module", sem_oldmod and sem_oldmod.tid, package.loaded.sem_oldmod == sem_oldmod,
    sem_oldmod and sem_oldmod._NAME)
  local s = require("sem_selfreg")
  say(w, "selfreg", type(s), s.x)
  package.loaded.sem_selfreg = nil
  say(w, "reload", require("sem_selfreg") ~= s)
  require("sem_dbmod")
  say(w, "dbmod", db_before, db_after, db_fn and db_fn())
  say(w, "_G", require("_G") == _G, package.loaded._G == _G)
  local ok, e = pcall(require, "sem_no_such_module")
  say(w, "missing", ok, (tostring(e):match("^[^\n]*")))

  local co = coroutine.wrap(function()
    coroutine.yield(con:query("SELECT 40+2"):fetch_row()[1])
    ffi.C.usleep(1000)
    return "after", coroutine.running() ~= nil, coroutine.isyieldable()
  end)
  say(w, "co query", co())
  say(w, "co then", co())
  local outer = coroutine.wrap(function()
    return coroutine.wrap(function() return con:query_row("SELECT 7*6") end)()
  end)
  say(w, "nested", outer())
  say(w, "main thread", coroutine.running(), coroutine.isyieldable())
  say(w, "yield outside", pcall(coroutine.yield, 1))

  say(w, "dofile", pcall(dofile, "sem_missing_file.lua"))
  say(w, "ffi", pcall(function() return ffi.C.sem_no_such_symbol end))
  say(w, "options", sem_rows, type(sem_rows), threads)
  -- a statement that returns no rows still returns a result set (only
  -- its type and name: sysbench crashes on reading its fields)
  local st = con:prepare("DO 1")
  say(w, "no rows", type(con:query("SET @sem_x = 1")), tostring(con:query("DO 1")),
    tostring(st:execute()), type(con:query("SELECT 1 FROM DUAL WHERE 0")))
  st:close()
  local o = sysbench.opt
  say(w, "opt", type(o.mysql_host), o.mysql_host[1], type(o.mysql_port), type(o.mysql_ignore_errors),
    o.rand_spec_iter, o.rand_spec_pct, o.rand_spec_res, o.rand_pareto_h, type(mysql_host))
end

function event()
  ffi.C.usleep(10000)
end
