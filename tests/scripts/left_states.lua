-- What a one-shot run's connections see of their states' collector and of
-- the process's exit, which is left to free the states (state.rs): the
-- pause during set-up and during events, and a file written in events and
-- never closed, whose lines reach the disk all the same.
sysbench.cmdline.options = { out = { "file to append each event's line to", "" } }

local f

function thread_init()
  local p = collectgarbage("setpause", 0)
  collectgarbage("setpause", p)
  print("set-up pause " .. p)
  f = assert(io.open(sysbench.opt.out, "a"))
  con = sysbench.sql.driver():connect()
end

local told = false
function event()
  if not told then
    local p = collectgarbage("setpause", 0)
    collectgarbage("setpause", p)
    print("events pause " .. p)
    told = true
  end
  f:write("event of connection ", sysbench.tid, "\n")
  con:query("SELECT 1")
end
