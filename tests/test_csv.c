/* test_csv: results.csv as other tools read it, after crashes and races. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "results/csv.h"
#include "e2e.h"

static char dir[64];
static char path[128];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/fsplan-csv-XXXXXX");
	cr_assert(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/results.csv", dir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
}

TestSuite(csv, .init = setup, .fini = teardown);

/* ---- an independent reader: whole file in memory, field by field -------- */

struct table {
	size_t n_rows;
	size_t *n_fields;
	char ***rows;
	int torn;	/* the text ended inside a record */
};

/* A growing string, always NUL-terminated. */
struct str {
	char *s;
	size_t n, cap;
};

static void put(struct str *v, char ch)
{
	if (v->n + 1 >= v->cap) {
		v->cap *= 2;
		v->s = realloc(v->s, v->cap);
		cr_assert(v->s);
	}
	v->s[v->n++] = ch;
	v->s[v->n] = '\0';
}

/*
 * One field starting at *i; returns what ended it: ',' or '\n', or 0 at
 * the end of the text (-1 if that end is inside quotes).
 */
static int take_field(const char *s, size_t len, size_t *i, char **out)
{
	struct str v = { .s = calloc(1, 32), .cap = 32 };

	cr_assert(v.s);
	if (*i < len && s[*i] == '"') {
		for (++*i;; ++*i) {
			if (*i >= len) {
				*out = v.s;
				return -1;
			}
			if (s[*i] == '"' && *i + 1 < len && s[*i + 1] == '"')
				put(&v, s[++*i]);
			else if (s[*i] == '"')
				break;
			else
				put(&v, s[*i]);
		}
		++*i;
	}
	while (*i < len && s[*i] != ',' && s[*i] != '\n')
		put(&v, s[(*i)++]);
	if (v.n && v.s[v.n - 1] == '\r' && *i < len && s[*i] == '\n')
		v.s[--v.n] = '\0';
	*out = v.s;
	return *i < len ? s[(*i)++] : 0;
}

static struct table parse_text(const char *s, size_t len)
{
	struct table t = { 0 };
	size_t i = 0;

	while (i < len) {
		char **f = NULL;
		size_t nf = 0;
		int end;

		do {
			f = realloc(f, (nf + 1) * sizeof(*f));
			cr_assert(f);
			end = take_field(s, len, &i, &f[nf++]);
		} while (end == ',');
		if (end != '\n') {
			/* A record without its newline: torn, dropped. */
			while (nf)
				free(f[--nf]);
			free(f);
			t.torn = 1;
			break;
		}
		t.rows = realloc(t.rows, (t.n_rows + 1) * sizeof(*t.rows));
		t.n_fields = realloc(t.n_fields,
				     (t.n_rows + 1) * sizeof(*t.n_fields));
		cr_assert(t.rows && t.n_fields);
		t.rows[t.n_rows] = f;
		t.n_fields[t.n_rows++] = nf;
	}
	return t;
}

static struct table parse_file(const char *p)
{
	size_t len;
	char *text = e2e_slurp(p, &len);
	struct table t = parse_text(text, len);

	free(text);
	return t;
}

static void table_free(struct table *t)
{
	for (size_t r = 0; r < t->n_rows; r++) {
		for (size_t f = 0; f < t->n_fields[r]; f++)
			free(t->rows[r][f]);
		free(t->rows[r]);
	}
	free(t->rows);
	free(t->n_fields);
}

static void write_file(const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f);
	cr_assert_geq(fputs(text, f), 0);
	cr_assert_eq(fclose(f), 0);
}

static void append_raw(const char *text)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static struct csv *open_ok(void)
{
	struct csv *c = NULL;
	struct diag d = { 0 };

	cr_assert_eq(csv_open(&c, path, &d), 0, "csv_open: %s", d.msg);
	cr_assert(c);
	return c;
}

/* The values the tests write: what real mkfs and mount options look like. */
static const struct csv_key nasty = {
	.run_id = "quick-20240101-120000",
	.cell = "ext4,\"j\"",
	.fs_label = "ext4 \"fast\"",
	.fs_type = "ext4",
	.mkfs_opts = "-O ^has_journal,-E lazy_itable_init=0",
	.mount_opts = "noatime,\ndata=\"writeback\"\r\n",
	.phase = "dd",
	.phase_params = "bs=4k;threads=2",
	.rep = 3,
};

/* ---- tests -------------------------------------------------------------- */

