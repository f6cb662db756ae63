-- ffsb: ffsb 6.0's profile semantics as plan parameters — a fileset, then
-- N threads that each pick operations by weight on random files of the
-- set, for `seconds`, the final sync inside the timed run.
--
--   phases:
--     - use: ffsb                    # the 2008 study's small-file profile
--       with: {seconds: 1800s, workers: 128, num_files: 5000,
--              num_dirs: 1000, min_filesize: 4k, max_filesize: 512k,
--              create_weight: 1, write_weight: 1, readall_weight: 2,
--              write_size: 4k, write_blocksize: 4k, read_blocksize: 4k,
--              write_random: true}
--
-- As ffsb 6.0 does it (its fileops.c, metaops.c, fh.c, ffsb_op.c):
--   - setup makes the fileset, untimed: num_files files of a size drawn
--     from [min_filesize, max_filesize) (min when they are equal), spread
--     over num_dirs directories (ffsb/data/dirN/; none: ffsb/data/),
--     then syncs. With reuse, a fileset a previous phase run left is kept
--     when it has num_files files, all within the sizes; else it is made
--     anew. Without reuse, teardown removes it.
--   - each thread, until `seconds` have passed since it started, draws
--     1..sum of the weights and walks the weights in ffsb's op order to
--     its op, does it on a random file (open; a stat for the file's size
--     before a read, readall, write or writeall; the I/O; close), then
--     sleeps op_delay ms; then it syncs (syncfs): the phase run's seconds end
--     after the last thread's sync, as ffsb's run time ends after its
--     sync().
--   - the ops: read (read_size from a random offset, in read_blocksize
--     reads; read_random: read_size / read_blocksize reads each at a
--     random offset), readall (the whole file), write (write_size from a
--     random offset, or write_random blocks at random offsets), writeall
--     (the whole file from 0), create (a new file of a size drawn as
--     setup's, written in write_blocksize writes), append (write_size at
--     the end), each of these four also as _fsync (an fsync before the
--     close); delete (unlink), stat, open_close; metaop (in ffsb/meta:
--     two mkdirs, an rmdir and a rename of random directories);
--     createdir (a mkdir in the fileset).
--   - random offsets are anywhere in the range (ffsb's getllrandom), with
--     alignio multiples of 4 KiB; directio opens with O_DIRECT, which
--     takes aligned offsets and sizes: it needs alignio and block sizes
--     of whole 4 KiB (ffsb fails at its first I/O; here the plan does).
--   - a transaction: one read or write call (a read's short last block is
--     not one, a write's is: ffsb's readfile_helper and writefile_helper);
--     a delete, stat, open_close, metaop or createdir is one. A create of
--     a 1 GiB file in 64 KiB writes is 16384 transactions.
-- Where fsplan differs: ffsb's threads share one list of files under
-- locks; here each thread owns the files whose index is its own modulo
-- the threads (file i to thread (i-1) % workers + 1), and its creates and
-- deletes change only its own list, so the choice of op, file and offset
-- is a function of the plan's seed (w:random) and no thread waits on
-- another's lock. ffsb adds a write's whole file size to the write
-- throughput (a quirk of ffsb_writefile); here write_mbs is the bytes
-- really written. An op that needs a file when the thread owns none is
-- skipped and counted (no_file_skips).
--
-- Speed (bench/ffsb.sh, ext4 loop image in a 256 MiB memory cgroup, 2
-- CPUs, 2 rounds, two runs): the large-file write at 0.95-1.02 /
-- 0.90-1.02 of fio's MiB/s with 1 / 4 threads, the small-file random rw
-- at 1.05-1.13 / 1.06 of fio's I/Os a second; CPU per I/O 0.81-0.96 of
-- fio's.
--
-- Parameters: ffsb's names — num_files, num_dirs, min_filesize,
-- max_filesize, reuse; <op>_weight for read, readall, write, write_fsync,
-- writeall, writeall_fsync, create, create_fsync, append, append_fsync,
-- delete, metaop, createdir, stat, open_close; read_size,
-- read_blocksize, write_size, write_blocksize (sizes: powers of 1024, as
-- ffsb's K/M/G), read_random, write_random, alignio, directio, op_delay
-- (ms); `seconds` is ffsb's time=, `workers` its num_threads. And one of
-- fsplan's own: max_ops, each thread's limit of ops (0: none, time only),
-- for runs that must do a known amount of work (benches, tests).
--
-- Metrics, as ffsb prints them:
--   transactions, transactions_per_s    all ops' transactions / seconds
--   <op>_transactions                   per op (a counter: ops that ran)
--   <op>_trans_per_s, <op>_share_pct    ffsb's "Trans/sec", "% Trans"
--   <op>_weight_pct                     ffsb's "% Op Weight": the op's
--                                       share of the ops done (<op>_ops)
--   read_mbs, write_mbs                 MiB/s read and written
--   user_pct, system_pct, test_cpu_pct  ffsb's %User, %System and %CPU:
--                                       CPU of the threads' run over its
--                                       wall time (can pass 100). The
--                                       automatic cpu_pct also holds
--                                       setup's making of the fileset.
--   bytes_read, bytes_written, files_start, threads, no_file_skips
-- and the automatic rows of every op by its name (create_ops,
-- create_lat_avg_ms, ...) and of the final sync.

local fsplan = require("fsplan")

local MiB = fsplan.MiB
local ALIGN = 4096
local TOP, DATA, META = "ffsb", "ffsb/data", "ffsb/meta"

-- ffsb's op list, in its order (the order the weights are walked in).
local OPS = { "read", "readall", "write", "create", "append", "delete",
              "metaop", "createdir", "stat", "writeall", "writeall_fsync",
              "open_close", "write_fsync", "create_fsync", "append_fsync" }
-- ops on a file the thread already has
local NEEDS_FILE = { read = true, readall = true, write = true,
                     write_fsync = true, writeall = true,
                     writeall_fsync = true, append = true,
                     append_fsync = true, delete = true, stat = true,
                     open_close = true }

local params = {
  workers = 1, seconds = "60s", engine = "sync",
  num_files = 0, num_dirs = 0, min_filesize = "1M", max_filesize = "1M",
  reuse = false,
  read_size = "4k", read_blocksize = "4k",
  write_size = "4k", write_blocksize = "4k",
  read_random = false, write_random = false,
  alignio = false, directio = false, op_delay = 0, max_ops = 0,
}
for _, op in ipairs(OPS) do params[op .. "_weight"] = 0 end

local function whole(name, v, least)
  if math.type(v) ~= "integer" or v < least then
    error(("%s: %s is not a whole number of at least %d")
          :format(name, tostring(v), least), 0)
  end
  return v
end

-- The weights in OPS's order, and their sum (some op must have one).
local function weights(p)
  local s = { weights = {}, total = 0, p = p }
  for _, op in ipairs(OPS) do
    local wt = whole(op .. "_weight", p[op .. "_weight"], 0)
    s.weights[#s.weights + 1] = wt
    s.total = s.total + wt
  end
  if s.total == 0 then
    error("no operation has a weight: give at least one of "
          .. "create_weight, read_weight, ... (ffsb's <op>_weight)", 0)
  end
  return s
end

-- The counts, sizes and block sizes, and what directio needs of them.
local function check_sizes(p)
  whole("num_files", p.num_files, 0)
  whole("num_dirs", p.num_dirs, 0)
  whole("max_ops", p.max_ops, 0)
  if p.op_delay < 0 then error("op_delay: at least 0 ms", 0) end
  if p.max_filesize < p.min_filesize then
    error(("max_filesize %s is under min_filesize %s")
          :format(fsplan.human(p.max_filesize),
                  fsplan.human(p.min_filesize)), 0)
  end
  for _, b in ipairs({ "read_blocksize", "write_blocksize" }) do
    if p[b] < 1 or p[b] > 64 * MiB then
      error(b .. ": 1 byte to 64M", 0)
    end
  end
  if not p.directio then return end
  if not p.alignio then
    error("directio: O_DIRECT needs aligned offsets: set alignio: true",
          0)
  end
  for _, b in ipairs({ "read_blocksize", "write_blocksize" }) do
    if p[b] % ALIGN ~= 0 then
      error(("directio: O_DIRECT needs whole 4 KiB blocks, and %s is "
             .. "%s"):format(b, fsplan.human(p[b])), 0)
    end
  end
end

-- What the weighted ops need of the files: ffsb asserts these per op;
-- here they are plan errors.
local function check_ops(p)
  local function weight(op) return p[op .. "_weight"] > 0 end
  local function least(op, what, need)
    if weight(op) and p.min_filesize < need then
      error(("%s_weight: files may be as small as min_filesize %s, under "
             .. "the %s of %s"):format(op, fsplan.human(p.min_filesize),
                                       what, fsplan.human(need)), 0)
    end
  end
  least("read", p.read_random and "read_blocksize" or "read_size",
        p.read_random and p.read_blocksize or p.read_size)
  for _, op in ipairs({ "write", "write_fsync" }) do
    least(op, p.write_random and "write_blocksize" or "write_size",
          p.write_random and p.write_blocksize or p.write_size)
  end
  local creates = weight("create") or weight("create_fsync")
  local needs = false
  for op in pairs(NEEDS_FILE) do needs = needs or weight(op) end
  if needs and not creates and p.num_files < p.workers then
    error(("num_files %d over %d workers leaves a worker no file, and "
           .. "nothing creates one"):format(p.num_files, p.workers), 0)
  end
end

-- The run's shape from its parameters, checked: every Lua state works it
-- out from ctx alone.
local function shape(ctx)
  local p = ctx.params
  local s = weights(p)
  check_sizes(p)
  check_ops(p)
  return s
end

-- An offset in [0, range) as ffsb's get_random_offset draws it.
local function offset(w, range, aligned)
  if aligned then
    range = range // ALIGN
    return range > 0 and (w:random(range) - 1) * ALIGN or 0
  end
  return range > 0 and w:random(range) - 1 or 0
end

-- Write len bytes from off in blocks of bs (the last one short): ffsb's
-- writefile_helper. Returns the number of writes.
local function fill(f, off, len, bs)
  local full, rest = len // bs, len % bs
  if full > 0 then
    local _, ops = assert(f:stream{ op = "write", block = bs, count = full,
                                    offset = off })
    if ops ~= full then error(("%d of %d writes done"):format(ops, full)) end
  end
  if rest > 0 then
    local n = assert(f:write(off + full * bs, rest))
    if n ~= rest then error(("wrote %d of %d bytes"):format(n, rest)) end
  end
  return full + (rest > 0 and 1 or 0)
end

-- n blocks of bs at random offsets in [0, size - bs): returns bytes done.
local function scatter(w, f, op, n, bs, size, aligned)
  local range = size - bs
  if n == 0 then return 0 end
  if aligned and bs == ALIGN and range // ALIGN > 0 then
    -- the same offsets as the loop below, drawn in C
    local bytes, ops = assert(f:stream{ op = op, pattern = "random",
                                        block = bs, count = n,
                                        span = range // ALIGN * ALIGN })
    if ops ~= n then error(("%d of %d %ss done"):format(ops, n, op)) end
    return bytes
  end
  local bytes = 0
  for _ = 1, n do
    local off = offset(w, range, aligned)
    local got = op == "read" and assert(f:read(off, bs))
                or assert(f:write(off, bs))
    if got ~= bs then
      error(("%s of %d bytes at %d: %d"):format(op, bs, off, got))
    end
    bytes = bytes + got
  end
  return bytes
end

local function file_size(s, w)
  local p = s.p
  local range = p.max_filesize - p.min_filesize
  return p.min_filesize + (range > 0 and w:random(range) - 1 or 0)
end

local function data_dir(s, w)
  if s.p.num_dirs == 0 then return DATA end
  return ("%s/dir%d"):format(DATA, w:random(s.p.num_dirs) - 1)
end

local function remove_tree(w, path)
  local st = w:stat(path)
  if not st then return end
  if not st.isdir then assert(w:unlink(path)); return end
  local files = {}
  for _, name in ipairs(assert(w:readdir(path))) do
    local p = path .. "/" .. name
    if assert(w:stat(p)).isdir then remove_tree(w, p)
    else files[#files + 1] = name end
  end
  if #files > 0 then assert(w:files("unlink", files, { dir = path })) end
  assert(w:rmdir(path))
end

-- The fileset a previous run left, sorted by path: {path, size} rows,
-- or nil when it is not num_files files within the sizes.
local function existing(s, w)
  local p = s.p
  local rows = {}
  local function scan(dir)
    for _, name in ipairs(w:readdir(dir) or {}) do
      local path = dir .. "/" .. name
      local st = assert(w:stat(path))
      if st.isdir then scan(path)
      else rows[#rows + 1] = { path, st.size } end
    end
  end
  if not w:stat(DATA) then return nil end
  scan(DATA)
  if #rows ~= p.num_files then return nil end
  for _, r in ipairs(rows) do
    if r[2] < p.min_filesize or r[2] > p.max_filesize then return nil end
  end
  table.sort(rows, function(a, b) return a[1] < b[1] end)
  return rows
end

local function make_fileset(s, w)
  local p = s.p
  remove_tree(w, TOP)
  assert(w:mkdir(TOP))
  assert(w:mkdir(DATA))
  for d = 0, p.num_dirs - 1 do
    assert(w:mkdir(("%s/dir%d"):format(DATA, d)))
  end
  local rows = {}
  local bs = math.min(MiB, math.max(p.write_blocksize, 64 * 1024))
  for i = 1, p.num_files do
    local path = ("%s/f%d"):format(data_dir(s, w), i)
    local size = file_size(s, w)
    local f = assert(w:open(path, "w", { create = true, excl = true }))
    fill(f, 0, size, bs)
    assert(f:close())
    rows[i] = { path, size }
  end
  return rows
end

-- A thread: its worker, the run's shape and parameters, its files (the
-- shared fileset's rows id, id + n, id + 2n, ... and what its creates
-- add: paths and sizes), metaop's directories, the names it has made
-- and the bytes it has read and written.
local function thread(w, ctx)
  local s = shape(ctx)
  local th = { w = w, s = s, p = s.p, index = ctx.index,
               paths = {}, sizes = {}, made = 0, dirs = {}, ndirs = 0,
               read_bytes = 0, written = 0 }
  local t = ctx.shared()
  for i = w.id, t and #t or 0, w.workers do
    th.paths[#th.paths + 1], th.sizes[#th.sizes + 1] = t:row(i)
  end
  return th
end

-- A name no thread has made: dir/<prefix><phase index>.<thread>.<n>
local function new_name(th, dir, prefix)
  th.made = th.made + 1
  return ("%s/%s%d.%d.%d"):format(dir, prefix, th.index, th.w.id, th.made)
end

-- A random file of the thread's: its index, path and size.
local function pick(th)
  local k = th.w:random(#th.paths)
  return k, th.paths[k], th.sizes[k]
end

local function open(th, path, mode, opts)
  opts = opts or {}
  opts.direct = th.p.directio
  return assert(th.w:open(path, mode, opts))
end

-- The ops, keyed by their names in OPS. Each does one op of the thread
-- and returns its transactions.
local handlers = {}

-- read_size from a random offset in read_blocksize reads, or
-- read_size / read_blocksize reads each at a random offset
function handlers.read(th)
  local w, p = th.w, th.p
  local rbs = p.read_blocksize
  local _, path = pick(th)
  local f = open(th, path, "r")
  local size = assert(w:stat(path)).size  -- ffsb_get_filesize
  local trans = p.read_size // rbs
  if p.read_random then
    th.read_bytes = th.read_bytes + scatter(w, f, "read", trans, rbs, size,
                                            p.alignio)
  else
    -- whole blocks, then the short rest (not a transaction)
    local off = offset(w, size - p.read_size, p.alignio)
    local rest = p.read_size % rbs
    local got = trans > 0 and assert(f:stream{ op = "read", block = rbs,
                                               count = trans,
                                               offset = off }) or 0
    if rest > 0 then got = got + assert(f:read(off + trans * rbs, rest)) end
    if got ~= p.read_size then
      error(("%s: read %d of %d bytes"):format(path, got, p.read_size))
    end
    th.read_bytes = th.read_bytes + got
  end
  assert(f:close())
  return trans
end

function handlers.readall(th)
  local rbs = th.p.read_blocksize
  local _, path = pick(th)
  local f = open(th, path, "r")
  local size = assert(th.w:stat(path)).size  -- ffsb_get_filesize
  local got = assert(f:stream{ op = "read", block = rbs })
  assert(f:close())
  if got ~= size then
    error(("%s: read %d of its %d bytes"):format(path, got, size))
  end
  th.read_bytes = th.read_bytes + got
  return size // rbs
end

-- write_size from a random offset, or write_random blocks at random
-- offsets; sync: an fsync before the close
local function write(th, sync)
  local w, p = th.w, th.p
  local wbs = p.write_blocksize
  local _, path = pick(th)
  local f = open(th, path, "rw", { create = false })
  local size = assert(w:stat(path)).size
  local trans
  if p.write_random then
    trans = p.write_size // wbs
    th.written = th.written + scatter(w, f, "write", trans, wbs, size,
                                      p.alignio)
  else
    trans = fill(f, offset(w, size - p.write_size, p.alignio),
                 p.write_size, wbs)
    th.written = th.written + p.write_size
  end
  if sync then assert(f:fsync()) end
  assert(f:close())
  return trans
end

-- the whole file from 0
local function writeall(th, sync)
  local _, path = pick(th)
  local f = open(th, path, "rw", { create = false })
  local size = assert(th.w:stat(path)).size
  local trans = fill(f, 0, size, th.p.write_blocksize)
  th.written = th.written + size
  if sync then assert(f:fsync()) end
  assert(f:close())
  return trans
end

-- a new file of a size drawn as setup's, the thread's from now on
local function create(th, sync)
  local path = new_name(th, data_dir(th.s, th.w), "n")
  local size = file_size(th.s, th.w)
  local f = open(th, path, "rw", { create = true, trunc = true })
  local trans = fill(f, 0, size, th.p.write_blocksize)
  th.written = th.written + size
  if sync then assert(f:fsync()) end
  assert(f:close())
  th.paths[#th.paths + 1], th.sizes[#th.sizes + 1] = path, size
  return trans
end

-- write_size at the end
local function append(th, sync)
  local p = th.p
  local k, path, size = pick(th)
  local f = open(th, path, "a", { create = false })
  local trans = fill(f, size, p.write_size, p.write_blocksize)
  th.sizes[k] = size + p.write_size
  th.written = th.written + p.write_size
  if sync then assert(f:fsync()) end
  assert(f:close())
  return trans
end

handlers.write = write
handlers.writeall = writeall
handlers.create = create
handlers.append = append
function handlers.write_fsync(th) return write(th, true) end
function handlers.writeall_fsync(th) return writeall(th, true) end
function handlers.create_fsync(th) return create(th, true) end
function handlers.append_fsync(th) return append(th, true) end

function handlers.delete(th)
  local paths, sizes = th.paths, th.sizes
  local k, path = pick(th)
  assert(th.w:unlink(path))
  paths[k], sizes[k] = paths[#paths], sizes[#sizes]
  paths[#paths], sizes[#sizes] = nil, nil
  return 1
end

-- in ffsb/meta: two mkdirs, an rmdir and a rename of random directories
function handlers.metaop(th)
  local w, dirs = th.w, th.dirs
  for _ = 1, 2 do
    local d = new_name(th, META, "m")
    assert(w:mkdir(d))
    th.ndirs = th.ndirs + 1
    dirs[th.ndirs] = d
  end
  local k = w:random(th.ndirs)
  assert(w:rmdir(dirs[k]))
  dirs[k], dirs[th.ndirs] = dirs[th.ndirs], nil
  th.ndirs = th.ndirs - 1
  k = w:random(th.ndirs)
  local to = new_name(th, META, "m")
  assert(w:rename(dirs[k], to))
  dirs[k] = to
  return 1
end

function handlers.createdir(th)
  assert(th.w:mkdir(new_name(th, DATA, "d")))
  return 1
end

function handlers.stat(th)
  local _, path = pick(th)
  assert(th.w:stat(path))
  return 1
end

function handlers.open_close(th)
  local _, path = pick(th)
  assert(open(th, path, "r"):close())
  return 1
end

for _, op in ipairs(OPS) do
  assert(handlers[op], "ffsb: no handler for " .. op)
end

-- An op drawn by weight: 1..the sum, the weights walked in OPS's order.
local function draw(w, s)
  local weights = s.weights
  local r, k = w:random(s.total), 1
  while weights[k] < r do
    r = r - weights[k]
    k = k + 1
  end
  return OPS[k]
end

-- One op, timed under its name; its transactions and bytes counted.
local function run(th, op)
  local w = th.w
  local rb, wb = th.read_bytes, th.written
  w:count(op .. "_transactions", w:op(op, handlers[op], th))
  if th.read_bytes > rb then w:count("bytes_read", th.read_bytes - rb) end
  if th.written > wb then w:count("bytes_written", th.written - wb) end
end

-- CPU of the child when the threads start, and what they used (user, sys)
local user0, sys0, cpu_user, cpu_sys

return {
  describe = "ffsb 6.0: a fileset and threads doing weighted operations "
             .. "on it; transactions/s, MB/s, %CPU",
  params = params,
  key = { "transactions_per_s", "write_mbs", "read_mbs", "test_cpu_pct" },
  check = shape,

  setup = function(ctx, w)
    local s = shape(ctx)
    local rows = ctx.params.reuse and existing(s, w)
    if not rows then rows = make_fileset(s, w) end
    remove_tree(w, META)
    assert(w:mkdir(META))
    local t = ctx.share()
    for _, r in ipairs(rows) do t:add(r[1], r[2]) end
    assert(w:sync())
    user0, sys0 = select(2, assert(w:cpu()))
  end,

  worker = function(w, ctx)
    local th = thread(w, ctx)
    local max_ops, delay = th.p.max_ops, th.p.op_delay / 1000
    local done, skips = 0, 0
    while not w:done() and (max_ops == 0 or done < max_ops) do
      local op = draw(w, th.s)
      done = done + 1
      if NEEDS_FILE[op] and #th.paths == 0 then
        skips = skips + 1
      else
        run(th, op)
      end
      if delay > 0 then w:sleep(delay) end
    end
    if skips > 0 then w:count("no_file_skips", skips) end
    assert(w:sync())
  end,
  teardown = function(ctx, w)
    local _, user, sys = assert(w:cpu())
    cpu_user, cpu_sys = user - user0, sys - sys0
    remove_tree(w, META)
    if not ctx.params.reuse then remove_tree(w, TOP) end
  end,

  report = function(r, ctx)
    local p = ctx.params
    local secs = r.seconds
    local trans, ops = 0, 0
    for _, op in ipairs(OPS) do
      trans = trans + (r[op .. "_transactions"] or 0)
      ops = ops + (r[op .. "_ops"] or 0)
    end
    local out = { transactions = trans, threads = p.workers,
                  files_start = p.num_files }
    for _, op in ipairs(OPS) do
      local t = r[op .. "_transactions"] or 0
      if p[op .. "_weight"] > 0 or t > 0 then
        out[op .. "_share_pct"] = trans > 0 and 100 * t / trans or 0
        out[op .. "_weight_pct"] = ops > 0
                                   and 100 * (r[op .. "_ops"] or 0) / ops or 0
        if secs > 0 then out[op .. "_trans_per_s"] = t / secs end
      end
    end
    if secs > 0 then
      out.transactions_per_s = trans / secs
      out.read_mbs = (r.bytes_read or 0) / MiB / secs
      out.write_mbs = (r.bytes_written or 0) / MiB / secs
      if cpu_user then
        out.user_pct = 100 * cpu_user / secs
        out.system_pct = 100 * cpu_sys / secs
        out.test_cpu_pct = out.user_pct + out.system_pct
      end
    end
    return out
  end,
}
