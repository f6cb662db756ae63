/* test_bonnie_lua: lua/parse/bonnie.lua on real bonnie++ output, and
 * lua/bonnie.lua run end to end. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "e2e.h"
#include "luacount.h"
#include "phase/libsrc.h"
#include "phase/lparse.h"
#include "plan/plan.h"
#include "phase/sandbox.h"
#include "util/clock.h"
#include "luacall.h"

#define FIXTURES	"fixtures/bonnie"
#define FIELDS		50

static struct sandbox_limits lim;
static lua_State *L;

static void fini(void)
{
	if (L)
		sandbox_close(L);
	L = NULL;
	e2e_cleanup();
}

TestSuite(bonnie_lua, .fini = fini, .timeout = 60);

/* ---- the parser, in the sandbox an exec phase's parse runs in ------------ */

static char *read_fixture(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", FIXTURES, name);
	return e2e_slurp(path, NULL);
}

/*
 * lua/parse/bonnie.lua on (out, err) as lparse_body runs it: loaded by
 * lparse_load, its parse function called with both texts. 0 with the
 * table on the stack, or -1 with the message in msg.
 */
static int parse(const char *out, const char *err, char *msg, size_t len)
{
	char path[PATH_MAX];
	struct diag d = { 0 };

	if (!L) {
		lim = (struct sandbox_limits){ 64u << 20, clock_now() + 30, NULL,
					       libsrc_dir(), NULL };
		L = sandbox_new(&lim);
		cr_assert(L, "sandbox_new failed");
	}
	lua_settop(L, 0);
	snprintf(path, sizeof(path), "%s/parse/bonnie.lua",
		 libsrc_dir());
	cr_assert(!lparse_load(L, path, NULL, &d), "%s: %s", path, d.msg);
	lua_pushstring(L, out);
	lua_pushstring(L, err);
	return call_text(L, 2, 1, msg, len);
}

static void parse_ok(const char *out, const char *err)
{
	char msg[2048];

	cr_assert(!parse(out, err, msg, sizeof(msg)), "parse failed: %s", msg);
	cr_assert(lua_istable(L, -1), "parse gave a %s", luaL_typename(L, -1));
}

static void parse_fails(const char *out, const char *want)
{
	char msg[2048];

	cr_assert(parse(out, "", msg, sizeof(msg)), "parse succeeded on "
		  "'%.60s...'", out);
	cr_expect(strstr(msg, want), "message \"%s\" lacks \"%s\"", msg, want);
}

/* Metric name of the parsed table: 1 and its value and unit, or 0. */
static int metric(const char *name, double *v, const char **unit)
{
	int found = 0;

	lua_getfield(L, -1, name);
	if (lua_istable(L, -1)) {
		lua_getfield(L, -1, "value");
		lua_getfield(L, -2, "unit");
		found = lua_type(L, -2) == LUA_TNUMBER;
		*v = lua_tonumber(L, -2);
		if (unit)
			*unit = lua_tostring(L, -1);
		lua_pop(L, 2);
	}
	lua_pop(L, 1);
	return found;
}

static void expect_value(const char *name, double want)
{
	double v;

	if (!metric(name, &v, NULL)) {
		cr_expect_fail("no metric %s (want %.17g)", name, want);
		return;
	}
	cr_expect(fabs(v - want) <= 1e-9 * fmax(1, fabs(want)),
		  "%s is %.17g, want %.17g", name, v, want);
}

static void expect_absent(const char *name)
{
	double v;

	cr_expect(!metric(name, &v, NULL), "%s is there (%.17g)", name, v);
}

static void expect_unit(const char *name, const char *want)
{
	const char *unit = NULL;
	double v;

	cr_assert(metric(name, &v, &unit), "no metric %s", name);
	cr_expect(unit && !strcmp(unit, want), "%s: unit '%s', want '%s'",
		  name, unit ? unit : "(none)", want);
}

/* ---- what the parser should say, worked out here from bonnie-csv.md ------ */

struct line {
	char buf[2048];
	char *f[FIELDS + 8];
	int n;
};

