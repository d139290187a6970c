function event(
  print("unfinished"
