-- The rest of sysbench 1.0.20's Lua API as it behaves, loaded by
-- prelude.lua once per Lua state: the report functions a script may
-- install as hooks (sysbench.report_*), sysbench.histogram, and the legacy
-- (0.5) names sysbench.compat.lua defines (sysbench.db, db_*, DB_ERROR_*,
-- sb_rand*, thread_id, test). Owns no connection (sql.lua's) and no phase
-- (the prelude's).

local Q = ...
local ffi = require("ffi")
local floor, log, exp, rep = math.floor, math.log, math.exp, string.rep
local format = string.format

local API = {}

-- Reports -------------------------------------------------------------------
-- `stat` holds one interval (or the whole run): time_interval and
-- time_total (s), threads_running, events, reads, writes, other, errors,
-- reconnects, latency_pct (the --percentile latency, in seconds).
local function rates(stat)
  local s = stat.time_interval
  return s, stat.events / s, (stat.reads + stat.writes + stat.other) / s
end

function API.report_default(stat)
  local s, tps, qps = rates(stat)
  print(format("[ %.0fs ] thds: %u tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) "
      .. "lat (ms,%u%%): %4.2f err/s %4.2f reconn/s: %4.2f",
    stat.time_total, stat.threads_running, tps, qps, stat.reads / s,
    stat.writes / s, stat.other / s, tonumber(Q.opt.percentile) or 95,
    stat.latency_pct * 1000, stat.errors / s, stat.reconnects / s))
end

function API.report_csv(stat)
  local s, tps, qps = rates(stat)
  print(format("%.0f,%u,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f",
    stat.time_total, stat.threads_running, tps, qps, stat.reads / s,
    stat.writes / s, stat.other / s, stat.latency_pct * 1000,
    stat.errors / s, stat.reconnects / s))
end

-- sysbench.report_json of one environment (one of sysbench's Lua states)
-- and the function that ends its array: a JSON array, one object per
-- report, "[" before the first and "]" when the state that reported is
-- closed (sysbench closes its reporting thread's state, that of the
-- intermediate reports, when the run ends, before the cumulative report
-- in the main state: the reporter calls `close` then; a state closed
-- otherwise closes the array when the proxy is collected).
function API.report_json_for()
  local open
  local function close()
    if open then
      open = nil
      io.write("\n]\n")
    end
  end
  local function json(stat)
    if not open then
      io.write("[\n")
      open = newproxy(true)
      getmetatable(open).__gc = close
    else
      io.write(",\n")
    end
    local s, tps, qps = rates(stat)
    io.write(format('  {\n    "time": %4.0f,\n    "threads": %u,\n    "tps": %4.2f,\n'
        .. '    "qps": {\n      "total": %4.2f,\n      "reads": %4.2f,\n'
        .. '      "writes": %4.2f,\n      "other": %4.2f\n    },\n'
        .. '    "latency": %4.2f,\n    "errors": %4.2f,\n    "reconnects": %4.2f\n  }',
      stat.time_total, stat.threads_running, tps, qps, stat.reads / s,
      stat.writes / s, stat.other / s, stat.latency_pct * 1000,
      stat.errors / s, stat.reconnects / s))
  end
  return json, close
end

-- sysbench.histogram ----------------------------------------------------------
-- A bounded histogram of `size` buckets on a log scale from range_min to
-- range_max (cdata, as sysbench's): update(value), print().
ffi.cdef[[
typedef struct { double deduct; double mult; uint32_t size; double counts[?]; } qpslab_histogram;
]]
local histogram = {}
ffi.metatype("qpslab_histogram", {
  __index = histogram,
  __tostring = function() return "<sb_histogram>" end,
})
local HISTOGRAM = ffi.typeof("qpslab_histogram")

function histogram.update(h, value)
  local i = floor((log(value) - h.deduct) * h.mult + 0.5)
  if i < 0 then i = 0 elseif i >= h.size then i = h.size - 1 end
  h.counts[i] = h.counts[i] + 1
end

function histogram.print(h)
  local max = 0
  for i = 0, h.size - 1 do
    if h.counts[i] > max then max = h.counts[i] end
  end
  if max == 0 then return end
  print("       value  ------------- distribution ------------- count")
  for i = 0, h.size - 1 do
    local n = h.counts[i]
    if n ~= 0 then
      print(format("%12.3f |%-40s %d", exp(i / h.mult + h.deduct),
        rep("*", floor(n * 40 / max + 0.5)), n))
    end
  end
end

API.histogram = {
  new = function(size, range_min, range_max)
    local deduct = log(range_min)
    return HISTOGRAM(size, deduct, (size - 1) / (log(range_max) - deduct), size)
  end,
}

-- sysbench.cmdline.print_test_options -----------------------------------------
-- The script's own options as sysbench 1.0.20 lists them in a help():
-- sorted by name, the type its default (or its ARG_* third item) gives,
-- the default in brackets unless there is none, then a blank line.
local ARG_SUFFIX = { [1] = "[=on|off]", [2] = "=N", [3] = "=SIZE", [4] = "=N",
  [5] = "=STRING", [6] = "=[LIST,...]", [7] = "=FILENAME" }
local function option_row(name, def)
  local default, declared = def[2], def[3]
  local suffix = ARG_SUFFIX[declared]
  if suffix == nil then
    local kind = type(default)
    suffix = (kind == "boolean" and "[=on|off]") or (kind == "number" and "=N")
      or (kind == "table" and "=[LIST,...]") or "=STRING"
  end
  local shown
  if type(default) == "boolean" then shown = default and "on" or "off"
  elseif type(default) == "table" then shown = table.concat(default, ",")
  elseif default ~= nil then shown = tostring(default) end
  return "--" .. name .. suffix, tostring(def[1] or ""), shown
end

function API.print_test_options(options)
  local rows, width = {}, 0
  for name, def in pairs(options or {}) do
    if type(name) == "string" and type(def) == "table" then
      local flag, help, shown = option_row(name, def)
      rows[#rows + 1] = { flag, help, shown, name }
      if #flag > width then width = #flag end
    end
  end
  table.sort(rows, function(a, b) return a[4] < b[4] end)
  for _, r in ipairs(rows) do
    local line = "  " .. r[1] .. rep(" ", width - #r[1]) .. " " .. r[2]
    if r[3] ~= nil then line = line .. " [" .. r[3] .. "]" end
    print(line)
  end
  print()
end

-- The legacy names ------------------------------------------------------------
-- sysbench.db: the 0.5 API over the thread's one connection.
function API.legacy_db(sb)
  local con
  -- sysbench 1.0.20 connects on the first use when the script never
  -- called db_connect() (its drv_mysql.t runs a bare db_query()).
  local function connected()
    if con == nil then con = sb.sql.driver():connect() end
    return con
  end
  local function unsupported(name)
    return function()
      error("sysbench API sysbench.db." .. name .. " is not supported by qpslab", 2)
    end
  end
  return {
    connect = function() con = sb.sql.driver():connect() end,
    disconnect = function() if con ~= nil then con:disconnect() end end,
    query = function(sql) connected():query(sql) end,
    bulk_insert_init = function(sql) return connected():bulk_insert_init(sql) end,
    bulk_insert_next = function(v) return connected():bulk_insert_next(v) end,
    bulk_insert_done = function() return connected():bulk_insert_done() end,
    prepare = function(sql) return connected():prepare(sql) end,
    bind_param = unsupported("bind_param"),
    bind_result = unsupported("bind_result"),
    execute = function(stmt) return stmt:execute() end,
    close = function(stmt) return stmt:close() end,
    store_results = function(rs) return rs end,
    free_results = function(rs) if rs ~= nil then rs:free() end end,
    DB_ERROR_NONE = 0, DB_ERROR_RESTART_TRANSACTION = 1, DB_ERROR_FAILED = 2,
  }
end

-- sysbench.rand as 1.0.20 lists it (qpslab's other functions stay
-- reachable by name).
local RAND_NAMES = { "default", "gaussian", "pareto", "special", "string", "uniform",
  "uniform_double", "uniform_uint64", "unique" }
function API.rand_view(rand)
  local view = {}
  for _, k in ipairs(RAND_NAMES) do view[k] = rand[k] end
  return setmetatable(view, { __index = rand })
end

-- The random functions' legacy names.
function API.legacy_rand(env, rand)
  env.sb_rnd = function() return tonumber(rand.uniform_uint64() % 4294967296) end
  env.sb_rand, env.sb_rand_uniform = rand.default, rand.uniform
  env.sb_rand_gaussian, env.sb_rand_special = rand.gaussian, rand.special
  env.sb_rand_str = rand.string
  -- (sysbench's: unique values drawn until one falls in [a, b])
  env.sb_rand_uniq = function(a, b)
    a, b = a or 0, b or 4294967295
    local v
    repeat v = rand.unique() until v >= a and v <= b
    return v
  end
end

-- The globals sysbench.compat.lua defines in each environment.
function API.legacy_globals(env, sb)
  local db = sb.db
  env.thread_id = sb.tid
  env.test = sb.cmdline.script_path
  API.legacy_rand(env, sb.rand)
  for _, k in ipairs({ "connect", "disconnect", "query", "bulk_insert_init",
      "bulk_insert_next", "bulk_insert_done", "prepare", "bind_param", "bind_result",
      "execute", "store_results", "free_results", "close" }) do
    env["db_" .. k] = db[k]
  end
  env.DB_ERROR_NONE = db.DB_ERROR_NONE
  env.DB_ERROR_RESTART_TRANSACTION = db.DB_ERROR_RESTART_TRANSACTION
  env.DB_ERROR_FAILED = db.DB_ERROR_FAILED
  env.mysql_table_engine = env.mysql_table_engine or "innodb"
  env.myisam_max_rows = 1000000
end

return API