/* Split a copy of s (one line, without its end) at every comma. */
static void split(struct line *l, const char *s, size_t len)
{
	char *p;

	if (len >= sizeof(l->buf))
		len = sizeof(l->buf) - 1;
	memcpy(l->buf, s, len);
	l->buf[len] = '\0';
	l->n = 0;
	p = l->buf;
	for (;;) {
		char *comma = strchr(p, ',');

		if (l->n < FIELDS + 8)
			l->f[l->n] = p;
		l->n++;
		if (!comma)
			break;
		*comma = '\0';
		p = comma + 1;
	}
}

/* The last line of text that starts "1.98," and has 50 fields (CR cut). */
static int last_line(const char *text, struct line *out)
{
	const char *p = text, *found = NULL;
	size_t found_len = 0;

	while (*p) {
		size_t n = strcspn(p, "\n");
		size_t k = n;

		if (k && p[k - 1] == '\r')
			k--;
		if (k > 5 && !strncmp(p, "1.98,", 5)) {
			split(out, p, k);
			if (out->n == FIELDS) {
				found = p;
				found_len = k;
			}
		}
		p += n + (p[n] == '\n');
	}
	if (found)
		split(out, found, found_len);
	return found != NULL;
}

static const struct { const char *name; int at, lat; const char *unit; }
tests[] = {
	{ "putc", 9, 38, "KiB/s" }, { "put_block", 11, 39, "KiB/s" },
	{ "rewrite", 13, 40, "KiB/s" }, { "getc", 15, 41, "KiB/s" },
	{ "get_block", 17, 42, "KiB/s" }, { "seeks", 19, 43, "seeks/s" },
	{ "seq_create", 26, 44, "files/s" }, { "seq_stat", 28, 45, "files/s" },
	{ "seq_del", 30, 46, "files/s" }, { "ran_create", 32, 47, "files/s" },
	{ "ran_stat", 34, 48, "files/s" }, { "ran_del", 36, 49, "files/s" },
};

static double num(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	cr_assert(*s && !*end, "'%s' is not a number", s);
	return v;
}

static double latency_us(const char *s)
{
	long long n;
	char unit[4] = "";

	cr_assert_eq(sscanf(s, "%lld%3s", &n, unit), 2, "latency '%s'", s);
	if (!strcmp(unit, "us"))
		return (double)n;
	if (!strcmp(unit, "ms"))
		return n * 1e3;
	cr_assert_str_eq(unit, "s", "latency '%s'", s);
	return n * 1e6;
}

/*
 * Every metric the line's fields call for, with its value, checked
 * against the parsed table on the stack; and nothing more in the table.
 */
static void expect_line(const struct line *l, const char *what)
{
	char name[64];
	int want = 1;	/* bonnie_line */
	const char *const *f = (const char *const *)l->f;

	expect_value("bonnie_line", 1);
	if (*f[3])
		expect_value("concurrency", num(f[3])), want++;
	if (*f[4])
		expect_value("seed", num(f[4])), want++;
	if (*f[5]) {
		size_t n = strlen(f[5]);
		char buf[32];

		snprintf(buf, sizeof(buf), "%.*s", (int)n - 1, f[5]);
		expect_value("file_size_mib", num(buf) *
			     (f[5][n - 1] == 'G' ? 1024 : 1));
		expect_unit("file_size_mib", "MiB");
		want++;
	} else {
		expect_absent("file_size_mib");
	}
	if (*f[7])
		expect_value("seeks_count", num(f[7])), want++;
	if (*f[8])
		expect_value("seek_procs", num(f[8])), want++;
	if (*f[21])
		expect_value("num_files", num(f[21])), want++;
	if (!strcmp(f[22], "link") || !strcmp(f[22], "symlink")) {
		expect_value("max_size_link", f[22][0] == 'l' ? 1 : 2);
		expect_absent("max_size");
		want++;
	} else if (*f[22]) {
		expect_value("max_size", num(f[22])), want++;
	}
	if (*f[23])
		expect_value("min_size", num(f[23])), want++;
	if (*f[24] || *f[25])
		expect_value("num_dirs", num(*f[24] ? f[24] : f[25])), want++;
	for (size_t t = 0; t < sizeof(tests) / sizeof(tests[0]); t++) {
		const char *v = f[tests[t].at], *cpu = f[tests[t].at + 1];
		const char *lat = f[tests[t].lat];

		snprintf(name, sizeof(name), "%s_fast", tests[t].name);
		if (!strcmp(v, "+++++")) {
			expect_value(name, 1), want++;
			expect_absent(tests[t].name);
		} else {
			expect_absent(name);
			if (*v) {
				expect_value(tests[t].name, num(v)), want++;
				expect_unit(tests[t].name, tests[t].unit);
			} else {
				expect_absent(tests[t].name);
			}
		}
		snprintf(name, sizeof(name), "%s_cpu", tests[t].name);
		if (*cpu && strcmp(cpu, "+++")) {
			expect_value(name, num(cpu)), want++;
			expect_unit(name, "%");
		} else {
			expect_absent(name);
		}
		snprintf(name, sizeof(name), "%s_latency_us", tests[t].name);
		if (*lat) {
			expect_value(name, latency_us(lat)), want++;
			expect_unit(name, "us");
		} else {
			expect_absent(name);
		}
	}
	/* bonnie++'s seek %CPU sums its seeker threads' whole-process
	 * getrusage: the process's is that over the seekers */
	if (*f[20] && strcmp(f[20], "+++") && *f[8] && num(f[8]) > 0) {
		expect_value("seeks_cpu_process", num(f[20]) / num(f[8]));
		expect_unit("seeks_cpu_process", "%");
		want++;
	} else {
		expect_absent("seeks_cpu_process");
	}
	cr_expect_eq(lua_count_keys(L), want, "%s: %d metrics, the line calls for "
		     "%d", what, lua_count_keys(L), want);
}

