/* test_history: fsplan history add, list, show and check over SQLite. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

static char *csv;
static size_t len, cap;

static void add(const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(csv + len, cap - len, fmt, ap);
		va_end(ap);
		if (len + n < cap)
			break;
		cap = cap ? 2 * cap : 1 << 16;
		cr_assert(csv = realloc(csv, cap));
	}
	len += n;
}

/* dir/id: a run of plan t with kernel k started on day, cells cells of
 * phase w in config ext4, three reps of rate_mbs at rate + rep, and
 * extra more metrics a rep. */
static const char *run(const char *dir, const char *id, int day,
		       const char *k, double rate, int cells, int extra)
{
	static char path[512];
	char man[512];

	snprintf(path, sizeof(path), "%s/%s", dir, id);
	cr_assert_eq(mkdir(path, 0700), 0);
	len = 0;
	add("run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts,phase,"
	    "phase_params,rep,metric,value,unit\n");
	for (int c = 0; c < cells; c++)
		for (int rep = 1; rep <= 3; rep++) {
			const char *cell = "%s,\"ext4/w/n=%d#%d\",ext4,ext4,,,w,"
				"n=%d,%d,";

			add(cell, id, c, rep, c, rep);
			add("rate_mbs,%g,MiB/s\n", rate + rep);
			for (int x = 0; x < extra; x++) {
				add(cell, id, c, rep, c, rep);
				add("m%d,%d,\n", x, x);
			}
			add(cell, id, c, rep, c, rep);
			add("status,ok,\n");
		}
	e2e_write(path, "results.csv", csv);
	snprintf(man, sizeof(man), "{\"run_id\": \"%s\", \"started\": "
		 "\"2026-01-%02dT00:00:00Z\", \"plan\": {\"name\": \"t\", "
		 "\"sha256\": \"ab\"}, \"system\": {\"kernel\": \"%s\"}, "
		 "\"phases\": [{\"name\": \"w\", \"key\": [\"rate_mbs\"]}]}\n",
		 id, day, k);
	e2e_write(path, "manifest.json", man);
	return path;
}

static int hist(const char *db, const char *a, const char *b, const char *c,
		const char *d)
{
	return e2e_fsplan((const char *[]){ "history", a, "--db", db, b, c, d,
			  NULL });
}

/* Three runs in a DB of a private directory. */
static const char *three(const char *dir, char *db, size_t n)
{
	struct stat st;

	cr_assert_eq(stat(dir, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0700);
	snprintf(db, n, "%s/h.db", dir);
	cr_assert_eq(hist(db, "add", run(dir, "R1", 1, "6.1", 100, 2, 0),
			  NULL, NULL), 0, "%s", e2e_err);
	cr_assert_eq(hist(db, "add", run(dir, "R2", 2, "6.1", 101, 2, 0),
			  NULL, NULL), 0, "%s", e2e_err);
	cr_assert_eq(hist(db, "add", run(dir, "R3", 3, "6.18", 99, 2, 0),
			  NULL, NULL), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "added run R3 (6 values)"), "%s", e2e_out);
	return db;
}

Test(history, add_list_show, .fini = fini)
{
	const char *dir = e2e_tmpdir();
	char db[512];

	three(dir, db, sizeof(db));
	cr_assert_eq(hist(db, "list", NULL, NULL, NULL), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "R1  t  2026-01-01T00:00:00Z  6.1  2 cells\n"
			 "R2  t  2026-01-02"), "%s", e2e_out);
	cr_assert_eq(hist(db, "show", "--plan", "t", NULL), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "== ext4/w/n=1: rate_mbs (MiB/s) ==\n"
			 "2026-01-01T00:00:00Z  R1"), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "R3                        6.18"), "%s",
		  e2e_out);
	cr_assert_eq(e2e_fsplan((const char *[]){ "history", "show", "--db",
				db, "--plan", "t", "--format", "csv",
				"--config", "ext4", NULL }), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "t,ext4/w/n=0,ext4,rate_mbs,MiB/s,R1,"
			 "2026-01-01T00:00:00Z,6.1,3,102\n"
			 "t,ext4/w/n=0,ext4,rate_mbs,MiB/s,R2,"
			 "2026-01-02T00:00:00Z,6.1,3,103\n"
			 "t,ext4/w/n=0,ext4,rate_mbs,MiB/s,R3,"
			 "2026-01-03T00:00:00Z,6.18,3,101\n"), "%s", e2e_out);
	cr_expect_eq(hist(db, "show", "--plan", "nope", NULL), 2);
	cr_expect_eq(hist(db, "show", "--plan", "t", "--metric"), 2);
}

