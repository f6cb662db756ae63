/* test_oltp: lua/oltp.lua's InnoDB-like I/O and its group commit, and `use:
 * mariadb` (the exec module) — a real server, stopped on every path. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"
#include "phase/groupsync.h"
#include "util/sha256.h"
#include "procwatch.h"

/* ---- group commit (phase/groupsync.h) ----------------------------------- */

/* Each thread "writes" (takes the next number), then waits for a sync;
 * a sync makes durable what was written when it began. */
struct log {
	pthread_mutex_t m;
	long written, durable, syncs;
	int fd;
	int bad;
};

static int slow_sync(void *ctx)
{
	struct log *l = ctx;
	long upto;

	pthread_mutex_lock(&l->m);
	upto = l->written;
	l->syncs++;
	pthread_mutex_unlock(&l->m);
	usleep(2000);		/* an fdatasync's time: others queue */
	pthread_mutex_lock(&l->m);
	if (upto > l->durable)
		l->durable = upto;
	pthread_mutex_unlock(&l->m);
	return 0;
}

static void *committer(void *arg)
{
	struct log *l = arg;

	for (int i = 0; i < 50; i++) {
		long mine;

		pthread_mutex_lock(&l->m);
		mine = ++l->written;
		pthread_mutex_unlock(&l->m);
		if (groupsync_wait(l->fd, slow_sync, l) < 0)
			l->bad = 1;
		pthread_mutex_lock(&l->m);
		if (l->durable < mine)	/* returned before its write was synced */
			l->bad = 1;
		pthread_mutex_unlock(&l->m);
	}
	return NULL;
}

Test(oltp, group_commit_covers_every_commit_with_fewer_syncs)
{
	struct log l = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, -1, 0 };
	FILE *f = tmpfile();
	pthread_t t[8];

	cr_assert(f);
	l.fd = fileno(f);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, committer, &l), 0);
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	fclose(f);
	cr_expect_eq(l.bad, 0, "a commit returned before a sync covered it");
	cr_expect_eq(l.written, 400);
	/* 8 threads queue behind 2 ms syncs: far fewer than one each */
	cr_expect(l.syncs > 0 && l.syncs < 200, "%ld syncs for 400 commits",
		  l.syncs);
}

Test(oltp, group_commit_alone_is_one_sync_a_commit)
{
	struct log l = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, -1, 0 };
	FILE *f = tmpfile();

	cr_assert(f);
	l.fd = fileno(f);
	committer(&l);
	fclose(f);
	cr_expect_eq(l.bad, 0);
	cr_expect_eq(l.syncs, 50);
}

/* ---- lua/oltp.lua, end to end --------------------------------------- */

static void fini(void)
{
	e2e_cleanup();
}

/* Run the native phases (YAML list items) on a 256M ext4 image, as root,
 * into rd; the run must end with exit 0. */
static void run_native(const char *phases, char *rd, size_t len)
{
	char body[1024];
	int rc;

	e2e_require_root();
	snprintf(body, sizeof(body), "target: {image: 256M}\n"
		 "filesystems: [{type: ext4}]\nphases:\n%s", phases);
	rc = e2e_run_plan(e2e_tmpdir(), "oltp", body, rd, len);
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
}

/* The phase run cell ended ok (its reason otherwise). */
static void expect_ok(const char *rd, const char *cell)
{
	cr_assert_str_eq(e2e_metric(rd, cell, "status"), "ok", "%s",
			 e2e_reason(rd, cell));
}

/*
 * f:group_commit shared: four workers' 200 records of 700 bytes each go
 * to one circular log of 8 KiB in turns that carry several records: no
 * more syncs than records, every byte appended written at least once and
 * at most two part blocks more a turn, the log never past its size, and
 * what the calls said they wrote is what the ops counted.
 */