/* ---- the parser on every sample ------------------------------------------ */

Test(bonnie_lua, parser_on_every_sample)
{
	DIR *d = opendir(FIXTURES);
	struct dirent *de;
	int with_line = 0, without = 0;

	cr_assert(d, "cannot open %s", FIXTURES);
	while ((de = readdir(d))) {
		struct line l;
		char *text;

		if (strncmp(de->d_name, "bonnie_", 7))
			continue;
		text = read_fixture(de->d_name);
		if (last_line(text, &l)) {
			parse_ok(text, "");
			expect_line(&l, de->d_name);
			with_line++;
		} else {
			/* text reports and progress only: no line to find */
			parse_fails(text, "no bonnie++ CSV line");
			without++;
		}
		free(text);
	}
	closedir(d);
	/* 15 .csv, 4 .stdout, the -n variants; 8 .txt, 4 .stderr */
	cr_expect_eq(with_line, 20, "%d samples with a line", with_line);
	cr_expect_eq(without, 12, "%d samples without", without);
}

/* With -q the line is on stdout and the text report on stderr; the text
 * around the line changes nothing. */
Test(bonnie_lua, q_runs_line_on_stdout_text_on_stderr)
{
	static const char *const runs[] = {
		"bonnie_ext4_q_sized", "bonnie_ext4_q_b", "bonnie_ext4_s0",
		"bonnie_ext4_n0", "bonnie_ext4_q_direct_f", "bonnie_xfs_q_c2",
		"bonnie_xfs_q_sized", "bonnie_btrfs_q_sized",
	};

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		char name[128];
		char *csv, *txt;
		struct line l;

		snprintf(name, sizeof(name), "%s.csv", runs[i]);
		csv = read_fixture(name);
		snprintf(name, sizeof(name), "%s.txt", runs[i]);
		txt = read_fixture(name);
		cr_assert(last_line(csv, &l));
		parse_ok(csv, txt);
		expect_line(&l, runs[i]);
		/* and found on stderr when stdout has none */
		parse_ok(txt, csv);
		expect_line(&l, runs[i]);
		free(csv);
		free(txt);
	}
}

/* Values read off the samples by eye, so a mistake shared by the parser
 * and expect_line() still shows. */
