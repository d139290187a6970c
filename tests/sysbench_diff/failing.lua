-- Errors a script raises where sysbench catches them: in the event (a plain
-- error, a SQL error), selected by --where.
sysbench.cmdline.options = { where = {"where to fail", "event"} }
function thread_init()
  if sysbench.opt.where == "thread_init" then error("failing in thread_init") end
  con = sysbench.sql.driver():connect()
end
function event()
  if sysbench.opt.where == "event" then error("failing in event") end
  if sysbench.opt.where == "sql" then con:query("SELECT * FROM diff_no_such_table") end
  if sysbench.opt.where == "table" then error({a = 1}) end
end
function prepare()
  if sysbench.opt.where == "prepare" then error("failing in prepare") end
  print("prepare ok")
end
