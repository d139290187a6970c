-- A script that declares no options: sysbench takes any --name=value
-- given with it (cram's cmdline.t). Its command line, as the script sees it.
function prepare()
  local words = {}
  for i = 1, #sysbench.cmdline.argv do
    words[#words + 1] = sysbench.cmdline.argv[i]
  end
  print("prepare", table.concat(words, " "))
end
