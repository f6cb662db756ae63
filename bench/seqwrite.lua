-- bench/seqwrite: a new file written sequentially through f:stream, block
-- by block, with no fsync unless asked (fio's rw=write, end_fsync=0).
-- bench/fio.sh also uses it, with fsync, to make the file the reads read.
return {
  describe = "sequential writes of a new file through f:stream",
  params = {
    file = "seq.dat",
    block = "1M",
    size = "1G",
    depth = 1,
    fsync = false,      -- fsync at the end (timed as op "fsync")
  },
  worker = function(w, ctx)
    local p = ctx.params
    local f = assert(w:open(p.file, "w"))
    assert(f:stream{ op = "write", block = p.block, bytes = p.size,
              depth = p.depth })
    if p.fsync then assert(f:fsync()) end
    f:close()
  end,
}
