-- Ctrl-C's wind-down (tests/script_runs.rs): after --good events it says
-- so on stderr ("looping", the word the signal tests wait for); each
-- connection's thread_done then makes a query and prints a line, and the
-- cumulative report hook prints one: both must still run after SIGINT.
sysbench.cmdline.options = {
  good = {"events before it says so", 20},
}
local n, con = 0, nil

function thread_init()
  con = sysbench.sql.driver():connect()
end

function event()
  n = n + 1
  if n == sysbench.opt.good then
    io.stderr:write("wind_down: looping\n")
  end
  con:query("SELECT 1")
end

function thread_done()
  con:query("SELECT 1")
  print("thread_done ran")
  con:disconnect()
end

sysbench.hooks.report_cumulative = function(stat)
  sysbench.report_default(stat)
  print("cumulative report ran")
end
