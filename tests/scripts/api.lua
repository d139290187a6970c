-- qpslab's test of the sysbench script API (tests/script_runs.rs): every
-- function a script can call, checked with assert() in a custom command,
-- plus an event with prepared statements, text queries, an ignored error
-- that restarts the event, and report hooks.

sysbench.cmdline.options = {
  rows = {"rows in the test table", 20},
  label = {"a text option", "x"},
  csv = {"report intervals as CSV", false},
  dup_every = {"every Nth event inserts a duplicate key first", 0},
}

local function connect()
  local drv = sysbench.sql.driver()
  assert(drv:name() == "mysql")
  return drv, drv:connect()
end

-- sysbench 1.0's style: a global prepare(), run once.
function prepare()
  local _, con = connect()
  con:query("CREATE TABLE api_t (id INT PRIMARY KEY, k INT, c VARCHAR(100))")
  con:query("CREATE TABLE api_types (i INT, ti TINYINT, si SMALLINT, bi BIGINT, "
    .. "f FLOAT, d DOUBLE, ch CHAR(20), vc VARCHAR(50), n INT NULL)")
  con:query("CREATE TABLE api_cmd (tid INT PRIMARY KEY)")
  con:query("CREATE TABLE api_ev (id INT PRIMARY KEY)")
  con:bulk_insert_init("INSERT INTO api_t VALUES")
  for i = 1, sysbench.opt.rows do
    con:bulk_insert_next(string.format("(%d, %d, 'row%d')", i, i * 10, i))
  end
  con:bulk_insert_done()
  print("api prepared " .. sysbench.opt.rows)
end

function cleanup()
  local _, con = connect()
  for _, t in ipairs({"api_t", "api_types", "api_cmd", "api_ev"}) do
    con:query("DROP TABLE IF EXISTS " .. t)
  end
end

-- The statements the session of `con` closed, as the server counts them.
local function closes(con)
  return tonumber(select(2, con:query_row("SHOW SESSION STATUS LIKE 'Com_stmt_close'")))
end