Test(csv, row_bytes_are_rfc4180_with_lf)
{
	struct csv *c = open_ok();
	char *text;

	cr_assert_eq(csv_row(c, &nasty, "MB/s", "123.5", NULL), 0);
	cr_assert_eq(csv_sync(c), 0);
	csv_close(c);
	text = e2e_slurp(path, NULL);
	cr_expect_str_eq(text, CSV_HEADER "\n"
			 "quick-20240101-120000,\"ext4,\"\"j\"\"\","
			 "\"ext4 \"\"fast\"\"\",ext4,"
			 "\"-O ^has_journal,-E lazy_itable_init=0\","
			 "\"noatime,\ndata=\"\"writeback\"\"\r\n\","
			 "dd,bs=4k;threads=2,3,MB/s,123.5,\n");
	free(text);
}

Test(csv, file_is_created_0644)
{
	struct stat st;
	mode_t mask = umask(0);

	umask(mask);
	csv_close(open_ok());
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0644 & ~mask, "mode %o",
		     st.st_mode & 07777);
}

static const char *const odd_values[] = {
	"", "plain", "a,b", "say \"hi\"", "\"", "\"\"", ",", "line1\nline2",
	"cr\ronly", "crlf\r\n", "\n", " lead and trail ", "x\"y,z\n\"",
	"caf\xc3\xa9", "tab\there",
};

Test(csv, an_independent_parser_reads_every_value_back)
{
	size_t n = sizeof(odd_values) / sizeof(odd_values[0]);
	struct csv *c = open_ok();
	struct table t;
	char *big = malloc(200001);

	/* Longer than any buffer csv.c might start with. */
	cr_assert(big);
	for (size_t i = 0; i < 200000; i++)
		big[i] = "-O x,\"y\"\n"[i % 9];
	big[200000] = '\0';
	for (size_t i = 0; i < n; i++) {
		struct csv_key k = nasty;

		k.mkfs_opts = odd_values[i];
		k.mount_opts = odd_values[n - 1 - i];
		k.rep = (int)i - 1;
		cr_assert_eq(csv_row(c, &k, odd_values[i], NULL, "u"), 0);
	}
	cr_assert_eq(csv_row(c, &(struct csv_key){ .mkfs_opts = big }, NULL,
			     NULL, NULL), 0);
	csv_close(c);

	t = parse_file(path);
	cr_assert_eq(t.n_rows, n + 2);
	cr_expect_not(t.torn);
	for (size_t r = 0; r < t.n_rows; r++)
		cr_assert_eq(t.n_fields[r], 12, "row %zu has %zu fields", r,
			     t.n_fields[r]);
	cr_expect_str_eq(t.rows[0][0], "run_id");
	cr_expect_str_eq(t.rows[0][11], "unit");
	for (size_t i = 0; i < n; i++) {
		char **f = t.rows[i + 1];
		char rep[16];

		snprintf(rep, sizeof(rep), "%d", (int)i - 1);
		cr_expect_str_eq(f[1], nasty.cell);
		cr_expect_str_eq(f[2], nasty.fs_label);
		cr_expect_str_eq(f[4], odd_values[i]);
		cr_expect_str_eq(f[5], odd_values[n - 1 - i]);
		cr_expect_str_eq(f[8], rep);
		cr_expect_str_eq(f[9], odd_values[i]);
		cr_expect_str_eq(f[10], "");
		cr_expect_str_eq(f[11], "u");
	}
	cr_expect_str_eq(t.rows[n + 1][4], big);
	cr_expect_str_eq(t.rows[n + 1][0], "");
	cr_expect_str_eq(t.rows[n + 1][8], "0");
	table_free(&t);
	free(big);
}

struct seen {
	int n;
	char cell[8][64];
	char status[8][64];
};

static void collect(void *ctx, const char *cell, const char *status)
{
	struct seen *s = ctx;

	cr_assert_lt(s->n, 8, "too many status rows");
	snprintf(s->cell[s->n], sizeof(s->cell[0]), "%s", cell);
	snprintf(s->status[s->n], sizeof(s->status[0]), "%s", status);
	s->n++;
}

static const struct { const char *cell, *status, *unit; } statuses[] = {
	{ "c,1", "ok", NULL },
	{ "c\"2\"", "failed", "mkfs.xfs: \"-n size=3k\",\nbad" },
	{ "c\r\n3", "skipped", "no xfs" },
	{ "", "ok", "" },
};

