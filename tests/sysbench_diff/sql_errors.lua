-- Error objects: what a failing query raises, caught with pcall, field by
-- field; sysbench.sql.error constants; the same through query_row.
local function dump(label, ok, e)
  print(label, "ok", ok, "type", type(e))
  if type(e) == "table" then
    local keys = {}
    for k in pairs(e) do keys[#keys + 1] = tostring(k) end
    table.sort(keys)
    for _, k in ipairs(keys) do
      local v = e[k]
      if k == "connection" then v = type(v) end
      print("", k, type(e[k]), tostring(v))
    end
  else
    print("", tostring(e))
  end
end

function prepare()
  print("NONE", sysbench.sql.error.NONE, "IGNORABLE", sysbench.sql.error.IGNORABLE,
        "FATAL", sysbench.sql.error.FATAL)
  print("RESTART_EVENT", sysbench.error.RESTART_EVENT)
  local con = sysbench.sql.driver():connect()
  dump("no table", pcall(con.query, con, "SELECT * FROM diff_no_such_table"))
  dump("syntax", pcall(con.query, con, "SELEC 1"))
  dump("bad column", pcall(con.query_row, con, "SELECT no_col FROM dual"))
  con:query("DROP TABLE IF EXISTS diff_err")
  con:query("CREATE TABLE diff_err (id INT PRIMARY KEY)")
  con:query("INSERT INTO diff_err VALUES (1)")
  dump("dup key", pcall(con.query, con, "INSERT INTO diff_err VALUES (1)"))
  print("after error", con:query_row("SELECT COUNT(*) FROM diff_err"))
  sysbench.hooks.sql_error_ignorable = function(err)
    print("hook sees", err.sql_errno, err.sql_state, err.query)
    return true
  end
  dump("ignorable", pcall(con.query, con, "INSERT INTO diff_err VALUES (1)"))
  sysbench.hooks.sql_error_ignorable = nil
  dump("prepare bad", pcall(con.prepare, con, "SELECT * FROM diff_no_such_table WHERE id = ?"))
  con:query("DROP TABLE diff_err")
  con:disconnect()
  dump("disconnected", pcall(con.query, con, "SELECT 1"))
end
