-- A script's own collector settings made while it is set up stay in force
-- once its events begin (state.rs's set-up pause does not override them):
-- connection 0 sets a pause of its own, connection 1 stops the collector.
function thread_init()
  if sysbench.tid == 0 then
    collectgarbage("setpause", 150)
  else
    collectgarbage("stop")
  end
  con = sysbench.sql.driver():connect()
end

local told = false
function event()
  if not told then
    local p = collectgarbage("setpause", 0)
    collectgarbage("setpause", p)
    print("events pause " .. p .. ", running " .. tostring(collectgarbage("isrunning")))
    told = true
  end
  con:query("SELECT 1")
end
