-- os.exit(n) ends the process with n at once, in an event, in
-- thread_init and in a command: nothing after it is printed.
sysbench.cmdline.options = {
  at = { "Where to call os.exit", "event" },
  code = { "The exit code", 5 },
}
local n = 0

function prepare()
  print("prepare")
  if sysbench.opt.at == "prepare" then os.exit(sysbench.opt.code) end
end

function thread_init()
  if sysbench.opt.at == "thread_init" then
    print("thread_init")
    os.exit(sysbench.opt.code)
  end
end

function event()
  n = n + 1
  if n == 3 and sysbench.opt.at == "event" then
    print("event 3")
    os.exit(sysbench.opt.code)
  end
end
