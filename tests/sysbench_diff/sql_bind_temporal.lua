-- The temporal bind types: 1.0.20's bind_create refuses them (what it
-- says, caught with pcall), and what the process does after that.
function prepare()
  local t = sysbench.sql.type
  local con = sysbench.sql.driver():connect()
  local stmt = con:prepare("SELECT ?")
  for _, k in ipairs({"TIME", "DATE", "DATETIME", "TIMESTAMP"}) do
    print("bind_create", k, pcall(stmt.bind_create, stmt, t[k]))
  end
end
