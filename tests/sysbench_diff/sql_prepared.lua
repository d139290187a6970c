-- Prepared statements: every bind type, set/set_rand_str, execute's result.
local function show(v)
  if v == nil then return "nil" end
  return type(v) .. ":" .. tostring(v)
end

function prepare()
  local t = sysbench.sql.type
  local names = {}
  for k in pairs(t) do names[#names + 1] = k end
  table.sort(names)
  for _, k in ipairs(names) do print("type", k, t[k]) end
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS diff_ps")
  con:query([[CREATE TABLE diff_ps (ti TINYINT, si SMALLINT, i INT, bi BIGINT,
    f FLOAT, d DOUBLE, c CHAR(10), vc VARCHAR(20), tm TIME, dt DATE,
    dtt DATETIME, ts TIMESTAMP NULL)]])
  local ins = con:prepare("INSERT INTO diff_ps VALUES (?,?,?,?,?,?,?,?,?,?,?,?)")
  local p = {
    ins:bind_create(t.TINYINT), ins:bind_create(t.SMALLINT), ins:bind_create(t.INT),
    ins:bind_create(t.BIGINT), ins:bind_create(t.FLOAT), ins:bind_create(t.DOUBLE),
    ins:bind_create(t.CHAR, 10), ins:bind_create(t.VARCHAR, 20),
    ins:bind_create(t.TIME), ins:bind_create(t.DATE), ins:bind_create(t.DATETIME),
    ins:bind_create(t.TIMESTAMP),
  }
  print("bind_param", show(ins:bind_param(unpack(p))))
  local vals = {-5, 300, 70000, 5000000000, 1.25, 2.5, "abc", "hello world",
                "10:11:12", "2020-01-02", "2020-01-02 03:04:05", "2021-02-03 04:05:06"}
  for i, v in ipairs(vals) do p[i]:set(v) end
  print("execute", show(ins:execute()))
  p[7]:set_rand_str("###-@@@")
  p[8]:set(nil)
  print("execute 2", show(ins:execute()))
  local sel = con:prepare("SELECT i, c, vc FROM diff_ps WHERE i = ? ORDER BY c")
  local key = sel:bind_create(t.INT)
  sel:bind_param(key)
  key:set(70000)
  local rs = sel:execute()
  print("select result", type(rs), rs and rs.nrows, rs and rs.nfields)
  local row = rs and rs:fetch_row()
  print("first row", row and show(row[1]), row and show(row[2]), row and show(row[3]))
  for _, r in ipairs({"SELECT ti, si, i, bi, f, d FROM diff_ps ORDER BY vc",
                      "SELECT c, vc, tm, dt, dtt, ts FROM diff_ps ORDER BY vc"}) do
    local res = con:query(r)
    for _ = 1, res.nrows do
      local rr = res:fetch_row()
      local parts = {}
      for j = 1, res.nfields do parts[#parts + 1] = show(rr[j]) end
      print("stored", table.concat(parts, " | "))
    end
  end
  print("close", show(sel:close()), show(ins:close()))
  con:query("DROP TABLE diff_ps")
end