Test(bonnie_lua, values_by_hand)
{
	char *text = read_fixture("bonnie_ext4_q_sized.csv");

	parse_ok(text, "");
	expect_value("file_size_mib", 512);
	expect_value("putc", 600);
	expect_value("putc_cpu", 94);
	expect_value("put_block", 372961);
	expect_value("rewrite_cpu", 70);
	expect_value("get_block_fast", 1);
	expect_absent("get_block");
	expect_absent("get_block_cpu");
	expect_value("seeks_fast", 1);
	expect_value("num_files", 64);
	expect_value("max_size", 4096);
	expect_value("min_size", 1024);
	expect_value("num_dirs", 4);
	expect_value("seq_create", 37652);
	expect_value("ran_del_cpu", 60);
	expect_value("putc_latency_us", 41271);
	expect_value("put_block_latency_us", 421000);	/* "421ms" */
	expect_value("ran_del_latency_us", 34541);
	expect_value("seed", 1796024572);
	expect_value("concurrency", 1);
	expect_unit("put_block", "KiB/s");
	expect_unit("seq_create", "files/s");
	free(text);

	text = read_fixture("bonnie_xfs_q_seeks4000x3_z12345.csv");
	parse_ok(text, "");
	expect_value("seeks_count", 4000);
	expect_value("seek_procs", 3);
	expect_value("seed", 12345);
	expect_value("file_size_mib", 256);
	expect_absent("num_dirs");
	expect_absent("max_size");
	free(text);

	text = read_fixture("bonnie_xfs_q_c2.csv");
	parse_ok(text, "");
	expect_value("concurrency", 2);
	expect_value("file_size_mib", 128);
	free(text);

	text = read_fixture("bonnie_btrfs_q_sized.csv");
	parse_ok(text, "");
	expect_value("rewrite_latency_us", 983000);	/* "983ms" */
	expect_value("seq_create", 1653);
	expect_value("seq_create_cpu", 3);
	expect_value("seq_stat_fast", 1);
	free(text);
}

Test(bonnie_lua, tests_not_run_leave_no_metrics)
{
	char *text = read_fixture("bonnie_ext4_s0.csv");

	/* -s 0: no IO tests, no size, no seeks */
	parse_ok(text, "");
	expect_absent("file_size_mib");
	expect_absent("seeks_count");
	expect_absent("seek_procs");
	expect_absent("put_block");
	expect_absent("put_block_fast");
	expect_absent("put_block_latency_us");
	expect_value("num_files", 16);
	expect_value("seq_create_fast", 1);
	expect_value("seq_create_latency_us", 155);
	free(text);

	/* -n 0: no file tests */
	text = read_fixture("bonnie_ext4_n0.csv");
	parse_ok(text, "");
	expect_absent("num_files");
	expect_absent("seq_create_fast");
	expect_absent("seq_create_latency_us");
	expect_value("putc", 680);
	expect_value("putc_latency_us", 17888);
	free(text);

	/* -f: no per-char tests */
	text = read_fixture("bonnie_ext4_q_direct_f.csv");
	parse_ok(text, "");
	expect_absent("putc");
	expect_absent("putc_cpu");
	expect_absent("putc_latency_us");
	expect_absent("getc");
	expect_value("put_block", 215589);
	expect_value("rewrite_latency_us", 14282);
	free(text);
}

/* One line out of the -n variants, which hold five among their text. */
static void parse_variant(const char *marker)
{
	char *text = read_fixture("bonnie_ext4_n_variants.txt");
	char *p = strstr(text, marker), *start, *end;

	cr_assert(p, "no line with %s", marker);
	start = p;
	while (start > text && start[-1] != '\n')
		start--;
	end = strchr(p, '\n');
	cr_assert(end);
	*end = '\0';
	parse_ok(start, "");
	free(text);
}

Test(bonnie_lua, links_symlinks_and_directories)
{
	parse_variant(",8,link,");
	expect_value("max_size_link", 1);
	expect_absent("max_size");
	expect_absent("min_size");
	parse_variant(",8,symlink,");
	expect_value("max_size_link", 2);
	expect_absent("max_size");
	parse_variant(",8,2048,,");
	expect_value("max_size", 2048);
	expect_absent("min_size");
	expect_absent("max_size_link");
	parse_variant(",8,1024,1024,");
	expect_value("max_size", 1024);
	expect_value("min_size", 1024);
	/* -n 8:0:0:3: bonnie++ 2.00a writes the directories in field 25 */
	parse_variant(",8,,,,3,");
	expect_value("num_dirs", 3);
	expect_value("num_files", 8);
}

