-- Random functions across events with --rand-seed: sysbench's latency
-- histogram takes one draw of the thread's generator after each event, so
-- each event's numbers follow it. Edge ranges: a == b, the whole 32-bit
-- range, b < a (sysbench's 32-bit arithmetic wraps).
function event()
  local r = sysbench.rand
  print(r.default(1, 100), r.uniform(0, 4294967295), r.special(10, 10),
    r.gaussian(5, 1), r.pareto(1, 3), r.string("@#@#-x"),
    sb_rand_uniq(5, 4294967295) >= 5, sb_rnd() < 4294967296)
end
