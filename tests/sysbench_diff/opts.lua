-- Script options of every type, their defaults and the values given,
-- and the general options as sysbench.opt shows them.
sysbench.cmdline.options = {
  my_str = {"a string", "dflt"},
  my_int = {"an integer", 10},
  my_bool = {"a boolean", true},
  my_off = {"a boolean off", false},
  my_list = {"a list", {"a", "b"}},
  my_double = {"a double", 0.5},
  my_size = {"a size", "1M", sysbench.cmdline.ARG_SIZE},
  my_nodefault = {"no default", nil, sysbench.cmdline.ARG_STRING},
}

local function show(v)
  if type(v) == "table" then
    local parts = {}
    for i, x in ipairs(v) do parts[i] = tostring(x) end
    return "table{" .. table.concat(parts, ",") .. "}"
  end
  return type(v) .. ":" .. tostring(v)
end

function prepare()
  for _, k in ipairs({"my_str", "my_int", "my_bool", "my_off", "my_list",
                      "my_double", "my_size", "my_nodefault"}) do
    print(k, show(sysbench.opt[k]))
  end
  for _, k in ipairs({"threads", "events", "time", "rate", "report_interval",
                      "percentile", "verbosity", "rand_seed", "rand_type",
                      "histogram", "db_driver", "mysql_db", "nosuch"}) do
    print("general", k, show(sysbench.opt[k]))
  end
  print("command", sysbench.cmdline.command)
  print("script_path", sysbench.cmdline.script_path)
  print("test", test)
end
