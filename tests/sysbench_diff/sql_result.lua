-- Result sets: what con:query returns for each kind of statement, rows with
-- NULLs, nrows/nfields, fetch_row past the end, query_row.
local function show(v)
  if v == nil then return "nil" end
  return type(v) .. ":" .. tostring(v)
end

function prepare()
  local con = sysbench.sql.driver():connect()
  print("driver name", sysbench.sql.driver():name())
  print("DROP", show(con:query("DROP TABLE IF EXISTS diff_rs")))
  print("CREATE", show(con:query(
    "CREATE TABLE diff_rs (id INT PRIMARY KEY, s VARCHAR(10), d DOUBLE, n INT)")))
  print("INSERT", show(con:query(
    "INSERT INTO diff_rs VALUES (1,'one',1.5,NULL),(2,NULL,NULL,7),(3,'',0,0)")))
  print("UPDATE", show(con:query("UPDATE diff_rs SET n = n + 1 WHERE id = 2")))
  local rs = con:query("SELECT id, s, d, n FROM diff_rs ORDER BY id")
  print("SELECT type", type(rs), "nrows", rs.nrows, "nfields", rs.nfields)
  for i = 1, rs.nrows do
    local row = rs:fetch_row()
    local parts = {}
    for j = 1, rs.nfields do parts[#parts + 1] = show(row[j]) end
    print("row", i, table.concat(parts, " | "))
  end
  print("past end", show(rs:fetch_row()))
  rs:free()
  local empty = con:query("SELECT id FROM diff_rs WHERE id > 100")
  print("empty nrows", empty.nrows, "fetch", show(empty:fetch_row()))
  print("query_row 1", show(con:query_row("SELECT s FROM diff_rs WHERE id = 1")))
  print("query_row NULL", show(con:query_row("SELECT s FROM diff_rs WHERE id = 2")))
  print("query_row none", show(con:query_row("SELECT s FROM diff_rs WHERE id = 9")))
  print("query_row 2 cols", show(con:query_row("SELECT 1, 2")))
  print("SET", show(con:query("SET @x = 1")))
  print("SELECT @x", show(con:query_row("SELECT @x")))
  print("BEGIN", show(con:query("BEGIN")), "COMMIT", show(con:query("COMMIT")))
  print("DROP", show(con:query("DROP TABLE diff_rs")))
  con:disconnect()
end
