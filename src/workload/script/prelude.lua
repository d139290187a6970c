-- qpslab's side of the sysbench 1.0 script API, in Lua. One Lua state per
-- client shard holds this and the script compiled once; each connection
-- gets its own global environment (`new_env`: its own `sysbench` table,
-- connection and script globals), in which the script's chunk is run, so
-- scripts keep sysbench's one-state-per-thread semantics while the
-- bytecode, JIT traces and libraries are shared by the shard's
-- connections. Every database call yields a request to qpslab's executor
-- (the coroutine is resumed with its result), so one OS thread runs many
-- connections. Random numbers and row values come from Rust (`Q`).
--
-- Requests yielded: (1, stmt index, binds) execute; (2, sql) query;
-- (3, sql) prepare; (4, stmt index) close; (5) reconnect; (6, seconds)
-- sleep; (0) done.
-- Resumed with (true, has_rows, n, nfields) or (false, errno, sqlstate,
-- message, ignored); a prepare with (true, index).

local Q = ...
local yield, setmetatable, type, error = coroutine.yield, setmetatable, type, error
local tostring, select, concat, pairs = tostring, select, table.concat, pairs
local jit_off = jit and jit.off or function() end

local EXEC, QUERY, PREPARE, CLOSE, RECONNECT, SLEEP = 1, 2, 3, 4, 5, 6

local ERR = { NONE = 0, RESTART_EVENT = 1, FATAL = 2 }
local SQL_ERR = { NONE = 0, IGNORABLE = 1, FATAL = 2 }
local TYPES = {
  NONE = 0, INT = 1, TINYINT = 2, SMALLINT = 3, BIGINT = 4, FLOAT = 5,
  DOUBLE = 6, TIME = 7, DATE = 8, DATETIME = 9, TIMESTAMP = 10, CHAR = 11,
  VARCHAR = 12,
}
local RAND = Q.rand

-- The error a failed statement raises (sysbench's sql_error): a table a
-- script can catch with pcall, or that restarts the event when ignored.
local sql_error_mt = {
  __tostring = function(e)
    return string.format("SQL error, errno = %d, state = '%s': %s (query: %s)",
      e.sql_errno, e.sql_state, e.sql_errmsg, tostring(e.query))
  end,
}

-- sysbench's verbosity (sysbench mode passes it; 3 by default): its
-- driver logs a failed statement at the critical level, 1.
local VERBOSITY = tonumber(os.getenv("QPSLAB_SYSBENCH_VERBOSITY") or "") or 3

-- sysbench.cmdline.argv: the command line as sysbench mode was given it
-- (its words joined by \31), else qpslab's name alone.
local ARGV = { [0] = "qpslab" }
do
  local words = os.getenv("QPSLAB_SYSBENCH_ARGV")
  if words then
    local i = -1
    for w in (words .. "\31"):gmatch("(.-)\31") do
      ARGV[i + 1 > 0 and i + 1 or 0] = w
      i = i + 1
    end
  end
end

-- An ignored error restarts the event: an error object (errcode
-- RESTART_EVENT). Any other is fatal, as in sysbench: the driver logs it
-- and raises a message that names the script's line (level 3: past this
-- function and the API method that called it).
local function raise(con, sql, errno, state, msg, ignored)
  if ignored then
    error(setmetatable({
      errcode = ERR.RESTART_EVENT,
      sql_errno = errno, sql_state = state, sql_errmsg = msg,
      connection = con, query = sql,
    }, sql_error_mt), 0)
  end
  if VERBOSITY >= 1 then
    print(string.format("FATAL: mysql_drv_query() returned error %d (%s) for query '%s'",
      errno, msg, tostring(sql)))
  end
  error(string.format("SQL error, errno = %d, state = '%s': %s", errno, state, msg), 3)
end

local function unsupported(what)
  error("sysbench API " .. what .. " is not supported by qpslab", 3)
end

-- Objects find their methods through a metatable; a method sysbench has
-- and qpslab does not fails with its name. Optional fields of qpslab's own
-- are read with rawget.
local function strict(name, methods)
  setmetatable(methods, { __index = function(_, k)
    unsupported(name .. ":" .. tostring(k) .. "()")
  end })
  return { __index = methods }
end

-- Result sets -------------------------------------------------------------
-- As in sysbench, a connection's result set is one object, reused by each
-- statement that returns rows: it describes the latest result.
local rs_methods = {}
local rs_mt = strict("rs", rs_methods)
rs_mt.__tostring = function() return "<sql_result>" end