static void write_statuses(struct csv *c)
{
	for (size_t i = 0; i < 4; i++) {
		struct csv_key k = nasty;

		k.cell = statuses[i].cell;
		cr_assert_eq(csv_row(c, &k, "MB/s", "1,5", "status"), 0);
		cr_assert_eq(csv_row(c, &k, "status", statuses[i].status,
				     statuses[i].unit), 0);
		cr_assert_eq(csv_row(c, &k, "status\n", "x", NULL), 0);
	}
}

static void expect_statuses(const struct seen *s, int n)
{
	cr_assert_eq(s->n, n, "%d status rows, expected %d", s->n, n);
	for (int i = 0; i < n; i++) {
		cr_expect_str_eq(s->cell[i], statuses[i].cell);
		cr_expect_str_eq(s->status[i], statuses[i].status);
	}
}

Test(csv, status_rows_round_trip)
{
	struct csv *c = open_ok();
	struct diag d = { 0 };
	struct seen s = { 0 };

	write_statuses(c);
	csv_close(c);
	cr_assert_eq(csv_read_status(path, collect, &s, &d), 0, "%s", d.msg);
	expect_statuses(&s, 4);
}

Test(csv, crlf_files_are_read_too)
{
	struct diag d = { 0 };
	struct seen s = { 0 };

	write_file(CSV_HEADER "\r\n"
		   "r,c,ext4,ext4,,,dd,,0,status,ok,\r\n"
		   "r,\"c\r\nx\",ext4,ext4,,,dd,,0,status,failed,why\r\n");
	cr_assert_eq(csv_read_status(path, collect, &s, &d), 0, "%s", d.msg);
	cr_assert_eq(s.n, 2);
	cr_expect_str_eq(s.cell[0], "c");
	cr_expect_str_eq(s.status[0], "ok");
	cr_expect_str_eq(s.cell[1], "c\r\nx");
	cr_expect_str_eq(s.status[1], "failed");
}

Test(csv, header_is_written_once)
{
	struct csv *a = open_ok();
	struct csv *b = open_ok();
	struct table t;

	cr_assert_eq(csv_row(a, &nasty, "m", "1", NULL), 0);
	cr_assert_eq(csv_row(b, &nasty, "m", "2", NULL), 0);
	csv_close(a);
	csv_close(b);
	a = open_ok();
	cr_assert_eq(csv_row(a, &nasty, "m", "3", NULL), 0);
	csv_close(a);

	t = parse_file(path);
	cr_assert_eq(t.n_rows, 4);
	cr_expect_str_eq(t.rows[0][0], "run_id");
	for (size_t r = 1; r < 4; r++) {
		char want[4];

		snprintf(want, sizeof(want), "%zu", r);
		cr_expect_str_eq(t.rows[r][0], nasty.run_id);
		cr_expect_str_eq(t.rows[r][10], want);
	}
	table_free(&t);
}

Test(csv, a_file_with_another_header_is_refused)
{
	static const char other[] = "name,speed\nx,1\n";
	struct csv *c = NULL;
	struct diag d = { 0 };
	char *text;

	write_file(other);
	cr_expect_eq(csv_open(&c, path, &d), -1);
	cr_expect_null(c);
	cr_expect_str_eq(d.msg, "not a results.csv (header differs)");
	cr_expect_str_eq(d.file, path);
	memset(&d, 0, sizeof(d));
	cr_expect_eq(csv_read_status(path, collect, &(struct seen){ 0 }, &d),
		     -1);
	cr_expect_str_eq(d.msg, "not a results.csv (header differs)");
	text = e2e_slurp(path, NULL);
	cr_expect_str_eq(text, other, "the refused file was changed");
	free(text);
}

Test(csv, a_header_with_a_column_more_is_refused)
{
	struct csv *c = NULL;
	struct diag d = { 0 };

	write_file(CSV_HEADER ",extra\n");
	cr_expect_eq(csv_open(&c, path, &d), -1);
	cr_expect(strstr(d.msg, "header differs"), "%s", d.msg);
}

Test(csv, a_torn_last_row_is_ignored)
{
	static const char *const torn[] = {
		"quick,c9,ext4,ext4,,,dd,,0,status,o",
		"quick,c9,ext4,ext4,\"-O x,\n",	/* ends inside quotes */
		"q",
	};

	for (size_t i = 0; i < 3; i++) {
		struct csv *c = open_ok();
		struct diag d = { 0 };
		struct seen s = { 0 };

		write_statuses(c);
		csv_close(c);
		append_raw(torn[i]);
		cr_assert_eq(csv_read_status(path, collect, &s, &d), 0,
			     "torn '%s': %s", torn[i], d.msg);
		expect_statuses(&s, 4);
		unlink(path);
	}
}

