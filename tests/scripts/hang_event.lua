-- Hangs on purpose (tests/script_runs.rs): after --good events of one
-- query each, event() loops forever without yielding; it says so first on
-- stdout (the signal tests wait for that line). With --pcall the loop is
-- retried inside pcall, as a script that swallows errors would; with
-- --queries the loop runs queries (each one a yield to the load
-- generator); with --loop_in=thread_done, thread_done() loops instead.
sysbench.cmdline.options = {
  good = {"events that complete before the loop", 20},
  pcall = {"retry the loop inside pcall", false},
  queries = {"loop over queries instead of a bare loop", false},
  loop_in = {"where to loop: event or thread_done", "event"},
}
local n = 0
local con

function thread_init()
  con = sysbench.sql.driver():connect()
end

local function spin()
  local x = 0
  if sysbench.opt.queries then
    while true do con:query("SELECT 1") end
  end
  while true do x = x + 1 end
end

function thread_done()
  if sysbench.opt.loop_in == "thread_done" then spin() end
end

function event()
  n = n + 1
  if n > sysbench.opt.good and sysbench.opt.loop_in == "event" then
    io.stderr:write("hang_event: looping\n")
    if sysbench.opt.pcall then
      while true do pcall(spin) end
    end
    spin()
  end
  con:query("SELECT 1")
end
