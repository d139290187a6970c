-- Uses a sysbench function qpslab does not provide (sysbench 1.1's
-- rand.hash): refused at load time with this file and line.

function event()
  local con = sysbench.sql.driver():connect()
  local h = sysbench.rand.hash(1)
end
