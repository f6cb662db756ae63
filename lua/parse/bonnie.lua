-- parse/bonnie: the real bonnie++'s CSV line (bonnie++ 2.00a, format 1.98)
-- as the metrics lua/bonnie.lua reports, so interp/bonniecsv.h writes the
-- same line for both and a plan can run the tool and the phase side by
-- side.
--
--   phases:
--     - name: real-bonnie
--       exec: "bonnie++ -d . -s ${size} -n 16 -q"
--       parse: bonnie
--
-- With -q bonnie++ prints the CSV line on stdout and its text report on
-- stderr; without it both go to stdout. The line is found wherever it is:
-- the last line of stdout (then of stderr) whose first field is "1.98" and
-- that has bonnie++'s 50 fields. Several (-x N) give the last. The text
-- report is not read: bonnie++ 2.00a prints the test size in place of the
-- file-creation rates there; the CSV line has them right.
--
-- Fields (reference/bonnie-csv.md) and metrics:
--   3 concurrency, 4 seed                     concurrency, seed
--   5 file_size "256M" / "1G"                 file_size_mib (MiB)
--   7 seeks, 8 seek_proc_count                seeks_count, seek_procs
--   21 num_files                              num_files (×1024 files)
--   22 max_size: bytes, "link", "symlink"     max_size (bytes), or
--                                             max_size_link 1 / 2
--   23 min_size                               min_size (bytes)
--   24 num_dirs, 25 file_chunk_size           num_dirs: bonnie++ 2.00a
--                                             writes it in field 25
-- and for each test T (putc, put_block, rewrite, getc, get_block, seeks,
-- seq_create, seq_stat, seq_del, ran_create, ran_stat, ran_del):
--   its rate         T (KiB/s, seeks/s, files/s); "+++++" (under 0.5 s)
--                    gives T_fast = 1 and no T
--   its %CPU         T_cpu (%); "+++" gives none
--   its latency      T_latency_us (us) from "123us", "45ms", "2s"
-- An empty field (a test not run) gives no metric. bonnie_line = 1 asks
-- for the line in bonnie.csv.
--
-- seeks_cpu is bonnie++'s figure as printed, so the line comes back the
-- same. It is not the process's CPU: bonnie++ 2.00a's seekers are
-- seek_procs threads, each timing its share with getrusage(RUSAGE_SELF),
-- which counts every thread of the process, and the figure is their sum
-- (357% on a 2-CPU machine here, strace shows the five threads' calls).
-- seeks_cpu_process = seeks_cpu / seek_procs is what the other %CPU
-- figures and lua/bonnie.lua's seeks_cpu measure: compare with that.

local RATE_UNITS = { io = "KiB/s", seeks = "seeks/s", files = "files/s" }

-- Test, its rate's field (its %CPU follows), its latency's field, its unit.
local TESTS = {
  { "putc", 9, 38, "io" }, { "put_block", 11, 39, "io" },
  { "rewrite", 13, 40, "io" }, { "getc", 15, 41, "io" },
  { "get_block", 17, 42, "io" }, { "seeks", 19, 43, "seeks" },
  { "seq_create", 26, 44, "files" }, { "seq_stat", 28, 45, "files" },
  { "seq_del", 30, 46, "files" }, { "ran_create", 32, 47, "files" },
  { "ran_stat", 34, 48, "files" }, { "ran_del", 36, 49, "files" },
}
local FIELDS = 50
local LATENCY_US = { us = 1, ms = 1e3, s = 1e6 }
local SIZE_MIB = { M = 1, G = 1024 }

local function split(line)
  local f = {}
  for field in (line .. ","):gmatch("([^,]*),") do
    f[#f + 1] = field
  end
  return f
end

-- The last 1.98 line of 50 fields in text, as its fields, or nil.
local function csv_line(text)
  local found
  for line in (text .. "\n"):gmatch("(.-)\r?\n") do
    if line:sub(1, 5) == "1.98," then
      local f = split(line)
      if #f == FIELDS then found = f end
    end
  end
  return found
end

local function bad(f, i, what)
  error(("bonnie: field %d is '%s', not %s"):format(i, f[i + 1], what), 0)
end

-- Field i (0-based, as bonnie-csv.md counts) as a number, or nil if empty.
local function number(f, i)
  local s = f[i + 1]
  if s == "" then return nil end
  local v = s:match("^%d+%.?%d*$") and tonumber(s)
  if not v then bad(f, i, "a number") end
  return v
end

local function latency(f, i)
  local s = f[i + 1]
  if s == "" then return nil end
  local n, unit = s:match("^(%d+)(%a+)$")
  if not n or not LATENCY_US[unit] then
    bad(f, i, "a latency such as 123us, 45ms or 2s")
  end
  return tonumber(n) * LATENCY_US[unit]
end

local function size_mib(f, i)
  local s = f[i + 1]
  if s == "" then return nil end
  local n, unit = s:match("^(%d+)([MG])$")
  if not n then bad(f, i, "a size such as 256M or 1G") end
  return tonumber(n) * SIZE_MIB[unit]
end

local function parse(stdout, stderr)
  local f = csv_line(stdout or "") or csv_line(stderr or "")
  if not f then
    error("bonnie: no bonnie++ CSV line (format 1.98, 50 fields) in the "
          .. "output; this reads bonnie++ 2.00a's", 0)
  end
  local out = { bonnie_line = { value = 1, unit = "" } }
  local function put(name, value, unit)
    if value then out[name] = { value = value, unit = unit or "" } end
  end

  put("concurrency", number(f, 3))
  put("seed", f[5]:match("^%d+$") and tonumber(f[5]))
  put("file_size_mib", size_mib(f, 5), "MiB")
  put("seeks_count", number(f, 7))
  put("seek_procs", number(f, 8))
  put("num_files", number(f, 21))
  if f[23] == "link" then
    put("max_size_link", 1)
  elseif f[23] == "symlink" then
    put("max_size_link", 2)
  else
    put("max_size", number(f, 22), "bytes")
  end
  put("min_size", number(f, 23), "bytes")
  put("num_dirs", number(f, 24) or number(f, 25))

  for _, t in ipairs(TESTS) do
    local name, at, lat, kind = t[1], t[2], t[3], t[4]
    if f[at + 1] == "+++++" then
      put(name .. "_fast", 1)
    else
      put(name, number(f, at), RATE_UNITS[kind])
    end
    if f[at + 2] ~= "+++" then
      put(name .. "_cpu", number(f, at + 1), "%")
    end
    put(name .. "_latency_us", latency(f, lat), "us")
  end
  local procs = out.seek_procs and out.seek_procs.value
  if out.seeks_cpu and procs and procs > 0 then
    put("seeks_cpu_process", out.seeks_cpu.value / procs, "%")
  end
  return out
end

return {
  parse = parse,
  -- bonnie++'s figures, block write first (what a stop rule watches):
  -- report shows them as bonnie++'s two blocks, as for lua/bonnie.lua
  key = { "put_block", "get_block", "rewrite", "putc", "getc", "seeks",
          "seq_create", "seq_stat", "seq_del",
          "ran_create", "ran_stat", "ran_del" },
}
