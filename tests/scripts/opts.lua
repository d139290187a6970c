-- A script declaring one option of each type, partly through a module.
require("opts_common")
sysbench.cmdline.options.batch = {"statements per transaction", 4}
sysbench.cmdline.options.ratio = {"share of reads", 0.75}
sysbench.cmdline.options.hot = {"use the hot set", false}
sysbench.cmdline.options.label_text = {"a label", "alpha"}
if sysbench.cmdline.command == nil then error("no command") end
function event() end

function help()
  print("opts.lua: a script to test options (its own help)")
end
