-- qpslab's side of the sysbench 1.0 script API, in Lua: the `sysbench`
-- table a script sees. Every database call yields a request to qpslab's
-- executor (the coroutine is resumed with its result), so one OS thread runs
-- many connections. Random numbers and row values come from Rust (`Q`).
--
-- Requests yielded: (1, stmt index, binds) execute; (2, sql) query;
-- (3, sql) prepare; (4, stmt index) close; (5) reconnect; (6, seconds)
-- sleep; (0) done.
-- Resumed with (true, has_rows, n, nfields) or (false, errno, sqlstate,
-- message, ignored); a prepare with (true, index).

local Q = ...
local yield, setmetatable, type, error = coroutine.yield, setmetatable, type, error
local tostring, select, concat = tostring, select, table.concat

local EXEC, QUERY, PREPARE, CLOSE, RECONNECT, SLEEP = 1, 2, 3, 4, 5, 6

local sb = sysbench
sb.error = { NONE = 0, RESTART_EVENT = 1, FATAL = 2 }
sb.sql.error = { NONE = 0, IGNORABLE = 1, FATAL = 2 }
sb.sql.type = {
  NONE = 0, INT = 1, TINYINT = 2, SMALLINT = 3, BIGINT = 4, FLOAT = 5,
  DOUBLE = 6, TIME = 7, DATE = 8, DATETIME = 9, TIMESTAMP = 10, CHAR = 11,
  VARCHAR = 12,
}
sb.cmdline.PARALLEL_COMMAND = true
sb.rand = Q.rand
-- sysbench 0.5's names, which 1.0 still offers (oltp_common.lua uses sb_rand).
sb_rand = sb.rand.default
sb_rand_uniform = sb.rand.uniform
sb_rand_gaussian = sb.rand.gaussian
sb_rand_special = sb.rand.special
sb_rand_str = sb.rand.string
sb_rand_uniq = sb.rand.unique
sb_rand_varstr = sb.rand.varstring

-- The error a failed statement raises (sysbench's sql_error): a table a
-- script can catch with pcall, or that restarts the event when ignored.
local sql_error_mt = {
  __tostring = function(e)
    return string.format("SQL error, errno = %d, state = '%s': %s (query: %s)",
      e.sql_errno, e.sql_state, e.sql_errmsg, tostring(e.query))
  end,
}

local function raise(con, sql, errno, state, msg, ignored)
  error(setmetatable({
    errcode = ignored and sb.error.RESTART_EVENT or sb.error.FATAL,
    sql_errno = errno, sql_state = state, sql_errmsg = msg,
    connection = con, query = sql,
  }, sql_error_mt), 0)
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
local rs_methods = {}
local rs_mt = strict("rs", rs_methods)

local result_gen = 0

function rs_methods.fetch_row(rs)
  local i = rs.pos
  if i >= rs.nrows then return nil end
  rs.pos = i + 1
  if rs.gen == 0 then
    error("fetch_row on a prepared statement's result: qpslab counts those rows "
      .. "without reading them (rs.nrows is set); use con:query() to read rows", 2)
  end
  if rs.gen ~= result_gen then
    error("result set read after the next query of its connection: qpslab keeps "
      .. "the latest result of each connection only; read it first", 2)
  end
  return Q.row(i)
end

function rs_methods.free(rs)
  rs.nrows = 0
end

-- The result of a query (rows readable) or of a prepared statement's
-- execution (rows counted only).
local function result(readable, con, sql, ok, a, b, c, d)
  if not ok then raise(con, sql, a, b, c, d) end
  if not a then return nil end
  local gen = 0
  if readable then
    result_gen = result_gen + 1
    gen = result_gen
  end
  return setmetatable({ nrows = b, nfields = c, pos = 0, gen = gen }, rs_mt)
end

-- Statements and their parameters -----------------------------------------
local param_methods = {}
local param_mt = strict("param", param_methods)

function param_methods.set(p, v)
  p.v = v
end

function param_methods.set_rand_str(p, fmt)
  p.v = Q.rand.string(fmt)
end

local stmt_methods = {}
local stmt_mt = strict("stmt", stmt_methods)

function stmt_methods.bind_create(stmt, ty, len)
  if type(ty) ~= "number" then
    error("bind_create: the type must be one of sysbench.sql.type", 2)
  end
  return setmetatable({ t = ty, len = len }, param_mt)
end

function stmt_methods.bind_param(stmt, ...)
  local n = select("#", ...)
  local b = {}
  for i = 1, n do b[i] = select(i, ...) end
  stmt.binds = b
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
-- script runs; connect after disconnect opens a fresh one.
local drv_methods = {}
local drv_mt = strict("drv", drv_methods)
local the_con

function drv_methods.connect(drv)
  if the_con == nil then
    the_con = setmetatable({ open = true }, con_mt)
    return the_con
  end
  if the_con.open then
    unsupported("drv:connect() for a second connection in one thread")
  end
  con_methods.reconnect(the_con)
  return the_con
end

function drv_methods.name(drv)
  return "mysql"
end

function sb.sql.driver(name)
  if name ~= nil and name ~= "mysql" then
    error("sysbench.sql.driver('" .. tostring(name) .. "'): qpslab drives MySQL and MariaDB only", 2)
  end
  return setmetatable({}, drv_mt)
end

-- qpslab's own additions, under their own name so that a script can test
-- for them (`if sysbench.qpslab then ... end`) and still run on sysbench.
sb.qpslab = {
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

function sb.report_default(stat)
  local s, tps, qps = rates(stat)
  print(string.format("[ %.0fs ] thds: %d tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f) "
      .. "lat (ms,%s%%): %.2f err/s: %.2f reconn/s: %.2f",
    stat.time_total, stat.threads_running, tps, qps, stat.reads / s,
    stat.writes / s, stat.other / s, tostring(sb.opt.percentile or 95),
    stat.latency_pct * 1000, stat.errors / s, stat.reconnects / s))
end

function sb.report_csv(stat)
  local s, tps, qps = rates(stat)
  print(string.format("%.0f,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f",
    stat.time_total, stat.threads_running, tps, qps, stat.reads / s,
    stat.writes / s, stat.other / s, stat.latency_pct * 1000,
    stat.errors / s, stat.reconnects / s))
end

function sb.report_json(stat)
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
  if type(e) == "table" and e.errcode == sb.error.RESTART_EVENT then
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
local function run_event(event, tid)
  while true do
    local ok, err = xpcall(event, handler, tid)
    if ok then return end
    if type(err) ~= "table" then error(err, 0) end
    local hook = sb.hooks.before_restart_event
    if hook then Phases.guarded(hook, err) end
  end
end

function Phases.events(tid)
  local event = event
  if type(event) ~= "function" then
    error("the script defines no event() function, which `run` executes", 0)
  end
  while true do
    run_event(event, tid)
    yield(0)
  end
end

return Phases
