-- A script's prepares go out in batches under qpslab, one at a time
-- under sysbench: each prepared statement runs what it was prepared
-- with, whatever was refused between them, and a refused one raises the
-- same error, caught where sysbench's is (pcall and xpcall, at the line
-- that prepared it). Lines starting with "pb " are compared.

local function say(what, ok, e)
  print("pb " .. sysbench.tid .. " " .. what .. " " .. tostring(ok) .. " " .. tostring(e))
end

-- (a Lua function between pcall and the prepare: its line is the error's)
local function prep(sql)
  return con:prepare(sql)
end

local function insert(v)
  return con:prepare(string.format("INSERT INTO pb_t VALUES (%d, %d)", sysbench.tid, v))
end

local function values()
  return con:query_row("SELECT GROUP_CONCAT(v ORDER BY v) FROM pb_t WHERE tid = " .. sysbench.tid)
end

function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
  con:query("CREATE TABLE IF NOT EXISTS pb_t (tid INT, v INT)")
  con:query("DELETE FROM pb_t WHERE tid = " .. sysbench.tid)
  local one = insert(1)
  -- refused with no error before it on the connection: an API error, at
  -- no line (pcall called prepare itself) or at prep's
  say("caught", pcall(con.prepare, con, "SELECT * FROM pb_missing"))
  say("caught", pcall(prep, "SELEC nonsense"))
  local two = insert(2)
  local ok, e = xpcall(prep, function(m) return "handled: " .. tostring(m) end, "SELECT nope FROM")
  say("xpcall", ok, e)
  local three = insert(3)
  one:execute()
  two:execute()
  three:execute()
  say("values", values())
  -- an error on the connection before the refused prepare: its number
  say("query", pcall(con.query, con, "SELECT * FROM pb_missing"))
  say("caught", pcall(prep, "SELECT * FROM pb_missing"))
  -- the script's own coroutines: a refused prepare is the coroutine's
  -- error when it returns or yields
  say("resume", coroutine.resume(coroutine.create(function()
    return con:prepare("SELECT * FROM pb_missing")
  end)))
  say("resume", coroutine.resume(coroutine.create(function()
    local s = con:prepare("SELECT * FROM pb_missing WHERE y = 1")
    coroutine.yield("yielded")
  end)))
  local f = coroutine.wrap(function()
    local s = insert(5)
    coroutine.yield("yielded")
    s:execute()
    return "returned"
  end)
  say("wrap", f(), f())
  -- a refused prepare before a resume is the caller's error, not the
  -- coroutine's
  say("before resume", pcall(function()
    local s = prep("SELECT * FROM pb_missing WHERE z = 1")
    return coroutine.resume(coroutine.create(function() return 1 end))
  end))
  -- prepared and never run, then closed
  local four = insert(4)
  four:close()
  say("values", values())
  con:query("DELETE FROM pb_t WHERE tid = " .. sysbench.tid .. " AND v = 5")
end

function event()
  con:query("SELECT 1")
end

function thread_done()
  -- the last call of the phase: nothing after it would send the batch
  local ok, e = pcall(function()
    last = prep("SELECT * FROM pb_missing WHERE x = ?")
  end)
  say("done", ok, e)
  con:query("DELETE FROM pb_t WHERE tid = " .. sysbench.tid)
end
