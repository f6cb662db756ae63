-- parse/dbench: the report of the real dbench 4.0 as the metrics
-- lua/dbench.lua reports, so a plan runs the tool and the phase side by
-- side.
--
--   phases:
--     - name: real-dbench
--       exec: "dbench -D . -t ${seconds} ${clients}"
--       parse: dbench
--
-- What dbench prints at the end, and the metrics:
--   " NTCreateX  155346  0.018  7.969"   (Operation Count AvgLat MaxLat)
--       -> ntcreatex_ops, ntcreatex_lat_avg_ms, ntcreatex_lat_max_ms;
--          dbench's operation name lowercased (NTCreateX ntcreatex, Close
--          close, Qpathinfo qpathinfo, WriteX writex, ...). dbench leaves
--          out the operations it never ran: so does this.
--   "Throughput 482.745 MB/sec  4 clients  4 procs  max_latency=93.999 ms"
--       -> throughput_mbs (MB = 10^6 bytes, ReadX and WriteX only),
--          clients, procs, max_latency_ms
-- Output without the Throughput line is an error (dbench failed or was
-- stopped).
--
-- The series (a second value: points for timeseries.csv), from the
-- progress line dbench prints every second of its execute part:
--   "   4    249632   482.74 MB/sec  execute   9 sec  latency 83.513 ms"
--       -> throughput_mbs (MB/s): the rate of that second. dbench prints
--          its running average since execute began (its last one is the
--          Throughput line), so the second's rate is the difference of
--          two averages times their seconds: avg_i * t_i - avg_j * t_j
--          over t_i - t_j. Their time-weighted mean is the Throughput
--          figure; dbench prints two decimals, so a second's rate is
--          good to about 0.01 * t MB/s (0.1 MB/s at 10 s, 6 at 600 s),
--          and one that comes out below 0 of that rounding is 0.
--       -> max_latency_ms (ms): the slowest op of that second, finished
--          or still running, as dbench measures it.
-- t is seconds since dbench started, as DESIGN.md section 8 wants for an
-- exec phase: execute's seconds plus the launch ("N of N processes
-- prepared for launch S sec") and the warm-up ("minimum warmup W secs":
-- execute begins at the first tick past W). Both are whole seconds, so
-- t is good to about half a second. The warm-up lines are left out:
-- dbench discards that part itself, and its averages restart after it.

-- The series of the execute lines (see above), or an empty list.
local function series(stdout)
	local pts, offset, prev_t, prev_mb = {}, 0, 0, 0
	local warmup, launch = 0, 0
	for line in ((stdout or "") .. "\n"):gmatch("(.-)\r?\n") do
		local w = line:match("minimum warmup (%d+) secs")
		local l = line:match("processes prepared for launch%s+(%d+) sec")
		local avg, sec, lat = line:match(
			"^%s*%d+%s+%d+%s+([%d.]+) MB/sec%s+execute%s+(%d+) sec"
			.. "%s+latency ([%d.]+) ms")
		warmup = tonumber(w) or warmup
		launch = tonumber(l) or launch
		sec = tonumber(sec)
		if sec and sec > prev_t then
			local mb = tonumber(avg) * sec
			offset = launch + warmup
			pts[#pts + 1] = { t = offset + sec,
				metric = "throughput_mbs", unit = "MB/s",
				value = math.max(0, (mb - prev_mb) / (sec - prev_t)) }
			pts[#pts + 1] = { t = offset + sec,
				metric = "max_latency_ms", unit = "ms",
				value = tonumber(lat) }
			prev_t, prev_mb = sec, mb
		end
	end
	return pts
end

local function parse(stdout)
	local out, table_seen = {}, false
	local function put(name, value, unit)
		out[name] = { value = value, unit = unit }
	end
	for line in ((stdout or "") .. "\n"):gmatch("(.-)\r?\n") do
		if line:match("^%s*Operation%s+Count%s+AvgLat%s+MaxLat%s*$") then
			table_seen = true
		elseif table_seen then
			local op, count, avg, max = line:match(
				"^%s*(%a+)%s+(%d+)%s+([%d.]+)%s+([%d.]+)%s*$")
			if op then
				op = op:lower()
				put(op .. "_ops", tonumber(count), "ops")
				put(op .. "_lat_avg_ms", tonumber(avg), "ms")
				put(op .. "_lat_max_ms", tonumber(max), "ms")
			end
		end
		local mbs, clients, procs, lat = line:match(
			"^Throughput%s+([%d.]+)%s+MB/sec%s+(%d+)%s+clients%s+"
			.. "(%d+)%s+procs%s+max_latency=([%d.]+)%s+ms")
		if mbs then
			put("throughput_mbs", tonumber(mbs), "MB/s")
			put("clients", tonumber(clients), "")
			put("procs", tonumber(procs), "")
			put("max_latency_ms", tonumber(lat), "ms")
		end
	end
	if not out.throughput_mbs then
		error("dbench: no 'Throughput X MB/sec N clients N procs "
		      .. "max_latency=Y ms' line in the output; dbench 4.0 "
		      .. "prints it when it ends", 0)
	end
	return out, series(stdout)
end

return {
	parse = parse,
	key = { "throughput_mbs", "max_latency_ms" },
}
