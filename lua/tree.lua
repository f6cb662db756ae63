-- tree: the 2008 copy/move/rm study of a home directory on two
-- filesystems — a synthetic home (photos, a maildir, films) built from the
-- plan's seed, then the study's steps, one per phase run:
--
--   prepare  build the tree in source/home (untimed: in setup)
--   create   copy source/home to target/home, then sync target/
--   copy     copy target/home to target/home.copy, then sync
--   move     target/home.copy into target/moved/: one rename, as mv does
--            within one filesystem
--   rm1      remove target/moved/home.copy, then sync
--   rm2      remove target/home (and target/moved), then sync
--
-- The plan gives target.volumes: [source, target] and lists `use: tree`
-- once per step, with between: [sync, remount, drop_caches]; the parent
-- adds fs_used_bytes_source and fs_used_bytes_target after each step (the
-- study's df lines).
--
-- The home, at size 22G (the study's): ~9,000 photos of 0.5-2.5 MiB (most
-- in photos/, a tenth in album subdirectories), ~160,000 mails of 1-11 KiB
-- in five maildir folders, and films of ~700 MiB for the rest. Scaled
-- down, the counts scale with the bytes (a 64M home has ~26 photos, ~450
-- mails, one film), so file sizes stay those of a home.
--
-- Copies go through the worker API as cp -a (coreutils 9) does them: per
-- file an open of each, f:copy (copy_file_range: in the kernel within one
-- filesystem, the copy step; across the two volumes the kernel refuses,
-- EXDEV, and it reads and writes 128 KiB at a time, the create step),
-- close, and the source's atime and mtime; directories made first and
-- their times set after their contents. On xfs (reflink on by default
-- since xfsprogs 5.1) and btrfs copy_file_range shares the blocks, as
-- cp -a (coreutils 9: --reflink=auto) does there today: the copy step
-- then writes no data, where the 2008 study's cp copied it. Engine sync
-- by default: one op in flight, as cp makes them (and ext4 hands
-- io_uring buffered writes to kernel workers).
--
-- repeat: needs order: rounds (each round makes the filesystems anew and
-- runs the steps once): under order: configs a step's repetitions would
-- run back to back, the second finding the first's tree; fsplan check
-- refuses it. It refuses a size larger than the image too (in the run,
-- setup one larger than the filesystem).
--
-- Parameters: step (above), size (the home, default 22G), reflink
-- ("auto": f:copy in the kernel, as cp -a; "never": the bytes read and
-- written on every filesystem, as cp -a --reflink=never and the 2008
-- study's cp).
--
-- The steps build on each other: each step's setup (untimed) refuses a
-- start that is not what the steps before it leave — its tree missing, or
-- not whole ("source/home is not the whole tree: photos/img_00035.jpg is
-- 256 KiB, not 1.3 MiB — the prepare step failed or did not run"), what
-- it makes already there (an earlier run's), target/moved not empty
-- before rm2. A whole tree is told by a look at its top directory (the
-- tree's time, set after all else) and its last file, so that setup warms
-- no cache the timed step reads cold; only a tree found wrong is looked
-- at file by file, for the reason.
--
-- Metrics: files and bytes (what create and copy copied and rm1 and rm2
-- removed; prepare's and move's: the tree), rate_mbs (MiB / s: create
-- and copy only, the steps that move data; a move is a rename and an rm
-- unlinks), files_per_s, besides seconds and the automatic rows.

local fsplan = require("fsplan")

local MiB, KiB = fsplan.MiB, fsplan.KiB
local FULL = 22 * fsplan.GiB
local BLOCK = 4 * MiB
local EPOCH = 1200000000	-- early 2008: the tree's times

local FOLDERS = { { "INBOX", 40 }, { "lists.linux-kernel", 30 },
                  { "lists.debian-devel", 15 }, { "Sent", 10 },
                  { "Trash", 5 } }

-- A small deterministic generator (xorshift64*): the same tree from the
-- same seed in every Lua state (setup, workers, report).
local function rng(seed)
  local x = (seed * 0x9E3779B97F4A7C15 + 0x2545F4914F6CDD1D) | 1
  return function(a, b)
    x = x ~ (x >> 12)
    x = x ~ (x << 25)
    x = x ~ (x >> 27)
    local v = ((x * 0x2545F4914F6CDD1D) >> 11) % (b - a + 1)
    return a + v
  end
end

local function scaled(n, f)
  return math.max(1, math.floor(n * f + 0.5))
end

-- Every directory (dir(path, mtime)) and file (file(path, size, mtime)) of
-- the home under top, parents before children, top first; returns files,
-- bytes.
local function walk(ctx, top, dir, file)
  local size = ctx.params.size
  local f = size / FULL
  local r = rng(ctx.seed)
  local files, bytes = 0, 0
  -- every walk draws the same numbers, whatever it is given: the same
  -- sizes and times in each
  local function put(path, len)
    local mtime = EPOCH + r(0, 86400 * 365)
    files, bytes = files + 1, bytes + len
    if file then file(top .. "/" .. path, len, mtime) end
  end
  local function mk(path)
    local mtime = EPOCH + r(0, 86400 * 365)
    if dir then dir(top .. (path and "/" .. path or ""), mtime) end
  end
  mk(nil)
  -- photos: one big directory and a few albums
  local n_photo = scaled(9000, f)
  local n_album = scaled(20, f)
  mk("photos")
  for a = 1, n_album do mk(("photos/album_%02d"):format(a)) end
  for i = 1, n_photo do
    local len = r(512 * KiB, 2560 * KiB)
    if i % 10 == 0 then
      put(("photos/album_%02d/img_%05d.jpg"):format(i // 10 % n_album + 1, i), len)
    else
      put(("photos/img_%05d.jpg"):format(i), len)
    end
  end
  -- the maildir: five folders of cur/new/tmp, most mail read (cur)
  local n_mail = scaled(160000, f)
  mk("Maildir")
  local left = n_mail
  for k, fo in ipairs(FOLDERS) do
    local base = "Maildir/." .. fo[1]
    mk(base)
    for _, sub in ipairs({ "cur", "new", "tmp" }) do mk(base .. "/" .. sub) end
    local n = k == #FOLDERS and left or n_mail * fo[2] // 100
    left = left - n
    for i = 1, n do
      local sub = i % 20 == 0 and "new" or "cur"
      put(("%s/%s/%d.M%dP%d.home:2,S"):format(base, sub, EPOCH + i, i, k),
          r(KiB, 11 * KiB))
    end
  end
  -- films: what is left of size, in files of about 700 MiB
  mk("films")
  local rest = math.max(size - bytes, MiB)
  local n_film = math.max(1, (rest + 350 * MiB) // (700 * MiB))
  for i = 1, n_film do
    local len = i < n_film and rest // n_film or rest - (n_film - 1) * (rest // n_film)
    put(("films/film_%02d.avi"):format(i), len)
  end
  return files, bytes
end

local function build(w, ctx, top)
  local dirs = {}
  walk(ctx, top,
       function(path, mtime)
         assert(w:mkdir(path))
         dirs[#dirs + 1] = { path, mtime }
       end,
       function(path, len, mtime)
         local f = assert(w:open(path, "w", { create = true, excl = true }))
         local off = 0
         while off < len do
           local n = math.min(BLOCK, len - off)
           assert(f:write(off, n))
           off = off + n
         end
         assert(f:close())
         assert(w:utime(path, mtime, mtime))
       end)
  -- directories' times last, as making their entries changed them, and
  -- the top's last of all: a tree whose top has its time was made whole
  for i = #dirs, 1, -1 do
    assert(w:utime(dirs[i][1], dirs[i][2], dirs[i][2]))
  end
end

-- What tells a whole tree at a glance: its top directory's time (build
-- and copy_tree set it after all else) and its last file.
local function marks(ctx)
  local m = {}
  walk(ctx, "", function(path, mtime) m.mtime = m.mtime or mtime end,
       function(path, len) m.last, m.last_len = path:sub(2), len end)
  return m
end

-- The first file of the tree that top lacks, or has short, as words;
-- nil if it has them all. Every file is looked at: for a step that fails.
local function lacking(w, ctx, top)
  local why
  walk(ctx, top, nil, function(path, len)
    if why then return end
    local st = w:stat(path)
    local name = path:sub(#top + 2)
    if not st then
      why = name .. " is missing"
    elseif st.size ~= len then
      why = ("%s is %s, not %s"):format(name, fsplan.human(st.size),
                                        fsplan.human(len))
    end
  end)
  return why
end

-- Refuses a step whose tree (at from.tree, made by the from.by step) is
-- not the whole tree: a look at its top and its last file, and only when
-- those are wrong, at every file, for the reason. A moved tree's top time
-- is not looked at (a rename may set it); the move looked before.
local function need_tree(w, ctx, from)
  local st = w:stat(from.tree)
  local by = ("the %s step failed or did not run"):format(from.by)
  if not st or not st.isdir then
    error(("%s is missing — %s"):format(from.tree, by), 0)
  end
  local m = marks(ctx)
  local last = w:stat(from.tree .. "/" .. m.last)
  if last and last.size == m.last_len and
     (from.moved or math.abs(st.mtime - m.mtime) <= 2) then
    return
  end
  error(("%s is not the whole tree: %s — %s"):format(from.tree,
        lacking(w, ctx, from.tree) or "its making did not end (its "
        .. "top directory has not the tree's time)", by), 0)
end

local function names(w, path)
  local list = assert(w:readdir(path))
  table.sort(list)
  return list
end

-- How f:copy copies (the reflink parameter, as cp's --reflink=auto and
-- never): "kernel" or "buffer".
local COPY_BY = { auto = "kernel", never = "buffer" }

local function copy_file(w, src, dst, st, by)
  local i = assert(w:open(src, "r"))
  local o = assert(w:open(dst, "w", { create = true, excl = true }))
  local n = assert(i:copy(o, 0, nil, by))
  assert(i:close())
  assert(o:close())
  assert(w:utime(dst, st.atime, st.mtime))
  return n
end

-- cp -a of a tree of directories and regular files, each directory's
-- entries in inode order as cp reads them (coreutils' savedir sorts by
-- inode: on a cold cache the reads then go through the disk in order).
-- Adds the files and bytes it copied to n.
local function copy_tree(w, src, dst, by, n)
  local st = assert(w:stat(src))
  local list = {}
  assert(w:mkdir(dst, st.mode & 0xfff))
  for _, name in ipairs(assert(w:readdir(src))) do
    local e = assert(w:stat(src .. "/" .. name))
    e.name = name
    list[#list + 1] = e
  end
  table.sort(list, function(a, b) return a.ino < b.ino end)
  for _, e in ipairs(list) do
    local s, d = src .. "/" .. e.name, dst .. "/" .. e.name
    if e.isdir then
      copy_tree(w, s, d, by, n)
    else
      n.files, n.bytes = n.files + 1, n.bytes + copy_file(w, s, d, e, by)
    end
  end
  assert(w:utime(dst, st.atime, st.mtime))
end

-- rm -r, adding the files and bytes it removed to n.
local function remove_tree(w, path, n)
  for _, name in ipairs(names(w, path)) do
    local p = path .. "/" .. name
    local st = assert(w:stat(p))
    if st.isdir then
      remove_tree(w, p, n)
    else
      assert(w:unlink(p))
      n.files, n.bytes = n.files + 1, n.bytes + st.size
    end
  end
  assert(w:rmdir(path))
end

-- Each step, adding what it copied or removed to n (prepare's and
-- move's are the tree their setup made or found whole).
local STEPS = {
  prepare = function() end,	-- setup did it, untimed
  create = function(w, ctx, n)
    copy_tree(w, "source/home", "target/home", COPY_BY[ctx.params.reflink],
              n)
    assert(w:sync("target"))
  end,
  copy = function(w, ctx, n)
    copy_tree(w, "target/home", "target/home.copy",
              COPY_BY[ctx.params.reflink], n)
    assert(w:sync("target"))
  end,
  move = function(w)
    assert(w:rename("target/home.copy", "target/moved/home.copy"))
    assert(w:sync("target"))
  end,
  rm1 = function(w, _, n)
    remove_tree(w, "target/moved/home.copy", n)
    assert(w:sync("target"))
  end,
  rm2 = function(w, _, n)
    remove_tree(w, "target/home", n)
    assert(w:rmdir("target/moved"))
    assert(w:sync("target"))
  end,
}

-- What each step starts from: the tree an earlier step made (tree, by
-- that step), a directory rm1 emptied, and what the step makes, which
-- must not be there yet.
local INPUT = {
  prepare = { makes = "source/home" },
  create = { tree = "source/home", by = "prepare", makes = "target/home" },
  copy = { tree = "target/home", by = "create",
           makes = "target/home.copy" },
  move = { tree = "target/home.copy", by = "copy", makes = "target/moved" },
  rm1 = { tree = "target/moved/home.copy", by = "move", moved = true },
  rm2 = { tree = "target/home", by = "create", empty = "target/moved" },
}

-- Refuses, untimed, a step whose start is not what the steps before it
-- leave: the study's steps build on each other.
local function need_input(w, ctx)
  local from = INPUT[ctx.params.step]
  if from.makes and w:stat(from.makes) then
    error(("%s is there already: an earlier run of the steps made it (the "
           .. "steps build on each other; with repeat:, give order: "
           .. "rounds, whose rounds each make the filesystems anew)")
          :format(from.makes), 0)
  end
  if from.tree then need_tree(w, ctx, from) end
  if from.empty then
    local left = w:readdir(from.empty)
    if not left then
      error(("%s is missing — the move step failed or did not run")
            :format(from.empty), 0)
    elseif #left > 0 then
      error(("%s is not empty (%s) — the rm1 step failed or did not run")
            :format(from.empty, left[1]), 0)
    end
  end
end

-- The parameters, checked: by fsplan check, and again by setup.
local function check(ctx)
  if not STEPS[ctx.params.step] then
    error(("step: '%s' is not one of prepare, create, copy, move, rm1, "
           .. "rm2"):format(ctx.params.step), 0)
  end
  if not COPY_BY[ctx.params.reflink] then
    error(("reflink: '%s' is not auto or never (cp's --reflink)")
          :format(ctx.params.reflink), 0)
  end
  if ctx.params.workers ~= 1 then
    error("workers: the tree's steps are one process's, as cp and mv", 0)
  end
  -- order: configs runs a phase's repetitions back to back on the same
  -- filesystems: a second prepare would find the first's tree
  if ctx.repeats > 1 and ctx.order ~= "rounds" then
    error(("repeat: %d with order: configs runs each step's repetitions "
           .. "back to back on the same filesystems, but each step starts "
           .. "from what the step before it left (the second prepare "
           .. "would find source/home there); give order: rounds: each "
           .. "round makes the filesystems anew and runs the steps once")
          :format(ctx.repeats), 0)
  end
  fsplan.fits(ctx, "size", ctx.params.size)
end

return {
  describe = "the copy/move/rm study of a home directory (2008): build "
             .. "it, copy it across and within a filesystem, move it, "
             .. "remove it",
  params = { step = "create", size = "22G", workers = 1, engine = "sync",
             reflink = "auto" },
  key = { "seconds", "rate_mbs" },

  check = check,

  setup = function(ctx, w)
    local step = ctx.params.step
    check(ctx)
    for _, v in ipairs({ "source", "target" }) do
      if not w:stat(v) then
        error(("no %s/ in the work directory: the plan needs target: "
               .. "{volumes: [source, target]}"):format(v), 0)
      end
    end
    need_input(w, ctx)
    if step == "prepare" then
      build(w, ctx, "source/home")
      assert(w:sync("source"))
    elseif step == "move" then
      assert(w:mkdir("target/moved"))
    end
  end,

  worker = function(w, ctx)
    local step = ctx.params.step
    local n = { files = 0, bytes = 0 }
    STEPS[step](w, ctx, n)
    if step ~= "prepare" and step ~= "move" then
      w:count("files", n.files)
      w:count("bytes", n.bytes)
    end
  end,

  -- the files and bytes the step copied or removed, else (prepare, move)
  -- the tree's
  report = function(r, ctx)
    local files, bytes = r.files, r.bytes
    if not files then files, bytes = walk(ctx, "", nil, nil) end
    local out = { files = files, bytes = bytes }
    local step = ctx.params.step
    if r.seconds > 0 and step ~= "prepare" then
      out.files_per_s = files / r.seconds
      -- a move is one rename and rm1/rm2 unlink: no data moves, so
      -- their bytes over their time are no rate
      if step == "create" or step == "copy" then
        out.rate_mbs = bytes / MiB / r.seconds
      end
    end
    return fsplan.units(out, { files = "files", bytes = "bytes",
                               rate_mbs = "MiB/s", files_per_s = "files/s" })
  end,
}
