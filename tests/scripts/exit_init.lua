-- Calls os.exit on purpose (tests/script_runs.rs): with --code, in the
-- step --where names (thread_init, event, thread_done or prepare); with
-- --where=thread_done_error, thread_done raises an error instead.
sysbench.cmdline.options = {
  code = {"the code passed to os.exit", 0},
  where = {"thread_init, event, thread_done or prepare", "thread_init"},
}

local function maybe_exit(where)
  if sysbench.opt.where == where then os.exit(sysbench.opt.code) end
end

function thread_init()
  maybe_exit("thread_init")
end

function thread_done()
  maybe_exit("thread_done")
  if sysbench.opt.where == "thread_done_error" then
    error("thread_done fails on purpose")
  end
end

local con
function event()
  maybe_exit("event")
  con = con or sysbench.sql.driver():connect()
  con:query("SELECT 1")
end

function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("CREATE TABLE exit_t (a INT)")
  maybe_exit("prepare")
  con:query("INSERT INTO exit_t VALUES (1)")
end
