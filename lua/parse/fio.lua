-- parse/fio: fio's JSON report (--output-format=json, json+ or
-- json,normal) as metrics.
--
-- For each direction that moved bytes (read, write, trim; mixed with
-- unified_rw_reporting):
--   <dir>_iops            ops/s   fio's iops
--   <dir>_bw_mbs          MiB/s   bw_bytes / 2^20
--   <dir>_bytes           bytes   io_bytes
--   <dir>_lat_mean_ms     ms      lat_ns mean (submission + completion)
--   <dir>_lat_max_ms      ms      lat_ns max
--   <dir>_clat_p50_ms     ms      clat_ns percentile 50, 99 and 99.9, when
--   <dir>_clat_p99_ms             fio printed them (its default list has
--   <dir>_clat_p999_ms            them; --percentile_list may not)
-- and usr_cpu_pct, sys_cpu_pct (%), fio's per-job CPU figures.
-- A direction the job did not do has no figures, not zeros: a write-only
-- job has no read_* (the report says "no read or mixed figures ...: the
-- runs reported write only" of the key's).
--
-- One job: its figures as fio printed them. Several jobs in a group
-- (numjobs=, several job sections): one set of figures for the group,
-- merged the way fio's group_reporting merges them:
--   bytes and I/Os summed; iops and bandwidth = those sums over the
--   longest job's runtime in that direction (= the sum of the jobs' rates
--   when they ran equally long); mean latency weighted by each job's
--   sample count, max the largest; CPU% = all the jobs' CPU time over all
--   their runtime (fio's runtime-weighted average per job, not a sum);
--   percentiles from the jobs' latency histograms added together, which
--   only json+ prints ("bins"): with plain json there is no way to combine
--   percentiles, so they are left out (use json+ or group_reporting).
-- Several groups (stonewall, new_group): each group as above, its metric
-- names prefixed by "g<groupid>.".
-- A job that ended with an error fails the parse: its figures are not a
-- measurement.
--
-- Series (a second value: points for timeseries.csv), when fio ran with
-- --status-interval=N and a JSON output format: fio then prints a whole
-- JSON report every N seconds, each one its figures since the start, and
-- the final report last (the metrics above are that last one's). From
-- each report to the next, for each direction that moved bytes, summed
-- over the group's jobs:
--   <dir>_bw_mbs          MiB/s   the bytes of the interval over its length
--   <dir>_iops            1/s     its I/Os over its length
--   <dir>_lat_mean_ms     ms      the mean latency of its I/Os (from the
--                                 reports' lat_ns N and mean); none in an
--                                 interval without one
-- (prefixed by "g<groupid>." as above with several groups). t, the end of
-- the interval, is seconds since the first job began its I/O, on fio's
-- clock: a job began at the report's timestamp_ms less its runtime (its
-- longest direction's) at the first report that shows it running, and
-- has reached that start plus its runtime. An interval of a group runs
-- from its previous point (the first: from its jobs' start) to where its
-- jobs have reached, so the first is short by fio's file layout, the last
-- ends where the last job ended, a stonewalled group's begin where its
-- jobs began, and each rate is over its interval's real length. fio
-- restarts its counts when ramp_time ends: a job whose figures go back
-- counts from zero, from its new start; but when they do not go back
-- (the counts after the ramp already above those of the report before
-- it), that interval mixes the two: use the plan's warmup: rather than
-- ramp_time with series. fio prints about 6 KiB of JSON a job a report:
-- fsplan hands a parser the first 16 MiB of the output, so for runs of
-- over an hour at 1 s take a longer interval; a cut report is an error
-- (no final report: no metrics), as is output without one.

local json = require("json")

local DIRECTIONS = { "read", "write", "trim", "mixed" }
local PERCENTILES = { p50 = "50.000000", p99 = "99.000000", p999 = "99.900000" }
local NS_PER_MS = 1e6
local MIB = 1024 * 1024
local NO_SAMPLES = { N = 0, mean = 0, max = 0 }	-- for a missing *lat_ns

local function metric(value, unit)
	return { value = value, unit = unit }
end

-- ---- group_reporting, from the jobs' JSON --------------------------------

-- fio's percentile of a histogram: the first bin at which the running
-- count reaches p% of all samples.
local function percentile(bins, total, p)
	local seen = 0
	for _, bin in ipairs(bins) do
		seen = seen + bin.count
		if seen >= p / 100 * total then
			return bin.ns
		end
	end
	return bins[#bins].ns
end

-- clat_ns.percentile of the jobs' histograms added up, or nil when a job
-- with samples has no histogram (plain json).
local function merged_percentiles(dirs)
	local counts, total = {}, 0
	for _, d in ipairs(dirs) do
		local clat = d.clat_ns or NO_SAMPLES
		if clat.N > 0 then
			if not clat.bins then
				return nil
			end
			for ns, count in pairs(clat.bins) do
				counts[ns] = (counts[ns] or 0) + count
				total = total + count
			end
		end
	end
	if total == 0 then
		return nil
	end
	local bins = {}
	for ns, count in pairs(counts) do
		bins[#bins + 1] = { ns = tonumber(ns), count = count }
	end
	table.sort(bins, function(a, b) return a.ns < b.ns end)
	local out = {}
	for _, key in pairs(PERCENTILES) do
		out[key] = percentile(bins, total, tonumber(key))
	end
	return out
end

-- One direction of several jobs, in the shape fio gives one job.
local function merge_direction(dirs)
	local m = { io_bytes = 0, total_ios = 0, runtime = 0,
		    lat_ns = { N = 0, max = 0 }, clat_ns = {} }
	local lat_ns_sum = 0
	for _, d in ipairs(dirs) do
		local lat = d.lat_ns or NO_SAMPLES
		m.io_bytes = m.io_bytes + d.io_bytes
		m.total_ios = m.total_ios + d.total_ios
		m.runtime = math.max(m.runtime, d.runtime)
		m.lat_ns.N = m.lat_ns.N + lat.N
		m.lat_ns.max = math.max(m.lat_ns.max, lat.max)
		lat_ns_sum = lat_ns_sum + lat.mean * lat.N
	end
	if m.runtime > 0 then		-- ms
		m.iops = 1000 * m.total_ios / m.runtime
		m.bw_bytes = 1000 * m.io_bytes / m.runtime
	end
	if m.lat_ns.N > 0 then
		m.lat_ns.mean = lat_ns_sum / m.lat_ns.N
	end
	m.clat_ns.percentile = merged_percentiles(dirs)
	return m
end

-- The jobs of one group as one job.
local function merge_jobs(jobs)
	if #jobs == 1 then
		return jobs[1]
	end
	local merged = {}
	for _, dir in ipairs(DIRECTIONS) do
		local dirs = {}
		for _, job in ipairs(jobs) do
			dirs[#dirs + 1] = job[dir]
		end
		if #dirs > 0 then
			merged[dir] = merge_direction(dirs)
		end
	end
	local usr_ms, sys_ms, runtime_ms = 0, 0, 0
	for _, job in ipairs(jobs) do
		usr_ms = usr_ms + job.usr_cpu * job.job_runtime
		sys_ms = sys_ms + job.sys_cpu * job.job_runtime
		runtime_ms = runtime_ms + job.job_runtime
	end
	if runtime_ms > 0 then
		merged.usr_cpu = usr_ms / runtime_ms
		merged.sys_cpu = sys_ms / runtime_ms
	end
	return merged
end

-- ---- metrics --------------------------------------------------------------

local function report_direction(out, prefix, d)
	local lat, clat = d.lat_ns or NO_SAMPLES, d.clat_ns or NO_SAMPLES
	out[prefix .. "_bytes"] = metric(d.io_bytes, "bytes")
	if d.iops then
		out[prefix .. "_iops"] = metric(d.iops, "ops/s")
		out[prefix .. "_bw_mbs"] = metric(d.bw_bytes / MIB, "MiB/s")
	end
	if lat.N > 0 then
		out[prefix .. "_lat_mean_ms"] = metric(lat.mean / NS_PER_MS, "ms")
		out[prefix .. "_lat_max_ms"] = metric(lat.max / NS_PER_MS, "ms")
	end
	for name, key in pairs(PERCENTILES) do
		local ns = clat.percentile and clat.percentile[key]
		if ns then
			out[prefix .. "_clat_" .. name .. "_ms"] =
				metric(ns / NS_PER_MS, "ms")
		end
	end
end

local function report_job(out, prefix, job)
	for _, dir in ipairs(DIRECTIONS) do
		local d = job[dir]
		if d and d.io_bytes > 0 then
			report_direction(out, prefix .. dir, d)
		end
	end
	if job.usr_cpu then
		out[prefix .. "usr_cpu_pct"] = metric(job.usr_cpu, "%")
		out[prefix .. "sys_cpu_pct"] = metric(job.sys_cpu, "%")
	end
end

-- The jobs by groupid, in the order fio printed them.
local function groups_of(jobs)
	local groups, by_id = {}, {}
	for _, job in ipairs(jobs) do
		if (job.error or 0) ~= 0 then
			error(("fio: job '%s' ended with error %s"):format(
			      job.jobname, job.error), 0)
		end
		local id = job.groupid or 0
		if not by_id[id] then
			by_id[id] = { id = id }
			groups[#groups + 1] = by_id[id]
		end
		table.insert(by_id[id], job)
	end
	return groups
end

-- ---- series, from --status-interval's reports --------------------------

-- What a job had done at one report: per direction bytes, I/Os, and
-- latency samples and their sum (ns); and its runtime (ms): its longest
-- direction's, as job_runtime of a job not yet begun is garbage.
local function job_figures(job)
	local f = { runtime = 0, group = job.groupid or 0 }
	for _, dir in ipairs(DIRECTIONS) do
		local d = job[dir]
		if d then
			local lat = d.lat_ns or NO_SAMPLES
			f[dir] = { bytes = d.io_bytes or 0, ios = d.total_ios or 0,
				   n = lat.N or 0, sum = (lat.mean or 0) * (lat.N or 0) }
			f.runtime = math.max(f.runtime, d.runtime or 0)
		end
	end
	return f
end

-- Every JSON report in the output, as { ms = timestamp_ms, jobs =
-- { job_figures... } }, and the last one whole.
local function reports(stdout)
	local list, pos, last = {}, 1, nil
	while true do
		local at = pos == 1 and stdout:sub(1, 1) == "{" and 1
			or stdout:find("\n{", pos, true)
		if not at then
			break
		end
		local ok, obj, after = pcall(json.find_object, stdout, at)
		if not ok then
			error(("fio: report %d of its output is cut or malformed "
			       .. "(%s)"):format(#list + 1, obj), 0)
		end
		local jobs = type(obj.jobs) == "table" and obj.jobs or {}
		local r = { ms = tonumber(obj.timestamp_ms), jobs = {} }
		for i, job in ipairs(jobs) do
			r.jobs[i] = job_figures(job)
		end
		list[#list + 1] = r
		last, pos = obj, after
	end
	return list, last
end

-- Each job's times at each report, on fio's clock (ms): s, when its I/O
-- began (at the first report that shows it running, or again when its
-- runtime went back: ramp_time ended), and e = s + its runtime, where
-- it had reached; the earliest s of all is t0, returned.
local function report_times(list)
	local start, prev, t0 = {}, {}, nil
	for _, r in ipairs(list) do
		for i, f in ipairs(r.jobs) do
			if f.runtime > 0 and r.ms and
			   (not start[i] or f.runtime < prev[i]) then
				f.reset = start[i] ~= nil
				start[i] = r.ms - f.runtime
				t0 = math.min(t0 or start[i], start[i])
			end
			prev[i] = f.runtime
			if start[i] then
				f.s, f.e = start[i], start[i] + f.runtime
			end
		end
	end
	return t0
end

-- Where group g's interval ending at report r began and ended (ms):
-- from its last point (or its jobs' first start), or a reset job's new
-- start; nil when none of its jobs has begun.
local function group_span(r, g, from)
	local s, e
	for _, f in ipairs(r.jobs) do
		if f.group == g and f.e then
			s = math.min(s or f.s, f.s)
			e = math.max(e or f.e, f.e)
			if f.reset then
				from = math.max(from or f.s, f.s)
			end
		end
	end
	return from or s, e
end

-- What the jobs of group g did from report a to report b (a nil: from
-- nothing), per direction; a job whose figures went back counts from 0.
local function delta(a, b, g)
	local out = {}
	for i, f in ipairs(b.jobs) do
		local o = a and a.jobs[i]
		if f.group == g then
			for _, dir in ipairs(DIRECTIONS) do
				local x, y = f[dir], o and o[dir]
				if x then
					if not y or x.bytes < y.bytes or x.ios < y.ios
					   or f.runtime < o.runtime then
						y = { bytes = 0, ios = 0, n = 0, sum = 0 }
					end
					local d = out[dir] or { bytes = 0, ios = 0,
								n = 0, sum = 0 }
					d.bytes = d.bytes + x.bytes - y.bytes
					d.ios = d.ios + x.ios - y.ios
					d.n = d.n + x.n - y.n
					d.sum = d.sum + x.sum - y.sum
					out[dir] = d
				end
			end
		end
	end
	return out
end

-- The points of group g (names prefixed by prefix) into pts.
local function group_series(list, t0, g, prefix, moved, pts)
	local prev, prev_e = nil, nil
	for _, r in ipairs(list) do
		local from, e = group_span(r, g, prev_e)
		if e and e > from then
			local t, dt = (e - t0) / 1000, (e - from) / 1000
			for dir, d in pairs(delta(prev, r, g)) do
				local name = prefix .. dir
				if moved[name] then
					local function put(m, v, unit)
						pts[#pts + 1] = { t = t, metric = name .. m,
								  value = v, unit = unit }
					end
					put("_bw_mbs", d.bytes / MIB / dt, "MiB/s")
					put("_iops", d.ios / dt, "1/s")
					if d.n > 0 then
						put("_lat_mean_ms",
						    d.sum / d.n / NS_PER_MS, "ms")
					end
				end
			end
			prev, prev_e = r, e
		end
	end
end

-- The series of every group, when there were interval reports; moved:
-- the directions (with their prefix) the final report shows.
local function series(list, groups, moved)
	local pts = {}
	if #list < 2 then
		return pts
	end
	local t0 = report_times(list)
	if not t0 then
		return pts
	end
	for _, group in ipairs(groups) do
		local prefix = #groups > 1 and ("g" .. group.id .. ".") or ""
		group_series(list, t0, group.id, prefix, moved, pts)
	end
	return pts
end

local function parse(stdout)
	local list, final = reports(stdout or "")
	if not final then
		json.find_object(stdout)	-- raises: no line starts with '{'
	end
	local jobs = final and final.jobs
	if type(jobs) ~= "table" or #jobs == 0 then
		error("fio: no jobs in the JSON report", 0)
	end
	local groups = groups_of(jobs)
	local out = {}
	for _, group in ipairs(groups) do
		local prefix = #groups > 1 and ("g" .. group.id .. ".") or ""
		report_job(out, prefix, merge_jobs(group))
	end
	local moved = {}
	for name in pairs(out) do
		local dir = name:match("^(.*)_bytes$")
		if dir then
			moved[dir] = true
		end
	end
	return out, series(list, groups, moved)
end

-- Bandwidth and IOPS of each direction (one group: several groups'
-- figures carry their "g<id>." prefix, and report falls back to every
-- _mbs and _iops figure).
return {
	parse = parse,
	key = { "read_bw_mbs", "write_bw_mbs", "read_iops", "write_iops",
		"mixed_bw_mbs", "mixed_iops" },
}
