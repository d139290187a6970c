-- sysbench.cmdline.options whose entry is not `name = {...}`: sysbench
-- refuses the script (its "wrong table structure" error).
sysbench.cmdline.options = {
  {},
}

function help()
end

function event()
end
