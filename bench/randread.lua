-- bench/randread: random reads of an existing file through f:stream — the
-- loop runs in C, up to `depth` reads in flight (fio's iodepth). For
-- bench/fio.sh, side by side with fio on the same file.
return {
  describe = "random reads through f:stream (the I/O loop in C)",
  params = {
    file = "data",      -- the file to read, made by an earlier phase
    block = "4k",       -- bytes per read
    size = "1G",        -- offsets fall in [0, size)
    depth = 1,          -- reads in flight
    seconds = "10s",    -- how long
    direct = false,     -- O_DIRECT
  },
  worker = function(w, ctx)
    local p = ctx.params
    local f = assert(w:open(p.file, "r", { direct = p.direct }))
    assert(f:stream{ op = "read", pattern = "random", block = p.block,
              span = p.size, depth = p.depth, seconds = p.seconds })
    f:close()
  end,
}
