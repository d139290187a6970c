-- The legacy (0.5) API names 1.0.20 still defines, and the globals scripts see.
local names = {"db_connect", "db_disconnect", "db_query", "db_bulk_insert_init",
  "db_bulk_insert_next", "db_bulk_insert_done", "db_prepare", "db_bind_param",
  "db_bind_result", "db_execute", "db_store_results", "db_free_results", "db_close",
  "DB_ERROR_NONE", "DB_ERROR_RESTART_TRANSACTION", "DB_ERROR_FAILED",
  "sb_rand", "sb_rand_str", "sb_rand_uniform", "sb_rand_gaussian", "sb_rand_special",
  "sb_rand_uniq", "sb_rnd", "thread_id", "test", "mysql_table_engine",
  "myisam_max_rows", "ffi", "sysbench", "event", "thread_init"}
function prepare()
  for _, n in ipairs(names) do
    local v = _G[n]
    local shown = (type(v) == "number" or type(v) == "string") and tostring(v) or ""
    print(n, type(v), shown)
  end
  local keys = {}
  for k in pairs(sysbench) do keys[#keys + 1] = k end
  table.sort(keys)
  print("sysbench.*", table.concat(keys, " "))
  keys = {}
  for k in pairs(sysbench.sql) do keys[#keys + 1] = k end
  table.sort(keys)
  print("sysbench.sql.*", table.concat(keys, " "))
  keys = {}
  for k in pairs(sysbench.rand) do keys[#keys + 1] = k end
  table.sort(keys)
  print("sysbench.rand.*", table.concat(keys, " "))
  print("version", sysbench.version, sysbench.version_string)
end
