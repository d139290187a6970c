-- Run by loaded_chunks.lua with dofile: defines a global function there.
function helper_value() return 11 end
