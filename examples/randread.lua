-- Random reads written op by op in Lua: each read's offset is chosen by
-- the script, as a key-value store's lookups would choose them — here a
-- hot set read with probability `hot_share`, the rest uniform.
return {
  describe = "random 4k reads, op by op, with a hot set",
  params = { file_size = "256M", block = "4k", seconds = "10s",
             hot_share = 0.8, hot_size = "16M", direct = false },
  key = { "read_iops", "read_lat_avg_ms", "read_lat_p99_ms" },

  setup = function(ctx, w)
    local f = assert(w:open("data", "w"))
    f:stream{ op = "write", block = "1M", bytes = ctx.params.file_size }
    assert(f:fsync())
    f:close()
  end,

  worker = function(w, ctx)
    local p = ctx.params
    local f = assert(w:open("data", "r", { direct = p.direct }))
    local blocks, hot = p.file_size // p.block, p.hot_size // p.block
    while not w:done() do
      local b
      if w:random(1000) <= p.hot_share * 1000 then
        b = w:random(0, hot - 1)
      else
        b = w:random(0, blocks - 1)
      end
      f:read(b * p.block, p.block)
    end
    f:close()
  end,
}