Test(oltp, group_commit_shares_turns_between_workers, .fini = fini,
     .timeout = 60)
{
	const char *dir = e2e_tmpdir(), *cell = "tmpfs::size=16M/gc#1";
	double syncs, writes, bytes, n = 4 * 200 * 700;
	char rd[300];
	int rc;

	e2e_require_root();
	e2e_write(dir, "gc.lua", "return { params = { workers = 4 },\n"
		  "  worker = function(w, ctx)\n"
		  "    local f = assert(w:open('log', 'rw'))\n"
		  "    local o = { size = 8192, write = 'lw', sync = 'ls' }\n"
		  "    for _ = 1, 200 do\n"
		  "      local _, b = assert(f:group_commit(700, o))\n"
		  "      w:count('mine', b)\n"
		  "      w:count('led', b > 0 and 1 or 0)\n"
		  "      assert(f:size() <= 8192, f:size())\n"
		  "    end\n"
		  "    assert(f:close())\n"
		  "  end }\n");
	rc = e2e_run_plan(dir, "gc", "filesystems: [{type: tmpfs, mount: "
			  "size=16M}]\nphases: [{use: gc.lua}]\n", rd,
			  sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	expect_ok(rd, cell);
	syncs = e2e_num(rd, cell, "ls_ops");
	writes = e2e_num(rd, cell, "lw_ops");
	bytes = e2e_num(rd, cell, "lw_bytes");
	cr_expect(syncs > 0 && syncs <= 800, "%g syncs", syncs);
	cr_expect_eq(e2e_num(rd, cell, "led"), syncs);
	cr_expect(writes >= syncs && writes <= 2 * syncs, "%g writes, %g "
		  "syncs", writes, syncs);
	cr_expect(bytes >= n && bytes <= n + 1024 * syncs, "%g bytes in %g "
		  "turns", bytes, syncs);
	cr_expect_eq(e2e_num(rd, cell, "mine"), bytes);
}

Test(oltp, redo_syncs_per_commit_and_pages_written_twice, .fini = fini,
     .timeout = 120)
{
	const char *one = "ext4/one#1", *four = "ext4/four#1";
	double txn, pages;
	char rd[300];

	/* a pool of 16 pages a worker: evictions and flushes all along */
	run_native("  - {use: oltp, name: one, with: {workers: 1, seconds: 1,"
		   " size: 8M, buffer_pool: 256K, log_size: 2M}}\n"
		   "  - {use: oltp, name: four, with: {workers: 4,"
		   " seconds: 1, size: 8M, buffer_pool: 1M, log_size: 2M}}\n",
		   rd, sizeof(rd));
	expect_ok(rd, one);
	txn = e2e_num(rd, one, "transactions");
	cr_assert(txn > 10, "%g transactions", txn);
	cr_expect_eq(e2e_num(rd, one, "txn_ops"), txn);
	/* one worker: one fdatasync of the log a commit, one write (two
	 * where the 2M log wraps round) */
	cr_expect_eq(e2e_num(rd, one, "redo_fsync_ops"), txn);
	cr_expect(e2e_num(rd, one, "redo_write_ops") >= txn &&
		  e2e_num(rd, one, "redo_write_ops") <= txn + 1 +
		  e2e_num(rd, one, "redo_bytes") / (2 << 20));
	cr_expect_eq(e2e_num(rd, one, "fsyncs_per_commit"), 1);
	cr_expect_eq(e2e_num(rd, one, "redo_fsyncs"), txn);
	cr_expect_eq(e2e_num(rd, one, "data_fsyncs"), txn +
		     e2e_num(rd, one, "dblwr_sync_ops") +
		     e2e_num(rd, one, "data_sync_ops"));
	/* every flushed page the run changed: once into the doublewrite
	 * area, once home; those prepare made (the 16 the pool held at
	 * the start) home only, their making being in the redo log */
	pages = e2e_num(rd, one, "page_writes");
	cr_expect(pages > 16);
	cr_expect(e2e_num(rd, one, "dblwr_pages") >= pages - 16 &&
		  e2e_num(rd, one, "dblwr_pages") < pages, "%s of %g",
		  e2e_metric(rd, one, "dblwr_pages"), pages);
	cr_expect_eq(e2e_num(rd, one, "page_write_ops"), pages);
	cr_expect_eq(e2e_num(rd, one, "dblwr_sync_ops"),
		     e2e_num(rd, one, "dblwr_write_ops"));
	cr_expect(e2e_num(rd, one, "data_sync_ops") >=
		  e2e_num(rd, one, "dblwr_write_ops"));
	cr_expect(e2e_num(rd, one, "page_reads") > 0);
	/* 20 requests a transaction, as sysbench counts them (the rows
	 * are printed to 17 digits) */
	cr_expect(fabs(e2e_num(rd, one, "requests_per_s") -
		       20 * e2e_num(rd, one, "transactions_per_s")) <=
		  1e-9 * e2e_num(rd, one, "requests_per_s"));
	cr_expect(e2e_num(rd, one, "lat_min_ms") <=
		  e2e_num(rd, one, "lat_avg_ms"));
	cr_expect(e2e_num(rd, one, "lat_p95_ms") <=
		  e2e_num(rd, one, "lat_max_ms"));

	/* four workers: a sync per commit at most, each commit covered */
	expect_ok(rd, four);
	txn = e2e_num(rd, four, "transactions");
	cr_expect(txn > 0);
	cr_expect(e2e_num(rd, four, "redo_fsync_ops") > 0);
	cr_expect(e2e_num(rd, four, "redo_fsync_ops") <= txn);
	cr_expect(e2e_num(rd, four, "dblwr_pages") <=
		  e2e_num(rd, four, "page_writes"));
}

/* events: N transactions in all, split among the workers, whatever
 * seconds says (100 here); total_time_s is the time they took. */
Test(oltp, events_stop_after_that_many_transactions, .fini = fini,
     .timeout = 120)
{
	const char *cell = "ext4/oltp#1";
	double t;
	char rd[300];

	run_native("  - {use: oltp, with: {workers: 3, seconds: 100,"
		   " events: 301, size: 8M, buffer_pool: 1M,"
		   " log_size: 2M}}\n", rd, sizeof(rd));
	expect_ok(rd, cell);
	cr_expect_eq(e2e_num(rd, cell, "transactions"), 301);
	cr_expect_eq(e2e_num(rd, cell, "events"), 301);
	cr_expect_eq(e2e_num(rd, cell, "txn_ops"), 301);
	cr_expect_eq(e2e_num(rd, cell, "queries"), 20 * 301);
	t = e2e_num(rd, cell, "total_time_s");
	cr_expect(t > 0 && t < 60, "total_time_s %g", t);
	cr_expect(fabs(e2e_num(rd, cell, "transactions_per_s") * t - 301) <
		  1e-6 * 301, "%g trans/s over %g s",
		  e2e_num(rd, cell, "transactions_per_s"), t);
}

/* The pool starts warm, as sysbench prepare leaves InnoDB's, and is
 * shared: a table smaller than the pool is never read, however many
 * workers; a transaction's redo records are 1,174 bytes, written in
 * turns from the start of the 512-byte block the last turn ended in. */
Test(oltp, warm_shared_pool_reads_nothing_of_a_small_table, .fini = fini,
     .timeout = 120)
{
	const char *cell = "ext4/oltp#1";
	double txn, w, b;
	char rd[300];

	run_native("  - {use: oltp, with: {workers: 4, seconds: 1,"
		   " size: 4M, buffer_pool: 8M, log_size: 8M}}\n",
		   rd, sizeof(rd));
	expect_ok(rd, cell);
	txn = e2e_num(rd, cell, "transactions");
	cr_assert(txn > 10, "%g transactions", txn);
	cr_expect_null(e2e_metric(rd, cell, "page_reads"), "%s",
		       e2e_metric(rd, cell, "page_reads"));
	cr_expect_null(e2e_metric(rd, cell, "page_read_ops"));
	/* every record written, and at most two part blocks more a turn */
	w = e2e_num(rd, cell, "redo_fsync_ops");
	b = e2e_num(rd, cell, "redo_bytes");
	cr_expect(w > 0 && w <= txn, "%g turns for %g commits", w, txn);
	cr_expect_eq(e2e_num(rd, cell, "redo_write_ops"), w);
	cr_expect(b >= 1174 * txn && b <= 1174 * txn + 1024 * w,
		  "%g bytes in %g turns, %g commits", b, w, txn);
}

/* cpu_work is CPU time: the same transactions cost more of it. */
Test(oltp, cpu_work_spends_cpu_a_transaction, .fini = fini, .timeout = 120)
{
	const char *none = "ext4/none#1", *much = "ext4/much#1";
	double c0, c1;
	char rd[300];

	run_native("  - {use: oltp, name: none, with: {workers: 1,"
		   " seconds: 1, size: 1M, buffer_pool: 8M, log_size: 2M,"
		   " cpu_work: 0}}\n"
		   "  - {use: oltp, name: much, with: {workers: 1,"
		   " seconds: 1, size: 1M, buffer_pool: 8M, log_size: 2M,"
		   " cpu_work: 4000000}}\n", rd, sizeof(rd));
	expect_ok(rd, much);
	c0 = e2e_num(rd, none, "cpu_user_s") / e2e_num(rd, none, "transactions");
	c1 = e2e_num(rd, much, "cpu_user_s") / e2e_num(rd, much, "transactions");
	/* 4,000,000 turns: milliseconds on any machine this runs on */
	cr_expect(c1 > 0.002 && c1 > 10 * c0, "%g s vs %g s a transaction",
		  c1, c0);
}

/* oltp's own parameters: what the check refuses. */
Test(oltp, oltp_parameters_are_checked, .fini = fini)
{
	static const char *const bad[][2] = {
		{ "log_block: 1000", "log_block: 1000 is not a power of 2" },
		{ "log_block: 256", "from 512 to 64K" },
		{ "log_direct: maybe", "log_direct: maybe is not auto, yes" },
		{ "cpu_work: -1", "cpu_work: -1 is not a number of turns" },
		{ "log_size: 8K", "leaves a worker less than 4 commits" },
		{ "round_trips: 21", "round_trips: 21 is not a whole number" },
		{ "round_trips: 2.5", "round_trips: 2.5 is not a whole number" },
		{ "clean_rate: -1", "clean_rate: -1 is not a number of pages" },
	};
	char text[200];
	int rc;

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		snprintf(text, sizeof(text), "workers: 2, %s", bad[i][0]);
		rc = e2e_check_phase("[{type: ext4}]", "oltp", text);
		cr_expect_eq(rc, 2, "%s: exit %d", bad[i][0], rc);
		cr_expect(strstr(e2e_err, bad[i][1]), "%s: %s", bad[i][0],
			  e2e_err);
	}
	rc = e2e_check_phase("[{type: ext4}]", "oltp", "log_block: 4096, "
			     "log_direct: no, cpu_work: 0, round_trips: 20");
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
}

