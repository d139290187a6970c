-- Errors a script raises where sysbench catches them, selected by --where:
-- in prepare, thread_init, the event (a plain error, a table, a SQL error;
-- sql_once fails the first event only, so that --mysql-ignore-errors lets
-- the run end: sysbench retries an ignored error's event forever).
sysbench.hooks.before_restart_event = function(err)
  print("before_restart_event", err.sql_errno, err.sql_state, err.query)
end
sysbench.cmdline.options = { where = {"where to fail", "event"} }
function thread_init()
  if sysbench.opt.where == "thread_init" then error("failing in thread_init") end
  con = sysbench.sql.driver():connect()
end
function event()
  if sysbench.opt.where == "event" then error("failing in event") end
  if sysbench.opt.where == "sql" then con:query("SELECT * FROM diff_no_such_table") end
  if sysbench.opt.where == "table" then error({a = 1}) end
  if sysbench.opt.where == "sql_once" and not failed_once then
    failed_once = true
    con:query("SELECT * FROM diff_no_such_table")
  end
end
function prepare()
  if sysbench.opt.where == "prepare" then error("failing in prepare") end
  print("prepare ok")
end
