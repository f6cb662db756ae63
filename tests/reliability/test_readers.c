/* test_readers: report, compare and merge on damaged and hostile run
 * directories — values that are not numbers, superseded rows, links, FIFOs and
 * devices in a shard, -o through a link. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

/* A real run to damage: one tmpfs config, three repetitions of a phase
 * (cells tmpfs/a#1..3). Its directory in rd. */
static void tiny_run(const char *dir, char *rd, size_t len)
{
	int rc;

	e2e_require_root();
	rc = e2e_run_plan(dir, "t", "filesystems: [{type: tmpfs}]\n"
			  "phases: [{name: a, exec: 'true', repeat: 3}]\n",
			  rd, len);
	cr_assert_eq(rc, 0, "the run: exit %d: %s", rc, e2e_err);
}

/* Set the value field of cell's metric row in rd/results.csv to value
 * (CSV text, quoted if it must be); the row's line. */
static int set_value(const char *rd, const char *cell, const char *metric,
		     const char *value)
{
	char path[4096], key[256], *text, *at, *out;
	size_t len;
	FILE *f;
	int commas = 0, line = 1;

	snprintf(path, sizeof(path), "%s/results.csv", rd);
	text = e2e_slurp(path, &len);
	snprintf(key, sizeof(key), ",%s,", cell);
	for (at = strstr(text, key); at; at = strstr(at + 1, key)) {
		char *eol = strchr(at, '\n'), *m = strstr(at, metric);

		if (m && m < eol && m[-1] == ',' && m[strlen(metric)] == ',')
			break;
	}
	cr_assert_not_null(at, "no %s %s row", cell, metric);
	while (at > text && at[-1] != '\n')
		at--;
	for (const char *c = text; c < at; c++)
		line += *c == '\n';
	for (out = at; commas < 10; out++)
		commas += *out == ',';
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "%.*s%s%s", (int)(out - text), text, value,
		strchr(out, ','));
	fclose(f);
	free(text);
	return line;
}

/* n of the row of config tmpfs in the text table of metric. */
static int table_n(const char *out, const char *metric)
{
	char head[128];
	const char *t;
	int n = -1;

	snprintf(head, sizeof(head), "\n%s: ", metric);
	t = strstr(out, head);
	if (t && (t = strstr(t, "\ntmpfs ")))
		sscanf(t, " tmpfs %d", &n);
	return n;
}

/* 0x10 was read as 16 by strtod; nan, abc, an empty value and a quoted
 * line break were dropped without a word. */
Test(readers, a_value_that_is_not_a_decimal_number_is_counted_and_named,
     .fini = fini)
{
	char rd[4096], out[4096], want[256];
	int rc, line;

	tiny_run(e2e_tmpdir(), rd, sizeof(rd));
	line = set_value(rd, "tmpfs/a#1", "seconds", "0x10");
	set_value(rd, "tmpfs/a#2", "seconds", "\"1\n2\"");
	set_value(rd, "tmpfs/a#3", "cpu_user_s", "");
	set_value(rd, "tmpfs/a#3", "cpu_sys_s", "inf");
	set_value(rd, "tmpfs/a#3", "cpu_pct", "nan");
	rc = e2e_fsplan((const char *[]){ "report", rd, "--metric", "seconds",
					  NULL });
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_eq(table_n(e2e_out, "seconds"), 1, "%s", e2e_out);
	snprintf(want, sizeof(want), "5 rows left out (not a finite decimal "
		 "number): line %d (tmpfs/a#1, seconds: '0x10'), line ", line);
	cr_expect(strstr(e2e_err, want), "%s", e2e_err);
	cr_expect(strstr(e2e_err, " (tmpfs/a#2, seconds: '1\\n2'), line "),
		  "%s", e2e_err);
	cr_expect(strstr(e2e_err, " (tmpfs/a#3, cpu_user_s: ''), ..."),
		  "%s", e2e_err);
	cr_expect(strstr(e2e_out, "(results.csv: 5 rows left out"), "%s",
		  e2e_out);
	/* text metrics are words by design */
	cr_expect_null(strstr(e2e_err, "ram_limit"), "%s", e2e_err);
	snprintf(out, sizeof(out), "%s/merged", e2e_tmpdir());
	rc = e2e_fsplan((const char *[]){ "merge", rd, "-o", out, NULL });
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "/run/results.csv: 5 rows left out"), "%s",
		  e2e_err);
	cr_expect(strstr(e2e_err, want), "%s", e2e_err);
	cr_expect(strstr(e2e_err, "(merge copies them as they are)"), "%s",
		  e2e_err);
}

