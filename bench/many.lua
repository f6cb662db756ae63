-- bench/many: the smallest real phase, for many workers at once: each
-- worker opens its own file, writes `size` bytes, closes it.
return {
  describe = "each worker writes one small file",
  params = { size = "64k" },
  worker = function(w, ctx)
    local f = assert(w:open(("f%d"):format(w.id), "w"))
    assert(f:write(0, ctx.params.size))
    f:close()
  end,
}
