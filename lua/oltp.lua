-- oltp: an InnoDB-like OLTP load with no database — the I/O that MariaDB
-- 10.11's InnoDB does under sysbench oltp_read_write, from Lua workers.
--
--   phases:
--     - use: oltp
--       with: {workers: 8, seconds: 60, size: 18M, buffer_pool: 128M}
--
-- The files, as InnoDB lays them out (reference/classic-tools.md):
--   sbtest.ibd    the tablespace: size bytes of 16 KiB pages, read and
--                 written with O_DIRECT (InnoDB's default since 10.6)
--   ibdata1       the system tablespace, holding the doublewrite area
--                 (128 pages: two batches of 64), O_DIRECT
--   ib_logfile0   the redo log, log_size bytes, allocated (fallocate: its
--                 extents unwritten until first written, as 10.11 makes
--                 it), written in log_block units and made durable by an
--                 fdatasync at every commit (flush_log_at_trx_commit=1);
--                 O_DIRECT as log_direct says (below)
-- setup writes and syncs the first two, allocates the log, untimed;
-- teardown removes them.
--
-- One transaction is sysbench 1.0's oltp_read_write (oltp_common.lua's
-- defaults): BEGIN, 10 point selects, 4 range selects of 100 rows
-- (simple, sum, order, distinct: two neighbouring pages each), 2 updates
-- (index, non-index), a delete and an insert, COMMIT — 20 requests, 14
-- reads, 4 writes, 2 other; these are the counts reported. sysbench
-- 0.4's oltp complex mode (sb_oltp.c, 0.4.12) made the same 14 reads but
-- 5 writes (one more index UPDATE, "to make PostgreSQL work") and 2
-- other, 21 requests (18, said of the study, is in neither source). Its
-- --max-requests counted transactions (a request was a transaction), as
-- sysbench 1.0's --events does: `events` here. A select or a change
-- needs its page in the buffer pool: a miss is a 16 KiB O_DIRECT read
-- of the tablespace. Pages are chosen by sysbench's default "special"
-- distribution: 75% of the choices fall in the hottest 1% of the
-- pages, the rest anywhere. Each request is the server's work too:
-- cpu_work / 20 turns of a Lua loop (CPU time: parsing, rows, the
-- client), and round_trips of the 20 (10: every other one) end in a
-- 10 us sleep for the round trip to sysbench. Without the CPU a commit
-- is most of a transaction's time and a filesystem's sync latency weighs
-- several times what it does under a server (btrfs was 0.31 of ext4
-- natively, 0.67 on MariaDB). How often the workers leave the CPU sets
-- how commits queue on the log: with a sleep after each of the 20
-- requests the groups were smaller than MariaDB's (0.81 log syncs a
-- transaction on ext4 against 0.60), with none four times larger (0.25),
-- with 10 they are MariaDB's (0.65). The server's thread blocks on its
-- socket 20 times a transaction, but the client's CPU is other threads',
-- which the workers here have not.
-- Each change adds a redo record (256 bytes) to the transaction, the
-- commit one of 150 (1,174 bytes; with the turns' part blocks about
-- 1,500 are written a transaction, MariaDB's Innodb_os_log_written); the
-- commit appends them to the one redo log the workers share and waits
-- until they are durable: group commit, as InnoDB's (f:group_commit) —
-- while one worker's write and fdatasync of the log are in flight the
-- others queue, and the next of them to lead writes everything queued in
-- one write, from the start of the log_block the last write ended in
-- (its last, partly filled block is written again, as strace shows
-- MariaDB doing), then syncs, for them all. The log is circular, as
-- InnoDB's: its head wraps round to its start.
--
-- The buffer pool is buffer_pool bytes shared as InnoDB's is: each worker
-- caches buffer_pool / workers of pages and works on its own share of the
-- table (the pages p with p % workers == id - 1), so that a page is cached
-- once, whoever needs it. It starts warm and dirty, as sysbench prepare
-- leaves it (the last pages of each share it can hold, none flushed yet):
-- a table smaller than the pool is never read, as MariaDB's was not.
-- Dirty pages are flushed, the oldest changes first (prepare's pages,
-- then the run's), by a page cleaner: once a second each worker flushes
-- its share of clean_rate pages (MariaDB's adaptive flushing wrote 1,473
-- pages in the 20 s after prepare, about 75 a second, each page about
-- once); and 64 at a time when a dirty page must leave the pool, when
-- more than 90% of the pool is dirty (innodb_max_dirty_pages_pct), and all
-- of them at a checkpoint, when the redo the worker wrote since the last
-- one reaches 3/4 of its share of the log (log_size / workers: the log
-- must not wrap over changes not yet in the tablespace). A page the run
-- changed goes first into the doublewrite area (one write for the batch,
-- then an fdatasync of ibdata1), then to its place in the tablespace
-- (then an fdatasync of sbtest.ibd): written twice; a page prepare made
-- goes home only, as 10.5 and later write it: its making is in the redo
-- log, which rebuilds it whole.
--
-- Measured against MariaDB 10.11 (bench/oltp.sh, 2026-12-05: 8 threads,
-- 20 s, 4 x 20,000 rows, buffer pool 128M, 5 rounds on ext4, ext4
-- data=journal, xfs and btrfs loop images; SHOW GLOBAL STATUS after the
-- run less before it, the loop device's stat), medians a transaction,
-- this load / MariaDB:
--   log syncs               ext4 0.66 / 0.59, data=journal 0.57 / 0.55,
--                           xfs 0.67 / 0.56, btrfs 0.45 / 0.39
--   log writes              the same as the syncs, each within 1%
--   redo bytes              1,400-1,510 / 1,500-1,590
--   pages written           0.042-0.049 / 0.037-0.047
--   device writes           ext4 1.64 / 1.49, data=journal 2.32 / 2.22,
--                           xfs 1.37 / 1.15, btrfs 5.5 / 4.8
--   device bytes            ext4 6.7 / 6.7 KB, data=journal 16.0 / 15.0,
--                           xfs 3.5 / 3.4, btrfs 69 / 60
-- every one within 0.88-1.24 of MariaDB's (make bench after it:
-- 0.86-1.18). Where they differ most (the syncs on xfs and btrfs,
-- 1.15-1.19), the workers' groups are a little
-- smaller than MariaDB's: how commits queue depends on how the threads
-- share the CPU (round_trips, cpu_work), which a server and its clients
-- do otherwise.
--
-- Parameters:
--   workers      sysbench's --threads
--   seconds      sysbench's --time (when events is 0)
--   events       sysbench's --events (0.4's --max-requests): when not 0,
--                the workers make this many transactions in all (worker
--                i of n makes events // n, one more when i <= events % n)
--                and stop, whatever seconds says (the phase's timeout
--                still holds); total_time_s is then the time they took,
--                the figure the study compared
--   size         the tablespace (sysbench's tables x table_size rows,
--                about 70 rows of oltp_read_write a page)
--   buffer_pool  innodb_buffer_pool_size
--   log_size     innodb_log_file_size (10.11's default, 96M)
--   log_block    the redo log's write unit: 10.11 uses the device's
--                physical block size (512 on this machine's loop images,
--                "File system buffers for log disabled (block size=512
--                bytes)"; 4096 on most disks)
--   log_direct   auto (the default), yes or no: O_DIRECT for the log.
--                auto does what 10.11 does: O_DIRECT when it can learn
--                the physical block size of the file's device from
--                /sys/dev/block, which it cannot on btrfs (an anonymous
--                st_dev; its log stays buffered: no "buffers for log
--                disabled" line) nor under target.dir
--   cpu_work     turns of the loop a transaction spends as the server's
--                and the client's CPU (0: I/O only). The default, 120,000,
--                makes this load's CPU a transaction MariaDB's on this
--                machine (2026-12-04, ext4, 8 threads): mariadbd's and
--                sysbench's user and system time was 0.94 ms a
--                transaction (their start and prepare taken out), this
--                load's 0.82 ms at 100,000 turns and 1.26 at 175,000 (the
--                old default, set when MariaDB's was 1.65 ms: the host's
--                speed moves both, not alike). bench/oltp.sh prints both;
--                with too much CPU a transaction the load is CPU-bound
--                and the filesystems' differences shrink (btrfs/ext4
--                1.06 natively against MariaDB's 0.90 at 175,000; 0.87
--                at 100,000)
--   round_trips  how many of the 20 requests end in a 10 us sleep for
--                the round trip to the client (0 to 20, spread evenly):
--                how often the workers leave the CPU sets how commits
--                queue on the log (above)
--   clean_rate   the pages a second the page cleaner flushes, the
--                workers' shares together (0: only at evictions, a 90%
--                dirty pool and checkpoints)
--
-- Metrics (the names lua/parse/sysbench.lua gives sysbench's report):
--   transactions, transactions_per_s, queries, requests_per_s (queries a
--   second), reads, writes, other, other_per_s, events, total_time_s,
--   lat_min_ms, lat_avg_ms, lat_max_ms, lat_p95_ms (a transaction's,
--   BEGIN to durable COMMIT)
--   fsyncs_per_commit (redo_fsync_ops / transactions); redo_fsyncs,
--   redo_writes (the log's syncs and writes: redo_fsync_ops,
--   redo_write_ops) and data_fsyncs (every sync: those and
--   dblwr_sync_ops and data_sync_ops, as 10.11's Innodb_data_fsyncs
--   counts them), the names use: mariadb gives InnoDB's; the counters
--   page_reads, page_writes (to the tablespace), dblwr_pages (to the
--   doublewrite area) and redo_bytes (written to the log), and the
--   automatic rows of the ops page_read, page_write, dblwr_write,
--   dblwr_sync, data_sync, redo_write, redo_fsync, txn.

local fsplan = require("fsplan")

local PAGE = 16 * 1024
local DBLWR_PAGES, BATCH = 128, 64
local REDO_RECORD, COMMIT_RECORD = 256, 150
local LOG_DIRECT = { auto = true, yes = true, no = true }
local POINT, RANGES, CHANGES = 10, 4, 4
local ROUND_TRIP = 10e-6
local REQUESTS, READS, WRITES, OTHER = 20, 14, 4, 2

local function shape(ctx)
  local p = ctx.params
  local pages = p.size // PAGE
  if pages < 2 then
    error(("size: %s holds fewer than 2 pages of 16 KiB")
          :format(fsplan.human(p.size)), 0)
  end
  local b = p.log_block
  if b < 512 or b > 65536 or b & (b - 1) ~= 0 then
    error(("log_block: %s is not a power of 2 from 512 to 64K")
          :format(tostring(b)), 0)
  end
  local bytes = p.log_size // b * b
  local stretch = bytes // p.workers
  local txn = CHANGES * REDO_RECORD + COMMIT_RECORD
  if stretch < 4 * (txn + b) then
    error(("log_size: %s leaves a worker less than 4 commits of redo log")
          :format(fsplan.human(p.log_size)), 0)
  end
  if not (p.cpu_work >= 0 and p.cpu_work <= 2^31) then
    error(("cpu_work: %s is not a number of turns from 0 to 2^31")
          :format(tostring(p.cpu_work)), 0)
  end
  if not (p.clean_rate >= 0 and p.clean_rate <= 2^31) then
    error(("clean_rate: %s is not a number of pages a second from 0 "
           .. "to 2^31"):format(tostring(p.clean_rate)), 0)
  end
  local rt = p.round_trips
  if not (rt >= 0 and rt <= REQUESTS and rt % 1 == 0) then
    error(("round_trips: %s is not a whole number of requests from 0 to 20")
          :format(tostring(rt)), 0)
  end
  if not LOG_DIRECT[p.log_direct] then
    error(("log_direct: %s is not auto, yes or no")
          :format(tostring(p.log_direct)), 0)
  end
  -- past 2^53 a count is a float: no longer exact, nor a whole number
  -- sysbench's --events takes
  if p.events < 0 or p.events % 1 ~= 0 or p.events > 2^53 then
    error(("events: %s is not a whole number of transactions from 0 "
           .. "to 2^53 (0: run for seconds)"):format(tostring(p.events)),
          0)
  end
  return {
    pages = pages,
    hot = math.max(1, pages // 100),
    pool = math.max(1, p.buffer_pool // PAGE // p.workers),
    stretch = stretch,
    block = b,
    -- each worker's page cleaner batch: the workers together flush
    -- clean_rate pages a second
    clean = math.min(BATCH, (p.clean_rate + p.workers - 1) // p.workers),
    redo = { size = bytes, block = b, write = "redo_write",
             sync = "redo_fsync" },
    n = p.workers,
  }
end

-- The worker's own page for page p of the table: the one of its share
-- (the pages p with p % workers == id - 1) that holds p's row range.
local function own(w, s, p)
  p = p - p % s.n + (w.id - 1)
  if p >= s.pages then return (w.id - 1) % s.pages end
  return p
end

-- sysbench's "special" distribution, over pages 0 .. pages-1.
local function pick(w, s)
  if w:random(100) <= 75 then
    return own(w, s, w:random(0, s.hot - 1))
  end
  return own(w, s, w:random(0, s.pages - 1))
end

-- One worker's buffer pool: pages cached (oldest first) and those changed
-- (dirty[page]: true, or "made" for a page prepare made that was not
-- flushed since). It starts warm and dirty, as sysbench prepare leaves
-- InnoDB's: holding the last pages of the worker's share it can (the rows
-- inserted last), none of them flushed yet.
local function new_pool(w, s)
  local bp = { cap = s.pool, has = {}, fifo = {}, head = 1, tail = 0,
               dirty = {}, n_dirty = 0, dblwr_half = 0,
               clean_at = w:now() + w.id / s.n }
  local first = (w.id - 1) % s.n
  local last = (s.pages - 1) - (s.pages - 1 - first) % s.n
  local from = math.max(first, last - (s.pool - 1) * s.n)
  if first < s.pages then
    for page = from, last, s.n do
      bp.tail = bp.tail + 1
      bp.fifo[bp.tail], bp.has[page] = page, true
      bp.dirty[page], bp.n_dirty = "made", bp.n_dirty + 1
    end
  end
  return bp
end

local function flush(w, bp, files, n)
  -- the oldest changes first, as InnoDB's flush list: prepare's pages
  local batch = {}
  n = n or BATCH
  for _, kind in ipairs{ "made", true } do
    for page, k in pairs(bp.dirty) do
      if #batch == n then break end
      if k == kind then batch[#batch + 1] = page end
    end
  end
  if #batch == 0 then return end
  table.sort(batch)
  -- a page made since the last checkpoint needs no doublewrite: the redo
  -- log holds its making, recovery rebuilds it whole (InnoDB 10.5 on)
  local twice = 0
  for _, page in ipairs(batch) do
    if bp.dirty[page] == true then twice = twice + 1 end
  end
  if twice > 0 then
    local at = (bp.dblwr_half * BATCH) * PAGE
    bp.dblwr_half = 1 - bp.dblwr_half
    w:op("dblwr_write", function()
      assert(files.ibdata:write(at, twice * PAGE))
    end)
    w:op("dblwr_sync", function() assert(files.ibdata:fdatasync()) end)
    w:count("dblwr_pages", twice)
  end
  for _, page in ipairs(batch) do
    w:op("page_write", function()
      assert(files.ibd:write(page * PAGE, PAGE))
    end)
    bp.dirty[page] = nil
  end
  bp.n_dirty = bp.n_dirty - #batch
  w:count("page_writes", #batch)
  w:op("data_sync", function() assert(files.ibd:fdatasync()) end)
end

-- The page in the pool: read on a miss, the oldest page out when full
-- (flushed first if it is dirty).
local function get(w, bp, files, page)
  if bp.has[page] then return end
  if bp.tail - bp.head + 1 >= bp.cap then
    local old = bp.fifo[bp.head]
    if bp.dirty[old] then flush(w, bp, files) end
    -- a flush of 64 may leave it dirty only if more than 64 are
    while bp.dirty[old] do flush(w, bp, files) end
    bp.fifo[bp.head], bp.has[old] = nil, nil
    bp.head = bp.head + 1
  end
  w:op("page_read", function()
    assert(files.ibd:read(page * PAGE, PAGE))
  end)
  w:count("page_reads", 1)
  bp.tail = bp.tail + 1
  bp.fifo[bp.tail], bp.has[page] = page, true
end

local function change(w, bp, files, s, page)
  get(w, bp, files, page)
  if not bp.dirty[page] then
    bp.dirty[page], bp.n_dirty = true, bp.n_dirty + 1
  end
end

-- Request i's server work: turns of a loop (CPU time), then, for
-- round_trips of the 20, a short sleep for the round trip to the client
-- (s.trip). cpu_work 0 is the I/O alone: neither.
local function spin(w, s, i)
  local n = s.turns
  if n == 0 then return 0 end
  local x = 0
  for j = 1, n do x = x + j % 7 end
  if s.trip[i] then w:sleep(ROUND_TRIP) end
  return x
end

local function transaction(w, s, bp, files, log)
  spin(w, s, 1)                                     -- BEGIN
  for i = 1, POINT do get(w, bp, files, pick(w, s)); spin(w, s, 1 + i) end
  for i = 1, RANGES do
    local page = pick(w, s)
    get(w, bp, files, page)
    get(w, bp, files, own(w, s, (page + s.n) % s.pages))
    spin(w, s, 1 + POINT + i)
  end
  for i = 1, CHANGES do
    change(w, bp, files, s, pick(w, s))
    spin(w, s, 1 + POINT + RANGES + i)
  end
  spin(w, s, REQUESTS)                              -- COMMIT
  -- COMMIT: the redo records appended to the shared log, durable
  local len = CHANGES * REDO_RECORD + COMMIT_RECORD
  if log.since + len > log.checkpoint then
    while bp.n_dirty > 0 do flush(w, bp, files) end
    log.since = 0
  end
  log.since = log.since + len
  local _, wrote = assert(files.log:group_commit(len, s.redo))
  if wrote > 0 then w:count("redo_bytes", wrote) end
  if bp.n_dirty > bp.cap * 0.9 then flush(w, bp, files) end
  -- the page cleaner: once a second, the worker's share of clean_rate
  if s.clean > 0 and w:now() >= bp.clean_at then
    bp.clean_at = bp.clean_at + 1
    if bp.n_dirty > 0 then flush(w, bp, files, s.clean) end
  end
end

-- Whether the redo log is opened with O_DIRECT: log_direct, and for
-- auto what 10.11 does: O_DIRECT when it can read the physical block size
-- of the file's device, which it cannot on btrfs (an anonymous st_dev:
-- no /sys/dev/block entry), nor is there one under target.dir to know.
local function log_direct(ctx)
  local d = ctx.params.log_direct
  if d == "auto" then
    return ctx.fs == nil or (ctx.fs.type ~= "btrfs" and ctx.fs.type ~= "dir")
  end
  return d == "yes"
end

local function open_all(w, ctx)
  return {
    ibd = assert(w:open("sbtest.ibd", "rw", { direct = true })),
    ibdata = assert(w:open("ibdata1", "rw", { direct = true })),
    log = assert(w:open("ib_logfile0", "rw",
                        { direct = log_direct(ctx) })),
  }
end

local function make(w, name, bytes, direct)
  local f = assert(w:open(name, "w", { direct = direct }))
  local block = bytes % fsplan.MiB == 0 and fsplan.MiB or PAGE
  assert(f:stream{ op = "write", bytes = bytes, block = block })
  assert(f:fsync())
  assert(f:close())
end

return {
  describe = "InnoDB-like OLTP: 16 KiB pages with O_DIRECT, doublewrite, "
             .. "redo log with group commit, sysbench oltp_read_write's mix",
  params = { workers = 16, seconds = "60s", size = "256M",
             buffer_pool = "128M", log_size = "96M", log_block = 512,
             log_direct = "auto", cpu_work = 120000, round_trips = 10,
             clean_rate = 75, events = 0 },
  key = { "transactions_per_s", "requests_per_s", "lat_avg_ms",
          "lat_p95_ms" },
  check = shape,

  setup = function(ctx, w)
    local s = shape(ctx)
    make(w, "sbtest.ibd", s.pages * PAGE, true)
    make(w, "ibdata1", DBLWR_PAGES * PAGE, true)
    -- 10.11 allocates its log (fallocate: unwritten extents), it does
    -- not write it: the first pass of each block converts an extent
    local log = assert(w:open("ib_logfile0", "w"))
    local bytes = ctx.params.log_size // s.block * s.block
    assert(log:allocate(0, bytes))
    assert(log:fsync())
    assert(log:close())
  end,

  worker = function(w, ctx)
    local s = shape(ctx)
    s.turns = ctx.params.cpu_work // REQUESTS
    -- round_trips of the 20 requests, spread evenly, end in a sleep
    s.trip = {}
    for i = 1, REQUESTS do
      s.trip[i] = i * ctx.params.round_trips // REQUESTS
                  > (i - 1) * ctx.params.round_trips // REQUESTS
    end
    local files = open_all(w, ctx)
    local bp = new_pool(w, s)
    local log = { since = 0, checkpoint = s.stretch * 3 // 4 }
    local events = ctx.params.events
    if events > 0 then
      -- this worker's share of the transactions; only a stop or the
      -- timeout ends it early (math.huge in place of seconds)
      local n = ctx.params.workers
      local share = events // n + (w.id <= events % n and 1 or 0)
      for _ = 1, share do
        if w:done(math.huge) then break end
        w:time("txn", transaction, w, s, bp, files, log)
      end
    else
      while not w:done() do
        w:time("txn", transaction, w, s, bp, files, log)
      end
    end
    -- what is still dirty stays in the pool, as a server's does when
    -- sysbench stops: the files go in teardown
    for _, f in pairs(files) do assert(f:close()) end
  end,

  teardown = function(ctx, w)
    for _, name in ipairs{ "sbtest.ibd", "ibdata1", "ib_logfile0" } do
      assert(w:unlink(name))
    end
  end,

  report = function(r, ctx)
    local n = r.txn_ops or 0
    local out = {
      transactions = n, events = n, queries = REQUESTS * n,
      reads = READS * n, writes = WRITES * n, other = OTHER * n,
      total_time_s = r.seconds,
      lat_min_ms = r.txn_lat_min_ms, lat_avg_ms = r.txn_lat_avg_ms,
      lat_max_ms = r.txn_lat_max_ms, lat_p95_ms = r.txn_lat_p95_ms,
    }
    if n > 0 then out.fsyncs_per_commit = (r.redo_fsync_ops or 0) / n end
    -- the names lua/parse/sysbench.lua gives MariaDB's InnoDB counters
    out.redo_fsyncs = r.redo_fsync_ops or 0
    out.redo_writes = r.redo_write_ops or 0
    out.data_fsyncs = out.redo_fsyncs + (r.dblwr_sync_ops or 0)
                      + (r.data_sync_ops or 0)
    if r.seconds > 0 then
      out.transactions_per_s = n / r.seconds
      out.requests_per_s = REQUESTS * n / r.seconds
      out.other_per_s = OTHER * n / r.seconds
    end
    return out
  end,
}
