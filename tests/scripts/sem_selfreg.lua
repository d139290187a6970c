-- A module that registers itself and returns nothing (lua_semantics.lua).
local M = { x = 42 }
package.loaded[...] = M
