-- mariadb: the real thing beside lua/oltp.lua — sysbench 1.0's
-- oltp_read_write against a MariaDB server of the phase's own, its
-- datadir on the filesystem under test. An exec module: no Lua runs;
-- fsplan types the parameters below, runs lua/exec/mariadb.sh as runas
-- in the work directory with them in its environment (FSPLAN_P_<name>),
-- and lua/parse/sysbench.lua reads what sysbench printed.
--
--   phases:
--     - use: mariadb
--       with: {workers: 16, seconds: 60, tables: 2, table_size: 10000,
--              buffer_pool: 128M}
--
-- What the script does (reference/classic-tools.md; Debian's
-- mariadb-server 10.11 and sysbench 1.0.20, no service, no root):
--   mariadb-install-db --no-defaults into ./mariadb/data; mariadbd
--   --no-defaults --skip-networking --skip-grant-tables with its socket,
--   pid file and error log in ./mariadb, the InnoDB settings below
--   (10.11's defaults: O_DIRECT data, doublewrite, an fsync of the redo
--   log per commit) and its defaults otherwise (16 KiB pages); CREATE
--   DATABASE sbtest; sysbench oltp_read_write prepare, run
--   (--threads=workers, --time=seconds or --events=events --time=0),
--   cleanup; the server stopped (SIGTERM, waited for) and ./mariadb
--   removed. Only the run's report, and InnoDB's counters and the
--   device's of the run (SHOW GLOBAL STATUS and the device's stat file,
--   before and after it), go to stdout; the rest goes to stderr
--   (exec/*.err).
-- The server is stopped on every path: the script's own exit and its
-- SIGTERM or SIGINT (fsplan's interrupt) stop it; past the phase's
-- timeout fsplan kills the phase's whole process group, the server
-- with it (it stays in the group: mariadbd does not daemonize). A
-- missing program is a failed row that names it (exit status 127).
--
-- Parameters:
--   workers      sysbench --threads
--   seconds      sysbench --time (whole seconds, rounded up), when
--                events is 0
--   events       sysbench --events with --time=0 (0.4's --max-requests):
--                when not 0, the run stops after this many transactions
--                and total_time_s is the time they took, the figure the
--                2008 study compared. A transaction of sysbench 1.0's
--                oltp_read_write is 20 requests (BEGIN, 10 point selects,
--                simple, sum, order and distinct ranges, index and
--                non-index updates, a delete and an insert, COMMIT: 14
--                reads, 4 writes, 2 other); sysbench 0.4.12's oltp
--                complex mode made 21 (one more index UPDATE); the 2008
--                study is said to have made 18, which neither source
--                shows. This module runs sysbench 1.0's, as
--                installed: 20.
--   tables, table_size   sysbench --tables, --table-size
--   buffer_pool  --innodb-buffer-pool-size
--   log_size     --innodb-log-file-size (10.11's default, 96M)
--   flush_method innodb_flush_method: fsync, O_DSYNC, littlesync, nosync,
--                O_DIRECT (10.11's default), O_DIRECT_NO_FSYNC
--   flush_log_at_trx_commit   innodb_flush_log_at_trx_commit: 1 (the
--                default: the redo log synced at every commit), 0 or 2
--   doublewrite  innodb_doublewrite (default true)
--   ready_s      how long the server may take to say "ready for
--                connections" before the phase fails
--
-- Metrics: lua/parse/sysbench.lua's — transactions, transactions_per_s,
-- queries, requests_per_s, reads, writes, other, other_per_s,
-- ignored_errors, reconnects, events, total_time_s, lat_min_ms,
-- lat_avg_ms, lat_max_ms, lat_p95_ms — the names lua/oltp.lua gives its
-- own figures; and InnoDB's I/O in the run alone (the script's SHOW
-- GLOBAL STATUS after sysbench's run less before it): redo_writes,
-- redo_bytes, data_fsyncs (every sync: 10.11 counts the log's with the
-- data files' and has no Innodb_os_log_fsyncs), fsyncs_per_commit,
-- page_writes, dblwr_pages, and run_dev_write_ios and run_dev_write_bytes,
-- the writes of the block device under the server in the run alone
-- (fsplan's dev_write_ios and dev_write_bytes take in the server's start
-- and sysbench prepare).

local FLUSH_METHODS = { "fsync", "O_DSYNC", "littlesync", "nosync",
                        "O_DIRECT", "O_DIRECT_NO_FSYNC" }

-- The values mariadbd 10.11 accepts, refused here rather than by a
-- server that will not start.
local function check(ctx)
  local p = ctx.params
  local ok = false
  for _, m in ipairs(FLUSH_METHODS) do
    if p.flush_method == m then ok = true end
  end
  if not ok then
    error(("flush_method: %s is not one of %s"):format(p.flush_method,
          table.concat(FLUSH_METHODS, ", ")), 0)
  end
  local f = p.flush_log_at_trx_commit
  if f ~= 0 and f ~= 1 and f ~= 2 then
    error(("flush_log_at_trx_commit: %s is not 0, 1 or 2")
          :format(tostring(f)), 0)
  end
  -- past 2^53 a count is a float: no longer exact, nor a whole number
  -- sysbench's --events takes
  if p.events < 0 or p.events % 1 ~= 0 or p.events > 2^53 then
    error(("events: %s is not a whole number of transactions from 0 "
           .. "to 2^53 (0: run for seconds)"):format(tostring(p.events)),
          0)
  end
end

return {
  describe = "sysbench oltp_read_write against MariaDB, its datadir on "
             .. "the filesystem under test",
  params = { workers = 16, seconds = "60s", tables = 2,
             table_size = 10000, buffer_pool = "128M", log_size = "96M",
             ready_s = "60s", events = 0, flush_method = "O_DIRECT",
             flush_log_at_trx_commit = 1, doublewrite = true },
  check = check,
  key = { "transactions_per_s", "requests_per_s", "lat_avg_ms",
          "lat_p95_ms" },
  exec = "mariadb.sh",
  parse = "sysbench",
}