Test(readers, compare_names_the_rows_it_left_out, .fini = fini)
{
	char a[4096], b[4096], dir[4096];
	const char *line;
	int rc, n_a = 0, n_b = 0;

	tiny_run(e2e_tmpdir(), a, sizeof(a));
	snprintf(dir, sizeof(dir), "%s/b", e2e_tmpdir());
	mkdir(dir, 0700);
	tiny_run(dir, b, sizeof(b));
	set_value(b, "tmpfs/a#2", "seconds", "0x10");
	rc = e2e_fsplan((const char *[]){ "compare", a, b, NULL });
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "/b/run/results.csv: 1 row left out (not a "
			 "finite decimal number): line "), "%s", e2e_err);
	cr_expect(strstr(e2e_err, " (tmpfs/a#2, seconds: '0x10')"), "%s",
		  e2e_err);
	cr_expect(strstr(e2e_out, "note: "), "%s", e2e_out);
	line = strstr(e2e_out, "\ntmpfs   seconds");
	cr_assert_not_null(line, "%s", e2e_out);
	cr_expect_eq(sscanf(line, " tmpfs seconds %d %*f %*f %d", &n_a, &n_b),
		     2, "%s", e2e_out);
	cr_expect_eq(n_a, 3, "%s", e2e_out);
	cr_expect_eq(n_b, 2, "B's 0x10 is not 16: %s", e2e_out);
}

/* Values near DBL_MAX are finite, but their sum is not: the mean is
 * infinite, the interval NaN, and !(p < alpha) said "no significant
 * difference". */
Test(readers, compare_gives_no_verdict_from_a_nan_interval, .fini = fini)
{
	char a[4096], b[4096], dir[4096];
	const char *line;
	int rc;

	tiny_run(e2e_tmpdir(), a, sizeof(a));
	snprintf(dir, sizeof(dir), "%s/b", e2e_tmpdir());
	mkdir(dir, 0700);
	tiny_run(dir, b, sizeof(b));
	set_value(b, "tmpfs/a#1", "seconds", "1.7e308");
	set_value(b, "tmpfs/a#2", "seconds", "1.7e308");
	set_value(b, "tmpfs/a#3", "seconds", "1.6e308");
	rc = e2e_fsplan((const char *[]){ "compare", a, b, NULL });
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	line = strstr(e2e_out, "\ntmpfs   seconds");
	cr_assert_not_null(line, "%s", e2e_out);
	cr_expect(strstr(line, "cannot tell"), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "0 no significant difference, 1 cannot "
			 "tell"), "%s", e2e_out);
}

/* The rows a session killed and resumed leaves: the config made again
 * (mkfs_s, mount_s twice; its first umount_s from before the kill, the
 * second never written), a#2 run again. */
static const char resumed_csv[] =
	"run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts,phase,"
	"phase_params,rep,metric,value,unit\n"
	"run,tmpfs,tmpfs,tmpfs,,,,,0,mkfs_s,1.5,s\n"
	"run,tmpfs,tmpfs,tmpfs,,,,,0,mount_s,0.25,s\n"
	"run,tmpfs/a#1,tmpfs,tmpfs,,,a,,1,seconds,1.0,s\n"
	"run,tmpfs/a#1,tmpfs,tmpfs,,,a,,1,status,ok,\n"
	"run,tmpfs/a#2,tmpfs,tmpfs,,,a,,2,seconds,2.0,s\n"
	"run,tmpfs/a#2,tmpfs,tmpfs,,,a,,2,status,failed,exit status 1\n"
	"run,tmpfs,tmpfs,tmpfs,,,,,0,umount_s,0.5,s\n"
	"run,tmpfs,tmpfs,tmpfs,,,,,0,mkfs_s,3.5,s\n"
	"run,tmpfs,tmpfs,tmpfs,,,,,0,mount_s,0.75,s\n"
	"run,tmpfs/a#2,tmpfs,tmpfs,,,a,,2,seconds,4.0,s\n"
	"run,tmpfs/a#2,tmpfs,tmpfs,,,a,,2,status,ok,\n"
	"run,tmpfs/a#3,tmpfs,tmpfs,,,a,,3,seconds,5.0,s\n"
	"run,tmpfs/a#3,tmpfs,tmpfs,,,a,,3,status,ok,\n";

/* How many lines of text hold all of a, b and c. */
static int lines_with(const char *text, const char *a, const char *b,
		      const char *c)
{
	int n = 0;

	for (const char *l = text; l && *l;) {
		const char *eol = strchr(l, '\n');
		size_t len = eol ? (size_t)(eol - l) : strlen(l);
		char *line = strndup(l, len);

		n += strstr(line, a) && strstr(line, b) && strstr(line, c);
		free(line);
		l = eol ? eol + 1 : NULL;
	}
	return n;
}