/* ---- use: mariadb ---------------------------------------------------- */

static void require_mariadb(void)
{
	e2e_require_root();
	if (access("/usr/sbin/mariadbd", X_OK) ||
	    access("/usr/bin/sysbench", X_OK) ||
	    access("/usr/bin/mariadb-install-db", X_OK))
		cr_skip_test("mariadb-server or sysbench is not installed "
			     "(make deps)");
}

/* After the phase under test: none of the run's own mariadbd (its PID
 * namespace's; other tests may run theirs) is left, not even a zombie. */
static const char leftover[] =
	"  - name: left\n"
	"    exec: \"pgrep -a --ns $$ --nslist pid -x mariadbd; "
	"test $? = 1\"\n";

/* A small server: 1 table of 500 rows, a 16M redo log. */
#define SMALL "tables: 1, table_size: 500, buffer_pool: 16M, log_size: 16M"

/* Run phases (YAML list items) on an ext4 image of image, then the
 * leftover check, into rd; fsplan's exit status. */
static int run_mariadb(const char *image, const char *phases, char *rd,
		       size_t len)
{
	char body[1024];

	require_mariadb();
	snprintf(body, sizeof(body), "target: {image: %s}\n"
		 "filesystems: [{type: ext4}]\nphases:\n%s%s", image, phases,
		 leftover);
	return e2e_run_plan(e2e_tmpdir(), "oltp", body, rd, len);
}

