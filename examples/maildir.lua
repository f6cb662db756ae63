-- A maildir delivery agent: every message is a small file written to
-- tmp/, fsync'd, then renamed into new/ — the way qmail and Dovecot
-- deliver. Each worker is one delivery process with its own maildir.
return {
  describe = "maildir delivery: small files, fsync per message, rename",
  params = { mails = 2000, min_size = "2k", max_size = "64k", workers = 1 },
  key = { "mails_per_s", "deliver_lat_avg_ms", "deliver_lat_p99_ms" },

  worker = function(w, ctx)
    local p = ctx.params
    local box = string.format("mail%d.%d", ctx.index, w.id)
    assert(w:mkdir(box))
    for _, sub in ipairs({ "tmp", "new", "cur" }) do
      assert(w:mkdir(box .. "/" .. sub))
    end
    for i = 1, p.mails do
      local name = string.format("%d.%d_%d.fsplan", i, w.id, w:random(1e9))
      local size = w:random(p.min_size, p.max_size)
      w:time("deliver", function()
        local f = assert(w:open(box .. "/tmp/" .. name, "w", { excl = true }))
        assert(f:write(0, size))
        assert(f:fsync())
        assert(f:close())
        assert(w:rename(box .. "/tmp/" .. name, box .. "/new/" .. name))
      end)
      if w:done() then break end
    end
  end,

  report = function(r, ctx)
    return { mails_per_s = (r.deliver_iops or 0) }
  end,
}