/* The rule: of the rows of one (cell, phase, rep) and metric, the last
 * is current. The old reader started a config's set over at its second
 * mkfs_s and lost the umount_s it had; merge then dropped it for good. */
Test(readers, the_last_row_of_a_key_is_current_in_report_and_merge,
     .fini = fini)
{
	char rd[4096], out[4096], path[4200];
	char *merged;
	int rc;

	tiny_run(e2e_tmpdir(), rd, sizeof(rd));
	snprintf(path, sizeof(path), "%s/results.csv", rd);
	e2e_write(rd, "results.csv", resumed_csv);
	rc = e2e_fsplan((const char *[]){ "report", rd, "--format", "csv",
					  NULL });
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	/* cell,rep,...: mkfs_s, mount_s, umount_s of the config */
	cr_expect(lines_with(e2e_out, "tmpfs,0,", ",3.5,", ",0.75,"), "%s",
		  e2e_out);
	cr_expect(lines_with(e2e_out, "tmpfs,0,", ",0.75,", ",0.5"), "%s",
		  e2e_out);
	cr_expect(lines_with(e2e_out, "tmpfs/a#2,2,", ",ok,", ",4.0"), "%s",
		  e2e_out);
	snprintf(out, sizeof(out), "%s/merged", e2e_tmpdir());
	rc = e2e_fsplan((const char *[]){ "merge", rd, "-o", out, NULL });
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	snprintf(path, sizeof(path), "%s/results.csv", out);
	merged = e2e_slurp(path, NULL);
	cr_expect_eq(lines_with(merged, ",mkfs_s,", "", ""), 1, "%s", merged);
	cr_expect_eq(lines_with(merged, ",mkfs_s,3.5,", "", ""), 1, "%s",
		     merged);
	cr_expect_eq(lines_with(merged, ",mount_s,0.75,", "", ""), 1, "%s",
		     merged);
	cr_expect_eq(lines_with(merged, ",mount_s,", "", ""), 1, "%s", merged);
	cr_expect_eq(lines_with(merged, ",umount_s,0.5,", "", ""), 1, "%s",
		     merged);
	cr_expect_eq(lines_with(merged, "tmpfs/a#2,", ",seconds,", ""), 1,
		     "%s", merged);
	cr_expect_eq(lines_with(merged, "tmpfs/a#2,", ",seconds,4.0,", ""), 1,
		     "%s", merged);
	cr_expect_eq(lines_with(merged, ",status,", "", ""), 3, "%s", merged);
	cr_expect_eq(lines_with(merged, ",status,ok,", "", ""), 3, "%s",
		     merged);
	free(merged);
}

/* fsplan with args, stderr in err; killed after secs (a FIFO hung the
 * old merge), and under ASan's RSS cap (/dev/zero made it read 4 GiB):
 * the exit status, or 128 + the signal. */