Test(history, same_run_twice_is_refused, .fini = fini)
{
	const char *dir = e2e_tmpdir();
	char db[512], r1[512];

	three(dir, db, sizeof(db));
	snprintf(r1, sizeof(r1), "%s/R1", dir);
	cr_expect_eq(hist(db, "add", r1, NULL, NULL), 3);
	cr_expect(strstr(e2e_err, "run R1 is in") && strstr(e2e_err,
		  "already"), "%s", e2e_err);
	cr_assert_eq(hist(db, "list", NULL, NULL, NULL), 0);
	cr_expect_null(strstr(strstr(e2e_out, "R1  ") + 1, "R1  "), "%s",
		       e2e_out);
}

/* Another study's run of the same name (another -o run, another start)
 * is not the same run: it goes in as NAME@START, and check leaves it,
 * not its namesake, out of its own history. */
Test(history, same_name_another_start_is_another_run, .fini = fini)
{
	const char *dir = e2e_tmpdir();
	char db[512], other[512];

	three(dir, db, sizeof(db));
	snprintf(other, sizeof(other), "%s/other", dir);
	cr_assert_eq(mkdir(other, 0700), 0);
	cr_assert_eq(hist(db, "add", run(other, "R1", 5, "6.18", 100, 2, 0),
			  NULL, NULL), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "added run R1@2026-01-05T00:00:00Z (6 "
			 "values)"), "%s", e2e_out);
	cr_expect_eq(hist(db, "add", run(dir, "again", 5, "6.18", 100, 2, 0),
			  NULL, NULL), 0);
	/* the same one again is refused under its new name */
	snprintf(other, sizeof(other), "%s/other/R1", dir);
	cr_expect_eq(hist(db, "add", other, NULL, NULL), 3);
	cr_expect(strstr(e2e_err, "run R1@2026-01-05T00:00:00Z is in"), "%s",
		  e2e_err);
	/* checked, R1@... is not its own history: R1..R3 and 'again' */
	cr_expect_eq(hist(db, "check", other, "--last", "9"), 0, "%s%s",
		     e2e_out, e2e_err);
	cr_expect(strstr(e2e_out, "against the last 4 runs of plan t"), "%s",
		  e2e_out);
}

Test(history, check_flags_a_slower_run, .fini = fini)
{
	const char *dir = e2e_tmpdir();
	char db[512];

	three(dir, db, sizeof(db));
	cr_expect_eq(hist(db, "check", run(dir, "R4", 4, "6.18", 60, 2, 0),
			  NULL, NULL), 1, "%s%s", e2e_out, e2e_err);
	cr_expect(strstr(e2e_out, "ext4/w/n=1 rate_mbs: history n=9 mean "
			 "102, this run n=3 mean 62.0 (-39.2%)"), "%s", e2e_out);
	cr_expect(strstr(e2e_out, ": worse (kernel differs from the "
			 "history's)\n"), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "2 metrics: 0 better, 2 worse"), "%s",
		  e2e_out);
	/* an equal run: no significant difference */
	cr_expect_eq(hist(db, "check", run(dir, "R5", 5, "6.18", 100, 2, 0),
			  NULL, NULL), 0, "%s%s", e2e_out, e2e_err);
	cr_expect(strstr(e2e_out, "2 metrics: 0 better, 0 worse, 2 no "
			 "significant difference"), "%s", e2e_out);
	/* --last 1: R3 alone, 3 values */
	cr_expect_eq(e2e_fsplan((const char *[]){ "history", "check", "--db",
				 db, "--last", "1", run(dir, "R6", 6, "6.18",
				 99, 2, 0), NULL }), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "history n=3 mean 101, this run n=3 mean "
			 "101"), "%s", e2e_out);
	cr_expect_null(strstr(e2e_out, "history's)"), "%s", e2e_out);
}

/* The html page: the runs numbered by start, a chart per cell and metric
 * with a line per config and a point per run, a table under each; a
 * changed kernel marked; what came from the runs escaped. */
