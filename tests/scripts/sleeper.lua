-- Connection 0 sleeps through the run in its first event, through LuaJIT's
-- FFI as third-party scripts call usleep; the others run their events
-- meanwhile (script_runs.rs: a sleeping connection holds up no other).
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned int);]]

function event()
  if sysbench.tid == 0 then
    ffi.C.usleep(60000000)
  end
end