static int merge_capped(const char *shard, const char *out, int secs,
			char *err, size_t len)
{
	const char *bin = getenv("FSPLAN_BIN"), *asan = getenv("ASAN_OPTIONS");
	char opts[1024], tmp[] = "/tmp/fsplan-merge-XXXXXX";
	int fd = mkstemp(tmp), status = 0;
	pid_t pid, done = 0;
	ssize_t n;

	cr_assert_geq(fd, 0);
	unlink(tmp);
	snprintf(opts, sizeof(opts), "%s%shard_rss_limit_mb=1024",
		 asan ? asan : "", asan ? ":" : "");
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		setenv("ASAN_OPTIONS", opts, 1);
		dup2(fd, 1);
		dup2(fd, 2);
		setpgid(0, 0);
		execl(bin, bin, "merge", shard, "-o", out, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < secs * 10 && !(done = waitpid(pid, &status,
							   WNOHANG)); i++)
		usleep(100000);
	if (!done) {
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	n = pread(fd, err, len - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	close(fd);
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	       128 + WTERMSIG(status);
}

/* A shard whose exec/ holds what fsplan never writes there. */
static void hostile_exec(const char *rd, const char *name,
			 const char *target, char kind)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/exec/%s", rd, name);
	if (kind == 'l') {
		cr_assert_eq(symlink(target, path), 0);
	} else if (kind == 'p') {
		cr_assert_eq(mkfifo(path, 0644), 0);
	} else {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

		cr_assert_geq(fd, 0);
		/* sparse: 2 GiB that take no room */
		cr_assert_eq(ftruncate(fd, (off_t)2 << 30), 0);
		close(fd);
	}
}

/* Merge leaves it out with a warning naming it, and finishes. */
static void merge_leaves_out(char kind, const char *target,
			     const char *what)
{
	char rd[4096], out[4096], err[8192], path[8400], want[256];
	struct stat st;
	int rc;

	tiny_run(e2e_tmpdir(), rd, sizeof(rd));
	hostile_exec(rd, "000009-x.out", target, kind);
	snprintf(out, sizeof(out), "%s/merged", e2e_tmpdir());
	rc = merge_capped(rd, out, 20, err, sizeof(err));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
	snprintf(want, sizeof(want), "/exec/000009-x.out is %s: not copied "
		 "(merge copies only regular files of at most 1 GiB)", what);
	cr_expect(strstr(err, want), "%s", err);
	cr_expect(strstr(err, "1 file of the shards' exec/ left out"), "%s",
		  err);
	snprintf(path, sizeof(path), "%s/exec/000009-x.out", out);
	cr_expect_neq(lstat(path, &st), 0, "%s was made", path);
	snprintf(path, sizeof(path), "%s/exec/000001-tmpfs_a_1.out", out);
	cr_expect_eq(lstat(path, &st), 0, "the shard's own files are copied");
}

/* The campaign's: a link to a 0600 root file came out 0644. */
Test(readers, merge_does_not_copy_a_link_to_a_private_file, .fini = fini)
{
	char secret[4096];

	snprintf(secret, sizeof(secret), "%s/secret", e2e_tmpdir());
	e2e_write(e2e_tmpdir(), "secret", "root's only\n");
	chmod(secret, 0600);
	merge_leaves_out('l', secret, "a symbolic link");
}

Test(readers, merge_does_not_read_a_link_to_dev_zero, .fini = fini,
     .timeout = 60)
{
	merge_leaves_out('l', "/dev/zero", "a symbolic link");
}

Test(readers, merge_does_not_hang_on_a_fifo, .fini = fini, .timeout = 60)
{
	merge_leaves_out('p', NULL, "a FIFO");
}

Test(readers, merge_does_not_read_a_file_past_its_cap, .fini = fini,
     .timeout = 60)
{
	merge_leaves_out('s', NULL, "larger than 1 GiB");
}

/* A file is copied with its mode, never a wider one. */
Test(readers, merge_keeps_a_files_mode_but_never_widens_it, .fini = fini)
{
	char rd[4096], out[4096], path[8400];
	struct stat st;
	int rc;

	tiny_run(e2e_tmpdir(), rd, sizeof(rd));
	snprintf(path, sizeof(path), "%s/exec", rd);
	e2e_write(path, "000009-x.out", "private\n");
	e2e_write(path, "000009-x.err", "wide\n");
	snprintf(path, sizeof(path), "%s/exec/000009-x.out", rd);
	chmod(path, 0600);
	snprintf(path, sizeof(path), "%s/exec/000009-x.err", rd);
	chmod(path, 0666);
	snprintf(out, sizeof(out), "%s/merged", e2e_tmpdir());
	rc = e2e_fsplan((const char *[]){ "merge", rd, "-o", out, NULL });
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	snprintf(path, sizeof(path), "%s/exec/000009-x.out", out);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0600, "%o", st.st_mode & 0777);
	snprintf(path, sizeof(path), "%s/exec/000009-x.err", out);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 0022, 0, "%o", st.st_mode & 0777);
}

/* -o of report and compare at a link, and a link planted where the
 * temp file goes: the victim keeps its bytes, -o becomes a file. */
Test(readers, report_and_compare_o_never_write_through_a_link,
     .fini = fini)
{
	const char *tmp = e2e_tmpdir();
	char rd[4096], victim[4096], out[4096], planted[4096];
	const char *cmds[2][7];
	struct stat st;

	tiny_run(tmp, rd, sizeof(rd));
	snprintf(victim, sizeof(victim), "%s/victim", tmp);
	e2e_write(tmp, "victim", "keep me\n");
	chmod(victim, 0600);
	snprintf(out, sizeof(out), "%s/page.html", tmp);
	snprintf(planted, sizeof(planted), "%s/.page.html.tmp", tmp);
	memcpy(cmds[0], (const char *[]){ "report", rd, "--format", "html",
					  "-o", out, NULL }, sizeof(cmds[0]));
	memcpy(cmds[1], (const char *[]){ "compare", rd, rd, "-o", out, NULL,
					  NULL }, sizeof(cmds[1]));
	for (int i = 0; i < 2; i++) {
		int rc;

		for (int temp = 0; temp < 2; temp++) {
			unlink(out);
			unlink(planted);
			cr_assert_eq(symlink(victim, temp ? planted : out), 0);
			rc = e2e_fsplan(cmds[i]);
			cr_expect_eq(rc, 0, "%s: exit %d: %s", cmds[i][0], rc,
				     e2e_err);
			cr_expect_str_eq(e2e_read(victim), "keep me\n",
					 "%s wrote through the link%s",
					 cmds[i][0],
					 temp ? " at its temp" : "");
			cr_expect(!lstat(out, &st) && S_ISREG(st.st_mode),
				  "%s: -o is not a file", cmds[i][0]);
			cr_expect_neq(lstat(planted, &st), 0);
		}
	}
}