Test(history, show_html_charts_the_trend, .fini = fini)
{
	const char *dir = e2e_tmpdir(), *out;
	char db[512];

	three(dir, db, sizeof(db));
	cr_assert_eq(hist(db, "add", run(dir, "R4<i>", 4, "<b>6.19", 90, 1,
			  0), NULL, NULL), 0, "%s", e2e_err);
	cr_assert_eq(e2e_fsplan((const char *[]){ "history", "show", "--db",
				db, "--plan", "t", "--format", "html",
				NULL }), 0, "%s", e2e_err);
	out = e2e_out;
	cr_expect(strstr(out, "<!DOCTYPE html>"), "%s", out);
	cr_expect(strstr(out, "4 runs in "), "%s", out);
	/* two cells of one metric: two charts, one config each */
	cr_expect_eq(e2e_occurrences(out, "class=\"fsplan-chart "
				     "fsplan-lines\""), 2, "%s", out);
	cr_expect_eq(e2e_occurrences(out, "<polyline class=\"fsplan-line\""),
		     2, "%s", out);
	/* n=0 in all four runs, n=1 in the first three */
	cr_expect_eq(e2e_occurrences(out, "<circle "), 7, "%s", out);
	cr_expect(strstr(out, "w/n=0: rate_mbs"), "%s", out);
	cr_expect(strstr(out, "<td>6.18 (changed)</td>"), "%s", out);
	/* R4's mean 92 against R1's 102 */
	cr_expect(strstr(out, "92.0 (-9.8%)"), "%s", out);
	cr_expect(strstr(out, "R4&lt;i&gt;"), "%s", out);
	cr_expect(strstr(out, "&lt;b&gt;6.19 (changed)"), "%s", out);
	cr_expect_null(strstr(out, "<b>6.19"), "%s", out);
	cr_expect_null(strstr(out, "R4<i>"), "%s", out);
	/* nothing of the plan: an error, no page */
	cr_expect_eq(e2e_fsplan((const char *[]){ "history", "show", "--db",
				 db, "--plan", "none", "--format", "html",
				 NULL }), 2);
	cr_expect_null(strstr(e2e_out, "<!DOCTYPE"), "%s", e2e_out);
	cr_expect(strstr(e2e_err, "no value of plan 'none'"), "%s", e2e_err);
	cr_expect_eq(e2e_fsplan((const char *[]){ "history", "show", "--db",
				 db, "--plan", "t", "--format", "pdf",
				 NULL }), 2);
	cr_expect(strstr(e2e_err, "text, csv or html, not 'pdf'"), "%s",
		  e2e_err);
}

/* --db at a FIFO or a device node (a twin of /dev/null): refused, never
 * opened (SQLite writes its header onto a blank device). */
Test(history, db_that_is_no_file_is_refused, .fini = fini)
{
	const char *dir = e2e_tmpdir();
	char fifo[512], dev[512];
	struct stat st;

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_expect_eq(hist(fifo, "list", NULL, NULL, NULL), 3);
	cr_expect(strstr(e2e_err, "fifo is not a regular file"), "%s",
		  e2e_err);
	cr_expect(!lstat(fifo, &st) && S_ISFIFO(st.st_mode));
	snprintf(dev, sizeof(dev), "%s/null", dir);
	if (mknod(dev, S_IFCHR | 0600, makedev(1, 3)))
		return;		/* not root: the FIFO stands for it */
	cr_expect_eq(hist(dev, "add", run(dir, "R1", 1, "6.1", 100, 1, 0),
			  NULL, NULL), 3);
	cr_expect(!lstat(dev, &st) && S_ISCHR(st.st_mode));
}

/* A big run's add killed: the DB still opens, lists and takes it again. */
Test(history, sigkill_mid_insert_leaves_a_readable_db, .fini = fini)
{
	const char *dir = e2e_tmpdir(), *big;
	char db[512], journal[600];
	int seen = 0, status;
	pid_t pid;

	three(dir, db, sizeof(db));
	snprintf(journal, sizeof(journal), "%s-journal", db);
	big = run(dir, "BIG", 9, "6.18", 100, 200, 300);
	pid = e2e_fsplan_bg((const char *[]){ "history", "add", "--db", db,
			    big, NULL });
	for (int i = 0; i < 20000 && !seen; i++) {
		seen = access(journal, F_OK) == 0;
		if (!seen)
			usleep(500);
	}
	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(seen, "no journal while adding a big run");
	cr_expect(WIFSIGNALED(status), "add ended before it was killed");
	cr_assert_eq(hist(db, "list", NULL, NULL, NULL), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "R3  t"), "%s", e2e_out);
	cr_expect_null(strstr(e2e_out, "BIG"), "%s", e2e_out);
	cr_assert_eq(hist(db, "add", big, NULL, NULL), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "added run BIG (180600 values)"), "%s",
		  e2e_out);
}

/* Without --db: $XDG_DATA_HOME/fsplan/history.db, its directory 0700. */
Test(history, default_db_under_xdg_data_home, .fini = fini)
{
	const char *dir = e2e_tmpdir();
	char xdg[512], db[600];
	struct stat st;

	snprintf(xdg, sizeof(xdg), "%s/xdg", dir);
	cr_assert_eq(mkdir(xdg, 0700), 0);
	cr_assert_eq(setenv("XDG_DATA_HOME", xdg, 1), 0);
	cr_assert_eq(e2e_fsplan((const char *[]){ "history", "add",
				run(dir, "R1", 1, "6.1", 100, 1, 0), NULL }),
		     0, "%s", e2e_err);
	unsetenv("XDG_DATA_HOME");
	snprintf(db, sizeof(db), "%s/fsplan", xdg);
	cr_assert_eq(stat(db, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0700);
	snprintf(db, sizeof(db), "%s/fsplan/history.db", xdg);
	cr_assert_eq(hist(db, "list", NULL, NULL, NULL), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "R1  t  "), "%s", e2e_out);
}
