-- sysbench.rand's integer distributions in Lua, on LuaJIT's own generator
-- (math.random, seeded per connection): the interpreter calls no Rust for
-- the draws an event makes most. The same formulas as the built-in
-- workloads' Rng (workload/rand.rs). Zipfian (whose constants take a pass
-- over the whole range) and the string functions stay in Rust (`R`).
--
-- Called with (R, params): params = { kind, spec_iter, spec_pct,
-- spec_res, pareto_h, seed }. Returns the sysbench.rand table.

local R, p = ...
local random, floor, min, max, log = math.random, math.floor, math.min, math.max, math.log
math.randomseed(p.seed)

local function uniform(a, b)
  if b <= a then return a end
  return random(a, b)
end

local iter = max(1, p.spec_iter)
local function gaussian(a, b)
  if b <= a then return a end
  local sum = 0
  for _ = 1, iter do sum = sum + random(a, b) end
  return floor(sum / iter)
end

local spec_pct, spec_res = p.spec_pct, p.spec_res
local function special(a, b)
  if b <= a then return a end
  local size = b - a + 1
  local hot = max(1, floor(size * spec_pct / 100))
  if random() * 100 < spec_res then
    return a + random(0, hot - 1)
  elseif hot < size then
    return a + hot + random(0, size - hot - 1)
  end
  return random(a, b)
end

local power = log(p.pareto_h) / log(1 - p.pareto_h)
local function pareto(a, b)
  if b <= a then return a end
  local size = b - a + 1
  return a + min(floor(size * random() ^ power), size - 1)
end

local by_kind = {
  uniform = uniform, gaussian = gaussian, special = special, pareto = pareto,
  zipfian = R.zipfian,
}

return {
  uniform = uniform,
  default = by_kind[p.kind] or special,
  gaussian = gaussian,
  special = special,
  pareto = pareto,
  zipfian = R.zipfian,
  uniform_double = function() return random() end,
  uniform_uint64 = R.uniform_uint64,
  string = R.string,
  varstring = R.varstring,
  unique = R.unique,
}
