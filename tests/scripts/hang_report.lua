-- A report hook that never returns (tests/script_runs.rs): the run goes
-- on, the hook is stopped after its limit and the hooks are turned off.
local con

function thread_init()
  con = sysbench.sql.driver():connect()
end

function event()
  con:query("SELECT 1")
end

sysbench.hooks.report_intermediate = function(stat)
  local x = 0
  while true do x = x + 1 end
end
