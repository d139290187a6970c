-- A script with its own help() (listing its options with
-- sysbench.cmdline.print_test_options), options without defaults and a
-- dashed name, and prepare/cleanup functions given no thread id.
sysbench.cmdline.options = {
  str_opt = {"a string without default"},
  bool_nil = {"a boolean without default", nil, sysbench.cmdline.ARG_BOOL},
  int_nil = {"an integer without default", nil, sysbench.cmdline.ARG_INT},
  flt = {"a float", 0.5},
  lst = {"a list", {"a", "b"}},
  ["dash-opt"] = {"a dashed name", "dv"},
  empty = {"an empty default", ""},
}

function help()
  print("help()")
  sysbench.cmdline.print_test_options()
end

function prepare(tid)
  print("prepare", tostring(tid))
  local o = sysbench.opt
  print(o.str_opt, o.bool_nil, o.int_nil, o.flt, o.dash_opt, o.empty, type(o.lst))
end

function cleanup(tid)
  print("cleanup", tostring(tid))
end
