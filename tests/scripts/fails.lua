-- Fails on purpose: a Lua error at event 5, or with --sql a query on a
-- missing table.
sysbench.cmdline.options = { sql = {"fail with an SQL error instead", false} }
local n = 0

function event()
  n = n + 1
  if n == 5 and not sysbench.opt.sql then
    error("bad value at event " .. n)
  end
  if sysbench.opt.sql then
    sysbench.sql.driver():connect():query("SELECT * FROM no_such_table")
  end
end