Test(bonnie_lua, several_lines_give_the_last)
{
	char *text = read_fixture("bonnie_ext4_x2.stdout");

	parse_ok(text, "");
	expect_value("put_block_fast", 1);	/* the second run's */
	expect_value("put_block_latency_us", 708);
	free(text);
	text = read_fixture("bonnie_3fs.csv");
	parse_ok(text, "");
	expect_value("seq_create", 1653);	/* btrfs, the last line */
	free(text);
}

Test(bonnie_lua, only_a_good_198_line_counts)
{
	char *text = read_fixture("bonnie_csv_edge_inputs.csv");

	/* 1.03 and 1.97 lines, 30, 37 and 53 fields, a comment, a header:
	 * the one line left ends in CRLF */
	parse_ok(text, "");
	expect_value("ran_del_latency_us", 34541);
	expect_value("ran_del_cpu", 60);
	expect_value("seq_create", 37652);
	free(text);
	parse_fails("inside,2G,,,31444,9,15949,4,,,30409,4,261.3,1,16,3291,21,"
		    "+++++,+++,2720,14,3286,22,+++++,+++,874,7\n",
		    "no bonnie++ CSV line");
	parse_fails("", "no bonnie++ CSV line");
}

static char *edited(const char *fixture, const char *from, const char *to)
{
	char *text = read_fixture(fixture), *p = strstr(text, from);
	char *out = malloc(strlen(text) + strlen(to) + 1);

	cr_assert(p && out, "no '%s' in %s", from, fixture);
	sprintf(out, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
	free(text);
	return out;
}

Test(bonnie_lua, units_and_bad_fields)
{
	char *text = edited("bonnie_ext4_default.csv", ",256M,", ",2G,");

	parse_ok(text, "");
	expect_value("file_size_mib", 2048);
	free(text);
	text = edited("bonnie_ext4_default.csv", ",45047us,", ",101s,");
	parse_ok(text, "");
	expect_value("putc_latency_us", 101e6);
	free(text);
	text = edited("bonnie_ext4_default.csv", ",45047us,", ",45047xs,");
	parse_fails(text, "field 38 is '45047xs'");
	free(text);
	text = edited("bonnie_ext4_default.csv", ",421108,", ",fast,");
	parse_fails(text, "field 11 is 'fast', not a number");
	free(text);
	text = edited("bonnie_ext4_default.csv", ",256M,", ",256K,");
	parse_fails(text, "field 5");
	free(text);
}

/* ---- the phase, end to end -------------------------------------------- */

static int run_plan(const char *body, char *rd, size_t len)
{
	const char *dir = e2e_tmpdir();
	char text[4096];
	char *plan;

	snprintf(text, sizeof(text), "fsplan: 1\nname: bonnie\n%s", body);
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, len, "%s/run", dir);
	return e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					    NULL });
}