function rs_methods.fetch_row(rs)
  local i = rs.pos
  if i >= rs.nrows then return nil end
  rs.pos = i + 1
  if not rs.readable then
    error("fetch_row on a prepared statement's result: qpslab counts those rows "
      .. "without reading them (rs.nrows is set); use con:query() to read rows", 2)
  end
  return Q.row(rs.slot, i)
end

function rs_methods.free(rs)
  rs.nrows = 0
end

-- The result of a query (rows readable) or of a prepared statement's
-- execution (rows counted only).
local function result(readable, con, sql, ok, a, b, c, d)
  if not ok then raise(con, sql, a, b, c, d) end
  if not a then return nil end
  local rs = rawget(con, "rs")
  if rs == nil then
    rs = setmetatable({ slot = con.slot }, rs_mt)
    con.rs = rs
  end
  rs.nrows, rs.nfields, rs.pos, rs.readable = b, c, 0, readable
  return rs
end

-- Statements and their parameters -----------------------------------------
local param_methods = {}
local param_mt = strict("param", param_methods)

-- A parameter is { type, value } (read by qpslab at each execution).
function param_methods.set(p, v)
  p[2] = v
end

function param_methods.set_rand_str(p, fmt)
  p[2] = RAND.string(fmt)
end

local stmt_methods = {}
local stmt_mt = strict("stmt", stmt_methods)

function stmt_methods.bind_create(stmt, ty, len)
  if type(ty) ~= "number" then
    error("bind_create: the type must be one of sysbench.sql.type", 2)
  end
  return setmetatable({ ty, nil, len }, param_mt)
end

function stmt_methods.bind_param(stmt, ...)
  local n = select("#", ...)
  local b = {}
  for i = 1, n do b[i] = select(i, ...) end
  stmt.binds = b
  return 0
end

function stmt_methods.execute(stmt)
  if rawget(stmt, "closed") then error("execute of a closed statement", 2) end
  return result(false, stmt.con, stmt.sql, yield(EXEC, stmt.id, stmt.binds))
end

function stmt_methods.close(stmt)
  if not rawget(stmt, "closed") then
    stmt.closed = true
    yield(CLOSE, stmt.id)
  end
end

-- Connections -------------------------------------------------------------
local con_methods = {}
local con_mt = strict("con", con_methods)

function con_methods.query(con, sql)
  return result(true, con, sql, yield(QUERY, sql))
end

function con_methods.query_row(con, sql)
  local rs = con_methods.query(con, sql)
  if rs == nil or rs.nrows == 0 then return nil end
  local row = rs:fetch_row()
  return unpack(row, 1, rs.nfields)
end

function con_methods.prepare(con, sql)
  local ok, a, b, c, d = yield(PREPARE, sql)
  if not ok then raise(con, sql, a, b, c, d) end
  return setmetatable({ con = con, id = a, sql = sql, binds = {} }, stmt_mt)
end

-- Rows are sent in multi-row INSERTs of at most this many bytes.
local BULK_BYTES = 512 * 1024

