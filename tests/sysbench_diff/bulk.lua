-- bulk_insert_init/next/done, then what landed.
function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS diff_bulk")
  con:query("CREATE TABLE diff_bulk (id INT PRIMARY KEY, v VARCHAR(10))")
  print("init", con:bulk_insert_init("INSERT INTO diff_bulk VALUES"))
  for i = 1, 50 do print_ok = con:bulk_insert_next(string.format("(%d,'v%d')", i, i)) end
  print("next", print_ok)
  print("done", con:bulk_insert_done())
  print("count", con:query_row("SELECT COUNT(*) FROM diff_bulk"),
        "sum", con:query_row("SELECT SUM(id) FROM diff_bulk"))
  con:query("DROP TABLE diff_bulk")
end
