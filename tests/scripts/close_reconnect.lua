-- qpslab's test of closes before a scripted reconnect (tests/script_compat.rs):
-- each event runs its statement, closes it, reconnects and prepares it
-- again on the new connection, as sysbench 1.1's oltp_common does for
-- --reconnect. Every close reaches the server (Com_stmt_close: one an
-- event), as sysbench's, sent one at a time, do.
local con, st

function thread_init()
  con = sysbench.sql.driver():connect()
  st = con:prepare("SELECT 1")
end

function event()
  st:execute()
  st:close()
  con:reconnect()
  st = con:prepare("SELECT 1")
end

function thread_done()
  con:disconnect()
end
