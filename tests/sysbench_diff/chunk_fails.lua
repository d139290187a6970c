-- A benchmark named as a module (no .lua) whose chunk fails: sysbench
-- loads it once and stops.
print("chunk_fails loaded")
function event()
end
error("test error")
