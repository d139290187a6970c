-- qpslab's side of the sysbench 1.0 script API, in Lua. One Lua state per
-- client shard holds this and the script compiled once; each connection
-- gets its own global environment (`new_env`: its own `sysbench` table,
-- connection and script globals), in which the script's chunk is run, so
-- scripts keep sysbench's one-state-per-thread semantics while the
-- bytecode, JIT traces and libraries are shared by the shard's
-- connections. Every database call yields a request to qpslab's executor
-- (the coroutine is resumed with its result), so one OS thread runs many
-- connections. Random numbers and row values come from Rust (`Q`).
--
-- Requests yielded: (1, stmt index, types or nil, values) execute (sql.lua's
-- exec_request: the parameters' values, or past four one list); (2, sql) query;
-- (3, list of sql, how many) prepare, a batch (sql.lua's queue); (4, stmt index) close; (5) reconnect; (6, seconds)
-- sleep; (7) the connection's events are over; (0) the event is done.
-- A request's code plus 8 says that the event before it is done too (its
-- end folded into the next event's first request: one resume an event,
-- not two). Resumed with (true, has_rows, n, nfields) or (false, errno,
-- sqlstate, message, ignored); a prepare with (true, first index) or
-- (false, errno, sqlstate, message, ignored, which, first index).

local Q = ...
local yield, setmetatable, type, error = coroutine.yield, setmetatable, type, error
local tostring, select, concat, pairs = tostring, select, table.concat, pairs
local running = coroutine.running
-- (the script's functions are compiled when the guard's hook stops
-- compiled loops: Q.jit_guarded, guard.rs's compiled_loops_stop)
local jit_off = (jit and not Q.jit_guarded) and jit.off or function() end

local EXEC, QUERY, PREPARE, CLOSE, RECONNECT, SLEEP, FINISH = 1, 2, 3, 4, 5, 6, 7
-- Added to a request's code: the event before it is over.
local AFTER_END = 8

-- FOLD.ended: the events coroutine whose last event is over and not yet
-- said so (it runs on into its next event, whose first request says it;
-- qpslab reads it when a step is stopped there, so that the event over
-- still counts); requests made so far in this state (a change across an
-- event: it made one).
local FOLD, NREQ = {}, 0

-- The phase coroutines whose script's own thread_run() has ended an event
-- with ffi.C.sb_event_stop (weak: an abandoned coroutine goes).
local EVENTS_STOPPED = setmetatable({}, { __mode = "k" })
-- Those whose pass of such a loop began at sb_more_events and has not
-- ended with sb_event_stop.
local PASS_OPEN = setmetatable({}, { __mode = "k" })

-- How deep in coroutines of the script's own the connection runs (0: in
-- its phase's coroutine, which qpslab resumes). A request made in one of
-- them is passed out through each `resume` of theirs (MARK first) up to
-- the phase's coroutine, and its answer passed back in, so a script's
-- coroutine can query as under sysbench. Back to 0 whenever a connection
-- waits: the state's connections share it.
local DEPTH, MARK = 0, newproxy()

-- The running connection's prepares not yet sent (sql.lua's queue), and
-- what sends them (sql.lua's flush_prepares): before any other request
-- of the connection (sql.lua's, and the sleeps and event ends here), and
-- at the end of each event and phase. (The test is at each request's own
-- site: an execution's is in sql.lua's exec_request.)
local BATCH, FLUSH = { n = 0 }, nil

-- Sends the batch left unsent, if any, protected: true and the error of
-- a refused prepare (made by `handler` where given, where it is raised),
-- else false. (The callers on a script's own paths test BATCH.n first:
-- no call when there is nothing to send.)
local function unsent_refused(handler)
  if BATCH.n == 0 then return false end
  local fine, why
  if handler then fine, why = xpcall(FLUSH, handler) else fine, why = pcall(FLUSH) end
  return not fine, why
end

-- Every request goes out here (an execution's values: up to six).
local function request(code, a, b, c, d, e, f)
  if DEPTH > 0 then return yield(MARK, code, a, b, c, d, e, f) end
  NREQ = NREQ + 1
  local ended = FOLD.ended
  if ended ~= nil then
    -- (another coroutine's mark is stale: a step the guard stopped)
    local mine = ended == running()
    FOLD.ended = nil
    if mine then return yield(code + AFTER_END, a, b, c, d, e, f) end
  end
  return yield(code, a, b, c, d, e, f)
end

local RAND = Q.rand

-- sysbench's verbosity (sysbench mode passes it; 3 by default).
local VERBOSITY = tonumber(os.getenv("QPSLAB_SYSBENCH_VERBOSITY") or "") or 3

-- sysbench's log, for the lines its driver and API print: FATAL (0) and
-- ALERT (1), shown from verbosity 1; a message the same as the last one
-- is counted, and the count said before the next different one.
local LEVELS = { [0] = "FATAL: ", [1] = "ALERT: " }
local last_log, repeats = nil, 0
local function log(level, msg)
  if VERBOSITY < 1 or VERBOSITY < level then return end
  local line = LEVELS[level] .. msg
  if line == last_log then
    repeats = repeats + 1
    return
  end
  if repeats > 0 then
    print(string.format("(last message repeated %d times)", repeats))
  end
  last_log, repeats = line, 0
  print(line)
end

-- sysbench.cmdline.argv: the command line as sysbench mode was given it
-- (its words joined by \31), else qpslab's name alone.
local ARGV = { [0] = "qpslab" }
do
  local words = os.getenv("QPSLAB_SYSBENCH_ARGV")
  if words then
    local i = -1
    for w in (words .. "\31"):gmatch("(.-)\31") do
      ARGV[i + 1 > 0 and i + 1 or 0] = w
      i = i + 1
    end
  end
end

-- sysbench.sql (sql.lua): connections, statements, results, errors.
local SQL = assert(load(Q.sql_source, "=qpslab prelude sql"))(
  { EXEC = EXEC, QUERY = QUERY, PREPARE = PREPARE, CLOSE = CLOSE, RECONNECT = RECONNECT,
    request = request, batch = BATCH },
  Q, log, function() return RAND end)
FLUSH = SQL.flush_prepares
local ERR, SQL_ERR, TYPES = SQL.ERR, SQL.SQL_ERR, SQL.TYPES

-- qpslab's own additions, under their own name so that a script can test
-- for them (`if sysbench.qpslab then ... end`) and still run on sysbench.
local QPSLAB = {
  -- Waits without blocking the other connections of the shard (an FFI
  -- usleep would block them all).
  sleep = function(seconds)
    if BATCH.n > 0 then FLUSH() end
    request(SLEEP, seconds)
  end,
}

-- The report functions, sysbench.histogram, the legacy names (api.lua).
local API = assert(load(Q.api_source, "=qpslab prelude api"))(Q)

-- Phases the executor runs as coroutines ------------------------------------
local traceback = debug.traceback

local function handler(e)
  if type(e) == "table" and e.errcode == ERR.RESTART_EVENT then
    return e
  end
  -- sysbench says what it cannot print as a message so.
  if type(e) ~= "string" and type(e) ~= "number" then e = "(not a string)" end
  return traceback(e, 2)
end

local Phases = { fold = FOLD, batch = BATCH }

-- Sends the prepares the code just run left unsent, if any (a phase or
-- an event is over, or failed: those before the error are sent, as they
-- would have been before it); `ok, err` what the code ended with, and
-- then the first error of the two.
local function sent(ok, err)
  -- (a refused prepare came before whatever the code did after it)
  local refused, why = unsent_refused(handler)
  if refused then return false, why end
  return ok, err
end

-- Calls `fn` and turns any error into its message with a traceback.
function Phases.guarded(fn, ...)
  local ok, err = sent(xpcall(fn, handler, ...))
  if not ok then
    if type(err) == "table" then err = tostring(err) end
    error(err, 0)
  end
end

-- Says the last event's end if this coroutine has not yet (before an
-- error, a FINISH, or after an event that made no request); true if so.
local function say_end()
  local ended = FOLD.ended
  if ended ~= nil and ended == running() then
    FOLD.ended = nil
    yield(0)
    return true
  end
  return false
end

-- One event, started over after an ignored error as sysbench does; returns
-- what event() returned.
local function run_event(event, tid, hooks)
  while true do
    local ok, err = xpcall(event, handler, tid)
    -- (the test here, not in a call: an event's cost)
    if BATCH.n > 0 then ok, err = sent(ok, err) end
    if ok then return err end
    if type(err) ~= "table" then
      say_end()
      error(err, 0)
    end
    local hook = hooks.before_restart_event
    if hook then Phases.guarded(hook, err) end
  end
end

-- The events of connection `env`. With `fold` (no --events limit: an
-- event begun ahead and then not run changes no count), an event that
-- made a request runs on into the next event up to its first request,
-- which says the end (AFTER_END): one resume an event instead of two.
-- An event that makes no request then ran whole ahead of its turn: the
-- connection stops folding (a run ending there would have run an event
-- it does not count).
function Phases.events(env, tid, fold)
  local event = rawget(env, "event")
  if type(event) ~= "function" then
    -- sysbench 1.0.20's words (load_commands prints them as they are)
    error("cannot find the event() function in " .. tostring(env.sysbench.cmdline.script_path), 0)
  end
  -- A script's own thread_run() replaces the event loop: called once, the
  -- connection's events are over when it returns (sysbench 1.0.20). Its
  -- events are those it ends with ffi.C.sb_event_stop; one that calls it
  -- never counts as one event in all.
  local thread_run = rawget(env, "thread_run")
  if type(thread_run) == "function" then
    Phases.guarded(thread_run, tid)
    yield(FINISH, EVENTS_STOPPED[running()] == true)
  end
  local hooks = env.sysbench.hooks
  local me = running()
  while true do
    local before = NREQ
    local ret = run_event(event, tid, hooks)
    -- sysbench's latency histogram draws its slot from the thread's
    -- generator after each event: the next event's numbers follow it (a
    -- double: the same one draw, and no uint64 cdata to collect)
    RAND.uniform_double()
    -- (this event made no request: the last one's end is said now)
    if say_end() then fold = false end
    -- sysbench's thread_run loop stops at a value other than nil/false,
    -- before it counts the event (`true`: not counted).
    if ret then
      yield(FINISH, true)
    elseif fold and NREQ ~= before then
      FOLD.ended = me
    else
      yield(0)
    end
  end
end

-- Environments -------------------------------------------------------------
local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

-- Modules ------------------------------------------------------------------
-- Each environment has its own `package` (path, cpath, loaded), as each of
-- sysbench's states has: a module a connection loads, or that registers
-- itself in package.loaded, is that connection's. A Lua module is compiled
-- once per state, as a function that makes the module's body (so the
-- connections share its bytecode and JIT traces, and each runs its own
-- closure of it: a body that waits on the database partway through loads
-- in its own environment, not in whichever connection set it last).
local makers = {}

local function find_in(paths, name, tried)
  local file = name:gsub("%.", "/")
  for template in paths:gmatch("[^;]+") do
    local path = template:gsub("%?", file)
    local f = io.open(path, "r")
    if f then
      f:close()
      return path
    end
    tried[#tried + 1] = "\n\tno file '" .. path .. "'"
  end
end

-- The maker of the Lua module at `path`, or nil and the loader's error.
local function maker_of(path)
  local make = makers[path]
  if make then return make end
  local f, err = io.open(path, "r")
  if not f then return nil, err end
  local src = f:read("*a")
  f:close()
  -- (a first line starting with '#' is skipped, as loadfile does; the
  -- lines keep their numbers)
  if src:sub(1, 1) == "#" then src = src:gsub("^[^\n]*", "", 1) end
  make, err = loadstring("return function(...) " .. src .. "\nend", "@" .. path)
  if not make then return nil, err end
  jit_off(make, true)
  makers[path] = make
  return make
end

-- A connection's package.loaded: the libraries (sysbench's ffi view
-- among them: set below), its environment as _G.
local LIBS

local function package_for(env)
  local loaded = copy(LIBS)
  loaded._G = env
  return setmetatable({ loaded = loaded, path = package.path, cpath = package.cpath }, { __index = package })
end

-- Lua 5.1's require (ll_require) on the connection's package: loaders from
-- package.preload, a Lua file on package.path, a C module on package.cpath.
-- (a userdata, as Lua's own mark: never a table module() would take)
local LOADING = newproxy()
local function require_for(env)
  local pkg = env.package
  return function(name)
    name = tostring(name)
    local loaded = pkg.loaded
    local done = loaded[name]
    if done then
      if done == LOADING then error("loop or previous error loading module '" .. name .. "'", 2) end
      return done
    end
    local tried = { "module '" .. name .. "' not found:" }
    local loader = pkg.preload[name]
    if loader == nil then
      tried[2] = "\n\tno field package.preload['" .. name .. "']"
      local path = find_in(pkg.path, name, tried)
      if path then
        local make, err = maker_of(path)
        if not make then
          error("error loading module '" .. name .. "' from file '" .. path .. "':\n\t" .. err, 2)
        end
        loader = make()
        setfenv(loader, env)
      else
        path = find_in(pkg.cpath, name, tried)
        if path then
          local open = "luaopen_" .. name:gsub("^[^-]*%-", ""):gsub("%.", "_")
          local err
          loader, err = package.loadlib(path, open)
          if not loader then
            error("error loading module '" .. name .. "' from file '" .. path .. "':\n\t" .. tostring(err), 2)
          end
        end
      end
    end
    if loader == nil then error(concat(tried), 2) end
    loaded[name] = LOADING
    local r = loader(name)
    if r ~= nil then loaded[name] = r end
    if loaded[name] == LOADING then loaded[name] = true end
    return loaded[name]
  end
end

-- Lua 5.1's module(name, ...) on the connection's package.loaded and
-- globals (the C one keeps its modules in the state's registry, which the
-- connections of a state share).
local function module_for(env)
  return function(name, ...)
    local loaded = env.package.loaded
    local m = loaded[name]
    if type(m) ~= "table" then
      m = env
      for part in name:gmatch("[^.]+") do
        local t = rawget(m, part)
        if t == nil then
          t = {}
          rawset(m, part, t)
        elseif type(t) ~= "table" then
          error("name conflict for module '" .. name .. "'", 2)
        end
        m = t
      end
      loaded[name] = m
    end
    if m._NAME == nil then
      m._M, m._NAME, m._PACKAGE = m, name, (name:gsub("[^.]*$", ""))
    end
    setfenv(2, m)
    for i = 1, select("#", ...) do
      (select(i, ...))(m)
    end
  end
end

-- The script's code runs interpreted unless the guard's hook stops
-- compiled loops (a LuaJIT built with LUAJIT_ENABLE_CHECKHOOK): qpslab's
-- hook is what stops a step that never yields (an endless loop) at the
-- run's end or on Ctrl-C. Every function a script loads is then so
-- marked, as the script's own chunk is (state.rs).
local function nojit(loader)
  return function(...)
    local f, e = loader(...)
    if f then jit_off(f, true) end
    return f, e
  end
end

-- sysbench's FFI surface ----------------------------------------------------
-- sysbench declares its C types to LuaJIT's ffi and exports the functions
-- behind them; scripts (TPC-C implementations among them) cdef against
-- those types and call ffi.C.sb_counter_inc or ffi.C.usleep. The types
-- are declared here; `ffi.C` is a view that answers the waits from
-- qpslab (usleep and sleep wait without blocking the shard's other
-- connections, as sysbench.qpslab.sleep does) and everything else from C.
-- sb_counter_inc is accepted and not counted yet (docs/BENCHMARKS.md,
-- the differential corpus's differences).
local C_FFI = require("ffi")
C_FFI.cdef[[
typedef enum {
  SB_CNT_OTHER, SB_CNT_READ, SB_CNT_WRITE, SB_CNT_TRX, SB_CNT_ERROR,
  SB_CNT_RECONNECT, SB_CNT_MAX
} sb_counter_type;
]]
local function c_symbol(k) return C_FFI.C[k] end
local FFI_OWN = {
  usleep = function(us) QPSLAB.sleep(tonumber(us) / 1e6); return 0 end,
  sleep = function(s) QPSLAB.sleep(tonumber(s)); return 0 end,
  sb_counter_inc = function() end,
  -- sysbench's event loop, for a script's own thread_run() that loops as
  -- sysbench's does. An event begins when qpslab resumes the connection
  -- and ends at sb_event_stop (counted, as sysbench counts it, after the
  -- latency histogram's draw), where qpslab decides whether another
  -- begins (--events, --time, Ctrl-C): a connection whose events are over
  -- is not resumed, so the loop's last sb_more_events (false under
  -- sysbench) is never called, and what thread_run does after its loop
  -- does not run; thread_done does. A loop that never calls sb_event_stop
  -- has each of its passes end at the next sb_more_events, counted (under
  -- sysbench none is), so that qpslab can end it.
  sb_more_events = function()
    local co = running()
    if BATCH.n > 0 then FLUSH() end
    if PASS_OPEN[co] then request(0) end
    PASS_OPEN[co] = true
    return true
  end,
  sb_event_start = function() end,
  sb_event_stop = function()
    local co = running()
    EVENTS_STOPPED[co], PASS_OPEN[co] = true, nil
    RAND.uniform_double()
    if BATCH.n > 0 then FLUSH() end
    request(0)
  end,
}
local FFI = setmetatable({
  C = setmetatable({}, { __index = function(_, k)
    local own = FFI_OWN[k]
    if own ~= nil then return own end
    local ok, v = pcall(c_symbol, k)
    if ok then return v end
    -- (LuaJIT's words, at the script's line that named the symbol)
    error((tostring(v):gsub("^qpslab prelude:%d+: ", "")), 2)
  end }),
}, { __index = C_FFI })
package.loaded.ffi = FFI
LIBS = copy(package.loaded)
ffi = FFI

local GLOBALS = copy(_G)
-- The script's `coroutine`: Lua 5.1's, on which a request made inside one
-- of the script's coroutines goes out through `resume` (see DEPTH), and
-- which tells the script it runs on a state's main thread where sysbench's
-- event() does (running() nil, not yieldable).
local co_create, co_resume, co_yield, co_running = coroutine.create, coroutine.resume, coroutine.yield, coroutine.running
local function resume_step(co, ...)
  DEPTH = DEPTH + 1
  return co_resume(co, ...)
end
local function passed(co, ok, first, ...)
  DEPTH = DEPTH - 1
  if ok and first == MARK then return passed(co, resume_step(co, request(...))) end
  -- (the coroutine ended with prepares unsent: a refused one is its error)
  if BATCH.n > 0 then
    local refused, why = unsent_refused()
    if refused then return false, why end
  end
  return ok, first, ...
end
local function co_resume_script(co, ...)
  -- (the caller's batch is the caller's: a refused prepare is its error)
  if BATCH.n > 0 then FLUSH() end
  return passed(co, resume_step(co, ...))
end
local function unwrapped(ok, ...)
  if ok then return ... end
  local e = ...
  -- (as LuaJIT's wrap: a message gets the caller's position)
  if type(e) == "string" then error(e, 2) end
  error(e, 0)
end
local SCRIPT_COROUTINE = copy(coroutine)
SCRIPT_COROUTINE.resume = co_resume_script
function SCRIPT_COROUTINE.wrap(f)
  local co = co_create(f)
  return function(...)
    if BATCH.n > 0 then FLUSH() end
    return unwrapped(passed(co, resume_step(co, ...)))
  end
end
function SCRIPT_COROUTINE.yield(...)
  if DEPTH == 0 then error("attempt to yield across C-call boundary", 2) end
  if BATCH.n > 0 then FLUSH() end
  return co_yield(...)
end
function SCRIPT_COROUTINE.running()
  if DEPTH == 0 then return nil end
  return co_running()
end
function SCRIPT_COROUTINE.isyieldable()
  return DEPTH > 0
end
GLOBALS.coroutine = SCRIPT_COROUTINE
LIBS.coroutine = SCRIPT_COROUTINE

-- The script's pcall and xpcall: a prepare made inside is sent before
-- they return, so that the error of one the server refuses is theirs to
-- catch, as it is under sysbench, where the prepare waits for its answer.
-- (It comes first: after it, under sysbench, nothing else would have run.)
local raw_pcall, raw_xpcall = pcall, xpcall
local function after(h, ok, ...)
  if BATCH.n > 0 then
    local refused, why = unsent_refused()
    if refused then
      if h then return false, h(why) end
      return false, why
    end
  end
  return ok, ...
end
-- (a batch made before the call is sent before it: its error is not the
-- call's to catch)
GLOBALS.pcall = function(f, ...)
  if BATCH.n > 0 then FLUSH() end
  return after(nil, raw_pcall(f, ...))
end
GLOBALS.xpcall = function(f, h, ...)
  if BATCH.n > 0 then FLUSH() end
  return after(h, raw_xpcall(f, h, ...))
end

GLOBALS.load, GLOBALS.loadstring = nojit(load), nojit(loadstring)
GLOBALS.loadfile = nojit(loadfile)
GLOBALS.dofile = function(path)
  local f, err = GLOBALS.loadfile(path)
  -- (the loader's message as it is: no position of this prelude's)
  if not f then error(err, 0) end
  return f()
end

-- A connection's environment: the libraries, its own `sysbench` table
-- (qpslab's additions reachable, not listed), sysbench's legacy globals.
local HIDDEN = { __index = { qpslab = QPSLAB } }
-- sysbench.cmdline.options before a script sets its own: marked, so that a
-- script that declares none is told apart (sysbench then takes any --opt).
local UNDECLARED = { __qpslab_undeclared = true }
-- Each environment's report_json closer (Phases.close_reports), weakly.
local REPORTS_CLOSE = setmetatable({}, { __mode = "k" })
function Phases.new_env(tid, command, slot)
  local env = copy(GLOBALS)
  env._G = env
  local sb = setmetatable({
    version = Q.version, version_string = Q.version_string,
    cmdline = {
      command = command, script_path = Q.script_path,
      options = setmetatable({}, UNDECLARED), commands = {},
      argv = ARGV, PARALLEL_COMMAND = true,
      -- option types a script may name as an option's third item
      ARG_NULL = 0, ARG_BOOL = 1, ARG_INT = 2, ARG_SIZE = 3, ARG_DOUBLE = 4,
      ARG_STRING = 5, ARG_LIST = 6, ARG_FILE = 7, ARG_MAX = 8,
    },
    opt = copy(Q.opt), hooks = {}, rand = API.rand_view(RAND), error = ERR,
    sql = { type = TYPES, error = SQL_ERR },
    tid = tid, histogram = API.histogram,
    report_default = API.report_default, report_csv = API.report_csv,
  }, HIDDEN)
  sb.report_json, REPORTS_CLOSE[env] = API.report_json_for()
  sb.sql.driver = SQL.driver_for(slot, sb)
  sb.cmdline.print_test_options = function()
    API.print_test_options(sb.cmdline.options)
  end
  sb.db = API.legacy_db(sb)
  env.sysbench = sb
  API.legacy_globals(env, sb)
  env.package = package_for(env)
  env.require = require_for(env)
  env.module = module_for(env)
  return env
end

-- Ends what the reports of `env` left open (its JSON array), as sysbench's
-- closing of that state would (report.rs: the intermediate reports' state
-- before the cumulative report).
function Phases.close_reports(env)
  local close = REPORTS_CLOSE[env]
  if close then close() end
end

-- Ends what every environment's reports left open: the state is left to
-- the process's exit, unclosed (state.rs), so their finalizers would not.
function Phases.close_all_reports()
  for _, close in pairs(REPORTS_CLOSE) do close() end
end

-- Binds the main state's environment `env` to option values and random
-- functions known after it was made (to read the script's options).
function Phases.rebind(env, opt, rand, ps_disabled)
  Q.opt, Q.ps_disabled, RAND = opt, ps_disabled, rand
  local sb = env.sysbench
  sb.opt, sb.rand = copy(opt), API.rand_view(rand)
  API.legacy_rand(env, sb.rand)
end

-- `fn` with its arguments bound: the body of a phase's coroutine, whose
-- thread takes the connection's environment `env` as its own (what a
-- chunk that load, loadstring, loadfile or dofile compiles gets, and
-- getfenv(0): sysbench's state per thread has the script's globals as
-- its thread's; state.rs's `in_env` does the same for a plain call).
function Phases.bind(env, fn, ...)
  local args, n = { ... }, select("#", ...)
  return function()
    setfenv(0, env)
    return fn(unpack(args, 1, n))
  end
end

-- Runs the script's chunk in `env` (defining its globals there). A script
-- that declares no options (sysbench 0.5's kind) then has every option as
-- a global too, as sysbench 1.0.20 gives one (`oltp_table_size`, a string
-- when the script's own, `threads`, `mysql_db`…); a global the chunk set
-- keeps its value. (sysbench sets them before its chunk runs; here the
-- chunk's top level does not see them yet.)
function Phases.run_chunk(chunk, env)
  setfenv(chunk, env)
  chunk()
  local sb = rawget(env, "sysbench")
  if type(sb) == "table" and getmetatable(sb.cmdline.options) == UNDECLARED then
    for k, v in pairs(sb.opt) do
      if rawget(env, k) == nil then rawset(env, k, v) end
    end
  end
end

return Phases
