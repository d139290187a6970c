-- Every event fails on a missing table (tests/script_runs.rs): run with
-- --mysql-ignore-errors=1146, each one is started over inside the script,
-- as sysbench does, until the run's end.
local con

function thread_init()
  con = sysbench.sql.driver():connect()
end

function event()
  con:query("SELECT * FROM no_such_table")
end