/* No mariadbd outlived its phase run (the leftover check's row). */
static void expect_no_server_left(const char *rd)
{
	cr_expect_str_eq(e2e_metric(rd, "ext4/left#1", "status"), "ok",
			 "a mariadbd was left: %s",
			 e2e_reason(rd, "ext4/left#1"));
}

/* The manifest names the exec module's script and parser with their
 * sha256, as it does a Lua module's, for a re-run to check against. */
static void manifest_has_the_code(const char *rd)
{
	static const char *const keys[][3] = {
		{ "exec_script", "exec_script_sha256", "exec/%s" },
		{ "parse", "parse_sha256", "parse/%s.lua" },
	};
	char path[600], want[65], file[300];
	json_error_t err;
	json_t *m, *ph;

	snprintf(path, sizeof(path), "%s/manifest.json", rd);
	m = json_load_file(path, 0, &err);
	cr_assert(m, "%s", err.text);
	ph = json_array_get(json_object_get(m, "phases"), 0);
	for (int k = 0; k < 2; k++) {
		const char *name = json_string_value(json_object_get(ph,
						     keys[k][0]));

		cr_assert(name, "no %s in %s", keys[k][0], json_dumps(ph, 0));
		snprintf(file, sizeof(file), keys[k][2], name);
		snprintf(path, sizeof(path), "%s/lua/%s",
			 getenv("FSPLAN_ROOT"), file);
		cr_assert_eq(sha256_file(path, want), 0, "%s", path);
		cr_expect_str_eq(json_string_value(json_object_get(ph,
				 keys[k][1])), want, "%s of %s", keys[k][1],
				 path);
	}
	json_decref(m);
}

