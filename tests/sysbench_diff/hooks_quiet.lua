-- A script named by its path (./hooks_quiet.lua) that has no options, no
-- prepare and no help: sysbench names it by its file name when it says
-- so. Its report hooks print no figure.
function event() end
sysbench.hooks.report_intermediate = function(stat) print("intermediate", stat.threads_running) end
sysbench.hooks.report_cumulative = function(stat) print("cumulative", stat.threads_running) end
