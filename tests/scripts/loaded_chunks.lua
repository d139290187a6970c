-- Chunks a script compiles itself (dofile, loadstring, load, loadfile)
-- and the modules require finds in package.preload see the script's
-- globals, as in sysbench's Lua state per thread, and each connection
-- only its own (script_runs.rs compares the lines with sysbench's).
local dir = (sysbench.cmdline.script_path:gsub("[^/]*$", ""))
dofile(dir .. "loaded_helper.lua")
local at_load = helper_value ~= nil

local function say(where, what, ok)
  -- (one write a line: two threads' prints may interleave under sysbench)
  io.write(string.format("%s %s %s\n", where, what, ok and "ok" or "DIFF"))
end

local function checks(where, mark)
  say(where, "dofile", at_load and helper_value() == 11)
  loadstring("loaded_global = " .. mark)()
  say(where, "loadstring", loaded_global == mark)
  say(where, "load", load("return loaded_global")() == mark)
  local f = loadfile(dir .. "loaded_helper.lua")
  helper_value = nil
  f()
  say(where, "loadfile", helper_value ~= nil)
  say(where, "getfenv(0)", getfenv(0) == _G)
  say(where, "coroutine", coroutine.wrap(function() return loadstring("return loaded_global")() end)() == mark)
  say(where, "preload", (pcall(require, "jit.util")))
end

function init()
  checks("init", 1000)
end

function thread_init()
  checks("thread_init." .. sysbench.tid, sysbench.tid)
end

local ffi = require("ffi")
pcall(ffi.cdef, "int usleep(unsigned int);")
local done = false
function event()
  if done then
    ffi.C.usleep(10000)
    return
  end
  done = true
  -- (the other connection set its own in its thread_init)
  say("event." .. sysbench.tid, "own", loaded_global == sysbench.tid)
  checks("event." .. sysbench.tid, 100 + sysbench.tid)
end
