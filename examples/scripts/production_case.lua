-- A user's "production case": an accounts service where a small hot set
-- of accounts gets most of the traffic. Each event is one request: mostly
-- reads (the account, its latest movements), sometimes a transfer that
-- updates two balances and records the movement in one transaction.
-- Change the shares to match your own traffic.
--
--   qpslab prepare examples/scripts/production_case.lua --accounts=100000 --threads=4
--   qpslab run examples/scripts/production_case.lua --threads=32 --time=120 \
--     --hot-accounts=1000 --hot-share=0.8 --write-share=0.1

sysbench.cmdline.options = {
  accounts = {"accounts in the table", 100000},
  hot_accounts = {"size of the hot set (accounts 1..N)", 1000},
  hot_share = {"share of requests that go to the hot set", 0.8},
  write_share = {"share of requests that are transfers", 0.1},
  history = {"movements read per account lookup", 10},
}

local o = sysbench.opt

sysbench.cmdline.commands = {
  prepare = {function()
    local con = sysbench.sql.driver():connect()
    if sysbench.tid == 0 then
      con:query([[CREATE TABLE IF NOT EXISTS accounts (
        id INT NOT NULL PRIMARY KEY, owner VARCHAR(64) NOT NULL,
        balance BIGINT NOT NULL, updated DATETIME NOT NULL)]])
      con:query([[CREATE TABLE IF NOT EXISTS movements (
        id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, account INT NOT NULL,
        amount BIGINT NOT NULL, created DATETIME NOT NULL,
        KEY by_account (account, created))]])
    end
    -- Each thread loads its own slice of the accounts, once the table is
    -- there (thread 0 creates it; the others retry until it exists).
    local exists = false
    while not exists do
      exists = pcall(con.query, con, "SELECT 1 FROM accounts LIMIT 1")
    end
    local per = math.ceil(o.accounts / sysbench.opt.threads)
    local first = sysbench.tid * per + 1
    local last = math.min(o.accounts, first + per - 1)
    con:bulk_insert_init("INSERT INTO accounts VALUES")
    for id = first, last do
      con:bulk_insert_next(string.format("(%d, 'owner-%s', %d, NOW())", id,
        sysbench.rand.string("@@@@@@@@"), 100000))
    end
    con:bulk_insert_done()
    print(string.format("thread %d loaded accounts %d..%d", sysbench.tid, first, last))
  end, sysbench.cmdline.PARALLEL_COMMAND},
}

function cleanup()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS movements")
  con:query("DROP TABLE IF EXISTS accounts")
end

local T = sysbench.sql.type

local function stmt(sql, ...)
  local s = con:prepare(sql)
  local params = {}
  for i, t in ipairs({...}) do params[i] = s:bind_create(t) end
  if #params > 0 then s:bind_param(unpack(params)) end
  return s, params
end

function thread_init()
  con = sysbench.sql.driver():connect()
  account, account_p = stmt("SELECT owner, balance FROM accounts WHERE id = ?", T.INT)
  recent, recent_p = stmt("SELECT amount, created FROM movements WHERE account = ? "
    .. "ORDER BY created DESC LIMIT " .. o.history, T.INT)
  debit, debit_p = stmt("UPDATE accounts SET balance = balance - ?, updated = NOW() WHERE id = ?",
    T.BIGINT, T.INT)
  credit, credit_p = stmt("UPDATE accounts SET balance = balance + ?, updated = NOW() WHERE id = ?",
    T.BIGINT, T.INT)
  move, move_p = stmt("INSERT INTO movements (account, amount, created) VALUES (?, ?, NOW())",
    T.INT, T.BIGINT)
end

local function pick()
  if sysbench.rand.uniform_double() < o.hot_share then
    return sysbench.rand.uniform(1, o.hot_accounts)
  end
  return sysbench.rand.uniform(1, o.accounts)
end

function event()
  if sysbench.rand.uniform_double() < o.write_share then
    local from, to, amount = pick(), pick(), sysbench.rand.uniform(1, 500)
    con:query("BEGIN")
    debit_p[1]:set(amount); debit_p[2]:set(from); debit:execute()
    credit_p[1]:set(amount); credit_p[2]:set(to); credit:execute()
    move_p[1]:set(from); move_p[2]:set(-amount); move:execute()
    con:query("COMMIT")
  else
    local id = pick()
    account_p[1]:set(id); account:execute()
    recent_p[1]:set(id); recent:execute()
  end
end