Test(bonnie_lua, phase_on_ext4, .timeout = 600)
{
	static const struct { const char *test; double amount, ops; } t[] = {
		/* KiB, seeks or files; ops of the latency histogram */
		{ "putc", 1024, 128 },		/* one op per 8k chunk */
		{ "put_block", 65536, 8192 },
		{ "rewrite", 65536, 8192 },
		{ "getc", 1024, 128 },
		{ "get_block", 65536, 8192 },
		{ "seeks", 8192, 8192 + 819 },	/* and one write-back in 10 */
		{ "seq_create", 1024, 1024 },
		{ "seq_stat", 1024, 1024 },
		{ "seq_del", 1024, 1024 },
		{ "ran_create", 1024, 1024 },
		{ "ran_stat", 1024, 1024 },
		{ "ran_del", 1024, 1024 },
	};
	const char *cell = "ext4/bonnie#1";
	char rd[300], name[64];
	int rc, fast = 0;

	e2e_require_root();
	rc = run_plan("target: {image: 256M}\n"
		      "filesystems: [{type: ext4}]\n"
		      "phases:\n"
		      "  - {use: bonnie, with: {size: 64M, ram: 32M, files: 1,"
		      " char_size: 1M}}\n", rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_assert_str_eq(e2e_metric(rd, cell, "status"), "ok", "%s",
			 e2e_reason(rd, cell));

	/* the line's header fields */
	cr_expect_eq(e2e_num(rd, cell, "bonnie_line"), 1);
	cr_expect_eq(e2e_num(rd, cell, "concurrency"), 1);
	cr_expect_eq(e2e_num(rd, cell, "seed"), 1);	/* the plan's */
	cr_expect_eq(e2e_num(rd, cell, "file_size_mib"), 64);
	cr_expect_eq(e2e_num(rd, cell, "seeks_count"), 8192);
	cr_expect_eq(e2e_num(rd, cell, "seek_procs"), 5);
	cr_expect_eq(e2e_num(rd, cell, "num_files"), 1);
	cr_expect_eq(e2e_num(rd, cell, "ram_mib"), 32);
	cr_expect_eq(e2e_num(rd, cell, "ram_given"), 1);
	cr_expect_eq(e2e_num(rd, cell, "char_size_mib"), 1);
	/* the units lua/parse/bonnie.lua gives bonnie++'s own line */
	cr_expect_str_eq(e2e_unit(rd, cell, "file_size_mib"), "MiB");
	cr_expect_str_eq(e2e_unit(rd, cell, "putc"), "KiB/s");
	cr_expect_str_eq(e2e_unit(rd, cell, "put_block"), "KiB/s");
	cr_expect_str_eq(e2e_unit(rd, cell, "seeks"), "seeks/s");
	cr_expect_str_eq(e2e_unit(rd, cell, "seq_create"), "files/s");
	cr_expect_str_eq(e2e_unit(rd, cell, "put_block_cpu"), "%");
	cr_expect_str_eq(e2e_unit(rd, cell, "put_block_latency_us"), "us");
	/* a rate is one row: report()'s, with its unit, not the counter's */
	cr_expect_eq(e2e_count(rd, "put_block"), 1);
	cr_expect_null(e2e_metric(rd, cell, "max_size"));
	cr_expect_null(e2e_metric(rd, cell, "num_dirs"));
	cr_expect_null(e2e_metric(rd, cell, "max_size_link"));
	/* per char is a byte an op */
	cr_expect_eq(e2e_num(rd, cell, "putc_bytes_each"), 1 << 20);
	cr_expect_eq(e2e_num(rd, cell, "getc_bytes_each"), 1 << 20);

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *T = t[i].test;
		double rate = e2e_num(rd, cell, T), lat, max_ms;

		cr_expect(rate > 0, "%s: rate %g", T, rate);
		snprintf(name, sizeof(name), "%s_cpu", T);
		cr_expect(e2e_num(rd, cell, name) >= 0);
		snprintf(name, sizeof(name), "%s_ops", T);
		cr_expect_eq(e2e_num(rd, cell, name), t[i].ops, "%s: %g ops",
			     T, e2e_num(rd, cell, name));
		/* the longest op, in us, from the op histogram */
		snprintf(name, sizeof(name), "%s_latency_us", T);
		lat = e2e_num(rd, cell, name);
		snprintf(name, sizeof(name), "%s_lat_max_ms", T);
		max_ms = e2e_num(rd, cell, name);
		cr_expect(lat > 0 && fabs(lat - 1000 * max_ms) <= 1e-3 * lat,
			  "%s: latency %g us, max %g ms", T, lat, max_ms);
		/* +++++ exactly when the test took under half a second */
		snprintf(name, sizeof(name), "%s_fast", T);
		if (e2e_metric(rd, cell, name)) {
			cr_expect_eq(e2e_num(rd, cell, name), 1);
			cr_expect(t[i].amount / rate < 0.5, "%s fast in %g s",
				  T, t[i].amount / rate);
			fast++;
		} else {
			cr_expect(t[i].amount / rate >= 0.5, "%s took %g s but "
				  "is not fast", T, t[i].amount / rate);
		}
	}
	/* 1024 stats of empty files take milliseconds */
	cr_expect_eq(e2e_num(rd, cell, "seq_stat_fast"), 1);
	cr_expect(fast >= 1);
}

/* The module's check refuses each before anything runs: fsplan check
 * and fsplan run alike, at the plan's value (exit 2, no run made). */
