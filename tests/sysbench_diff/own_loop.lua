-- A script's own thread_run() looping as sysbench's does, on its FFI
-- event functions: each sb_event_stop ends a counted event, and the run's
-- --events ends the loop; a fixed --rand-seed draws sysbench's numbers.
local ffi = require("ffi")

function thread_init()
  con = sysbench.sql.driver():connect()
end

function event()
  con:query("SELECT 1")
  -- (after each sb_event_stop the stream is where sysbench's histogram
  -- draw leaves it)
  io.write("draw ", sysbench.rand.uniform(1, 1000000), "\n")
end

function thread_run(thread_id)
  while ffi.C.sb_more_events(thread_id) do
    ffi.C.sb_event_start(thread_id)
    event()
    con:query("SELECT 2")
    ffi.C.sb_event_stop(thread_id)
  end
end

function thread_done()
  io.write("thread ", sysbench.tid, " done\n")
  con:disconnect()
end
