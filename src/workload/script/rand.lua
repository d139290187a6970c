-- sysbench.rand as sysbench 1.0.20 offers it, drawing what it draws: its
-- xoroshiro128+ stream (on LuaJIT's 64-bit integers, the state in an FFI
-- array) and sb_rand.c's formulas in the same floating-point steps, so a
-- fixed --rand-seed gives sysbench's numbers. The draws of one number
-- (uniform, pareto, uniform_double) are Lua's; those of many (a string,
-- special, gaussian) are one FFI call each into Rust on the same array,
-- the built-in workloads' own code (workload/rand.rs, xoroshiro.rs).
-- unique() and the zipfian's rejection test stay in Rust (`R`). No
-- zipfian or varstring here: 1.0.20 has neither in its Lua API.
--
-- Called with (R, p): p = { kind, iter, iter_mult, res_mult, pct_mult,
-- pct_2_mult, pareto_h, s0_hi, s0_lo, s1_hi, s1_lo, rand_str,
-- rand_special, rand_gaussian } (the gaussian's and special's shape,
-- rand.rs's `Shape`; the stream's two words in 32-bit halves; the Rust
-- functions that draw). Returns the sysbench.rand table.

local R, p = ...
local ffi, bit = require("ffi"), require("bit")
local floor, log, byte = math.floor, math.log, string.byte
local bxor, lshift, rshift, rol = bit.bxor, bit.lshift, bit.rshift, bit.rol

local U64 = ffi.typeof("uint64_t")
local state = ffi.new("uint64_t[2]")
state[0] = lshift(U64(p.s0_hi), 32) + p.s0_lo
state[1] = lshift(U64(p.s1_hi), 32) + p.s1_lo

-- sb_rand_uniform_uint64
local function next64()
  local s0, s1 = state[0], state[1]
  local out = s0 + s1
  s1 = bxor(s1, s0)
  state[0] = bxor(rol(s0, 55), s1, lshift(s1, 14))
  state[1] = rol(s1, 36)
  return out
end

-- sb_rand_uniform_double: the top 52 bits as the fraction of [0, 1)
local TWO_52 = 2 ^ -52
local function double()
  return tonumber(rshift(next64(), 12)) * TWO_52
end

-- A Lua number as the uint32_t sysbench's FFI declarations take.
local TWO_32 = 2 ^ 32
local function u32(x)
  if x >= 0 and x < TWO_32 then return floor(x) end
  return (x >= 0 and floor(x) or -floor(-x)) % TWO_32
end

local function uniform(a, b)
  a, b = u32(a), u32(b)
  return floor(a + double() * ((b - a + 1) % TWO_32)) % TWO_32
end

-- rand.rs's Shape, the five doubles in its order
local shape = ffi.new("double[5]", p.iter, p.iter_mult, p.res_mult, p.pct_mult, p.pct_2_mult)
local DRAW = "uint32_t (*)(uint64_t *, const double *, uint32_t, uint32_t)"
local draw_gaussian = ffi.cast(DRAW, p.rand_gaussian)
local draw_special = ffi.cast(DRAW, p.rand_special)

local function gaussian(a, b)
  return draw_gaussian(state, shape, u32(a), u32(b))
end

-- 'special': spec_res% in the spec_pct% middle of the range, the rest gaussian
local function special(a, b)
  return draw_special(state, shape, u32(a), u32(b))
end

local power = log(p.pareto_h) / log(1 - p.pareto_h)
local function pareto(a, b)
  a, b = u32(a), u32(b)
  local t = (b - a + 1) % TWO_32
  return (a + floor(t * double() ^ power)) % TWO_32
end

-- --rand-type=zipfian (qpslab's own runs: sysbench 1.0.20 refuses it)
local zipf_try = R.zipf_try
local function zipfian(a, b)
  a, b = u32(a), u32(b)
  local n = (b - a + 1) % TWO_32
  local k
  repeat k = zipf_try(n, double()) until k
  return (a + k - 1) % TWO_32
end

-- sb_rand_str: '#' a digit, '@' a lowercase letter, one draw each (in
-- Rust, on this stream's array: rand_api.rs's rand_str)
local draw_str = ffi.cast("void (*)(uint64_t *, const char *, size_t, uint8_t *)", p.rand_str)
local buf, cap = nil, 0
local function rand_string(fmt)
  local n = #fmt
  if n > cap then
    buf, cap = ffi.new("uint8_t[?]", n), n
  end
  draw_str(state, fmt, n, buf)
  return ffi.string(buf, n)
end

local by_kind = {
  uniform = uniform, gaussian = gaussian, special = special, pareto = pareto,
  zipfian = zipfian,
}

return {
  uniform = uniform,
  default = by_kind[p.kind] or special,
  gaussian = gaussian,
  special = special,
  pareto = pareto,
  uniform_double = double,
  uniform_uint64 = next64,
  string = rand_string,
  unique = R.unique,
}