function con_methods.bulk_insert_init(con, sql)
  con.bulk = { head = sql, rows = {}, n = 0, bytes = #sql }
end

local function flush(con)
  local b = rawget(con, "bulk")
  if b.n > 0 then
    local sql = b.head .. concat(b.rows, ",", 1, b.n)
    b.n, b.bytes = 0, #b.head
    con_methods.query(con, sql)
  end
end

function con_methods.bulk_insert_next(con, values)
  local b = rawget(con, "bulk")
  if b == nil then error("bulk_insert_next before bulk_insert_init", 2) end
  if b.bytes + #values + 1 > BULK_BYTES then flush(con) end
  b.n = b.n + 1
  b.rows[b.n] = values
  b.bytes = b.bytes + #values + 1
end

function con_methods.bulk_insert_done(con)
  if rawget(con, "bulk") ~= nil then
    flush(con)
    con.bulk = nil
  end
end

function con_methods.disconnect(con)
  con_methods.bulk_insert_done(con)
  con.open = false
end

function con_methods.reconnect(con)
  yield(RECONNECT)
  con.open = true
end

-- The driver: one connection per thread, opened by qpslab before the
-- script runs; connect after disconnect opens a fresh one. `slot` is the
-- connection's place for the rows of its results (Q.row).
local drv_methods = {}
local drv_mt = strict("drv", drv_methods)

function drv_methods.connect(drv)
  local con = drv.env.con
  if con == nil then
    con = setmetatable({ open = true, slot = drv.env.slot }, con_mt)
    drv.env.con = con
    return con
  end
  if con.open then
    unsupported("drv:connect() for a second connection in one thread")
  end
  con_methods.reconnect(con)
  return con
end

function drv_methods.name(drv)
  return "mysql"
end

local function driver_for(slot)
  local env = { slot = slot }
  return function(name)
    if name ~= nil and name ~= "mysql" then
      error("sysbench.sql.driver('" .. tostring(name) .. "'): qpslab drives MySQL and MariaDB only", 2)
    end
    Q.sql_used()
    return setmetatable({ env = env }, drv_mt)
  end
end

-- qpslab's own additions, under their own name so that a script can test
-- for them (`if sysbench.qpslab then ... end`) and still run on sysbench.
local QPSLAB = {
  -- Waits without blocking the other connections of the shard (an FFI
  -- usleep would block them all).
  sleep = function(seconds)
    yield(SLEEP, seconds)
  end,
}

-- Reports a script may install as hooks ------------------------------------
-- `stat` holds one interval (or the whole run): time_interval and
-- time_total (s), threads_running, events, reads, writes, other, errors,
-- reconnects, latency_pct (the --percentile latency, in seconds).
local function rates(stat)
  local s = stat.time_interval
  if s <= 0 then s = 1 end
  local q = stat.reads + stat.writes + stat.other
  return s, stat.events / s, q / s
end

local function report_default(stat)
  local s, tps, qps = rates(stat)
  print(string.format("[ %.0fs ] thds: %d tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f) "
      .. "lat (ms,%s%%): %.2f err/s: %.2f reconn/s: %.2f",
    stat.time_total, stat.threads_running, tps, qps, stat.reads / s,
    stat.writes / s, stat.other / s, tostring(Q.opt.percentile or 95),
    stat.latency_pct * 1000, stat.errors / s, stat.reconnects / s))
end

local function report_csv(stat)
  local s, tps, qps = rates(stat)
  print(string.format("%.0f,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f",
    stat.time_total, stat.threads_running, tps, qps, stat.reads / s,
    stat.writes / s, stat.other / s, stat.latency_pct * 1000,
    stat.errors / s, stat.reconnects / s))
end

local function report_json(stat)
  local s, tps, qps = rates(stat)
  print(string.format('{"time": %.0f, "threads": %d, "tps": %.2f, '
      .. '"qps": {"total": %.2f, "reads": %.2f, "writes": %.2f, "other": %.2f}, '
      .. '"latency": %.2f, "errors": %.2f, "reconnects": %.2f}',
    stat.time_total, stat.threads_running, tps, qps, stat.reads / s,
    stat.writes / s, stat.other / s, stat.latency_pct * 1000,
    stat.errors / s, stat.reconnects / s))
end

-- Phases the executor runs as coroutines ------------------------------------
local traceback = debug.traceback

local function handler(e)
  if type(e) == "table" and e.errcode == ERR.RESTART_EVENT then
    return e
  end
  return traceback(tostring(e), 2)
end

local Phases = {}

-- Calls `fn` and turns any error into its message with a traceback.
function Phases.guarded(fn, ...)
  local ok, err = xpcall(fn, handler, ...)
  if not ok then
    if type(err) == "table" then err = tostring(err) end
    error(err, 0)
  end
end

-- One event, started over after an ignored error as sysbench does.
local function run_event(event, tid, hooks)
  while true do
    local ok, err = xpcall(event, handler, tid)
    if ok then return end
    if type(err) ~= "table" then error(err, 0) end
    local hook = hooks.before_restart_event
    if hook then Phases.guarded(hook, err) end
  end
end

-- The events of connection `env`, one per resume cycle.
function Phases.events(env, tid)
  local event = rawget(env, "event")
  if type(event) ~= "function" then
    error("the script defines no event() function, which `run` executes", 0)
  end
  local hooks = env.sysbench.hooks
  while true do
    run_event(event, tid, hooks)
    -- sysbench's latency histogram draws its slot from the thread's
    -- generator after each event: the next event's numbers follow it
    RAND.uniform_uint64()
    yield(0)
  end
end

-- Environments -------------------------------------------------------------
local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

-- Modules a script requires, compiled once per state and run in each
-- environment that requires them (oltp_common.lua defines globals).
local compiled = {}

local function find_module(name)
  local file = name:gsub("%.", "/")
  for template in package.path:gmatch("[^;]+") do
    local path = template:gsub("%?", file)
    local f = io.open(path, "r")
    if f then
      f:close()
      return path
    end
  end
end

local function require_for(env)
  local loaded = {}
  return function(name)
    local done = loaded[name]
    if done ~= nil then return done end
    if package.loaded[name] ~= nil then return package.loaded[name] end
    local f = compiled[name]
    if f == nil then
      local path = find_module(name)
      if path == nil then
        error("module '" .. tostring(name) .. "' not found in " .. package.path, 2)
      end
      f = assert(loadfile(path))
      jit_off(f, true)
      compiled[name] = f
    end
    setfenv(f, env)
    local r = f(name)
    if r == nil then r = true end
    loaded[name] = r
    return r
  end
end

-- The script's code runs interpreted: LuaJIT calls no hook from compiled
-- code, and qpslab's hook is what stops a step that never yields (an
-- endless loop) at the run's end or on Ctrl-C. Every function a script
-- loads is so marked, as the script's own chunk is (state.rs).
local function nojit(loader)
  return function(...)
    local f, e = loader(...)
    if f then jit_off(f, true) end
    return f, e
  end
