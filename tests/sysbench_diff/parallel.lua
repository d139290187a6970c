-- A parallel custom command: with --threads > 1 sysbench says it starts
-- its worker threads first.
sysbench.cmdline.commands = {
  together = {function() print("together") end, sysbench.cmdline.PARALLEL_COMMAND},
}
