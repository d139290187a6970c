-- sysbench.histogram: a bounded histogram fed fixed values, printed.
function prepare()
  local h = sysbench.histogram.new(20, 1, 1000)
  print("histogram", type(h))
  for _, v in ipairs({1, 2, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987}) do
    h:update(v)
  end
  for _ = 1, 10 do h:update(42) end
  h:print()
  local e = sysbench.histogram.new(10, 1, 10)
  e:print()
  print("end")
end
