-- parse/sysbench: the report of sysbench 1.0 fileio and of its OLTP
-- tests (oltp_read_write and the others: the SQL statistics), with the
-- general statistics and latency every test prints, as metrics.
--
--   SQL statistics:      queries performed: read, write, other, total
--                        -> reads, writes, other, queries
--                        transactions, queries, ignored errors,
--                        reconnects: "N (X per sec.)"
--                        -> transactions, transactions_per_s,
--                           queries, requests_per_s (queries a second,
--                           the 2008 study's requests/s),
--                           ignored_errors, ignored_errors_per_s,
--                           reconnects, reconnects_per_s
--                        and other_per_s: other / total time
--   File operations:     reads/s, writes/s, fsyncs/s
--                        -> reads_per_s, writes_per_s, fsyncs_per_s (ops/s)
--   Throughput:          read, MiB/s, written, MiB/s
--                        -> read_mibs, written_mibs (MiB/s)
--   General statistics:  total time, total number of events
--                        -> total_time_s (s), events
--   InnoDB status (the run's):  lua/exec/mariadb.sh's SHOW GLOBAL STATUS
--                        counters, after the run less before it:
--                        Innodb_os_log_fsyncs, Innodb_os_log_written,
--                        Innodb_log_writes, Innodb_data_fsyncs,
--                        Innodb_pages_written, Innodb_dblwr_pages_written
--                        -> redo_fsyncs, redo_bytes, redo_writes,
--                           data_fsyncs, page_writes, dblwr_pages
--                        (lua/oltp.lua's names; 10.11 has no
--                        Innodb_os_log_fsyncs: its Innodb_data_fsyncs
--                        counts every sync, the log's with the rest), the
--                        writes and bytes of the device under the server
--                        in the run alone (Device_writes,
--                        Device_write_bytes -> run_dev_write_ios,
--                        run_dev_write_bytes), and fsyncs_per_commit:
--                        redo_fsyncs, else data_fsyncs, / transactions
--   Latency (ms):        min, avg, max, <N>th percentile (95 by default,
--                        --percentile=N)
--                        -> lat_min_ms, lat_avg_ms, lat_max_ms, lat_p<N>_ms
--
-- A section sysbench did not print leaves its metrics out rather than
-- zero; output with none of them is an error. When the output holds
-- several reports (a script running sysbench more than once), the last
-- one counts. Other lines (prepare's and cleanup's, thread fairness) are
-- ignored.
--
-- Series (a second value: points for timeseries.csv), from the
-- intermediate reports --report-interval=N prints, each the rates of its
-- own N seconds, t the seconds since sysbench's threads started:
--   fileio  "[ 1s ] reads: 157.52 MiB/s writes: 105.01 MiB/s fsyncs:
--           669.10/s latency (ms,95%): 0.010"
--           -> read_mibs, written_mibs (MiB/s), fsyncs_per_s (ops/s),
--              lat_p95_ms (ms; the percentile of --percentile)
--   OLTP    "[ 1s ] thds: 4 tps: 123.45 qps: 2469.00 (r/w/o: ...) lat
--           (ms,95%): 45.79 err/s: 0.00 reconn/s: 0.00"
--           -> transactions_per_s, requests_per_s, lat_p95_ms,
--              ignored_errors_per_s, reconnects_per_s
-- named and in the units of the report's rows. Of several runs, the last
-- one's (a line "Threads started!", or seconds that go back, start
-- another).

-- A label's metric, its unit, and the metric of the "(X per sec.)"
-- that follows the count (or nil).
local SECTIONS = {
	["SQL statistics"] = {
		read = { "reads", "queries" },
		write = { "writes", "queries" },
		other = { "other", "queries" },
		total = { "queries", "queries" },
		transactions = { "transactions", "transactions",
				 "transactions_per_s" },
		queries = { "queries", "queries", "requests_per_s" },
		["ignored errors"] = { "ignored_errors", "errors",
				       "ignored_errors_per_s" },
		reconnects = { "reconnects", "reconnects", "reconnects_per_s" },
	},
	["File operations"] = {
		["reads/s"] = { "reads_per_s", "ops/s" },
		["writes/s"] = { "writes_per_s", "ops/s" },
		["fsyncs/s"] = { "fsyncs_per_s", "ops/s" },
	},
	["Throughput"] = {
		["read, MiB/s"] = { "read_mibs", "MiB/s" },
		["written, MiB/s"] = { "written_mibs", "MiB/s" },
	},
	["General statistics"] = {
		["total time"] = { "total_time_s", "s" },
		["total number of events"] = { "events", "events" },
	},
	-- lua/exec/mariadb.sh's: SHOW GLOBAL STATUS after the run less
	-- before it, under lua/oltp.lua's names for the same I/O
	["InnoDB status (the run's)"] = {
		Innodb_os_log_fsyncs = { "redo_fsyncs", "syncs" },
		Innodb_os_log_written = { "redo_bytes", "bytes" },
		Innodb_log_writes = { "redo_writes", "writes" },
		Innodb_data_fsyncs = { "data_fsyncs", "syncs" },
		Innodb_pages_written = { "page_writes", "pages" },
		Innodb_dblwr_pages_written = { "dblwr_pages", "pages" },
		Device_writes = { "run_dev_write_ios", "writes" },
		Device_write_bytes = { "run_dev_write_bytes", "bytes" },
	},
	["Latency (ms)"] = {
		min = { "lat_min_ms", "ms" },
		avg = { "lat_avg_ms", "ms" },
		max = { "lat_max_ms", "ms" },
	},
}

-- The metric name and unit of a label in a section, and the name of
-- its rate, or nil.
local function field(section, label)
	local known = SECTIONS[section][label]
	if known then
		return known[1], known[2], known[3]
	end
	local p = section == "Latency (ms)" and label:match("^(%d+)th percentile$")
	if p then
		return "lat_p" .. p .. "_ms", "ms"
	end
end

-- An intermediate report's figures: pattern, metric, unit.
local INTERVAL = {
	{ "reads:%s*([%d.]+) MiB/s", "read_mibs", "MiB/s" },
	{ "writes:%s*([%d.]+) MiB/s", "written_mibs", "MiB/s" },
	{ "fsyncs:%s*([%d.]+)/s", "fsyncs_per_s", "ops/s" },
	{ "tps:%s*([%d.]+)", "transactions_per_s", "transactions/s" },
	{ "qps:%s*([%d.]+)", "requests_per_s", "queries/s" },
	{ "err/s:%s*([%d.]+)", "ignored_errors_per_s", "errors/s" },
	{ "reconn/s:%s*([%d.]+)", "reconnects_per_s", "reconnects/s" },
}

-- The last run's intermediate reports as points.
local function series(stdout)
	local pts, last = {}, 0
	for line in (stdout .. "\n"):gmatch("(.-)\r?\n") do
		local t, rest = line:match("^%[%s*([%d.]+)s%s*%]%s+(.*)$")
		t = tonumber(t)
		if line == "Threads started!" or (t and t <= last) then
			pts, last = {}, 0
		end
		if t then
			local function put(v, metric, unit)
				if tonumber(v) then
					pts[#pts + 1] = { t = t, metric = metric,
							  value = tonumber(v), unit = unit }
				end
			end
			for _, f in ipairs(INTERVAL) do
				put(rest:match(f[1]), f[2], f[3])
			end
			local p, lat = rest:match("%(ms,(%d+)%%%):%s*([%d.]+)")
			if p then
				put(lat, "lat_p" .. p .. "_ms", "ms")
			end
			last = t
		end
	end
	return pts
end

local function parse(stdout)
	local out, found, section = {}, false, nil
	for line in (stdout .. "\n"):gmatch("(.-)\r?\n") do
		local header = line:match("^(%S.*):%s*$")
		if header then
			section = SECTIONS[header] and header
			found = found or section ~= nil
		elseif line == "" then
			section = nil
		elseif section then
			local label, number = line:match("^%s+(.-):%s*(%-?[%d.]+)")
			local name, unit, rate = field(section, label or "")
			if name and tonumber(number) then
				out[name] = { value = tonumber(number), unit = unit }
			end
			local per_sec = rate and line:match("%(([%d.]+) per sec%.%)")
			if per_sec and tonumber(per_sec) then
				out[rate] = { value = tonumber(per_sec),
					      unit = unit .. "/s" }
			end
		end
	end
	if not found then
		error("sysbench: no report in the output (none of the sections "
		      .. "SQL statistics, File operations, Throughput, General "
		      .. "statistics, Latency (ms))", 0)
	end
	local syncs, txns = out.redo_fsyncs or out.data_fsyncs, out.transactions
	if syncs and txns and txns.value > 0 then
		out.fsyncs_per_commit = { value = syncs.value / txns.value,
					  unit = "syncs/transaction" }
	end
	local other, secs = out.other, out.total_time_s
	if other and secs and secs.value > 0 then
		out.other_per_s = { value = other.value / secs.value,
				    unit = "queries/s" }
	end
	return out, series(stdout)
end

-- fileio's rates, then the latency every test reports (an OLTP run's
-- key is its module's: lua/mariadb.lua).
return {
	parse = parse,
	key = { "reads_per_s", "writes_per_s", "read_mibs", "written_mibs",
		"lat_avg_ms" },
}
