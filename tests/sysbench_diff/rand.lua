-- Random functions with the seed of --rand-seed, in the one event of one
-- thread (prepare is not seeded by --rand-seed in 1.0.20, and
-- sysbench.rand.unique is always seeded from the time: only its range shows).
function event()
  local r = sysbench.rand
  local out = {}
  for _ = 1, 5 do out[#out + 1] = r.default(1, 1000) end
  print("default", table.concat(out, " "))
  out = {}
  for _ = 1, 5 do out[#out + 1] = r.uniform(1, 1000) end
  print("uniform", table.concat(out, " "))
  out = {}
  for _ = 1, 5 do out[#out + 1] = r.gaussian(1, 1000) end
  print("gaussian", table.concat(out, " "))
  out = {}
  for _ = 1, 5 do out[#out + 1] = r.special(1, 1000) end
  print("special", table.concat(out, " "))
  out = {}
  for _ = 1, 5 do out[#out + 1] = r.pareto(1, 1000) end
  print("pareto", table.concat(out, " "))
  if r.zipfian then
    out = {}
    for _ = 1, 5 do out[#out + 1] = r.zipfian(1, 1000) end
    print("zipfian", table.concat(out, " "))
  else
    print("zipfian absent")
  end
  print("uint64", tostring(r.uniform_uint64()))
  print("double", string.format("%.6f", r.uniform_double()))
  print("string", r.string("###-@@@-###"))
  print("varstring", r.varstring and r.varstring(5, 10) or "absent")
  local seen, distinct = {}, 0
  for _ = 1, 5 do
    local u = r.unique()
    if not seen[u] then distinct = distinct + 1 end
    seen[u] = true
  end
  print("unique distinct", distinct, "sb_rand_uniq", type(sb_rand_uniq(1, 4294967295)))
  print("sb_rand", sb_rand(1, 10), "sb_rnd", sb_rnd(), "sb_rand_str", sb_rand_str("##@@"))
end
