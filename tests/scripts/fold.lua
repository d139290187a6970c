-- qpslab's test of an event's end said with the next event's first request
-- (tests/script_runs.rs): each event first inserts one row through a
-- statement of six parameters (every bound type, a text cut to its
-- length, a NULL: the values sent as one list), then runs a statement of
-- two; so fold_t holds one row per event qpslab ran, and thread_done
-- records how many events this connection's Lua began. With
-- --noreq-at=N the Nth event makes no request.

sysbench.cmdline.options = {
  noreq_at = {"the event (per connection) that makes no request; 0: none", 0},
}

local function connect()
  return sysbench.sql.driver():connect()
end

function prepare()
  local con = connect()
  con:query("CREATE TABLE fold_t (tid INT, n INT, i BIGINT, d DOUBLE, s VARCHAR(20), z INT NULL, "
    .. "PRIMARY KEY (tid, n))")
  con:query("CREATE TABLE fold_seen (tid INT PRIMARY KEY, n INT)")
end

function cleanup()
  local con = connect()
  con:query("DROP TABLE IF EXISTS fold_t")
  con:query("DROP TABLE IF EXISTS fold_seen")
end

local T = sysbench.sql.type

function thread_init()
  con = connect()
  ins = con:prepare("INSERT INTO fold_t (tid, n, i, d, s, z) VALUES (?, ?, ?, ?, ?, ?)")
  p = {
    ins:bind_create(T.INT), ins:bind_create(T.INT), ins:bind_create(T.BIGINT),
    ins:bind_create(T.DOUBLE), ins:bind_create(T.VARCHAR, 8), ins:bind_create(T.INT),
  }
  ins:bind_param(unpack(p))
  sel = con:prepare("SELECT ? + ?")
  a, b = sel:bind_create(T.INT), sel:bind_create(T.INT)
  sel:bind_param(a, b)
  n = 0
end

function event()
  n = n + 1
  if n == sysbench.opt.noreq_at then return end
  p[1]:set(sysbench.tid)
  p[2]:set(n)
  p[3]:set(n * 1000000007)
  p[4]:set(n + 0.5)
  p[5]:set("s" .. n .. "-too-long")
  p[6]:set(nil)
  ins:execute()
  a:set(n)
  b:set(1)
  sel:execute()
end

function thread_done()
  con:query(string.format("INSERT INTO fold_seen VALUES (%d, %d)", sysbench.tid, n))
end
