-- Custom commands: a plain one, a parallel one, one that fails.
local function hello()
  print("hello", tostring(thread_id), sysbench.cmdline.command)
end
local function together()
  print("together", tostring(thread_id))
end
local function fails()
  error("the command failed")
end
sysbench.cmdline.commands = {
  hello = {hello},
  together = {together, sysbench.cmdline.PARALLEL_COMMAND},
  fails = {fails},
}
function prepare() print("prepare", tostring(thread_id)) end
