-- An insert benchmark in the spirit of iiBench: one table whose three
-- secondary indexes make every insert update four B-trees, loaded as fast
-- as the inserting threads can commit, while the other threads run point
-- and range queries at a fixed rate each. Throughput of inserts that
-- falls as the indexes outgrow the buffer pool is what it shows.
--
--   qpslab prepare examples/scripts/iibench.lua
--   qpslab run examples/scripts/iibench.lua --threads=8 --inserters=4 \
--     --rows-per-commit=1000 --query-rate=10 --time=300
--
-- Runs under sysbench too (the query threads then pace themselves with
-- os.execute("sleep"), which is coarse).

sysbench.cmdline.options = {
  inserters = {"threads that insert (the others query)", 1},
  rows_per_commit = {"rows inserted per transaction", 1000},
  rows_per_insert = {"rows per multi-row INSERT statement", 100},
  query_rate = {"queries per second of each query thread (0: no pause)", 10},
  customers = {"distinct customer ids", 100000},
  products = {"distinct product ids", 10000},
  cashregisters = {"distinct cash registers", 1000},
  max_price = {"prices are drawn from 0 to this", 500},
  data_length = {"bytes of filler data per row", 10},
}

local o = sysbench.opt

local function connect()
  return sysbench.sql.driver():connect()
end

function prepare()
  local con = connect()
  con:query([[
    CREATE TABLE purchases_index (
      transactionid BIGINT NOT NULL AUTO_INCREMENT,
      dateandtime DATETIME NOT NULL,
      cashregisterid INT NOT NULL,
      customerid INT NOT NULL,
      productid INT NOT NULL,
      price FLOAT NOT NULL,
      data VARCHAR(4000) NOT NULL,
      PRIMARY KEY (transactionid),
      KEY marketsegment (price, customerid),
      KEY registersegment (cashregisterid, price, customerid),
      KEY pdc (price, dateandtime, customerid)
    )]])
  print("Created purchases_index with 3 secondary indexes")
end

function cleanup()
  connect():query("DROP TABLE IF EXISTS purchases_index")
end

local function sleep(seconds)
  if sysbench.qpslab then
    sysbench.qpslab.sleep(seconds)
  else
    os.execute("sleep " .. seconds)
  end
end

function thread_init()
  con = connect()
  inserter = sysbench.tid % sysbench.opt.threads < o.inserters
  filler = string.rep("@", o.data_length)
  if not inserter then
    point = con:prepare("SELECT price, customerid FROM purchases_index WHERE transactionid = ?")
    point_id = point:bind_create(sysbench.sql.type.BIGINT)
    point:bind_param(point_id)
    range = con:prepare("SELECT price, dateandtime, customerid FROM purchases_index "
      .. "FORCE INDEX (pdc) WHERE price >= ? ORDER BY price, dateandtime, customerid LIMIT 10")
    range_price = range:bind_create(sysbench.sql.type.DOUBLE)
    range:bind_param(range_price)
  end
end

local function row()
  return string.format("(NOW(), %d, %d, %d, %.2f, '%s')",
    sysbench.rand.uniform(1, o.cashregisters), sysbench.rand.uniform(1, o.customers),
    sysbench.rand.uniform(1, o.products), sysbench.rand.uniform_double() * o.max_price,
    sysbench.rand.string(filler))
end

local function insert_batch()
  con:query("BEGIN")
  local left = o.rows_per_commit
  while left > 0 do
    local n = math.min(left, o.rows_per_insert)
    con:bulk_insert_init("INSERT INTO purchases_index "
      .. "(dateandtime, cashregisterid, customerid, productid, price, data) VALUES")
    for _ = 1, n do con:bulk_insert_next(row()) end
    con:bulk_insert_done()
    left = left - n
  end
  con:query("COMMIT")
end

local function query()
  local top = con:query_row("SELECT MAX(transactionid) FROM purchases_index")
  point_id:set(sysbench.rand.uniform(1, math.max(1, tonumber(top) or 1)))
  point:execute()
  range_price:set(sysbench.rand.uniform_double() * o.max_price)
  range:execute()
  if o.query_rate > 0 then
    sleep(1 / o.query_rate)
  end
end

function event()
  if inserter then insert_batch() else query() end
end
