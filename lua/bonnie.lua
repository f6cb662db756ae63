-- bonnie: bonnie++ 2.00a's tests with its definitions, in one worker, in
-- its order:
--
--   putc        write char_size a byte at a time (one write of 1 byte per
--               byte, as bonnie++ 2.00a does), fsync, close
--   put_block   create the file again and write size in chunk blocks,
--               fsync, close
--   rewrite     read each chunk and write it back where it came from
--               (bonnie++'s read + lseek + write), fsync, close
--   getc        read char_size a byte at a time, close
--   get_block   read size in chunk blocks, close
--   seeks       `seeks` reads of a random chunk with seek_procs of them in
--               flight (bonnie++'s seeker processes), and one write-back in
--               ten (bonnie++: every tenth seek dirties its block), fsync
--   seq_create, seq_stat, seq_del      files×1024 files created in name
--               order; stat'ed (and read, if they have data) in directory
--               order; deleted in directory order
--   ran_create, ran_stat, ran_del      the same with names that begin
--               with random characters; stat'ed and deleted in a random
--               order
--
-- Each file test ends with a sync of the filesystem (bonnie++ calls
-- sync()); each IO test closes its file with an fsync inside its time, as
-- bonnie++'s Close() does. Nothing drops the caches between tests: a file
-- of twice the RAM is what keeps the reads honest, so a smaller size is
-- refused unless `ram` says how much memory the run may use.
--
--   phases:
--     - use: bonnie
--       with: {size: 2G, files: 16}
--
-- Parameters (bonnie++'s option in brackets):
--   engine      auto (the default: one op in flight is a plain syscall,
--               so one synchronous call at a time as bonnie++ makes
--               them; the seekers are seek_procs threads, each
--               blocking in its call, as bonnie++'s), sync (the same) or
--               uring (every op through the ring, the seekers' several in
--               flight too)
--   size        the IO test file [-s]; "auto": twice the RAM but at least
--               300M, rounded up to whole GiB past half of one, as bonnie++
--               sizes it; 0 skips the IO tests. Whole MiB.
--   ram         the memory the size is judged against [-r]: "auto" is the
--               machine's; a size is also the phase's memory cgroup limit,
--               which fsplan enforces; 0 turns the 2×RAM rule off
--   chunk       the IO block [-s size:chunk], a power of two, 256 to 1M
--   char_size   the per-char tests' size [-f N]; 0 skips them
--   skip_char   skip the per-char tests [-f]
--   stdio_char  per-char through a stdio buffer (putc/getc, bonnie++ 1.03's
--               definition) instead of a 1-byte write/read per byte
--   direct      O_DIRECT for the writes that create the file [-D]; needs
--               skip_char, as bonnie++ -D fails without -f
--   seeks, seek_procs   [-s size:chunk:seeks:procs]
--   files       [-n N], thousands (×1024) of files; 0 skips the file tests
--   max_size, min_size  [-n N:max:min], each file's size is drawn between
--               them (0: empty files)
--   dirs        [-n N:max:min:dirs], the files spread over that many
--               directories
--   file_chunk  the block of the file tests' writes and reads [-n ...:chunk]
--   links       "none", "hard" or "symbolic": every file but the first is a
--               link to the first [-n N:-1, -n N:-2]
--   fsync       fsync each created file and its directory, the directory
--               after each delete, and the file after each seek write-back,
--               one write-back at a time [-b]
--
-- Metrics (named after bonnie++'s CSV fields; interp/bonniecsv.h turns them
-- into the bonnie.csv line), for each test T above:
--   T               the rate: KiB/s for IO tests, seeks/s, files/s
--   T_cpu           %CPU: CPU seconds of the phase child (every thread,
--                   io_uring workers included) over the test's seconds
--   T_fast          1 when the test took under 0.5 s: bonnie++ prints
--                   +++++ instead of the rate (T is still reported)
--   T_latency_us    the longest single op: per chunk of bytes for putc and
--                   getc (bonnie++ times each chunk's byte loop), per block,
--                   per rewritten block, per seek read or write-back, per
--                   file (create with its writes; stat with its reads;
--                   unlink)
-- and bonnie_line (1), concurrency (1), seed (the plan's seed: it drives
-- every random choice here), ram_given (1 when `ram` was set; fsplan adds
-- ram_mib and ram_limit, the memory cgroup that applied);
-- with the IO tests file_size_mib, seeks_count, seek_procs, chunk_bytes,
-- char_size_mib; with the file tests num_files, max_size, min_size (when
-- not 0), num_dirs (when more than one), max_size_link (1 hard, 2
-- symbolic). The op histograms give the usual rows too: putc_ops, ...;
-- putc_bytes_each and getc_bytes_each count the bytes each moved alone
-- (one write or read of one byte: their loop is timed a chunk at a time,
-- as bonnie++ times it, not each byte).
--
-- Where this is not bonnie++:
--   - per-char I/O is one engine op per byte: under the default engine,
--     auto, and `engine: sync` a pwrite or pread per byte, as bonnie++'s
--     write(2) and read(2) of a byte. Through io_uring (`engine: uring`)
--     getc ran at 0.43 of bonnie++'s, and a buffered write that cannot
--     finish inline goes to a kernel worker thread: on ext4 putc (on
--     tmpfs putc and getc) then runs about ten times below bonnie++'s
--     (Linux 6.18);
--   - one worker (workers must be 1): no -c, -x, -p or -y;
--   - the seekers are seek_procs threads of one stream (f:stream's
--     threads), each blocking in pread(2) where bonnie++'s block in
--     lseek(2) and read(2) on a file each opened, its offsets read from a
--     pipe; the write-backs (seeks // 10 of them) are writes of random
--     chunks by the same threads after the reads, where bonnie++ writes
--     back the block a seek just read: a buffered whole-chunk write costs
--     the same either way. Under `engine: uring` the seekers are one ring
--     with seek_procs in flight, which costs less CPU a seek (about 0.75
--     of bonnie++'s %CPU);
--   - seq_stat and seq_del read each directory once, inside the test's
--     time but outside the per-file latency (bonnie++ times each readdir
--     call with the file it returns);
--   - sync() is syncfs of the filesystem under test; %CPU comes from
--     w:cpu, left out where the API lacks it;
--   - symbolic links point at the first file by a path that resolves from
--     any directory (bonnie++'s do not, with more than one directory).

local fsplan = require("fsplan")

local KiB, MiB = fsplan.KiB, fsplan.MiB
local MIN_TIME = 0.5     -- bonnie++'s MinTime: below it, +++++
local UPDATE_SEEK = 10   -- one seek in ten writes its block back
local NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
local RAND_EXTRA = 12    -- up to 12 random characters in a name
local LINKS = { none = 0, hard = 1, symbolic = 2 }
-- The rows' units, as lua/parse/bonnie.lua gives them.
local RATE_UNIT = { putc = "KiB/s", put_block = "KiB/s", rewrite = "KiB/s",
                    getc = "KiB/s", get_block = "KiB/s", seeks = "seeks/s" }
local UNITS = { file_size_mib = "MiB", char_size_mib = "MiB",
                chunk_bytes = "bytes", max_size = "bytes",
                min_size = "bytes" }
local TESTS = { "putc", "put_block", "rewrite", "getc", "get_block", "seeks",
                "seq_create", "seq_stat", "seq_del",
                "ran_create", "ran_stat", "ran_del" }

-- ---- the run's shape ------------------------------------------------------

local function whole(name, v, lo, hi)
  if math.type(v) ~= "integer" or v < lo or (hi and v > hi) then
    error(("%s: %s is not a whole number from %d%s"):format(name,
          tostring(v), lo, hi and (" to " .. hi) or " up"), 0)
  end
  return v
end

local function chunk_size(name, v)
  if v < 256 or v > MiB or v & (v - 1) ~= 0 then
    error(("%s: %s is not a power of two from 256 to 1M (bonnie++'s rule)")
          :format(name, fsplan.fmt_size(v)), 0)
  end
  return v
end

-- bonnie++'s size when -s is not given: twice the RAM, at least 300 MiB,
-- rounded up to whole GiB when more than half of one is left over. The
-- RAM is taken in whole MiB rounded up (MemTotal rarely is one), so the
-- size passes the 2 x RAM rule it is made for.
local function auto_size(ram)
  local mib = math.max(300, 2 * ((ram + MiB - 1) // MiB))
  if mib % 1024 > 512 then
    mib = mib + 1024 - mib % 1024
  end
  return mib * MiB
end

-- The parameters checked and in bytes. The worker and report() each work
-- it out in their own Lua state, so it is a function of ctx alone.
local function shape(ctx)
  local p = ctx.params
  if p.workers ~= 1 then
    error("bonnie runs in one worker (bonnie++'s -c is not supported): "
          .. "leave workers at 1", 0)
  end
  local s = { seeks = whole("seeks", p.seeks, 0),
              seek_procs = whole("seek_procs", p.seek_procs, 1, 128),
              files = whole("files", p.files, 0),
              dirs = whole("dirs", p.dirs, 1, 99999),
              chunk = chunk_size("chunk", p.chunk),
              file_chunk = chunk_size("file_chunk", p.file_chunk),
              max_size = fsplan.size("max_size", p.max_size),
              min_size = fsplan.size("min_size", p.min_size),
              links = LINKS[p.links], fsync = p.fsync, direct = p.direct,
              stdio_char = p.stdio_char }
  s.ram, s.ram_given = fsplan.ram(ctx, p.ram)
  s.size = p.size == "auto" and auto_size(s.ram) or fsplan.size("size", p.size)
  if s.size % MiB ~= 0 then
    error(("size: %s is not a whole number of MiB (bonnie++'s -s is in MiB)")
          :format(fsplan.fmt_size(s.size)), 0)
  end
  if s.size > 0 then fsplan.twice_ram("size", s.size, s.ram) end
  fsplan.fits(ctx, "size", s.size, p.size == "auto")
  s.char_size = (p.skip_char or s.size == 0) and 0
                or math.min(p.char_size, s.size)
  if s.char_size % s.chunk ~= 0 then
    error(("char_size: %s is not a whole number of %s chunks")
          :format(fsplan.fmt_size(s.char_size), fsplan.fmt_size(s.chunk)), 0)
  end
  if s.direct and s.char_size > 0 then
    error("direct: per-char I/O cannot be O_DIRECT (bonnie++ -D without -f "
          .. "fails too); set skip_char: true", 0)
  end
  if not s.links then
    error(("links: '%s' is none, hard or symbolic"):format(p.links), 0)
  end
  if s.links > 0 and s.max_size > 0 then
    error("links: files that are links have no size; leave max_size at 0", 0)
  end
  if s.max_size < s.min_size then
    error("max_size is smaller than min_size", 0)
  end
  if s.size == 0 and s.files == 0 then
    error("size 0 and files 0: no test to run", 0)
  end
  return s
end

-- ---- one test -------------------------------------------------------------

-- Run a test and count its figures: the rate of `amount` (KiB, seeks or
-- files) over the test's time, its %CPU, and whether it was too fast for
-- bonnie++ to print a rate.
local function test(w, name, amount, fn)
  local secs, cpu = fsplan.measure(w, fn)
  if secs > 0 then
    w:count(name, amount / secs)
    if cpu then w:count(name .. "_cpu", 100 * cpu / secs) end
  end
  if secs < MIN_TIME then
    w:count(name .. "_fast", 1)
  end
end

-- A stream that must do all it was asked.
local function stream(f, args, want)
  local _, ops = assert(f:stream(args))
  if ops ~= want then
    error(("%s: %d of %d ops done (the file is short?)")
          :format(args.tag or args.op, ops, want), 0)
  end
  return ops
end

-- bonnie++'s Close(): fsync, then close.
local function close(f)
  assert(f:fsync())
  assert(f:close())
end

-- ---- the IO tests ---------------------------------------------------------

-- bonnie++ creates its file with O_EXCL after unlinking what was there.
local function create(w, name, direct)
  w:unlink(name)
  return assert(w:open(name, "w", { excl = true, direct = direct }))
end

-- char_size bytes one by one, timed chunk by chunk as bonnie++ times them;
-- or through a stdio buffer, each buffer's write or read one op.
local function per_char(w, s, f, op, name)
  if s.stdio_char then
    local method = op == "write" and f.putc_stream or f.getc_stream
    local n = assert(method(f, s.char_size))
    if n ~= s.char_size then
      error(("%s: %d of %d bytes"):format(name, n, s.char_size), 0)
    end
    return
  end
  -- untimed: no clock read per byte, the chunk's w:time is the timing
  -- (fsplan's own per-byte timing cost getc 12% against bonnie++)
  local each = 0
  for off = 0, s.char_size - 1, s.chunk do
    each = each + w:time(name, stream, f, { op = op, block = 1,
                                            bytes = s.chunk, offset = off,
                                            span = s.chunk,
                                            timed = false }, s.chunk)
  end
  w:count(name .. "_bytes_each", each)
end

local function write_back(f, off, len)
  assert(f:write(off, len))
  assert(f:fsync())
end

local function io_tests(w, s, name)
  local kib, blocks = s.size / KiB, s.size // s.chunk
  local f
  if s.char_size > 0 then
    f = create(w, name)
    test(w, "putc", s.char_size / KiB, function()
      per_char(w, s, f, "write", "putc")
      close(f)
    end)
  end
  f = create(w, name, s.direct)
  test(w, "put_block", kib, function()
    stream(f, { op = "write", block = s.chunk, bytes = s.size,
                tag = "put_block" }, blocks)
    close(f)
  end)
  f = assert(w:open(name, "rw"))
  test(w, "rewrite", kib, function()
    stream(f, { op = "rewrite", block = s.chunk, bytes = s.size,
                tag = "rewrite" }, blocks)
    close(f)
  end)
  if s.char_size > 0 then
    f = assert(w:open(name, "r"))
    test(w, "getc", s.char_size / KiB, function()
      per_char(w, s, f, "read", "getc")
      close(f)
    end)
  end
  f = assert(w:open(name, "r"))
  test(w, "get_block", kib, function()
    stream(f, { op = "read", block = s.chunk, bytes = s.size,
                tag = "get_block" }, blocks)
    close(f)
  end)
  if s.seeks > 0 then
    local updates = s.seeks // UPDATE_SEEK
    f = assert(w:open(name, "rw"))
    test(w, "seeks", s.seeks, function()
      stream(f, { op = "read", pattern = "random", block = s.chunk,
                  count = s.seeks, span = s.size, depth = s.seek_procs,
                  threads = true, tag = "seeks" }, s.seeks)
      if s.fsync then
        -- bonnie++ -b: each write-back is made durable before the next
        for _ = 1, updates do
          local off = (w:random(blocks) - 1) * s.chunk
          w:time("seeks", write_back, f, off, s.chunk)
        end
      elseif updates > 0 then
        stream(f, { op = "write", pattern = "random", block = s.chunk,
                    count = updates, span = s.size, depth = s.seek_procs,
                    threads = true, tag = "seeks" }, updates)
      end
      close(f)
    end)
  end
  assert(w:unlink(name))
end

-- ---- the file tests -------------------------------------------------------

local function random_chars(w, n)
  local t = {}
  for i = 1, n do
    local k = w:random(#NAME_CHARS)
    t[i] = NAME_CHARS:sub(k, k)
  end
  return table.concat(t)
end

local function subdir(s, top, d)
  return s.dirs > 1 and ("%s/%05d"):format(top, d) or top
end

-- bonnie++'s names: a 10-digit hex index and up to 12 random characters
-- after it (sequential) or before it (random), spread over the directories
-- as bonnie++ spreads them (n // dirs + 1 to a directory).
local function make_names(w, s, top, random)
  local n, paths, dirs = s.files * 1024, {}, {}
  local per = n // s.dirs + 1
  for i = 0, n - 1 do
    local extra = random_chars(w, w:random(0, RAND_EXTRA))
    local base = random and extra .. ("%010x"):format(i)
                 or ("%010x"):format(i) .. extra
    paths[i + 1] = subdir(s, top, i // per) .. "/" .. base
    dirs[i + 1] = i // per
  end
  return { paths = paths, dirs = dirs }
end

-- Both lists in the same new order.
local function shuffle(w, names)
  local p, d = names.paths, names.dirs
  for i = #p, 2, -1 do
    local j = w:random(i)
    p[i], p[j] = p[j], p[i]
    d[i], d[j] = d[j], d[i]
  end
end

-- The directories, and with fsync an open handle on each to fsync.
local function make_dirs(w, s, top)
  local handles = {}
  assert(w:mkdir(top))
  for d = 0, s.dirs - 1 do
    if s.dirs > 1 then assert(w:mkdir(subdir(s, top, d))) end
    if s.fsync then handles[d] = assert(w:open(subdir(s, top, d), "r")) end
  end
  return handles
end

local function remove_dirs(w, s, top, handles)
  for d = 0, s.dirs - 1 do
    if handles[d] then assert(handles[d]:close()) end
    if s.dirs > 1 then assert(w:rmdir(subdir(s, top, d))) end
  end
  assert(w:rmdir(top))
end

local function file_size(w, s)
  if s.max_size == s.min_size then return s.max_size end
  return w:random(s.min_size, s.max_size)
end

-- One file: created with its data, or a link to the first.
local EXCL = { excl = true }

local function file_maker(w, s, names, handles)
  local paths, dirs = names.paths, names.dirs
  return function(path, i)
    local dir = dirs[i]
    if s.links > 0 and i > 1 then
      if s.links == LINKS.hard then
        assert(w:link(paths[1], path))
      else
        local base = paths[1]:match("[^/]+$")
        assert(w:symlink(dir == dirs[1] and base
                         or ("../%05d/%s"):format(dirs[1], base), path))
      end
    else
      local f = assert(w:open(path, "w", EXCL))
      local size = s.links > 0 and 0 or file_size(w, s)
      for off = 0, size - 1, s.file_chunk do
        assert(f:write(off, math.min(s.file_chunk, size - off)))
      end
      if s.fsync then assert(f:fsync()) end
      assert(f:close())
    end
    if s.fsync then assert(handles[dir]:fsync()) end
  end
end

-- bonnie++'s "read": stat, and read the data if the file has any.
local function stat_file(w, s, path)
  local st = assert(w:stat(path))
  if st.size > 0 then
    local f = assert(w:open(path, "r"))
    for off = 0, st.size - 1, s.file_chunk do
      local want = math.min(s.file_chunk, st.size - off)
      local got = assert(f:read(off, want))
      if got ~= want then
        error(("%s: read %d of %d bytes"):format(path, got, want), 0)
      end
    end
    assert(f:close())
  end
end

local function delete_file(w, s, path, dir, handles)
  assert(w:unlink(path))
  if s.fsync then assert(handles[dir]:fsync()) end
end

-- Every file in directory order, as readdir returns them.
-- Every directory's files in directory order, as readdir returns them:
-- fn(dir, names, d) per directory.
local function by_directory(w, s, top, fn)
  local seen = 0
  for d = 0, s.dirs - 1 do
    local dir = subdir(s, top, d)
    local names = assert(w:readdir(dir))
    fn(dir, names, d)
    seen = seen + #names
  end
  if seen ~= s.files * 1024 then
    error(("expected %d files, found %d"):format(s.files * 1024, seen), 0)
  end
end

-- The plain shape (bonnie++'s default: empty files, no links, no fsync)
-- runs each test's per-file loop in C (w:files), as bonnie++'s is; the
-- others go file by file in Lua: fn(path, i), timed as tag. paths are
-- relative to dir when one is given (a w:readdir list).
local function plain(s)
  return s.links == 0 and s.max_size == 0 and not s.fsync
end

local function each_file(w, fast, op, tag, paths, dir, fn)
  if fast then
    assert(w:files(op, paths, { dir = dir, tag = tag }))
    return
  end
  for i, p in ipairs(paths) do
    w:time(tag, fn, dir and dir .. "/" .. p or p, i)
  end
end

local function file_tests(w, s, top)
  local n = s.files * 1024
  local fast = plain(s)
  for _, order in ipairs({ "seq", "ran" }) do
    local names = make_names(w, s, top, order == "ran")
    local handles = make_dirs(w, s, top)
    local create_tag = order .. "_create"   -- made once, not per file
    local create_file = file_maker(w, s, names, handles)
    test(w, create_tag, n, function()
      each_file(w, fast, "create", create_tag, names.paths, nil, create_file)
      assert(w:sync())
    end)
    if order == "seq" then
      test(w, "seq_stat", n, function()
        by_directory(w, s, top, function(dir, list)
          each_file(w, fast, "stat", "seq_stat", list, dir,
                    function(path) stat_file(w, s, path) end)
        end)
      end)
      test(w, "seq_del", n, function()
        by_directory(w, s, top, function(dir, list, d)
          each_file(w, fast, "unlink", "seq_del", list, dir,
                    function(path) delete_file(w, s, path, d, handles) end)
        end)
        remove_dirs(w, s, top, handles)
        assert(w:sync())
      end)
    else
      shuffle(w, names)
      test(w, "ran_stat", n, function()
        each_file(w, fast, "stat", "ran_stat", names.paths, nil,
                  function(path) stat_file(w, s, path) end)
      end)
      shuffle(w, names)
      local dirs = names.dirs
      test(w, "ran_del", n, function()
        each_file(w, fast, "unlink", "ran_del", names.paths, nil,
                  function(path, i)
                    delete_file(w, s, path, dirs[i], handles)
                  end)
        remove_dirs(w, s, top, handles)
        assert(w:sync())
      end)
    end
  end
end

-- ---- the phase ------------------------------------------------------------

return {
  describe = "bonnie++ 2.00a: per-char and block IO, rewrite, seeks, "
             .. "file create/stat/delete",
  -- engine auto by default: bonnie++ makes one synchronous call at a
  -- time, as auto does for a lone op; through the ring ext4 hands each
  -- lone buffered write or metadata op to a kernel worker thread
  -- (bench/bonnie.sh: 0.12-0.27 of bonnie++ under engine uring)
  params = { workers = 1, engine = "auto", size = "auto", ram = "auto",
             chunk = "8k",
             char_size = "3M", skip_char = false, stdio_char = false,
             direct = false, seeks = 8192, seek_procs = 5, files = 16,
             max_size = "0", min_size = "0", dirs = 1, file_chunk = "8k",
             links = "none", fsync = false },
  -- bonnie++'s figures, block write first (what a stop rule watches):
  -- report shows them as bonnie++'s two blocks
  key = { "put_block", "get_block", "rewrite", "putc", "getc", "seeks",
          "seq_create", "seq_stat", "seq_del",
          "ran_create", "ran_stat", "ran_del" },
  -- fsplan check (and run, before anything) refuses a cell it raises on
  check = shape,

  worker = function(w, ctx)
    local s = shape(ctx)
    if s.size > 0 then
      io_tests(w, s, ("bonnie.%d"):format(ctx.index))
    end
    if s.files > 0 then
      file_tests(w, s, ("bonnie.%d.files"):format(ctx.index))
    end
  end,

  report = function(r, ctx)
    local s = shape(ctx)
    local out = { bonnie_line = 1, concurrency = 1, seed = ctx.seed,
                  ram_given = s.ram_given and 1 or 0 }
    if s.size > 0 then
      out.file_size_mib = fsplan.mib(s.size)
      out.seeks_count = s.seeks
      out.seek_procs = s.seek_procs
      out.chunk_bytes = s.chunk
      out.char_size_mib = fsplan.mib(s.char_size)
    end
    if s.files > 0 then
      out.num_files = s.files
      out.max_size = s.max_size > 0 and s.max_size or nil
      out.min_size = s.min_size > 0 and s.min_size or nil
      out.num_dirs = s.dirs > 1 and s.dirs or nil
      out.max_size_link = s.links > 0 and s.links or nil
    end
    local units = {}
    for k, u in pairs(UNITS) do units[k] = u end
    for _, t in ipairs(TESTS) do
      local ms = r[t .. "_lat_max_ms"]
      if ms and (r[t] or r[t .. "_fast"]) then
        out[t .. "_latency_us"] = ms * 1000
      end
      -- the counters again, now with their units: these rows replace
      -- the unitless counter rows
      out[t], out[t .. "_cpu"] = r[t], r[t .. "_cpu"]
      units[t] = RATE_UNIT[t] or "files/s"
      units[t .. "_cpu"], units[t .. "_latency_us"] = "%", "us"
    end
    return fsplan.units(out, units)
  end,
}
