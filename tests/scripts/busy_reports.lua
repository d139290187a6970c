-- An event with no query (it never waits on its socket) and the report
-- hooks in sysbench's JSON: the intermediate reports, made in the
-- reporting thread's state (sysbench.tid = --threads), form one array,
-- ended when the run ends; the cumulative report another.
local sum = 0
function event()
  for i = 1, 100 do sum = sum + i end
end
print("state", sysbench.tid)
sysbench.hooks.report_intermediate = sysbench.report_json
sysbench.hooks.report_cumulative = sysbench.report_json
