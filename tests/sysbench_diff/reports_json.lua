-- sysbench.report_json as both report hooks, an event that waits 1 ms:
-- the intermediate reports (made in the reporting thread's state) are
-- one JSON array, ended when the run ends; the cumulative report another.
ffi.cdef[[int usleep(unsigned int);]]
function event() ffi.C.usleep(1000) end
sysbench.hooks.report_intermediate = sysbench.report_json
sysbench.hooks.report_cumulative = sysbench.report_json