local function selftest()
  local drv, con = connect()
  -- options and globals
  assert(sysbench.opt.rows == 20, "rows option")
  assert(sysbench.opt.label == "x", "text option")
  assert(sysbench.opt.csv == false, "boolean option")
  assert(type(sysbench.opt.threads) == "number", "built-in option")
  assert(type(sysbench.version) == "string" and sysbench.tid == 0)
  assert(sysbench.sql.type.INT and sysbench.sql.type.VARCHAR)
  -- result sets
  local rs = con:query("SELECT id, c FROM api_t ORDER BY id")
  assert(rs.nrows == 20 and rs.nfields == 2, "nrows/nfields")
  local n, row = 0, rs:fetch_row()
  assert(row[1] == "1" and row[2] == "row1", "first row")
  while row do n = n + 1; row = rs:fetch_row() end
  assert(n == 20, "fetched every row")
  rs:free()
  local count, top = con:query_row("SELECT COUNT(*), MAX(k) FROM api_t")
  assert(count == "20" and top == "200", "query_row")
  local null, one = con:query_row("SELECT NULL, 1")
  assert(null == nil and one == "1", "NULL is nil")
  assert(con:query("UPDATE api_t SET k = k WHERE id = 1") == nil, "no result set")
  -- prepared statements with every type
  local st = con:prepare("INSERT INTO api_types VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
  local T = sysbench.sql.type
  local p = {
    st:bind_create(T.INT), st:bind_create(T.TINYINT), st:bind_create(T.SMALLINT),
    st:bind_create(T.BIGINT), st:bind_create(T.FLOAT), st:bind_create(T.DOUBLE),
    st:bind_create(T.CHAR, 20), st:bind_create(T.VARCHAR, 50), st:bind_create(T.INT),
  }
  st:bind_param(unpack(p))
  p[1]:set(-7); p[2]:set(12); p[3]:set(3000); p[4]:set(5000000000)
  p[5]:set(1.5); p[6]:set(2.25); p[7]:set("it's"); p[8]:set_rand_str("###-@@@")
  p[9]:set(nil)
  st:execute()
  -- a statement closed is closed on the server before the connection's
  -- next statement runs (qpslab sends a close with the next command),
  -- however many are closed
  local closed = closes(con)
  st:close()
  assert(closes(con) == closed + 1, "one close before the next query")
  local many = {}
  for i = 1, 2500 do many[i] = con:prepare("SELECT " .. i) end
  for i = 1, 2500 do many[i]:close() end
  assert(closes(con) == closed + 2501, "2,500 closes before the next query")
  -- a reconnect prepares again the statements still open, not those closed
  con:reconnect()
  local prepared = select(2, con:query_row("SHOW SESSION STATUS LIKE 'Com_stmt_prepare'"))
  assert(prepared == "0", "statements closed were prepared again: " .. prepared)
  -- a close goes out in front of the next statement's execution too (the
  -- execution reads the count, after the close)
  local a = con:prepare("SELECT 1")
  local b = con:prepare("SET @closes = (SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS"
    .. " WHERE VARIABLE_NAME = 'COM_STMT_CLOSE')")
  a:execute()
  closed = closes(con)
  a:close()
  b:execute()
  local seen = tonumber(con:query_row("SELECT @closes"))
  assert(seen == closed + 1, "a close in front of an execution: " .. tostring(seen) .. ", not " .. closed + 1)
  b:close()
  assert(closes(con) == closed + 2, "closes in front of an execution")
  local i, ti, si, bi, f, d, ch, vc, nn = con:query_row("SELECT * FROM api_types")
  assert(i == "-7" and ti == "12" and si == "3000" and bi == "5000000000", "integers")
  assert(f == "1.5" and d == "2.25" and ch == "it's", "float, double, char")
  assert(vc:match("^%d%d%d%-%l%l%l$"), "set_rand_str: " .. vc)
  assert(nn == nil, "NULL parameter")
  -- a failed statement that is not ignored raises sysbench's message
  -- (its driver logs the statement first); a script can catch it
  local ok, err = pcall(con.query, con, "SELECT * FROM no_such_table")
  assert(not ok and type(err) == "string", "error raised")
  assert(err:find("SQL error, errno = 1146, state = '42S02'", 1, true), err)
  -- random numbers
  local R = sysbench.rand
  for _ = 1, 200 do
    for _, fn in ipairs({R.uniform, R.default, R.gaussian, R.special, R.pareto}) do
      local v = fn(5, 9)
      assert(v >= 5 and v <= 9 and v == math.floor(v), "in range")
    end
    local u = R.uniform_double()
    assert(u >= 0 and u < 1)
  end
  -- sysbench 1.0.20's API: no zipfian, no varstring
  assert(R.zipfian == nil and R.varstring == nil, "1.0.20's sysbench.rand")
  assert(R.string("ab#@"):match("^ab%d%l$"))
  assert(R.unique() ~= R.unique())
  -- disconnect, then connect again
  con:disconnect()
  con = drv:connect()
  assert(con:query_row("SELECT 41 + 1") == "42", "after reconnect")
  con:reconnect()
  assert(con:query_row("SELECT 2") == "2")
  print("selftest ok")
end

local function parallel()
  local _, con = connect()
  con:query("INSERT INTO api_cmd VALUES (" .. sysbench.tid .. ")")
end

sysbench.cmdline.commands = {
  selftest = {selftest},
  parallel = {parallel, sysbench.cmdline.PARALLEL_COMMAND},
}

-- The run ------------------------------------------------------------------
local events, restarts = 0, 0

function thread_init()
  drv, con = connect()
  point = con:prepare("SELECT c FROM api_t WHERE id = ?")
  id = point:bind_create(sysbench.sql.type.INT)
  point:bind_param(id)
end

function event()
  events = events + 1
  local every = sysbench.opt.dup_every
  if every > 0 and events % every == 0 and not retrying then
    retrying = true
    con:query("INSERT INTO api_ev VALUES (1) ON DUPLICATE KEY UPDATE id = id")
    con:query("INSERT INTO api_ev VALUES (1)")
  end
  retrying = false
  id:set(sysbench.rand.uniform(1, sysbench.opt.rows))
  point:execute()
  local c = con:query_row("SELECT c FROM api_t WHERE id = 1")
  assert(c == "row1")
end

function sysbench.hooks.before_restart_event(err)
  assert(err.sql_errno == 1062, "restarted by the duplicate key")
  restarts = restarts + 1
end

function thread_done()
  print(string.format("thread %d restarts %d", sysbench.tid, restarts))
  local closed = closes(con)
  point:close()
  assert(closes(con) == closed + 1, "a close before the next query")
  con:disconnect()
end

if sysbench.opt.csv then
  sysbench.hooks.report_intermediate = sysbench.report_csv
end

function sysbench.hooks.report_cumulative(stat)
  print(string.format("cumulative events %d", stat.events))
end
