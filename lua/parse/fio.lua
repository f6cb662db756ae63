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

local function parse(stdout)
	local jobs = json.find_object(stdout).jobs
	if type(jobs) ~= "table" or #jobs == 0 then
		error("fio: no jobs in the JSON report", 0)
	end
	local groups = groups_of(jobs)
	local out = {}
	for _, group in ipairs(groups) do
		local prefix = #groups > 1 and ("g" .. group.id .. ".") or ""
		report_job(out, prefix, merge_jobs(group))
	end
	return out
end

-- Bandwidth and IOPS of each direction (one group: several groups'
-- figures carry their "g<id>." prefix, and report falls back to every
-- _mbs and _iops figure).
return {
	parse = parse,
	key = { "read_bw_mbs", "write_bw_mbs", "read_iops", "write_iops",
		"mixed_bw_mbs", "mixed_iops" },
}
