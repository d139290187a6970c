-- qpslab's test of results read without column definitions
-- (tests/mysql8.rs): a statement prepared in the middle of a run, after the
-- connection asked the server to leave the definitions out, and text
-- queries whose rows are read back.

function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
end

function event()
  local st = con:prepare("SELECT id, k, c FROM sbtest1 WHERE id = ?")
  local p = st:bind_create(sysbench.sql.type.INT)
  p:set(7)
  st:bind_param(p)
  local rs = st:execute()
  assert(rs.nrows == 1, "nrows " .. tostring(rs.nrows))
  st:close()
  local row = con:query("SELECT COUNT(*), MAX(id), MAX(c) FROM sbtest1"):fetch_row()
  assert(tonumber(row[2]) == 500, "MAX(id) " .. tostring(row[2]))
  assert(#row[3] == 119, "MAX(c) " .. tostring(row[3]))
end
