-- A module the test script requires from its own directory.
sysbench.cmdline.options.shared_rows = {"rows the shared module adds", 100}
