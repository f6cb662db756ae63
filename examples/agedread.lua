-- Reads of files written on the filesystem as it is: on an aged one
-- (age: in the plan) they land in its fragmented free space, which is
-- what aging is about. mode "small": many small files over directories,
-- each read whole, in random order; mode "seq": one file read from start
-- to end. The files are written in setup (untimed) and read with direct
-- I/O by default, so the reads reach the filesystem's layout, not the
-- page cache.
return {
  describe = "small-file or sequential reads of files written after aging",
  params = { mode = "small", files = 2000, size = "16k", dirs = 20,
             file_size = "256M", block = "1M", seconds = "10s",
             direct = true },
  key = { "read_mbs", "read_iops", "read_lat_avg_ms" },

  check = function(ctx)
    local p = ctx.params
    if p.mode ~= "small" and p.mode ~= "seq" then
      error("mode: small or seq, not '" .. tostring(p.mode) .. "'")
    end
  end,

  setup = function(ctx, w)
    local p = ctx.params
    if p.mode == "seq" then
      local f = assert(w:open("seq.dat", "w"))
      f:stream{ op = "write", block = "1M", bytes = p.file_size }
      assert(f:fsync())
      f:close()
      return
    end
    for d = 0, p.dirs - 1 do
      assert(w:mkdir(string.format("d%03d", d)))
    end
    for i = 0, p.files - 1 do
      local f = assert(w:open(string.format("d%03d/f%06d", i % p.dirs, i),
                              "w"))
      assert(f:write(0, p.size))
      f:close()
    end
    w:sync()
  end,

  worker = function(w, ctx)
    local p = ctx.params
    if p.mode == "seq" then
      local f = assert(w:open("seq.dat", "r", { direct = p.direct }))
      f:stream{ op = "read", block = p.block, seconds = p.seconds }
      f:close()
      return
    end
    -- a small file read whole: its size rounded up to the 4k direct I/O
    -- takes (the read stops short at its end)
    local len = (p.size + 4095) // 4096 * 4096
    while not w:done() do
      local i = w:random(0, p.files - 1)
      local f = assert(w:open(string.format("d%03d/f%06d", i % p.dirs, i),
                              "r", { direct = p.direct }))
      f:read(0, len)
      f:close()
    end
  end,
}
