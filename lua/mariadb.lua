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
--   pid file and error log in ./mariadb, InnoDB's defaults otherwise
--   (16 KiB pages, doublewrite, O_DIRECT data, an fsync of the redo log
--   per commit); CREATE DATABASE sbtest; sysbench oltp_read_write
--   prepare, run (--threads=workers --time=seconds), cleanup; the
--   server stopped (SIGTERM, waited for) and ./mariadb removed. Only the
--   run's report goes to stdout; the rest goes to stderr (exec/*.err).
-- The server is stopped on every path: the script's own exit and its
-- SIGTERM or SIGINT (fsplan's interrupt) stop it; past the phase's
-- timeout fsplan kills the phase's whole process group, the server
-- with it (it stays in the group: mariadbd does not daemonize). A
-- missing program is a failed row that names it (exit status 127).
--
-- Parameters:
--   workers      sysbench --threads
--   seconds      sysbench --time (whole seconds, rounded up)
--   tables, table_size   sysbench --tables, --table-size
--   buffer_pool  --innodb-buffer-pool-size
--   log_size     --innodb-log-file-size (10.11's default, 96M)
--   ready_s      how long the server may take to say "ready for
--                connections" before the phase fails
--
-- Metrics: lua/parse/sysbench.lua's — transactions, transactions_per_s,
-- queries, requests_per_s, reads, writes, other, other_per_s,
-- ignored_errors, reconnects, events, total_time_s, lat_min_ms,
-- lat_avg_ms, lat_max_ms, lat_p95_ms — the names lua/oltp.lua gives its
-- own figures.

return {
  describe = "sysbench oltp_read_write against MariaDB, its datadir on "
             .. "the filesystem under test",
  params = { workers = 16, seconds = "60s", tables = 2,
             table_size = 10000, buffer_pool = "128M", log_size = "96M",
             ready_s = "60s" },
  key = { "transactions_per_s", "requests_per_s", "lat_avg_ms",
          "lat_p95_ms" },
  exec = "mariadb.sh",
  parse = "sysbench",
}
