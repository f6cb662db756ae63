-- dbench: dbench 4.0's fileio backend (the one `dbench` runs) replaying
-- a NetBench loadfile with N clients, each in its own clients/clientN
-- directory, for `seconds` after a warm-up of a fifth of that.
--
--   phases:
--     - use: dbench
--       matrix: {workers: [64, 192]}
--       with: {seconds: 600}
--
-- As dbench 4.0 (Debian's, checked by strace) does it:
--   - the loadfile is read in a loop until the time is up; "#" lines and
--     lines of under 2 tokens are skipped, "\" becomes "/", a path's
--     "client1" becomes the client's own name: clients are numbered
--     from 0 (client0 .. client{N-1}); a line whose last token is not a
--     status (NT_STATUS_*, 0x*, SUCCESS, ERROR) is skipped; a leading
--     number is the time the line is due (from the loop's start)
--   - the status NT_STATUS_OK or 0x0 says the op succeeds, anything else
--     that it fails. Unlink, Rmdir and Rename that do otherwise end the
--     run ("child failed": the phase run fails); an NTCreateX that does
--     otherwise is only noted (the status_mismatch counter), and a file
--     opened against its status is closed, not kept
--   - each op first resolves its path as pvfs does: a stat, and when it
--     fails a case-insensitive search of the parent directory (w:lookup)
--   - NTCreateX path options disposition handle: read-write; FILE_CREATE
--     (2) creates, FILE_OVERWRITE(_IF) (4, 5) create and truncate, the
--     others (0, 1, 3) open what exists; FILE_DIRECTORY_FILE (0x1)
--     makes the directory (0700) and opens it read-only; a directory
--     opened read-write is opened read-only
--   - Close; Rename; Unlink; Mkdir (0777, result ignored); Rmdir;
--     Deltree (unlinks every file beneath, leaves the directories);
--     QUERY_PATH_INFORMATION (the resolve only); QUERY_FILE_INFORMATION
--     (fstat); QUERY_FS_INFORMATION (statfs); SET_FILE_INFORMATION
--     (fstat, then utime to atime - 10 s, mtime - 12 s); FIND_FIRST (the
--     parent directory read when the pattern has a wildcard); WriteX and
--     ReadX (pwrite and pread at the offset); LockX and UnlockX (a POSIX
--     write lock and its release); Flush (fsync); Sleep usec
--   - when the time is up each client deltrees its directory, untimed
--
-- Speed (bench/dbench.sh, ext4 loop image, 2 CPUs, client.txt, 10 s,
-- 1 GiB memory cgroup, 3 rounds): 0.97, 0.91 and 0.96 of dbench's MB/s
-- at 1, 4 and 16 clients, 1.10, 1.15 and 1.05 times its CPU per op.
-- What it took: the resolve and the directory scans in C (w:lookup,
-- w:scandir: no table of names, no message for a name not found), no
-- table per op, a file table per worker (dbench's clients are
-- processes), and w:op without a trampoline. The loadfile's parse
-- (parse_cpu_s, about 2 s for client.txt) is setup's, outside the
-- measured time.
--
-- Parameters:
--   workers    clients (dbench's NPROCS); each a worker thread
--   seconds    measured time (dbench -t); the warm-up before it is
--              seconds / 5 (whole seconds, as dbench's integer rule)
--   loadfile   the loadfile (dbench -c), read with ctx.input: parsed
--              once in setup into a table all workers read (ctx.share)
--   run_once   replay the loadfile once, all of it measured, no warm-up
--              (later dbench's --run-once)
--   skip_cleanup   leave the clients' files (dbench --skip-cleanup)
--
-- Metrics (the names lua/parse/dbench.lua gives the real dbench's):
--   <op>_ops, <op>_lat_avg_ms, <op>_lat_max_ms   dbench's table, op names
--              lowercased: ntcreatex, close, rename, unlink, deltree,
--              mkdir, rmdir, qpathinfo, qfileinfo, qfsinfo, sfileinfo,
--              find, writex, readx, lockx, unlockx, flush, sleep (only
--              the ops that ran; measured time only)
--   throughput_mbs   ReadX and WriteX bytes (their requested sizes, as
--              dbench counts them) / 10^6 / the measured seconds
--   max_latency_ms   the slowest op of the measured time
--   replay_cpu_s   CPU seconds of the clients (warm-up, measured time and
--              cleanup; not setup's parse): cpu_user_s and cpu_sys_s hold
--              that parse too
--   parse_cpu_s   CPU seconds of setup's parse of the loadfile
--   clients, loadfile_ops (lines replayed a loop), status_mismatch
--   (NTCreateX against its status, as dbench prints them), rw_bytes

local fsplan = require("fsplan")

-- dbench's ops, each with its metric name; the handlers below are keyed
-- by the first name, and a loadfile row holds the op's place here.
local OPS = {
  { "NTCreateX", "ntcreatex" }, { "Close", "close" },
  { "Rename", "rename" }, { "Unlink", "unlink" },
  { "Deltree", "deltree" }, { "Mkdir", "mkdir" }, { "Rmdir", "rmdir" },
  { "QUERY_PATH_INFORMATION", "qpathinfo" },
  { "QUERY_FILE_INFORMATION", "qfileinfo" },
  { "QUERY_FS_INFORMATION", "qfsinfo" },
  { "SET_FILE_INFORMATION", "sfileinfo" },
  { "FIND_FIRST", "find" }, { "WriteX", "writex" }, { "ReadX", "readx" },
  { "LockX", "lockx" }, { "UnlockX", "unlockx" }, { "Flush", "flush" },
  { "Sleep", "sleep" },
}
local CODE, NAME = {}, {}
for i, op in ipairs(OPS) do
  CODE[op[1]:lower()] = i
  NAME[i] = op[2]
end

local STATUS = { "NT_STATUS_", "0x", "SUCCESS", "ERROR" }

-- A status token: 1 (the op succeeds), 0 (it fails), or nil (not a
-- status: the line is skipped). A loadfile has a few dozen distinct
-- ones, so each is worked out once.
local status_memo = {}
local function status_of(s)
  local v = status_memo[s]
  if v == nil then
    v = false
    for _, p in ipairs(STATUS) do
      if s:sub(1, #p) == p then
        v = (s == "NT_STATUS_OK"
             or (s:sub(1, 2) == "0x" and tonumber(s:sub(3), 16) == 0))
            and 1 or 0
        break
      end
    end
    status_memo[s] = v
  end
  return v or nil
end

-- An op's code from its name, any case (memoized as status_of).
local code_memo = {}
local function code_of(s)
  local v = code_memo[s]
  if v == nil then
    v = CODE[s:lower()] or false
    code_memo[s] = v
  end
  return v or nil
end

-- A loadfile line's tokens into tk (reused from line to line: the parse
-- makes no table per line); quotes group, and are dropped. The count.
local function tokens(line, tk)
  local n = 0
  if not line:find('"', 1, true) then
    for w in line:gmatch("%S+") do n = n + 1; tk[n] = w end
    return n
  end
  -- between quotes (every second piece) one token, outside them words
  local quoted = false
  for piece in (line .. '"'):gmatch('([^"]*)"') do
    if quoted then
      n = n + 1; tk[n] = piece
    else
      for w in piece:gmatch("%S+") do n = n + 1; tk[n] = w end
    end
    quoted = not quoted
  end
  return n
end

-- Token j of a line of k tokens as a number: 0 when it is not a whole
-- number, or is the status (the last token), or is past it.
local function number(tk, j, k)
  return j < k and (math.tointeger(tonumber(tk[j])) or 0) or 0
end

-- A line's tokens tk[1..k] as a row of t (see compile); id gives a
-- path's id. False when the line is not an op: a comment, under 2
-- tokens, an op dbench does not know or no status at its end.
local function add_op(t, tk, k, id, lineno)
  if k < 2 or tk[1]:sub(1, 1) == "#" then return false end
  local due, first = 0, 1
  if tk[1]:match("^%d") then
    due = tonumber(tk[1]) or 0
    first = 2
  end
  local code = code_of(tk[first])
  local ok = code and status_of(tk[k])
  if not ok then return false end
  local p1, p2, j = 0, 0, first + 1
  if j < k and tk[j]:sub(1, 1) == "/" then
    p1 = id(tk[j]); j = j + 1
  end
  if j < k and tk[j]:sub(1, 1) == "/" then
    p2 = id(tk[j]); j = j + 1
  end
  t:add(code, ok, due, p1, p2, number(tk, j, k), number(tk, j + 1, k),
        number(tk, j + 2, k), number(tk, j + 3, k), lineno)
  return true
end

-- The loadfile into the shared table. Rows 1..n are the ops: code,
-- whether it must succeed, the time it is due (0: none), its path's and
-- second path's ids (0: none), its numbers, its line in the loadfile.
-- Rows n+1..n+m are the m distinct paths (client.txt has 261), the last
-- row is n, m: a worker makes its own clientN paths once, and an op row
-- is numbers only. Paths are relative to the work directory
-- ("\clients\client1\x" is clients/client1/x). Returns n.
local function compile(ctx)
  local text = assert(ctx.input("loadfile")):gsub("\\", "/")
  local t = ctx.share()
  local n, ids, paths, lineno, tk = 0, {}, {}, 0, {}
  local function id(p)
    if p == "" then return 0 end
    local i = ids[p]
    if not i then
      paths[#paths + 1] = (p:gsub("^/+", ""))
      i = #paths
      ids[p] = i
    end
    return i
  end
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    lineno = lineno + 1
    if add_op(t, tk, tokens(line, tk), id, lineno) then n = n + 1 end
  end
  if n == 0 then
    error("loadfile: no NetBench operation in it", 0)
  end
  for _, p in ipairs(paths) do t:add(p) end
  t:add(n, #paths)
  return n
end

-- NTCreateX's dispositions as w:open's options: FILE_CREATE (2)
-- creates, FILE_OVERWRITE(_IF) (4, 5) create and truncate, the others
-- open what exists
local OPEN_EXISTING = { create = false }
local DISPOSITION = { [2] = { create = true },
                      [4] = { create = true, trunc = true },
                      [5] = { create = true, trunc = true } }

-- A client: its worker, its name (client0 ...), its paths by id (the
-- loadfile's with client1 made its own) and, for a FIND_FIRST pattern,
-- the directory it searches; its open files by handle and their paths,
-- the loadfile line it is at, and what it counts.
local function client(w, ctx)
  local ops = ctx.shared()
  local n, m = ops:row(#ops)
  local c = { w = w, me = "client" .. (w.id - 1), ops = ops, n = n,
              path = { [0] = "" }, pattern_dir = {},
              files = {}, names = {}, line = 0,
              measuring = false,  -- past the warm-up
              rw_bytes = 0,       -- ReadX and WriteX bytes measured
              mismatch = 0 }      -- NTCreateX against its status
  for i = 1, m do
    local p = (ops:row(n + i):gsub("client1", c.me))
    c.path[i] = p
    c.pattern_dir[p] = p:find('[<>*?"]') and p:match("^(.*)/[^/]*$")
  end
  return c
end

-- The run fails at the client's line of the loadfile.
local function bad(c, what)
  error(("%s: line %d of the loadfile: %s"):format(c.me, c.line, what), 0)
end

-- pvfs_resolve_name: a stat, else a case-insensitive search of the
-- directory
local function resolve(c, p)
  if p ~= "" then c.w:lookup(p) end
end

local function handle(c, h)
  local f = c.files[h]
  if not f then bad(c, ("handle %d was not found"):format(h)) end
  return f
end

-- An op that must succeed (or fail) and did otherwise ends the run.
local function expect(c, ok, must, what)
  if (ok and true or false) ~= must then
    bad(c, ("%s %s (expected %s)"):format(what,
           ok and "succeeded" or "failed",
           must and "success" or "failure"))
  end
end

-- Every file beneath dir unlinked; the directories stay.
local function deltree(w, dir)
  local names = w:readdir(dir)
  if not names then return end
  for _, name in ipairs(names) do
    local p = dir .. "/" .. name
    local st = w:stat(p)
    if st then
      if st.isdir then deltree(w, p) else w:unlink(p) end
    end
  end
end

-- The ops, keyed by their names in OPS. Each gets the client, whether
-- the loadfile says the op succeeds, its two paths ("" when it has
-- none) and its numbers.
local handlers = {}

-- NTCreateX path options disposition handle
function handlers.NTCreateX(c, must, p, _, opts, disp, h)
  local w = c.w
  resolve(c, p)
  local o = DISPOSITION[disp] or OPEN_EXISTING
  local f
  if opts & 1 ~= 0 then
    w:mkdir(p, 448)
    f = w:open(p, "r")
  else
    local err
    f, _, err = w:open(p, "rw", o)
    if not f and err == 21 then f = w:open(p, "r") end  -- EISDIR
  end
  if not f then
    if must then c.mismatch = c.mismatch + 1 end
    return
  end
  if not must then
    c.mismatch = c.mismatch + 1
    f:close()
    return
  end
  c.files[h], c.names[h] = f, p
end

-- Close handle
function handlers.Close(c, _, _, _, h)
  handle(c, h):close()
  c.files[h], c.names[h] = nil, nil
end

function handlers.Rename(c, must, a, b)
  resolve(c, a); resolve(c, b)
  expect(c, c.w:rename(a, b), must, "rename " .. a .. " " .. b)
end

function handlers.Unlink(c, must, p)
  resolve(c, p)
  expect(c, c.w:unlink(p), must, "unlink " .. p)
end

function handlers.Deltree(c, _, p) deltree(c.w, p) end

function handlers.Mkdir(c, _, p) resolve(c, p); c.w:mkdir(p, 511) end

function handlers.Rmdir(c, must, p)
  resolve(c, p)
  expect(c, c.w:rmdir(p), must, "rmdir " .. p)
end

function handlers.QUERY_PATH_INFORMATION(c, _, p) resolve(c, p) end

function handlers.QUERY_FILE_INFORMATION(c, _, _, _, h)
  handle(c, h):stat()
end

function handlers.QUERY_FS_INFORMATION(c) c.w:statfs() end

function handlers.SET_FILE_INFORMATION(c, _, _, _, h)
  local st = handle(c, h):stat()
  if st then c.w:utime(c.names[h], st.atime - 10, st.mtime - 12) end
end

-- FIND_FIRST pattern: the directory read when it has a wildcard
function handlers.FIND_FIRST(c, _, p)
  resolve(c, p)
  local dir = c.pattern_dir[p]
  if dir then c.w:scandir(dir) end
end

-- WriteX handle offset size ret_size
function handlers.WriteX(c, _, _, _, h, off, size, ret)
  local got = handle(c, h):write(off, size)
  if got ~= ret then
    bad(c, ("wrote %s bytes, expected to write %d on handle %d")
           :format(tostring(got), ret, h))
  end
  if c.measuring then c.rw_bytes = c.rw_bytes + size end
end

-- ReadX handle offset size ret_size
function handlers.ReadX(c, _, _, _, h, off, size)
  handle(c, h):read(off, size)
  if c.measuring then c.rw_bytes = c.rw_bytes + size end
end

-- LockX and UnlockX handle offset size
function handlers.LockX(c, _, _, _, h, off, size)
  handle(c, h):lock(off, size)
end

function handlers.UnlockX(c, _, _, _, h, off, size)
  handle(c, h):unlock(off, size)
end

function handlers.Flush(c, _, _, _, h) handle(c, h):fsync() end

-- Sleep usec
function handlers.Sleep(c, _, _, _, usec) c.w:sleep(usec / 1e6) end

-- The handlers by op code (a loadfile row's first number).
local RUN = {}
for i, op in ipairs(OPS) do
  RUN[i] = handlers[op[1]] or error("dbench: no handler for " .. op[1])
end

-- The loadfile replayed, from the top each pass, until the time is up
-- (or once). Returns when the measured time began.
local function replay(c, params)
  local w, ops, n, path = c.w, c.ops, c.n, c.path
  local row = ops.row
  local seconds, once = params.seconds, params.run_once
  local warm_end = w:now() + (once and 0 or math.floor(seconds / 5))
  local stop_at = once and math.huge or warm_end + seconds
  local t_measure, passes = nil, 0
  while not w:done(stop_at) and not (once and passes == 1) do
    passes = passes + 1
    local t0 = w:now()
    for i = 1, n do
      if not c.measuring and w:now() >= warm_end then
        -- timed from the warm-up's end, as dbench's parent times it:
        -- an op that straddles it is neither counted nor waited for
        c.measuring = true
        t_measure = warm_end
        c.mismatch = 0
      end
      -- the clock every 8th line: the end is seen within 8 ops (tens
      -- of microseconds late, counted in the measured time)
      if i & 7 == 0 and w:done(stop_at) then break end
      local code, must, due, p1, p2, a, b, x, y, l = row(ops, i)
      c.line = l
      if due > 0 then w:sleep(t0 + due - w:now()) end
      w:op(c.measuring and NAME[code], RUN[code], c, must == 1,
           path[p1], path[p2], a, b, x, y)
    end
  end
  return t_measure or w:now()
end

-- dbench's cleanup: the client's files closed, its tree emptied.
local function cleanup(c)
  for h, f in pairs(c.files) do f:close(); c.files[h] = nil end
  deltree(c.w, "clients/" .. c.me)
end

-- CPU seconds of the child when the clients start and all they used,
-- warm-up and cleanup included (setup's parse of the loadfile is not)
local cpu_start, cpu_used, parse_cpu

return {
  describe = "dbench 4.0: a NetBench loadfile replayed by N clients "
             .. "(fileio backend), MB/s and per-op latency",
  -- engine sync: dbench makes plain system calls, one at a time; through
  -- io_uring each stat and open is punted to a kernel worker thread
  params = { workers = 1, seconds = "60s", engine = "sync",
             loadfile = "/usr/share/dbench/client.txt",
             run_once = false, skip_cleanup = false },
  key = { "throughput_mbs", "max_latency_ms" },

  setup = function(ctx, w)
    local c0 = assert(w:cpu())
    compile(ctx)
    cpu_start = assert(w:cpu())
    parse_cpu = cpu_start - c0
    w:mkdir("clients")
  end,

  worker = function(w, ctx)
    local c = client(w, ctx)
    local t_measure = replay(c, ctx.params)
    w:count("rw_bytes", c.rw_bytes)
    w:count("measured_us", math.floor((w:now() - t_measure) * 1e6))
    w:count("status_mismatch", c.mismatch)
    if ctx.params.skip_cleanup then return end
    -- dbench's cleanup, untimed: the client's files go
    w:op(false, cleanup, c)
  end,

  teardown = function(ctx, w)
    cpu_used = assert(w:cpu()) - cpu_start
    if ctx.params.skip_cleanup then return end
    for id = 0, ctx.params.workers - 1 do
      -- the directories deltree leaves, deepest first
      local function rm(dir)
        for _, name in ipairs(w:readdir(dir) or {}) do
          local p = dir .. "/" .. name
          local st = w:stat(p)
          if st and st.isdir then rm(p) elseif st then w:unlink(p) end
        end
        w:rmdir(dir)
      end
      rm("clients/client" .. id)
    end
    w:rmdir("clients")
  end,

  report = function(r, ctx)
    local t = ctx.shared()
    local out = { clients = ctx.params.workers,
                  loadfile_ops = t:row(#t) }
    local secs = (r.measured_us or 0) / 1e6 / ctx.params.workers
    if secs > 0 then
      out.throughput_mbs = (r.rw_bytes or 0) / 1e6 / secs
    end
    local max = 0
    for _, name in ipairs(NAME) do
      local m = r[name .. "_lat_max_ms"]
      if m and m > max then max = m end
    end
    out.max_latency_ms = max
    out.measured_s = secs
    out.replay_cpu_s = cpu_used
    out.parse_cpu_s = parse_cpu
    -- the units parse: dbench gives the real dbench's rows
    return fsplan.units(out, { throughput_mbs = "MB/s",
                               max_latency_ms = "ms", measured_s = "s",
                               replay_cpu_s = "s", parse_cpu_s = "s" })
  end,
}
