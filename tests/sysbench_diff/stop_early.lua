-- An event that returns a value other than nil/false ends its thread's
-- events, and is not counted as an event (its query is); the thread's
-- tear-down still runs.
local n = 0

function thread_init()
  con = sysbench.sql.driver():connect()
end

function event()
  n = n + 1
  con:query("SELECT " .. n)
  if n == 3 then return true end
end

function thread_done()
  io.write("thread ", sysbench.tid, " done after ", n, " events\n")
  con:disconnect()
end