Test(oltp, mariadb_on_ext4, .fini = fini, .timeout = 180)
{
	const char *cell = "ext4/mariadb#1";
	char rd[300];
	int rc;

	rc = run_mariadb("512M", "  - {use: mariadb, with: {workers: 2, "
			 "seconds: 2, " SMALL "}}\n", rd, sizeof(rd));
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	expect_ok(rd, cell);
	cr_expect(e2e_num(rd, cell, "transactions") > 0);
	cr_expect(e2e_num(rd, cell, "transactions_per_s") > 0);
	cr_expect(e2e_num(rd, cell, "queries") >=
		  e2e_num(rd, cell, "transactions"));
	cr_expect(e2e_num(rd, cell, "total_time_s") >= 1.9);
	cr_expect(e2e_num(rd, cell, "lat_avg_ms") > 0);
	/* InnoDB's I/O in the run alone, beside sysbench's report: each
	 * commit's redo synced (10.11 counts the log's syncs with the
	 * rest), and the device's writes fewer than the phase's, which take
	 * in the server's start and sysbench prepare */
	cr_expect(e2e_num(rd, cell, "redo_writes") > 0);
	cr_expect(e2e_num(rd, cell, "redo_bytes") >=
		  100 * e2e_num(rd, cell, "transactions"));
	cr_expect(e2e_num(rd, cell, "data_fsyncs") > 0);
	cr_expect(e2e_num(rd, cell, "fsyncs_per_commit") > 0 &&
		  e2e_num(rd, cell, "fsyncs_per_commit") <= 1.5, "%s",
		  e2e_metric(rd, cell, "fsyncs_per_commit"));
	cr_expect(e2e_num(rd, cell, "run_dev_write_ios") > 0);
	cr_expect(e2e_num(rd, cell, "run_dev_write_ios") <
		  e2e_num(rd, cell, "dev_write_ios"));
	cr_expect(e2e_num(rd, cell, "run_dev_write_bytes") <
		  e2e_num(rd, cell, "dev_write_bytes"));
	expect_no_server_left(rd);
	manifest_has_the_code(rd);
}

/* events: 200 is sysbench --events=200 --time=0: 200 transactions
 * whatever seconds says; the InnoDB settings reach the server (it says
 * which it runs with in exec/\*.err). */
Test(oltp, mariadb_events_and_innodb_settings, .fini = fini,
     .timeout = 180)
{
	const char *cell = "ext4/mariadb#1";
	char rd[300], cmd[700];
	const char *log;
	double t;
	int rc;

	rc = run_mariadb("512M", "  - {use: mariadb, with: {workers: 2, "
			 "seconds: 100, events: 200, flush_method: O_DSYNC, "
			 "flush_log_at_trx_commit: 2, doublewrite: off, "
			 SMALL "}}\n", rd, sizeof(rd));
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	expect_ok(rd, cell);
	cr_expect_eq(e2e_num(rd, cell, "transactions"), 200);
	t = e2e_num(rd, cell, "total_time_s");
	cr_expect(t > 0 && t < 60, "total_time_s %g", t);
	snprintf(cmd, sizeof(cmd), "%s/exec/000001-ext4_mariadb_1.err", rd);
	log = e2e_read(cmd);
	cr_assert(log, "no %s", cmd);
	cr_expect(strstr(log, "InnoDB: flush_method=O_DSYNC "
			 "flush_log_at_trx_commit=2 doublewrite=OFF "
			 "log_file_size=16777216"), "%s", log);
	expect_no_server_left(rd);
}

/* Killed at its timeout, the script's traps cannot run: the next
 * repetition finds ./mariadb, removes it and runs (to its own
 * timeout), where mkdir failed. */
Test(oltp, mariadb_killed_at_its_timeout, .fini = fini, .timeout = 180)
{
	char rd[300];

	run_mariadb("512M", "  - {use: mariadb, timeout: 5s, repeat: 2, "
		    "with: {workers: 2, seconds: 60, " SMALL "}}\n", rd,
		    sizeof(rd));
	for (int k = 1; k <= 2; k++) {
		char cell[64];
		const char *why;

		snprintf(cell, sizeof(cell), "ext4/mariadb#%d", k);
		cr_expect_str_eq(e2e_metric(rd, cell, "status"), "failed");
		why = e2e_reason(rd, cell);
		cr_expect(why && strstr(why, "timeout"), "%s: %s", cell,
			  why ? why : "(none)");
	}
	expect_no_server_left(rd);
}

