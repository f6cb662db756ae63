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
-- The progress lines before the table are not read. Output without the
-- Throughput line is an error (dbench failed or was stopped).

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
	return out
end

return {
	parse = parse,
	key = { "throughput_mbs", "max_latency_ms" },
}