Test(csv, reopening_cuts_a_torn_row_so_new_rows_stay_whole)
{
	struct csv *c = open_ok();
	struct diag d = { 0 };
	struct seen s = { 0 };
	struct table t;

	write_statuses(c);
	csv_close(c);
	append_raw("quick,c9,ext4,ext4,\"-O x,\nstill open");

	c = open_ok();
	cr_assert_eq(csv_row(c, &(struct csv_key){ .cell = "c9" }, "status",
			     "ok", NULL), 0);
	csv_close(c);
	t = parse_file(path);
	cr_expect_not(t.torn);
	cr_assert_eq(t.n_rows, 1 + 12 + 1);
	for (size_t r = 0; r < t.n_rows; r++)
		cr_expect_eq(t.n_fields[r], 12, "row %zu", r);
	table_free(&t);
	cr_assert_eq(csv_read_status(path, collect, &s, &d), 0, "%s", d.msg);
	cr_assert_eq(s.n, 5);
	cr_expect_str_eq(s.cell[4], "c9");
}

/* A file size limit makes write() stop part way, as a full disk does. */
Test(csv, a_row_cut_short_is_taken_back)
{
	struct csv *c = open_ok();
	struct csv_key k = nasty;
	struct rlimit lim;
	struct stat st;
	struct table t;

	cr_assert_eq(csv_row(c, &nasty, "m", "1", NULL), 0);
	cr_assert_eq(stat(path, &st), 0);
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &lim), 0);
	lim.rlim_cur = (rlim_t)st.st_size + 40;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	cr_expect_eq(csv_row(c, &k, "m", "2", NULL), -EFBIG);
	lim.rlim_cur = lim.rlim_max;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	cr_assert_eq(csv_row(c, &k, "m", "3", NULL), 0);
	csv_close(c);

	t = parse_file(path);
	cr_expect_not(t.torn);
	cr_assert_eq(t.n_rows, 3);
	cr_expect_eq(t.n_fields[2], 12);
	cr_expect_str_eq(t.rows[2][10], "3");
	table_free(&t);
}

Test(csv, unreadable_and_empty_files)
{
	struct diag d = { 0 };
	struct seen s = { 0 };
	struct csv *c = NULL;

	cr_expect_eq(csv_read_status(path, collect, &s, &d), -1);
	cr_expect_str_eq(d.file, path);
	cr_expect(strstr(d.msg, strerror(ENOENT)), "%s", d.msg);

	write_file("");
	cr_expect_eq(csv_read_status(path, collect, &s, &d), 0);
	cr_expect_eq(s.n, 0);

	memset(&d, 0, sizeof(d));
	cr_expect_eq(csv_open(&c, dir, &d), -1);
	cr_expect(strstr(d.msg, "cannot open"), "%s", d.msg);
	cr_expect_eq(csv_open(&c, "/dev/null", &d), -1);
	cr_expect_str_eq(d.msg, "not a regular file");
}

Test(csv, a_row_with_a_wrong_field_count_is_an_error)
{
	struct diag d = { 0 };

	write_file(CSV_HEADER "\nr,c,ext4,ext4,,,dd,,0,status,ok,\n"
		   "r,\"c\nd\",ext4,status,ok\n");
	cr_expect_eq(csv_read_status(path, collect, &(struct seen){ 0 }, &d),
		     -1);
	cr_expect_eq(d.pos.line, 3);
	cr_expect(strstr(d.msg, "5 fields"), "%s", d.msg);
}

/*
 * Two processes append 1000 rows each through their own handles: if a row
 * took more than one write(), rows would interleave inside lines.
 */