Test(bonnie_lua, refusals_name_the_parameter, .timeout = 120)
{
	static const struct { const char *with, *want; } cases[] = {
		{ "size: 64M, ram: 64M, files: 0", "less than twice the RAM" },
		{ "size: 64M, ram: 0, chunk: 3000", "chunk: 3000 is not a "
		  "power of two" },
		{ "size: 64M, ram: 0, direct: true", "set skip_char: true" },
		{ "size: 0, files: 1, links: hard, max_size: 4k",
		  "leave max_size at 0" },
		{ "size: 0, files: 1, links: soft", "none, hard or symbolic" },
		{ "size: 1000k, ram: 0", "not a whole number of MiB" },
		{ "size: 64Q, ram: 0", "size: '64Q' is not a size" },
		{ "size: 0, files: 0", "no test to run" },
		{ "size: 0, files: 1, workers: 2", "leave workers at 1" },
	};
	char rd[300];
	int rc;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rc = e2e_check_phase("[{type: tmpfs, mount: size=16M}]",
				     "bonnie", cases[i].with);
		cr_expect_eq(rc, 2, "%s: exit %d", cases[i].with, rc);
		cr_expect(strstr(e2e_err, "cell tmpfs::size=16M/bonnie#1: ") &&
			  strstr(e2e_err, cases[i].want), "%s: '%s' lacks '%s'",
			  cases[i].with, e2e_err, cases[i].want);
	}
	e2e_require_root();
	rc = run_plan("filesystems: [{type: tmpfs, mount: size=16M}]\n"
		      "phases: [{use: bonnie, with: {size: 0, files: 0}}]\n",
		      rd, sizeof(rd));
	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "no test to run"), "%s", e2e_err);
	cr_expect_eq(access(rd, F_OK), -1, "a refused plan made %s", rd);
}

static const char *bonnie_bin(void)
{
	static const char *const where[] = { "/usr/sbin/bonnie++",
					     "/usr/bin/bonnie++" };

	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++)
		if (!access(where[i], X_OK))
			return where[i];
	return NULL;
}

Test(bonnie_lua, real_bonnie_through_the_parser, .timeout = 300)
{
	const char *bin = bonnie_bin(), *cell = "ext4/real#1";
	char body[1024], rd[300];
	int rc;

	e2e_require_root();
	if (!bin)
		cr_skip_test("bonnie++ is not installed");
	/* no -u: the exec phase already runs as nobody */
	snprintf(body, sizeof(body),
		 "target: {image: 256M}\n"
		 "filesystems: [{type: ext4}]\n"
		 "phases:\n"
		 "  - name: real\n"
		 "    exec: \"%s -d . -s 64 -r 32 -n 1 -f -z 4242 -q\"\n"
		 "    parse: bonnie\n", bin);
	rc = run_plan(body, rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_assert_str_eq(e2e_metric(rd, cell, "status"), "ok", "%s",
			 e2e_reason(rd, cell));
	cr_expect_eq(e2e_num(rd, cell, "bonnie_line"), 1);
	cr_expect_eq(e2e_num(rd, cell, "seed"), 4242);
	cr_expect_eq(e2e_num(rd, cell, "file_size_mib"), 64);
	cr_expect_eq(e2e_num(rd, cell, "seeks_count"), 8192);
	cr_expect_eq(e2e_num(rd, cell, "num_files"), 1);
	/* -f: no per-char tests */
	cr_expect_null(e2e_metric(rd, cell, "putc"));
	cr_expect_null(e2e_metric(rd, cell, "putc_fast"));
	cr_expect_null(e2e_metric(rd, cell, "putc_latency_us"));
	/* every other test has a rate or +++++, and a latency */
	{
		static const char *const ran[] = { "put_block", "rewrite",
			"get_block", "seeks", "seq_create", "seq_stat",
			"seq_del", "ran_create", "ran_stat", "ran_del" };
		char name[64];

		for (size_t i = 0; i < sizeof(ran) / sizeof(ran[0]); i++) {
			snprintf(name, sizeof(name), "%s_fast", ran[i]);
			cr_expect(e2e_metric(rd, cell, ran[i]) ||
				  e2e_metric(rd, cell, name), "%s", ran[i]);
			snprintf(name, sizeof(name), "%s_latency_us", ran[i]);
			cr_expect(e2e_num(rd, cell, name) > 0, "%s", name);
		}
	}
}
