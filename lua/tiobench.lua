-- tiobench: tiotest's four tests, one per phase run, as tiobench.pl drives
-- them — N threads, each on its own file of int(file_size / N), 4 KiB
-- blocks, int(random_ops / N) random ops per thread, synchronous I/O
-- (one op in flight per thread).
--
--   phases:
--     - use: tiobench
--       matrix: {workers: [1, 2, 4, 8],
--                mode: [seq_read, rand_read, seq_write, rand_write]}
--       with: {file_size: "${size}", block: 4k}
--
-- What each mode does, as tiotest does it:
--   seq_write   create and truncate the file, write it block by block,
--               fsync (inside the timed run, outside the op latencies)
--   rand_write  random block writes over the file, then fsync
--   seq_read    read the file block by block
--   rand_read   random block reads over the file
-- Every mode but seq_write first has setup write and fsync each thread's
-- file, untimed: tiotest's random write, read and random read follow its
-- sequential write on the same files, so they never meet a sparse file.
-- Like tiotest, nothing drops the caches between that write and the test:
-- a file_size of twice the RAM is what keeps reads honest.
--
-- Parameters (tiobench.pl's option in brackets):
--   workers     threads [--threads]: the harness starts that many
--               workers, so a plan says workers, not threads
--   file_size   all threads together [--size]; "auto": twice the RAM.
--               Each thread gets int(file_size / workers) whole MiB (as
--               tiobench.pl hands tiotest -f in MiB), or whole blocks when
--               that is under 1 MiB
--   ram         the memory file_size is judged against: "auto" is the
--               machine's; a file_size under twice it is refused. A size
--               is also the phase's memory cgroup limit (fsplan enforces
--               it: page cache beyond it is reclaimed); 0 turns the rule
--               off. ram_mib and ram_limit in the output say which.
--   block       the I/O size [--block]
--   mode        seq_write, seq_read, rand_write or rand_read
--   random_ops  random ops of all threads [--random]: int(random_ops /
--               workers) a thread
-- The random offsets come from the plan's seed (and the worker and the
-- repetition): `seed:` in the plan sets them.
--
-- Metrics, besides the automatic tio_* rows (tio_ops, tio_bytes, ...):
--   rate_mbs        MiB/s over all threads: tio_bytes / 2^20 / seconds,
--                   seconds from all threads started to all joined
--   test_cpu_pct    CPU%: 100 × (user + sys of the phase child while the
--                   threads ran) / seconds. The cpu_pct row is the whole
--                   child's, setup's file writing included: not this.
--   cpu_eff         CPU Eff: rate_mbs / (test_cpu_pct / 100)
--   avg_lat_ms, max_lat_ms      per op over all threads
--   Lat% >2s and >10s           the rows tio_over_2000ms_pct and
--                   tio_over_10000ms_pct (thresholds below); copied to
--                   over_2s_pct and over_10s_pct when report() is given them
--   file_size_mib, block_bytes, threads, ram_given (fsplan adds ram_mib
--                   and ram_limit: the memory cgroup that applied)
-- Each phase run reports its own figures: repetitions are rows of their
-- own, never summed (tiobench's --numruns bug).

local fsplan = require("fsplan")

local MiB, mib = fsplan.MiB, fsplan.mib
local UNITS = { rate_mbs = "MiB/s", test_cpu_pct = "%", avg_lat_ms = "ms",
                max_lat_ms = "ms", over_2s_pct = "%", over_10s_pct = "%",
                file_size_mib = "MiB", block_bytes = "bytes" }

local MODES = {
  seq_write  = { open = "w",  op = "write", random = false, fill = false },
  rand_write = { open = "rw", op = "write", random = true,  fill = true },
  seq_read   = { open = "r",  op = "read",  random = false, fill = true },
  rand_read  = { open = "r",  op = "read",  random = true,  fill = true },
}

-- The run's shape from its parameters; setup, every worker and report each
-- work it out in their own Lua state, so it is a function of ctx alone.
local function shape(ctx)
  local p = ctx.params
  local mode = MODES[p.mode]
  if not mode then
    error(("mode '%s': seq_write, seq_read, rand_write or rand_read")
          :format(p.mode), 0)
  end
  local threads = p.workers
  local ram, ram_given = fsplan.ram(ctx, p.ram)
  local total = 2 * ram
  if p.file_size == "auto" and ram == 0 then
    error("file_size auto is twice the RAM, and ram is 0", 0)
  elseif p.file_size ~= "auto" then
    total = fsplan.size("file_size", p.file_size)
    fsplan.twice_ram("file_size", total, ram)
  end
  fsplan.fits(ctx, "file_size", total, p.file_size == "auto")
  if p.block < 1 then error("block: at least 1 byte", 0) end
  local per = total // threads
  if per >= MiB then per = per // MiB * MiB end
  local blocks = per // p.block
  if blocks < 1 then
    error(("file_size %s over %d workers leaves less than one "
           .. "%s block a worker"):format(fsplan.human(total), threads,
                                          fsplan.human(p.block)), 0)
  end
  local ops = math.floor(p.random_ops) // threads
  if mode.random and ops < 1 then
    error(("random_ops %s over %d workers leaves none a worker")
          :format(p.random_ops, threads), 0)
  end
  return {
    mode = mode, threads = threads, total = total, ram = ram,
    ram_given = ram_given, block = p.block, blocks = blocks,
    thread_bytes = blocks * p.block, random_ops = ops,
  }
end

local function file_name(ctx, id)
  return ("tiotest.%d.thr%d"):format(ctx.index, id)
end

-- CPU seconds of the child when the threads start and when they have all
-- ended (this state's setup and teardown bracket the workers).
local cpu_start, cpu_used

return {
  describe = "tiobench: threaded sequential/random reads and writes, "
             .. "rate, CPU%, latency",
  -- engine auto by default: tiotest is synchronous, one op in flight per
  -- thread, and auto makes a lone op a syscall as tiotest does; through
  -- the ring ext4 hands each lone buffered write to a kernel worker
  -- thread (bench/tiobench.sh: 0.5 of fio under engine uring)
  params = { workers = 1, file_size = "auto", ram = "auto", block = "4k",
             mode = "seq_write", random_ops = 4000, engine = "auto" },
  thresholds = { 2000, 10000 },
  -- report shows them as tiobench's four sections
  key = { "rate_mbs", "avg_lat_ms", "max_lat_ms", "test_cpu_pct" },
  check = shape,

  setup = function(ctx, w)
    local s = shape(ctx)
    if s.mode.fill then
      for id = 1, s.threads do
        local f = assert(w:open(file_name(ctx, id), "w"))
        -- in the test's blocks, as tiotest's own sequential write: 1 MiB
        -- writes on xfs (the ring, punted to io-wq) in a 32 MiB memory
        -- cgroup v1 had the OOM killer end 8 fills of 270 with 28 MiB of
        -- clean page cache unreclaimed; 4 KiB ones none of 360
        assert(f:stream{ op = "write", bytes = s.thread_bytes,
                         block = s.block })
        assert(f:fsync())
        assert(f:close())
      end
    end
    cpu_start = assert(w:cpu())
  end,

  worker = function(w, ctx)
    local s = shape(ctx)
    local f = assert(w:open(file_name(ctx, w.id), s.mode.open))
    local want = s.mode.random and s.random_ops or s.blocks
    local _, ops
    if s.mode.random then
      _, ops = assert(f:stream{ op = s.mode.op, pattern = "random",
                                block = s.block, count = want,
                                span = s.thread_bytes, tag = "tio" })
    else
      _, ops = assert(f:stream{ op = s.mode.op, block = s.block,
                                bytes = s.thread_bytes, tag = "tio" })
    end
    if ops ~= want then
      error(("thread %d: %d of %d ops done"):format(w.id, ops, want))
    end
    if s.mode.op == "write" then assert(f:fsync()) end
    assert(f:close())
  end,

  teardown = function(ctx, w)
    cpu_used = assert(w:cpu()) - cpu_start
    for id = 1, ctx.params.workers do
      assert(w:unlink(file_name(ctx, id)))
    end
  end,

  report = function(r, ctx)
    local s = shape(ctx)
    local out = {
      file_size_mib = mib(s.total),
      block_bytes = s.block,
      threads = s.threads,
      ram_given = s.ram_given and 1 or 0,
      avg_lat_ms = r.tio_lat_avg_ms,
      max_lat_ms = r.tio_lat_max_ms,
      over_2s_pct = r.tio_over_2000ms_pct,
      over_10s_pct = r.tio_over_10000ms_pct,
    }
    if r.seconds > 0 then
      out.rate_mbs = mib(r.tio_bytes or 0) / r.seconds
      out.test_cpu_pct = 100 * cpu_used / r.seconds
      if cpu_used > 0 then
        out.cpu_eff = out.rate_mbs / (out.test_cpu_pct / 100)
      end
    end
    return fsplan.units(out, UNITS)
  end,
}
