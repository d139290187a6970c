-- The legacy db_query() with no db_connect() first: sysbench connects.
function event()
  db_query("SELECT 1")
end
