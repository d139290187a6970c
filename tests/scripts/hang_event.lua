-- Hangs on purpose (tests/script_runs.rs): after --good events of one
-- query each, event() loops forever without yielding; it says so first on
-- stdout (the signal tests wait for that line). With --pcall the loop is
-- retried inside pcall, as a script that swallows errors would.
sysbench.cmdline.options = {
  good = {"events that complete before the loop", 20},
  pcall = {"retry the loop inside pcall", false},
}
local n = 0
local con

function thread_init()
  con = sysbench.sql.driver():connect()
end

local function spin()
  local x = 0
  while true do x = x + 1 end
end

function event()
  n = n + 1
  if n > sysbench.opt.good then
    io.stderr:write("hang_event: looping\n")
    if sysbench.opt.pcall then
      while true do pcall(spin) end
    end
    spin()
  end
  con:query("SELECT 1")
end
