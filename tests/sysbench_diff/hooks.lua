-- thread_id and sysbench.tid in each hook, one thread, a few events; the
-- report hooks replaced by ones that print the stat table's fields.
local function tid() return tostring(thread_id) .. "/" .. tostring(sysbench.tid) end
print("main chunk", tid())
function init() print("init", tid()) end
function thread_init() print("thread_init", tid()) end
local n = 0
function event()
  n = n + 1
  if n <= 2 then print("event", tid(), n) end
end
function thread_done() print("thread_done", tid(), n) end
function done() print("done", tid()) end
local function fields(kind, stat)
  local keys = {}
  for k in pairs(stat) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do print(kind, k, type(stat[k])) end
  print(kind, "events", tostring(stat.events), "threads_running",
        tostring(stat.threads_running), "errors", tostring(stat.errors))
end
sysbench.hooks.report_cumulative = function(stat) fields("cumulative", stat) end
sysbench.hooks.report_intermediate = function(stat) print("intermediate", stat.threads_running) end
print("report_csv", type(sysbench.report_csv), "report_json", type(sysbench.report_json),
      "report_default", type(sysbench.report_default))