/* On a full filesystem mariadbd waits for space for ever: the phase
 * fails at once, saying so, not at its timeout. */
Test(oltp, mariadb_on_a_full_filesystem_fails_at_once, .fini = fini,
     .timeout = 180)
{
	const char *cell = "ext4/mariadb#1";
	char rd[300];
	const char *why;

	run_mariadb("128M", "  - {name: fill, exec: 'dd if=/dev/zero of=fill "
		    "bs=1M count=105 status=none'}\n"
		    "  - {use: mariadb, timeout: 120s, with: {workers: 2, "
		    "seconds: 2, " SMALL "}}\n", rd, sizeof(rd));
	cr_expect_str_eq(e2e_metric(rd, cell, "status"), "failed");
	why = e2e_reason(rd, cell);
	cr_expect(why && strstr(why, "the filesystem under test is full"),
		  "%s", why ? why : "(none)");
	cr_expect_lt(e2e_num(rd, cell, "seconds"), 60, "%s",
		     why ? why : "(none)");
	expect_no_server_left(rd);
}

/* Whether pid descends from anc (by the PPid chain in /proc). */
static int descends(long pid, long anc)
{
	for (int depth = 0; pid > 1 && depth < 64; depth++) {
		char path[64], line[256];
		FILE *f;
		long pp = 0;

		if (pid == anc)
			return 1;
		snprintf(path, sizeof(path), "/proc/%ld/status", pid);
		f = fopen(path, "r");
		if (!f)
			return 0;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "PPid: %ld", &pp) == 1)
				break;
		fclose(f);
		pid = pp;
	}
	return 0;
}

/* A running mariadbd that fsplan (pid) started, or 0. */
static long server_of(long fsplan)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	long found = 0;

	while (d && !found && (de = readdir(d))) {
		char path[300], comm[64] = "";
		long pid = strtol(de->d_name, NULL, 10);
		FILE *f;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
		if (!strcmp(comm, "mariadbd\n") && !watch_dead(pid) &&
		    descends(pid, fsplan))
			found = pid;
	}
	if (d)
		closedir(d);
	return found;
}

Test(oltp, mariadb_stopped_when_fsplan_is_interrupted, .fini = fini,
     .timeout = 180)
{
	const char *dir = e2e_tmpdir();
	char rd[300], text[1024], *plan;
	long server = 0;
	int status;
	pid_t pid;

	require_mariadb();
	snprintf(text, sizeof(text), "fsplan: 1\nname: oltp\n"
		 "target: {image: 512M}\n"
		 "filesystems: [{type: ext4}]\n"
		 "phases:\n"
		 "  - {use: mariadb, with: {workers: 2, seconds: 60, " SMALL
		 "}}\n");
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd, "-q",
					      NULL });
	cr_assert(pid > 0);
	for (double t0 = watch_seconds(); !server && watch_seconds() - t0 < 60;)
		if (!(server = server_of(pid)))
			usleep(50000);
	if (!server)
		kill(pid, SIGKILL);
	cr_assert(server, "no mariadbd of the run's within 60 s");
	kill(pid, SIGINT);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 130,
		  "status %#x", status);
	cr_expect(watch_gone(server), "mariadbd %ld outlived fsplan", server);
	cr_expect_eq(e2e_mounted_under(dir), 0);
}

/* The script itself where its programs are not: it says which one and
 * exits 127 at once (the phase run's reason: "exit status 127:
 * mariadb.sh: 'mariadb-install-db' is not installed ..."), no hang. */
Test(oltp, mariadb_script_without_its_programs, .fini = fini,
     .timeout = 30)
{
	const char *dir = e2e_tmpdir();
	char cmd[1024], out[1024] = "";
	size_t n;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "cd %s && env -i PATH=/nonexistent "
		 "FSPLAN_P_workers=1 /bin/sh -c \"$(cat %s/lua/exec/mariadb.sh)\" "
		 "mariadb.sh 2>&1", dir, getenv("FSPLAN_ROOT") ?
		 getenv("FSPLAN_ROOT") : "..");
	p = popen(cmd, "r");
	cr_assert(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	st = pclose(p);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 127, "status %#x: %s",
		  st, out);
	cr_expect(strstr(out, "mariadb.sh: 'mariadb-install-db' is not "
			 "installed"), "%s", out);
	snprintf(cmd, sizeof(cmd), "%s/mariadb", dir);
	cr_expect(access(cmd, F_OK) != 0, "it left %s", cmd);
}