Test(csv, concurrent_appends_meet_only_at_row_ends)
{
	enum { ROWS = 1000 };
	pid_t pid[2];
	struct table t;
	size_t next[2] = { 0, 0 };
	int go[2];
	char ch;

	/* Both start writing when the parent closes go[1]: they overlap. */
	cr_assert_eq(pipe(go), 0);
	for (int w = 0; w < 2; w++) {
		pid[w] = fork();
		cr_assert_neq(pid[w], -1);
		if (pid[w] == 0) {
			struct csv *c = NULL;
			struct diag d = { 0 };
			char opts[600], val[32];
			int bad = csv_open(&c, path, &d);

			close(go[1]);
			bad |= read(go[0], &ch, 1) != 0;

			for (int i = 0; i < ROWS && !bad; i++) {
				struct csv_key k = nasty;

				/* 20-560 bytes with commas, quotes, newlines */
				memset(opts, "ab"[w], sizeof(opts));
				opts[20 + (i * 7) % 540] = '\0';
				opts[i % 19] = ',';
				opts[(i + 5) % 19] = '"';
				opts[(i + 11) % 19] = '\n';
				k.mkfs_opts = opts;
				k.rep = i;
				snprintf(val, sizeof(val), "%d", w);
				bad = csv_row(c, &k, "m", val, NULL);
			}
			csv_close(c);
			_exit(bad ? 1 : 0);
		}
	}
	close(go[0]);
	close(go[1]);
	for (int w = 0; w < 2; w++) {
		int st;

		cr_assert_eq(waitpid(pid[w], &st, 0), pid[w]);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			  "writer %d failed", w);
	}

	t = parse_file(path);
	cr_expect_not(t.torn);
	cr_assert_eq(t.n_rows, 1 + 2 * ROWS, "%zu rows", t.n_rows);
	cr_expect_str_eq(t.rows[0][0], "run_id");
	for (size_t r = 1; r < t.n_rows; r++) {
		char **f = t.rows[r];
		int w, i;
		size_t len;

		cr_assert_eq(t.n_fields[r], 12, "row %zu: %zu fields", r,
			     t.n_fields[r]);
		w = atoi(f[10]);
		i = atoi(f[8]);
		cr_assert(w == 0 || w == 1, "row %zu: value '%s'", r, f[10]);
		cr_assert_eq((size_t)i, next[w], "writer %d out of order", w);
		next[w]++;
		len = strlen(f[4]);
		cr_expect_eq(len, (size_t)(20 + (i * 7) % 540));
		cr_expect_eq(f[4][i % 19], ',');
		cr_expect_eq(f[4][(i + 11) % 19], '\n');
		cr_expect_eq(f[4][len - 1], "ab"[w], "row %zu mixed", r);
		cr_expect_str_eq(f[5], nasty.mount_opts);
	}
	cr_expect_eq(next[0], ROWS);
	cr_expect_eq(next[1], ROWS);
	table_free(&t);
}

Test(csv, quote_keeps_a_cut_value_well_formed)
{
	char buf[64];

	csv_quote("x\"y", buf, sizeof(buf));
	cr_expect_str_eq(buf, "\"x\"\"y\"");
	csv_quote("plain", buf, sizeof(buf));
	cr_expect_str_eq(buf, "plain");
	csv_quote(NULL, buf, sizeof(buf));
	cr_expect_str_eq(buf, "");
	csv_quote("a,b\"c", buf, 6);
	cr_expect_str_eq(buf, "\"a,b\"");
	csv_quote("a,b\"c", buf, 7);
	cr_expect_str_eq(buf, "\"a,b\"", "half a doubled quote");
	csv_quote("h\xc3\xa9llo", buf, 3);
	cr_expect_str_eq(buf, "h", "half a UTF-8 character");
	csv_quote("a,b", buf, 2);
	cr_expect_str_eq(buf, "");
	csv_quote("abc", buf, 3);
	cr_expect_str_eq(buf, "ab");
}

/* report's wide CSV goes through this: whole fields, however long. */
Test(csv, fput_quotes_whole_fields)
{
	char big[1000], *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);

	cr_assert_not_null(f);
	memset(big, 'q', sizeof(big) - 2);
	big[0] = '"';
	big[sizeof(big) - 2] = ',';
	big[sizeof(big) - 1] = '\0';
	cr_expect_eq(csv_fput(f, "a\"b,c"), 0);
	cr_expect_eq(csv_fput(f, NULL), 0);
	cr_expect_eq(csv_fput(f, "plain"), 0);
	cr_expect_eq(csv_fput(f, big), 0);
	cr_assert_eq(fclose(f), 0);
	cr_expect_eq(strncmp(got, "\"a\"\"b,c\"plain\"\"\"qq", 18), 0, "%.40s",
		     got);
	cr_expect_eq(len, 8 + 5 + sizeof(big) - 1 + 3, "%zu", len);
	cr_expect_eq(got[len - 1], '"');
	free(got);
}
