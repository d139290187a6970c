-- sysbench.report_default as both report hooks (the cumulative one says
-- no thread running), an event that waits 1 ms.
ffi.cdef[[int usleep(unsigned int);]]
function event() ffi.C.usleep(1000) end
sysbench.hooks.report_intermediate = sysbench.report_default
sysbench.hooks.report_cumulative = sysbench.report_default
