-- A module of sysbench 0.5's kind (lua_semantics.lua requires it).
module(..., package.seeall)
tid = sysbench.tid
