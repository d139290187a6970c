-- sysbench.sql as sysbench 1.0.20 behaves, over qpslab's executor: the
-- driver, connections and result sets (cdata, as sysbench's are), prepared
-- statements and their parameters, bulk inserts, the errors a failed
-- statement raises, the log lines sysbench's driver prints. Loaded by
-- prelude.lua once per Lua state; owns nothing outside this API (the
-- phases, environments and FFI surface are the prelude's).
--
-- Every database call yields a request to qpslab's executor (codes in
-- `R`); it is resumed with (true, has_rows, n, nfields) or (false, errno,
-- sqlstate, message, ignored). Prepares go out in batches (see queue): a
-- batch is resumed with (true, first index) or (false, errno, sqlstate,
-- message, ignored, which, first index).

local R, Q, log, rand = ...
local setmetatable, type, error = setmetatable, type, error
-- (the prelude's: every request goes out through it)
local yield = R.request
local tostring, select, concat, unpack = tostring, select, table.concat, unpack
local ffi = require("ffi")

local ERR = { NONE = 0, RESTART_EVENT = 1, FATAL = 2 }
local SQL_ERR = { NONE = 0, IGNORABLE = 1, FATAL = 2 }
-- sysbench's sql_bind_type_t.
local TYPES = {
  NONE = 0, TINYINT = 1, SMALLINT = 2, INT = 3, BIGINT = 4, FLOAT = 5,
  DOUBLE = 6, TIME = 7, DATE = 8, DATETIME = 9, TIMESTAMP = 10, CHAR = 11,
  VARCHAR = 12,
}

-- Connections and result sets are cdata, as in sysbench (scripts test
-- `type(x) == "cdata"`); what qpslab keeps of a connection beyond its
-- struct is in SIDE, by the connection's slot.
ffi.cdef[[
typedef struct { uint32_t slot; bool open; } qpslab_sql_connection;
typedef struct {
  uint32_t nrows; uint32_t nfields; uint32_t pos; uint32_t slot; bool readable;
} qpslab_sql_result;
]]
local SIDE = {}

local function unsupported(what)
  error("sysbench API " .. what .. " is not supported by qpslab", 3)
end

-- A method sysbench has and qpslab does not fails with its name.
local function strict(name, methods)
  return setmetatable(methods, { __index = function(_, k)
    unsupported(name .. ":" .. tostring(k) .. "()")
  end })
end

-- "SQL API error" (a closed connection, a failed prepare with no error
-- before it), at the level of the script's call: called in tail position.
local function api_error()
  error("SQL API error", 3)
end

-- A failed statement: an ignored one (--mysql-ignore-errors, or
-- sysbench.hooks.sql_error_ignorable saying so) raises an error object
-- that restarts the event; any other is logged as sysbench's driver logs
-- it and raised as a message at the script's call (level 3: past this
-- function and the API method that tail-called it).
local function raise(con, sql, errno, state, msg, ignored)
  local side = SIDE[con.slot]
  local desc = {
    connection = con, query = sql, sql_errno = errno, sql_state = state, sql_errmsg = msg,
  }
  if not ignored then
    log(0, string.format("mysql_drv_query() returned error %d (%s) for query '%s'",
      errno, msg, tostring(sql)))
    local hook = side.sb.hooks.sql_error_ignorable
    ignored = type(hook) == "function" and hook(desc)
  end
  if ignored then
    desc.errcode = ERR.RESTART_EVENT
    error(desc, 3)
  end
  error(string.format("SQL error, errno = %d, state = '%s': %s", errno, state, msg), 3)
end

-- Result sets -------------------------------------------------------------
-- A connection's result set is one object, reused by each statement that
-- returns rows: it describes the latest result. A prepared statement's
-- rows are counted, not read (nfields 0), as with sysbench's server-side
-- statements; --db-ps-mode=disable reads them.
local rs_methods = strict("rs", {})
ffi.metatype("qpslab_sql_result", {
  __index = rs_methods,
  __tostring = function() return "<sql_result>" end,
})
local RESULT = ffi.typeof("qpslab_sql_result")

-- What a statement without rows (an INSERT, a SET) returns: sysbench
-- 1.0.20 returns a NULL <sql_result> pointer, so `rs == nil` holds and
-- yet `if rs` and `assert(rs)` pass (a cdata is true). Reading one of its
-- fields crashes sysbench; here it is an error that says so.
ffi.cdef("typedef struct {} qpslab_sql_no_result;")
ffi.metatype("qpslab_sql_no_result", {
  __index = function(_, k)
    error("attempt to use the result of a statement that returns no rows ('"
      .. tostring(k) .. "'; sysbench 1.0.20 crashes here)", 2)
  end,
  __tostring = function() return "<sql_result>" end,
})
local NO_RESULT = ffi.cast("qpslab_sql_no_result *", nil)

function rs_methods.fetch_row(rs)
  if rs.nrows == 0 or rs.nfields == 0 then
    log(1, "attempt to fetch row from an empty result set")
    return nil
  end
  local i = rs.pos
  if i >= rs.nrows then return nil end
  rs.pos = i + 1
  return Q.row(rs.slot, i)
end

function rs_methods.free(rs)
  rs.nrows = 0
  return true
end

-- The result of a query (rows readable) or of a prepared statement.
local function result(readable, con, sql, ok, a, b, c, d)
  if not ok then raise(con, sql, a, b, c, d) end
  if not a then return NO_RESULT end
  local rs = SIDE[con.slot].rs
  rs.nrows, rs.pos, rs.readable = b, 0, readable
  rs.nfields = readable and c or 0
  return rs
end

-- Statements and their parameters -----------------------------------------
local param_methods = strict("param", {})
local param_mt = {
  __index = param_methods,
  __tostring = function() return "<sql_param>" end,
}

-- A parameter is { type, value, max_len }; its type is what sysbench
-- binds it as: BIGINT, DOUBLE or VARCHAR. Text longer than max_len is
-- cut, as sysbench's buffer cuts it.
-- A NULL value is Q.null (a light userdata qpslab binds as NULL), never
-- nil: a missing value would reach `strict`.
local NULL, VARCHAR = Q.null, TYPES.VARCHAR
function param_methods.set(p, v)
  if v == nil then
    v = NULL
  elseif p[1] == VARCHAR and type(v) == "string" and #v > p[3] then
    v = v:sub(1, p[3])
  end
  p[2] = v
end

function param_methods.set_rand_str(p, fmt)
  if p[1] ~= TYPES.VARCHAR then
    error("Unsupported argument type: " .. tostring(p[1]), 2)
  end
  param_methods.set(p, rand().string(fmt))
end

local stmt_methods = strict("stmt", {})
local stmt_mt = {
  __index = stmt_methods,
  __tostring = function() return "<sql_statement>" end,
}

local BIND_AS = {
  [TYPES.TINYINT] = TYPES.BIGINT, [TYPES.SMALLINT] = TYPES.BIGINT,
  [TYPES.INT] = TYPES.BIGINT, [TYPES.BIGINT] = TYPES.BIGINT,
  [TYPES.FLOAT] = TYPES.DOUBLE, [TYPES.DOUBLE] = TYPES.DOUBLE,
  [TYPES.CHAR] = TYPES.VARCHAR, [TYPES.VARCHAR] = TYPES.VARCHAR,
}

function stmt_methods.bind_create(stmt, ty, len)
  local as = BIND_AS[ty]
  if as == nil then
    error("Unsupported argument type: " .. tostring(ty), 2)
  end
  if as ~= TYPES.VARCHAR then len = 8 end
  return setmetatable({ as, NULL, len }, param_mt)
end

-- A statement is a list (no hash part: a connection holds dozens, and a
-- shard a thousand connections): its connection, its index in qpslab,
-- the parameters bound (bind_param) past four and how many, their types
-- as one list until sent with the next execution (qpslab keeps them by
-- index from then on, so that an execution sends only the values: up to
-- four as the request's own, more in the one list VALS), whether it runs
-- as text (--db-ps-mode=disable), whether closed, the connection's result
-- set; then up to four parameters bound, in the statement itself (slots
-- 10-13: no list of its own, ~90 bytes a statement less). Never nil: a
-- missing field would reach `strict`.
-- Its SQL is slot 14. Its index is false until its batch was sent (see
-- queue).
local S_CON, S_ID, S_BINDS, S_NB, S_TYPES, S_VALS, S_TEXT, S_CLOSED, S_RS = 1, 2, 3, 4, 5, 6, 7, 8, 9
local S_SQL = 14
-- (sql.lua's batch of prepares, below)
local prepared_index, flush_prepares, BATCH
-- No parameters, no types: one list for every statement, never written.
local NONE = {}

function stmt_methods.bind_param(stmt, ...)
  local n = select("#", ...)
  if n < 1 then return nil end
  local t = {}
  for i = 1, n do
    local p = select(i, ...)
    if type(p) ~= "table" then
      error("bind_param: argument " .. i .. " is not a parameter from bind_create()", 2)
    end
    t[i] = p[1]
  end
  if n <= 4 then
    local p1, p2, p3, p4 = ...
    stmt[10], stmt[11], stmt[12], stmt[13] = p1, p2 or false, p3 or false, p4 or false
    stmt[S_BINDS], stmt[S_VALS] = NONE, false
  else
    stmt[S_BINDS], stmt[S_VALS] = { ... }, {}
  end
  stmt[S_NB], stmt[S_TYPES] = n, t
  return 0
end

local EXEC = R.EXEC

-- The execution's request: the statement's index, its types when not
-- yet sent (else false), its parameters' values.
local function exec_request(stmt)
  local id = stmt[S_ID]
  if not id or BATCH.n > 0 then id = prepared_index(stmt) end
  local t = stmt[S_TYPES]
  if t then stmt[S_TYPES] = false end
  local n = stmt[S_NB]
  if n == 1 then return yield(EXEC, id, t, stmt[10][2]) end
  if n == 2 then return yield(EXEC, id, t, stmt[10][2], stmt[11][2]) end
  if n == 0 then return yield(EXEC, id, t) end
  if n == 3 then return yield(EXEC, id, t, stmt[10][2], stmt[11][2], stmt[12][2]) end
  if n == 4 then return yield(EXEC, id, t, stmt[10][2], stmt[11][2], stmt[12][2], stmt[13][2]) end
  local b, vals = stmt[S_BINDS], stmt[S_VALS]
  for i = 1, n do vals[i] = b[i][2] end
  return yield(EXEC, id, t, vals)
end

-- A statement's result (`result` for a statement: its result set is at
-- hand, not looked up through the connection's cdata).
local function stmt_result(stmt, ok, a, b, c, d)
  if not ok then raise(stmt[S_CON], "<prepared statement>", a, b, c, d) end
  if not a then return NO_RESULT end
  local rs, readable = stmt[S_RS], stmt[S_TEXT]
  rs.nrows, rs.pos, rs.readable = b, 0, readable
  rs.nfields = readable and c or 0
  return rs
end

function stmt_methods.execute(stmt)
  if stmt[S_CLOSED] then error("execute of a closed statement", 2) end
  return stmt_result(stmt, exec_request(stmt))
end

function stmt_methods.close(stmt)
  if not stmt[S_CLOSED] then
    -- (the batch is sent first; a statement never sent is not)
    local id = prepared_index(stmt, true)
    stmt[S_CLOSED] = true
    if id then yield(R.CLOSE, id) end
  end
  return 0
end

-- Connections -------------------------------------------------------------
local con_methods = strict("con", {})
ffi.metatype("qpslab_sql_connection", {
  __index = con_methods,
  __tostring = function() return "<sql_connection>" end,
})
local CONNECTION = ffi.typeof("qpslab_sql_connection")

function con_methods.query(con, sql)
  if BATCH.n > 0 then flush_prepares() end
  if not con.open then
    log(1, "attempt to use an already closed connection")
    return api_error()
  end
  return result(true, con, sql, yield(R.QUERY, sql))
end

-- A failed prepare, as sysbench's driver reports it: its own lines, then
-- the error number of the connection's last statement, `last`, with the
-- state and message its client library then holds (an API error when
-- that statement succeeded, or there was none).
-- `at`: where the script prepared it (Q.where_called's), for a prepare
-- sent in a batch after that line returned.
local function prepare_failed(con, sql, errno, _, msg, at, last)
  log(0, "mysql_stmt_prepare() failed")
  log(0, string.format('MySQL error: %d "%s"', errno, msg))
  if (last or 0) == 0 then
    -- (luaL_where's words for the script's line)
    if at then error(at .. "SQL API error", 0) end
    return api_error()
  end
  error(string.format("SQL error, errno = %d, state = '00000': ", last), 2)
end

-- A connection's prepares go out in one batch (the executor's pipelined
-- prepare): con:prepare returns its statement at once, and the batch is
-- sent before the connection's next request of any other kind, at the end
-- of its event or phase, before its script's pcall, xpcall or own
-- coroutine returns or yields (prelude.lua), whichever comes first: one
-- round trip for thread_init's dozens of statements, not one each. The
-- statements take their indexes when the batch is answered (qpslab's:
-- from the first it says); a refused one takes its index too, closed. A
-- statement the server refuses raises its error then, in the words and at
-- the position (the script's line that prepared it) that a prepare waiting
-- for its answer raises. One batch a state: only the running connection
-- can have one, as it is sent before the connection waits (a batch sent
-- is its own: its lists are the flush's, the next batch has new ones). A
-- step that fails leaves its batch unsent, and qpslab drops it (`n` set
-- to 0: session.rs); its statements, never sent, are prepared at their
-- first execution.
BATCH = R.batch
BATCH.sql, BATCH.stmt, BATCH.at = {}, {}, {}
local PREPARE = R.PREPARE

local function new_stmt(con, sql)
  -- (no parameters: an empty list of types, sent with the first
  -- execution, replaces what qpslab kept for the index)
  return setmetatable({ con, false, NONE, 0, NONE, false, Q.ps_disabled == true, false,
    SIDE[con.slot].rs, false, false, false, false, sql }, stmt_mt)
end

-- Adds statement `st` (of `sql`, prepared at `at`) to the running
-- connection's batch.
local function queue_stmt(con, st, sql, at)
  local n = BATCH.n
  -- (a batch of another connection's was never sent: the call that made
  -- it could not wait)
  if n > 0 and BATCH.con.slot ~= con.slot then
    n, BATCH.sql, BATCH.stmt, BATCH.at = 0, {}, {}, {}
  end
  n = n + 1
  BATCH.n, BATCH.con = n, con
  BATCH.sql[n], BATCH.stmt[n], BATCH.at[n] = sql, st, at
  return st
end

local function queue(con, sql, at)
  return queue_stmt(con, new_stmt(con, sql), sql, at)
end

local refused

-- Sends the running connection's batch, if it has one, and raises the
-- error of the first statement the server refused (it and the batch's
-- statements after it are closed: under sysbench, none of them was made).
function flush_prepares()
  local n = BATCH.n
  if n == 0 then return end
  local con, sqls, stmts, ats = BATCH.con, BATCH.sql, BATCH.stmt, BATCH.at
  BATCH.n, BATCH.con, BATCH.sql, BATCH.stmt, BATCH.at = 0, false, {}, {}, {}
  local ok, a, _, c, _, which, base, last = yield(PREPARE, sqls, n)
  if ok then base = a end
  for i = 1, n do stmts[i][S_ID] = base + i - 1 end
  if not ok then
    for i = which, n do stmts[i][S_CLOSED] = true end
    refused(con, sqls[which], ats[which], a, c, last)
  end
end

-- The index of `stmt`, whose batch is sent now if it was not; one never
-- sent (its step failed, or its connection was lost) is prepared now
-- unless `closing`.
function prepared_index(stmt, closing)
  if BATCH.n > 0 then flush_prepares() end
  local id = stmt[S_ID]
  if id or closing then return id end
  queue_stmt(stmt[S_CON], stmt, stmt[S_SQL], nil)
  flush_prepares()
  return stmt[S_ID]
end

-- prepare and query_row raise from the lines sysbench's do (its errors
-- name them: [string "sysbench.sql.lua"]:291 and :300); a refused prepare
-- of a batch raises from 291 too.
local positioned = assert(load(string.rep("\n", 289) .. [[
local query, prepare_failed, queue, flush, where_called, running, unpack = ...
local function prepare(con, sql) local st = queue(con, sql, where_called()) if running() == nil then flush() end return st end local function refused(con, sql, at, errno, msg, last) prepare_failed(con, sql, errno, nil, msg, at, last) end








local function query_row(con, sql) local rs = query(con, sql) if rs == nil or rs.nrows == 0 then return nil end return unpack(rs:fetch_row(), 1, rs.nfields) end
return prepare, query_row, refused
]], "sysbench.sql.lua"))
con_methods.prepare, con_methods.query_row, refused =
  positioned(con_methods.query, prepare_failed, queue, flush_prepares, Q.where_called, coroutine.running, unpack)

-- Rows are sent in multi-row INSERTs of at most this many bytes.
local BULK_BYTES = 512 * 1024

function con_methods.bulk_insert_init(con, sql)
  SIDE[con.slot].bulk = { head = sql, rows = {}, n = 0, bytes = #sql }
  return true, "db_bulk_insert_init() failed"
end

local function flush(con)
  local b = SIDE[con.slot].bulk
  if b.n > 0 then
    local sql = b.head .. concat(b.rows, ",", 1, b.n)
    b.n, b.bytes = 0, #b.head
    con_methods.query(con, sql)
  end
end

function con_methods.bulk_insert_next(con, values)
  local b = SIDE[con.slot].bulk
  if b == nil then error("bulk_insert_next before bulk_insert_init", 2) end
  if b.bytes + #values + 1 > BULK_BYTES then flush(con) end
  b.n = b.n + 1
  b.rows[b.n] = values
  b.bytes = b.bytes + #values + 1
  return true, "db_bulk_insert_next() failed"
end

function con_methods.bulk_insert_done(con)
  local side = SIDE[con.slot]
  if side.bulk ~= nil then
    flush(con)
    side.bulk = nil
  end
  return true, "db_bulk_insert_done() failed"
end

function con_methods.disconnect(con)
  con_methods.bulk_insert_done(con)
  con.open = false
  return true
end

function con_methods.reconnect(con)
  if BATCH.n > 0 then flush_prepares() end
  yield(R.RECONNECT)
  con.open = true
  return true
end

-- The driver: one connection per thread, opened by qpslab before the
-- script runs; connect after disconnect opens a fresh one. `slot` is the
-- connection's place for the rows of its results (Q.row); `sb` the
-- environment's sysbench table (its hooks).
local drv_methods = strict("drv", {})
local drv_mt = {
  __index = drv_methods,
  __tostring = function() return "<sql_driver>" end,
}

function drv_methods.connect(drv)
  local env = drv.env
  local con = env.con
  if con == nil then
    con = CONNECTION(env.slot, true)
    SIDE[env.slot] = { rs = RESULT(0, 0, 0, env.slot, false), sb = env.sb }
    env.con = con
    return con
  end
  if con.open then
    unsupported("drv:connect() for a second connection in one thread")
  end
  con_methods.reconnect(con)
  return con
end

function drv_methods.name()
  return "mysql"
end

local function driver_for(slot, sb)
  local env = { slot = slot, sb = sb }
  return function(name)
    if name ~= nil and name ~= "mysql" then
      error("sysbench.sql.driver('" .. tostring(name) .. "'): qpslab drives MySQL and MariaDB only", 2)
    end
    Q.sql_used()
    return setmetatable({ env = env }, drv_mt)
  end
end

return {
  ERR = ERR, SQL_ERR = SQL_ERR, TYPES = TYPES, driver_for = driver_for,
  con_methods = con_methods, stmt_methods = stmt_methods,
  flush_prepares = flush_prepares,
}