end

-- sysbench's FFI surface ----------------------------------------------------
-- sysbench declares its C types to LuaJIT's ffi and exports the functions
-- behind them; scripts (TPC-C implementations among them) cdef against
-- those types and call ffi.C.sb_counter_inc or ffi.C.usleep. The types
-- are declared here; `ffi.C` is a view that answers the waits from
-- qpslab (usleep and sleep wait without blocking the shard's other
-- connections, as sysbench.qpslab.sleep does) and everything else from C.
-- sb_counter_inc is accepted and not counted yet (docs/BENCHMARKS.md,
-- the differential corpus's differences).
local C_FFI = require("ffi")
C_FFI.cdef[[
typedef enum {
  SB_CNT_OTHER, SB_CNT_READ, SB_CNT_WRITE, SB_CNT_TRX, SB_CNT_ERROR,
  SB_CNT_RECONNECT, SB_CNT_MAX
} sb_counter_type;
]]
local FFI_OWN = {
  usleep = function(us) yield(SLEEP, tonumber(us) / 1e6); return 0 end,
  sleep = function(s) yield(SLEEP, tonumber(s)); return 0 end,
  sb_counter_inc = function() end,
}
local FFI = setmetatable({
  C = setmetatable({}, { __index = function(_, k)
    local own = FFI_OWN[k]
    if own ~= nil then return own end
    return C_FFI.C[k]
  end }),
}, { __index = C_FFI })
package.loaded.ffi = FFI
ffi = FFI

local GLOBALS = copy(_G)
GLOBALS.load, GLOBALS.loadstring = nojit(load), nojit(loadstring)
GLOBALS.loadfile = nojit(loadfile)
GLOBALS.dofile = function(path)
  local f = assert(GLOBALS.loadfile(path))
  return f()
end

-- A connection's environment: the libraries, its own `sysbench` table.
function Phases.new_env(tid, command, slot)
  local env = copy(GLOBALS)
  env._G = env
  local sb = {
    version = Q.version, version_string = Q.version_string,
    cmdline = {
      command = command, script_path = Q.script_path, options = {}, commands = {},
      argv = ARGV, PARALLEL_COMMAND = true,
    },
    opt = copy(Q.opt), hooks = {}, rand = RAND, error = ERR,
    sql = { type = TYPES, error = SQL_ERR, driver = driver_for(slot) },
    tid = tid, qpslab = QPSLAB,
    report_default = report_default, report_csv = report_csv, report_json = report_json,
  }
  env.sysbench = sb
  -- sysbench 0.5's names, which 1.0 still offers (oltp_common.lua uses
  -- sb_rand, bulk_insert.lua thread_id).
  env.thread_id = tid
  env.sb_rand, env.sb_rand_uniform = RAND.default, RAND.uniform
  env.sb_rand_gaussian, env.sb_rand_special = RAND.gaussian, RAND.special
  env.sb_rand_str = RAND.string
  env.sb_rand_uniq = function(a, b)
    a, b = a or 0, b or 4294967295
    local v
    repeat v = RAND.unique() until v >= a and v <= b
    return v
  end
  env.sb_rnd = function() return tonumber(RAND.uniform_uint64() % 4294967296) end
  env.require = require_for(env)
  return env
end

-- `fn` with its arguments bound: the body of a phase's coroutine.
function Phases.bind(fn, ...)
  local args, n = { ... }, select("#", ...)
  return function() return fn(unpack(args, 1, n)) end
end

-- Runs the script's chunk in `env` (defining its globals there).
function Phases.run_chunk(chunk, env)
  setfenv(chunk, env)
  chunk()
end

return Phases
