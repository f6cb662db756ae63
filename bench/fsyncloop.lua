-- bench/fsyncloop: 8 KiB random writes each followed by fsync, for fio.sh.
-- A user's fsync loop, run over a file setup wrote and synced (as fio's
-- --overwrite=1 lays its file out before the job), offsets uniform with
-- repeats (fio's --norandommap), one op at a time on plain system calls
-- (fio's --ioengine=psync): what fsplan-lua(7)'s "Comparing fsync loops
-- with fio" calls like for like.
return {
  describe = "8 KiB random writes + fsync over a file setup wrote",
  params = {
    file = "fsync.dat",
    block = "8k",       -- bytes per write
    size = "64M",       -- the file; offsets fall in [0, size), block-aligned
    seconds = "5s",     -- how long the loop runs
    engine = "sync",    -- one pwrite(2) and one fsync(2) at a time
  },
  -- setup lays the file out as fio does, a block at a time: over a file
  -- laid out in 1 MiB writes each 8 KiB pwrite took about 4 times as long
  -- on ext4 here (24-27 us against 6-7 us, 4 alternating pairs on a
  -- tmpfs-backed image; larger page-cache folios, most likely), the
  -- fsyncs about alike, the device seeing the same ~8.5 KiB per op
  setup = function(ctx, w)
    local p = ctx.params
    local f = assert(w:open(p.file, "w"))
    assert(f:stream{ op = "write", block = p.block, bytes = p.size })
    assert(f:fsync())
    f:close()
  end,
  worker = function(w, ctx)
    local p = ctx.params
    local n = p.size // p.block
    local f = assert(w:open(p.file, "r+", { create = false }))
    while not w:done() do
      assert(f:write((w:random(n) - 1) * p.block, p.block))
      assert(f:fsync())
    end
    f:close()
  end,
}
