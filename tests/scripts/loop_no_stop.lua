-- A script's own thread_run() looping on sb_more_events without ever
-- calling sb_event_stop: qpslab ends each pass at the next sb_more_events
-- (so the run's --events and --time end it; it would otherwise never
-- return to qpslab between its queries).
local ffi = require("ffi")

function thread_init()
  con = sysbench.sql.driver():connect()
end

function event() end

function thread_run(tid)
  while ffi.C.sb_more_events(tid) do
    con:query("SELECT 1")
  end
end
