-- Hangs on purpose (tests/script_runs.rs): thread_init() loops forever
-- without yielding, after saying so on stderr.
function thread_init()
  io.stderr:write("hang_init: looping\n")
  local x = 0
  while true do x = x + 1 end
end

function event()
end
