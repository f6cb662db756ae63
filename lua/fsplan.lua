-- fsplan: what the phase library's modules share — sizes as a plan writes
-- them, the memory a run is judged against, and timing a test with the CPU
-- it took.
--
--   local fsplan = require("fsplan")
--   fsplan.size("size", "64M")           --> 67108864 (raises naming "size")
--   fsplan.ram(ctx, "auto")              --> ctx.ram_bytes, false
--   fsplan.ram(ctx, "512M")              --> 536870912, true
--   fsplan.twice_ram("size", size, ram)  -- raises unless size >= 2 x ram
--   fsplan.fits(ctx, "size", size, auto) -- raises if the filesystem is smaller
--   local secs, cpu = fsplan.measure(w, fn, ...)   -- cpu nil without w:cpu
--   return fsplan.units(out, { rate_mbs = "MiB/s" })  -- report()'s rows
--
-- A parameter that may be "auto" (or 0 for "off") has a string default, so
-- the plan hands it over as written; these helpers turn it into bytes with
-- the plan language's rules and an error that names the parameter.

local M = {}

M.KiB, M.MiB, M.GiB = 1 << 10, 1 << 20, 1 << 30

local SHIFT = { [""] = 0, b = 0, k = 10, m = 20, g = 30, t = 40 }

-- Bytes of a size written as the plan language writes one: 4096, 4k, 64M,
-- 8GiB (powers of 1024, case-blind); a whole number passes as it is.
function M.size(name, s)
  if math.type(s) == "integer" and s >= 0 then
    return s
  end
  local digits, unit = tostring(s):match("^%s*(%d+)%s*(%a-)%s*$")
  unit = unit and (unit:lower():gsub("^(%a)i?b$", "%1"))
  local n = digits and SHIFT[unit] and #digits <= 15 and tonumber(digits)
  if not n or n > (1 << 62) >> SHIFT[unit] then
    error(("%s: '%s' is not a size (4096, 8k, 64M, 2G, ...)")
          :format(name, tostring(s)), 0)
  end
  return n << SHIFT[unit]
end

function M.mib(bytes)
  return bytes / M.MiB
end

-- A size the way units_fmt_size prints one: the largest unit it is a whole
-- number of ("64M", "1536M", "2G", "4097").
function M.fmt_size(bytes)
  for _, u in ipairs({ { "T", 40 }, { "G", 30 }, { "M", 20 }, { "k", 10 } }) do
    if bytes > 0 and bytes % (1 << u[2]) == 0 then
      return ("%d%s"):format(bytes >> u[2], u[1])
    end
  end
  return tostring(bytes)
end

-- A size for a person to read: "64 MiB", "23.5 GiB" (one decimal, none
-- when whole). With `up`, rounded up, for a least size to ask for.
function M.human(bytes, up)
  local units = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB" }
  local v, i = bytes, 1
  while v >= 1024 and i < #units do
    v, i = v / 1024, i + 1
  end
  if i == 1 then
    return ("%d bytes"):format(bytes)
  end
  v = up and math.ceil(v * 10 - 1e-9) / 10 or math.floor(v * 10 + 0.5) / 10
  if v == math.floor(v) then
    return ("%d %s"):format(math.floor(v), units[i])
  end
  return ("%.1f %s"):format(v, units[i])
end

-- The memory a run is judged against: the machine's ("auto"), or what the
-- plan says it may use (`ram`, the phase's memory cgroup limit). The second result says
-- whether the plan gave it, for the report: a run with a smaller `ram`
-- than the machine has is honest only when it says so.
function M.ram(ctx, value)
  if value == "auto" then
    return ctx.ram_bytes, false
  end
  return M.size("ram", value), true
end

-- The classic tools' rule: a file smaller than twice the memory can sit in
-- the page cache, and its reads measure memory, not the filesystem. A ram
-- of 0 turns the rule off (bonnie++'s -r 0).
function M.twice_ram(name, size, ram)
  if ram > 0 and size < 2 * ram then
    error(("%s %s is less than twice the RAM (%s): the page cache could "
           .. "hold the file and the reads would not reach the disk; use "
           .. "a size of at least %s, or set ram: to the memory the run "
           .. "may really use (fsplan limits the phase to it) — ram_mib in the results "
           .. "says what the size was judged against")
          :format(name, M.human(size), M.human(ram), M.human(2 * ram, true)),
          0)
  end
end

-- A file of bytes cannot fit a filesystem smaller than that: the size
-- ctx.fs gives (the image's at fsplan check, the filesystem's in the
-- run; none for a device or directory at check). auto says the size
-- came from the RAM, which ram: can change.
function M.fits(ctx, name, bytes, auto)
  local fs = ctx.fs and ctx.fs.size_bytes or 0
  if fs > 0 and bytes > fs then
    error(("%s %s does not fit the %s %s%s"):format(
          name, M.human(bytes), ctx.checking and "image of" or
          "filesystem of", M.human(fs), auto and
          (": it is twice the RAM; set ram: to the memory the phase may "
           .. "use (fsplan limits it to that), or give a larger image")
          or ": give a smaller size, or a larger image"), 0)
  end
end

-- A report()'s table with units: each number out[name] whose name units
-- gives becomes {value = number, unit = units[name]}, the row a parser
-- (lua/parse/) gives, so a module's rows read as the tool's parser's.
function M.units(out, units)
  for name, unit in pairs(units) do
    if type(out[name]) == "number" then
      out[name] = { value = out[name], unit = unit }
    end
  end
  return out
end

-- Wall seconds of fn(...) on the monotonic clock, and the CPU seconds the
-- phase child spent meanwhile (user + sys, every thread: nil where the
-- worker API has no w:cpu).
function M.measure(w, fn, ...)
  local c0 = w.cpu and assert(w:cpu())
  local t0 = w:now()
  fn(...)
  local secs = w:now() - t0
  return secs, c0 and assert(w:cpu()) - c0
end

return M
