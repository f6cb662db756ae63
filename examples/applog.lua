-- An append-only log, as a database's redo log or a message broker
-- writes it: records appended one after another, made durable by an
-- fdatasync every `batch` records (group commit). The latency of a
-- commit is what a client waits for.
return {
  describe = "append-only log with fdatasync batching (group commit)",
  params = { records = 20000, record = "512", batch = 16, seconds = "30s" },
  key = { "commit_lat_avg_ms", "commit_lat_p99_ms", "commit_iops",
          "write_mbs" },

  worker = function(w, ctx)
    local p = ctx.params
    local log = assert(w:open("log" .. w.id, "w"))
    local off, pending = 0, 0
    for _ = 1, p.records do
      assert(log:write(off, p.record))
      off = off + p.record
      pending = pending + 1
      if pending == p.batch then
        w:time("commit", function() assert(log:fdatasync()) end)
        pending = 0
      end
      if w:done() then break end
    end
    if pending > 0 then assert(log:fdatasync()) end
    w:count("log_bytes", off)
    log:close()
  end,
}