/* -o of report and compare at a device node (a twin of /dev/null made
 * here), a FIFO, or a link to the node: refused before anything is
 * made, and the node is still there, not swapped for a file. */
Test(readers, report_and_compare_o_refuse_a_device, .fini = fini)
{
	const char *tmp = e2e_tmpdir();
	char rd[4096], dev[4096], fifo[4096], link[4096];
	const char *outs[] = { dev, fifo, link };
	struct stat st;

	e2e_require_root();
	tiny_run(tmp, rd, sizeof(rd));
	snprintf(dev, sizeof(dev), "%s/null", tmp);
	snprintf(fifo, sizeof(fifo), "%s/fifo", tmp);
	snprintf(link, sizeof(link), "%s/link", tmp);
	cr_assert_eq(mknod(dev, S_IFCHR | 0600, makedev(1, 3)), 0);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_eq(symlink(dev, link), 0);
	for (int i = 0; i < 3; i++) {
		int rc = e2e_fsplan((const char *[]){ "report", rd, "-o",
				    outs[i], NULL });

		cr_expect_eq(rc, 2, "report -o %s: exit %d", outs[i], rc);
		cr_expect(strstr(e2e_err, "cannot write"), "%s", e2e_err);
		rc = e2e_fsplan((const char *[]){ "compare", rd, rd, "-o",
			       outs[i], NULL });
		cr_expect_eq(rc, 2, "compare -o %s: exit %d", outs[i], rc);
	}
	cr_expect(!lstat(dev, &st) && S_ISCHR(st.st_mode), "the node went");
	cr_expect(!lstat(fifo, &st) && S_ISFIFO(st.st_mode), "the fifo went");
	cr_expect(!lstat(link, &st) && S_ISLNK(st.st_mode), "the link went");
}

Test(readers, merge_o_refuses_a_link, .fini = fini)
{
	const char *tmp = e2e_tmpdir();
	char rd[4096], dir[4096], link[4096];
	int rc;

	tiny_run(tmp, rd, sizeof(rd));
	snprintf(dir, sizeof(dir), "%s/elsewhere", tmp);
	snprintf(link, sizeof(link), "%s/merged", tmp);
	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(symlink(dir, link), 0);
	rc = e2e_fsplan((const char *[]){ "merge", rd, "-o", link, NULL });
	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "merged is a symbolic link: merge writes a "
			 "new run directory, or into an empty one, never "
			 "through a link"), "%s", e2e_err);
	cr_expect_eq(rmdir(dir), 0, "merge wrote into %s", dir);
}

/* A shard's own record replaced: by a FIFO (the old reader hung on its
 * open) or a link to /dev/zero (read without end). */
static void record_replaced(const char *name, char kind)
{
	char dir[4096], rd[4200], out[4200], err[8192], path[4300];
	int rc;

	/* a directory of its own per case: each has its run and merge */
	snprintf(dir, sizeof(dir), "%s/%s-%c", e2e_tmpdir(), name, kind);
	cr_assert_eq(mkdir(dir, 0700), 0);
	tiny_run(dir, rd, sizeof(rd));
	snprintf(path, sizeof(path), "%s/%s", rd, name);
	cr_assert_eq(unlink(path), 0);
	if (kind == 'p')
		cr_assert_eq(mkfifo(path, 0644), 0);
	else
		cr_assert_eq(symlink("/dev/zero", path), 0);
	snprintf(out, sizeof(out), "%s/merged", dir);
	rc = merge_capped(rd, out, 20, err, sizeof(err));
	cr_expect_eq(rc, 2, "exit %d: %s", rc, err);
	cr_expect(strstr(err, name) && strstr(err, "not a regular file"),
		  "%s", err);
}

Test(readers, a_shards_results_or_manifest_that_is_no_file_is_refused,
     .fini = fini, .timeout = 120)
{
	record_replaced("results.csv", 'p');
	record_replaced("results.csv", 'l');
	record_replaced("manifest.json", 'p');
	record_replaced("manifest.json", 'l');
}
