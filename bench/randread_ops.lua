-- bench/randread_ops: the workload of bench/randread.lua written op by op
-- in Lua, as a user would: one f:read per block at an offset from
-- w:random, until w:done(). Depth 1 by nature.
return {
  describe = "random reads, one f:read call per block from a Lua loop",
  params = {
    file = "data",
    block = "4k",
    size = "1G",
    seconds = "10s",
    direct = false,
  },
  worker = function(w, ctx)
    local p = ctx.params
    local block = p.block
    local blocks = p.size // block
    local f = assert(w:open(p.file, "r", { direct = p.direct }))
    while not w:done() do
      assert(f:read((w:random(blocks) - 1) * block, block))
    end
    f:close()
  end,
}
