/* test_bonniecsv: bonnie.csv lines as bonnie++ writes and bon_csv2* read. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/bonniecsv.h"
#include "e2e.h"

#define FIXTURES	"fixtures/bonniecsv"
#define NFIELDS		50
#define MAXM		128

TestSuite(bonniecsv);

/* ---- a metric set, and the CSV fields taken apart ---------------------- */

struct mset {
	struct bonnie_metric m[MAXM];
	char names[MAXM][48];
	size_t n;
};

static void add(struct mset *s, const char *name, double v)
{
	cr_assert_lt(s->n, MAXM);
	snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
	s->m[s->n].name = s->names[s->n];
	s->m[s->n].value = v;
	s->n++;
}

static void addf(struct mset *s, const char *test, const char *suffix,
		 double v)
{
	char key[48];

	snprintf(key, sizeof(key), "%s%s", test, suffix);
	add(s, key, v);
}

struct fields {
	char f[64][160];
	int n;
};

/* Split at every comma, keeping empty fields (unlike Perl's split). */
static void split(const char *line, struct fields *fl)
{
	const char *s = line, *c;

	fl->n = 0;
	for (;;) {
		cr_assert_lt(fl->n, 64, "too many fields in %s", line);
		c = strchr(s, ',');
		snprintf(fl->f[fl->n], sizeof(fl->f[0]), "%.*s",
			 (int)(c ? (size_t)(c - s) : strlen(s)), s);
		fl->n++;
		if (!c)
			break;
		s = c + 1;
	}
}

static int count_fields(const char *line)
{
	struct fields fl;

	split(line, &fl);
	return fl.n;
}

static const char *const tests[12] = {
	"putc", "put_block", "rewrite", "getc", "get_block", "seeks",
	"seq_create", "seq_stat", "seq_del", "ran_create", "ran_stat",
	"ran_del",
};

static double num(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	cr_assert(end != s && *end == '\0', "not a number: '%s'", s);
	return v;
}

/* "45047us", "421ms", "150s" in microseconds. */
static double latency_us(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (!strcmp(end, "us"))
		return v;
	if (!strcmp(end, "ms"))
		return v * 1e3;
	cr_assert_str_eq(end, "s", "latency '%s'", s);
	return v * 1e6;
}

/* A value,cpu pair of a bonnie++ line back into test t's metrics. */
static void pair(struct mset *s, int t, const char *val, const char *cpu)
{
	if (!strcmp(val, "+++++")) {
		cr_assert_str_eq(cpu, "+++");
		addf(s, tests[t], "_fast", 1);
		return;
	}
	if (!*val) {
		cr_assert_str_empty(cpu);
		return;
	}
	addf(s, tests[t], "", num(val));
	addf(s, tests[t], "_cpu", num(cpu));
}

/*
 * The inverse of the writer: the metrics a phase run would report to get
 * this line. It reads the fields as bonnie-csv.md documents them, not as
 * bonniecsv.c writes them, so the two check each other.
 */
static void metrics_of(const char *line, struct mset *s)
{
	struct fields fl;
	const char *sz;
	int t;

	split(line, &fl);
	cr_assert_eq(fl.n, NFIELDS, "%d fields in %s", fl.n, line);
	s->n = 0;
	add(s, "bonnie_line", 1);
	add(s, "concurrency", num(fl.f[3]));
	add(s, "seed", num(fl.f[4]));
	sz = fl.f[5];
	if (*sz) {
		size_t k = strlen(sz) - 1;
		double mib = strtod(sz, NULL);

		cr_assert(sz[k] == 'M' || sz[k] == 'G', "size %s", sz);
		add(s, "file_size_mib", sz[k] == 'G' ? mib * 1024 : mib);
		add(s, "seeks_count", num(fl.f[7]));
		add(s, "seek_procs", num(fl.f[8]));
	}
	cr_assert_str_empty(fl.f[6], "chunk size written in %s", line);
	for (t = 0; t < 6; t++)
		pair(s, t, fl.f[9 + 2 * t], fl.f[10 + 2 * t]);
	if (*fl.f[21])
		add(s, "num_files", num(fl.f[21]));
	if (!strcmp(fl.f[22], "link"))
		add(s, "max_size_link", 1);
	else if (!strcmp(fl.f[22], "symlink"))
		add(s, "max_size_link", 2);
	else if (*fl.f[22])
		add(s, "max_size", num(fl.f[22]));
	if (*fl.f[23])
		add(s, "min_size", num(fl.f[23]));
	cr_assert_str_empty(fl.f[24], "num_dirs written in %s", line);
	if (*fl.f[25])
		add(s, "num_dirs", num(fl.f[25]));
	for (t = 6; t < 12; t++)
		pair(s, t, fl.f[26 + 2 * (t - 6)], fl.f[27 + 2 * (t - 6)]);
	for (t = 0; t < 12; t++)
		if (*fl.f[38 + t])
			addf(s, tests[t], "_latency_us",
			     latency_us(fl.f[38 + t]));
}

static int line_of(const char *name, const struct mset *s, char *buf,
		   size_t len)
{
	return bonniecsv_line(name, s->m, s->n, buf, len);
}

/* Field i of the line the writer makes of s. */
static const char *field(const struct mset *s, int i)
{
	static struct fields fl;
	char buf[2048];

	cr_assert_gt(line_of("h", s, buf, sizeof(buf)), 0);
	split(buf, &fl);
	cr_assert_eq(fl.n, NFIELDS, "%d fields: %s", fl.n, buf);
	return fl.f[i];
}

/* ---- (1) every real bonnie++ line, rebuilt from its metrics ------------ */

static const char *const samples[] = {
	"bonnie_3fs.csv", "bonnie_btrfs_default.csv",
	"bonnie_btrfs_q_sized.csv", "bonnie_ext4_all.csv",
	"bonnie_ext4_default.csv", "bonnie_ext4_n0.csv",
	"bonnie_ext4_q_b.csv", "bonnie_ext4_q_direct_f.csv",
	"bonnie_ext4_q_sized.csv", "bonnie_ext4_s0.csv",
	"bonnie_xfs_default.csv", "bonnie_xfs_q_c2.csv",
	"bonnie_xfs_q_seeks4000x3_z12345.csv", "bonnie_xfs_q_sized.csv",
	"bonnie_ext4_n_variants.txt", "bonnie_ext4_x2.stdout",
};

/* Rebuild the 1.98 lines of one sample file; how many there were. */
static int rebuild_file(const char *file)
{
	char path[256], line[2048], out[2048];
	struct fields fl;
	struct mset s;
	int lines = 0, len;
	FILE *f;

	snprintf(path, sizeof(path), FIXTURES "/%s", file);
	f = fopen(path, "r");
	cr_assert(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (strncmp(line, "1.98,", 5))
			continue;
		metrics_of(line, &s);
		split(line, &fl);
		len = line_of(fl.f[2], &s, out, sizeof(out));
		cr_expect_eq(len, (int)strlen(line), "%s: length %d", file,
			     len);
		cr_expect_str_eq(out, line, "%s: rebuilt line differs", file);
		lines++;
	}
	fclose(f);
	return lines;
}

Test(bonniecsv, rebuilds_every_real_line_byte_for_byte)
{
	size_t i;
	int total = 0, n;

	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		n = rebuild_file(samples[i]);
		cr_expect_gt(n, 0, "%s has no 1.98 line", samples[i]);
		total += n;
	}
	/* 3fs 6, ext4_all 6, 12 one-line files, 5 -n variants, 2 of -x 2 */
	cr_expect_eq(total, 31, "%d lines rebuilt", total);
}

/* The variants named in the brief, each with the shape that shows it. */
Test(bonniecsv, sample_variants_carry_their_shape)
{
	cr_expect_eq(rebuild_file("bonnie_ext4_s0.csv"), 1);	   /* -s 0 */
	cr_expect_eq(rebuild_file("bonnie_ext4_n0.csv"), 1);	   /* -n 0 */
	cr_expect_eq(rebuild_file("bonnie_ext4_q_direct_f.csv"), 1); /* -f */
	cr_expect_eq(rebuild_file("bonnie_xfs_q_c2.csv"), 1);	   /* -c 2 */
	cr_expect_eq(rebuild_file("bonnie_xfs_q_seeks4000x3_z12345.csv"), 1);
	cr_expect_eq(rebuild_file("bonnie_ext4_n_variants.txt"), 5);
}

/* ---- a full run, and lines made from it -------------------------------- */

/* Every test measured, values picked to be recognisable in the reports. */
static void full_run(struct mset *s)
{
	static const double rate[12] = {
		812.9, 421108, 9000, 700, 2097152, 312.54,
		37652, 101019, 75659, 42665, 57620, 44149,
	};
	static const double lat[12] = {
		45047, 421000, 4419, 12380, 239, 150e6,
		8538, 34477, 20257, 15982, 41595, 34541,
	};
	int t;

	s->n = 0;
	add(s, "bonnie_line", 1);
	add(s, "concurrency", 1);
	add(s, "seed", 4242);
	add(s, "file_size_mib", 512);
	add(s, "seeks_count", 8192);
	add(s, "seek_procs", 5);
	add(s, "num_files", 64);
	add(s, "max_size", 4096);
	add(s, "min_size", 1024);
	add(s, "num_dirs", 4);
	for (t = 0; t < 12; t++) {
		addf(s, tests[t], "", rate[t]);
		addf(s, tests[t], "_cpu", 10 + t);
		addf(s, tests[t], "_latency_us", lat[t]);
	}
}

static const char full_line[] =
	"1.98,2.00a,fsplan-ext4,1,4242,512M,,8192,5,"
	"812,10,421108,11,9000,12,700,13,2097152,14,312.5,15,"
	"64,4096,1024,,4,"
	"37652,16,101019,17,75659,18,42665,19,57620,20,44149,21,"
	"45047us,421ms,4419us,12380us,239us,150s,"
	"8538us,34477us,20257us,15982us,41595us,34541us";

Test(bonniecsv, full_run_line)
{
	struct mset s;
	char buf[1024];
	int len;

	full_run(&s);
	len = bonniecsv_line("fsplan-ext4", s.m, s.n, buf, sizeof(buf));
	cr_assert_str_eq(buf, full_line);
	cr_assert_eq(len, (int)strlen(full_line));
	cr_assert_eq(count_fields(buf), NFIELDS);
}

/* ---- (2) the real converters read what we write ------------------------- */

static int have_tool(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

struct conv {
	char *out;
	char *err;
};

/*
 * Run a converter on lines, stdout and stderr apart. Both exit 0 even
 * when they refuse a line, so what matters is their stderr.
 */
static struct conv convert(const char *tool, const char *const *lines,
			   int n)
{
	char dir[] = "/tmp/fsplan-bcsv-XXXXXX";
	char in[64], out[64], err[64], cmd[256];
	struct conv c;
	FILE *f;
	int i, rc;

	if (!have_tool(tool))
		cr_skip_test("%s not installed (Debian package bonnie++)",
			     tool);
	cr_assert(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	snprintf(in, sizeof(in), "%s/in.csv", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(err, sizeof(err), "%s/err", dir);
	f = fopen(in, "w");
	cr_assert(f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s\n", lines[i]);
	cr_assert_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "%s < %s > %s 2> %s", tool, in, out, err);
	rc = system(cmd);
	cr_assert_eq(rc, 0, "%s: status %d", tool, rc);
	c.out = e2e_slurp(out, NULL);
	c.err = e2e_slurp(err, NULL);
	unlink(in);
	unlink(out);
	unlink(err);
	rmdir(dir);
	return c;
}

static void conv_free(struct conv *c)
{
	free(c->out);
	free(c->err);
}

static void expect_in(const char *text, const char *what, const char *tool)
{
	cr_expect(strstr(text, what), "%s output lacks '%s':\n%s", tool, what,
		  text);
}

/* The guard: a line the converters refuse shows on stderr, status 0. */
Test(bonniecsv, converters_report_refused_lines_on_stderr)
{
	const char *bad[] = { "1.97,2.00a,x,1,1,,,,,,,,,,,,,,,,,1" };
	struct conv c;

	c = convert("bon_csv2txt", bad, 1);
	cr_expect(strstr(c.err, "Expected 1.98"), "stderr: '%s'", c.err);
	conv_free(&c);
	c = convert("bon_csv2html", bad, 1);
	cr_expect(strstr(c.err, "Can't process"), "stderr: '%s'", c.err);
	conv_free(&c);
}

Test(bonniecsv, csv2txt_reads_a_full_line)
{
	const char *lines[1];
	struct conv c;
	char buf[1024];
	struct mset s;

	full_run(&s);
	cr_assert_gt(bonniecsv_line("fsplan-ext4", s.m, s.n, buf,
				    sizeof(buf)), 0);
	lines[0] = buf;
	c = convert("bon_csv2txt", lines, 1);
	cr_expect_str_empty(c.err, "bon_csv2txt stderr: %s", c.err);
	/* bon_csv2txt shows K/s under 10000 as "k", above it in MiB/GiB. */
	expect_in(c.out, "fsplan 512M::8192:5  812k  10  411m  11 9000k  12  "
		  "700k  13  2.0g  14 312.5  15", "bon_csv2txt");
	expect_in(c.out, "Latency             45047us     421ms    4419us   "
		  "12380us     239us      150s", "bon_csv2txt");
	/* num_dirs in field 25 reads as ":4" (bonnie++ itself prints "/4") */
	expect_in(c.out, "fspl 64:4096:1024:4 37652  16 101019  17 75659  18 "
		  "42665  19 57620  20 44149  21", "bon_csv2txt");
	expect_in(c.out, "Latency              8538us   34477us   20257us   "
		  "15982us   41595us   34541us", "bon_csv2txt");
	conv_free(&c);
}

Test(bonniecsv, csv2html_reads_a_full_line)
{
	const char *lines[1];
	struct conv c;
	char buf[1024];
	struct mset s;

	full_run(&s);
	cr_assert_gt(bonniecsv_line("fsplan-ext4", s.m, s.n, buf,
				    sizeof(buf)), 0);
	lines[0] = buf;
	c = convert("bon_csv2html", lines, 1);
	cr_expect_str_empty(c.err, "bon_csv2html stderr: %s", c.err);
	expect_in(c.out, ">fsplan-ext4</td>", "bon_csv2html");
	expect_in(c.out, "<td>411</td><td>11</td>", "bon_csv2html");
	expect_in(c.out, "<td>312.5</td><td>15</td>", "bon_csv2html");
	expect_in(c.out, "<td>37652</td><td>16</td>", "bon_csv2html");
	expect_in(c.out, "<td>44149</td><td>21</td>", "bon_csv2html");
	expect_in(c.out, "<td colspan=\"2\">421ms</td>", "bon_csv2html");
	expect_in(c.out, "<td colspan=\"2\">150s</td>", "bon_csv2html");
	expect_in(c.out, "<td colspan=\"2\">34541us</td>", "bon_csv2html");
	conv_free(&c);
}

/* The shapes bonnie++ has: no IO tests, no file tests, no per-char, fast. */
static int shapes(char bufs[][1024], const char **lines)
{
	struct mset s;
	int t, n = 0;

	/* -s 0 -n 16:-2, every file test too fast to time */
	s.n = 0;
	add(&s, "bonnie_line", 1);
	add(&s, "seed", 7);
	add(&s, "num_files", 16);
	add(&s, "max_size_link", 2);
	for (t = 6; t < 12; t++) {
		addf(&s, tests[t], "_fast", 1);
		addf(&s, tests[t], "_latency_us", 100 + t);
	}
	cr_assert_gt(line_of("noio", &s, bufs[n], 1024), 0);
	n++;

	/* -n 0 -f -c 2: block tests only, get_block fast */
	s.n = 0;
	add(&s, "bonnie_line", 1);
	add(&s, "concurrency", 2);
	add(&s, "seed", 8);
	add(&s, "file_size_mib", 1024);
	add(&s, "put_block", 3333);
	add(&s, "put_block_cpu", 4);
	add(&s, "put_block_latency_us", 6369);
	add(&s, "rewrite", 2222);
	add(&s, "rewrite_cpu", 5);
	add(&s, "get_block_fast", 1);
	add(&s, "get_block_latency_us", 113);
	add(&s, "seeks", 1234.6);
	add(&s, "seeks_cpu", 6);
	cr_assert_gt(line_of("nofiles", &s, bufs[n], 1024), 0);
	n++;

	/* a label with commas */
	full_run(&s);
	cr_assert_gt(line_of("ext4,noatime,discard", &s, bufs[n], 1024), 0);
	n++;
	for (t = 0; t < n; t++)
		lines[t] = bufs[t];
	return n;
}

Test(bonniecsv, converters_read_every_shape)
{
	char bufs[3][1024];
	const char *lines[3];
	struct conv c;
	int n;

	n = shapes(bufs, lines);
	cr_assert_str_eq(lines[0],
		"1.98,2.00a,noio,1,7,,,,,,,,,,,,,,,,,16,symlink,,,,"
		"+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,"
		",,,,,,106us,107us,108us,109us,110us,111us");
	cr_assert_str_eq(lines[1],
		"1.98,2.00a,nofiles,2,8,1G,,8192,5,,,3333,4,2222,5,,,"
		"+++++,+++,1235,6,,,,,,,,,,,,,,,,,,"
		",6369us,,,113us,,,,,,,");

	c = convert("bon_csv2txt", lines, n);
	cr_expect_str_empty(c.err, "bon_csv2txt stderr: %s", c.err);
	/* "+++++" in a block column reads as "0k" in bon_csv2txt */
	expect_in(c.out, "nofiles  1G::8192:5           3333k   4 2222k   5"
		  "              0k +++  1235   6", "bon_csv2txt");
	expect_in(c.out, "Latency                        6369us              "
		  "           113us          ", "bon_csv2txt");
	expect_in(c.out, "ext4;n 512M::8192:5  812k", "bon_csv2txt");
	expect_in(c.out, "noio     16:symlink +++++ +++ +++++ +++", "csv2txt");
	expect_in(c.out, "Latency               106us     107us", "csv2txt");
	conv_free(&c);

	c = convert("bon_csv2html", lines, n);
	cr_expect_str_empty(c.err, "bon_csv2html stderr: %s", c.err);
	expect_in(c.out, ">noio</td>", "bon_csv2html");
	expect_in(c.out, ">nofiles</td>", "bon_csv2html");
	expect_in(c.out, ">ext4;noatime;discard</td>", "bon_csv2html");
	expect_in(c.out, ">symlink</td>", "bon_csv2html");
	/* several lines: cells get colours, so look at the values only */
	expect_in(c.out, ">1235</td>", "bon_csv2html");
	expect_in(c.out, ">6369us</td>", "bon_csv2html");
	expect_in(c.out, ">111us</td>", "bon_csv2html");
	conv_free(&c);
}

/*
 * The real lines, rebuilt, give the converters' real outputs byte for byte
 * (the fixtures are what bon_csv2txt and bon_csv2html made of the lines).
 */
static void convert_rebuilt(const char *csv, const char *txt,
			    const char *html)
{
	char path[256], line[1024], bufs[8][1024];
	const char *lines[8];
	struct fields fl;
	struct mset s;
	struct conv c;
	char *want;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), FIXTURES "/%s", csv);
	f = fopen(path, "r");
	cr_assert(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		cr_assert_lt(n, 8);
		line[strcspn(line, "\n")] = '\0';
		metrics_of(line, &s);
		split(line, &fl);
		cr_assert_gt(line_of(fl.f[2], &s, bufs[n], 1024), 0);
		lines[n] = bufs[n];
		n++;
	}
	fclose(f);
	cr_assert_gt(n, 0);

	c = convert("bon_csv2txt", lines, n);
	cr_expect_str_empty(c.err, "bon_csv2txt stderr: %s", c.err);
	snprintf(path, sizeof(path), FIXTURES "/%s", txt);
	want = e2e_slurp(path, NULL);
	cr_expect_str_eq(c.out, want, "bon_csv2txt of %s differs", csv);
	free(want);
	conv_free(&c);

	c = convert("bon_csv2html", lines, n);
	cr_expect_str_empty(c.err, "bon_csv2html stderr: %s", c.err);
	snprintf(path, sizeof(path), FIXTURES "/%s", html);
	want = e2e_slurp(path, NULL);
	cr_expect_str_eq(c.out, want, "bon_csv2html of %s differs", csv);
	free(want);
	conv_free(&c);
}

Test(bonniecsv, converters_give_their_real_outputs_for_rebuilt_lines)
{
	convert_rebuilt("bonnie_ext4_all.csv", "csv2txt_ext4_all.txt",
			"csv2html_ext4_all.html");
	convert_rebuilt("bonnie_3fs.csv", "csv2txt_3fs.txt",
			"csv2html_3fs.html");
	convert_rebuilt("bonnie_ext4_q_sized.csv", "csv2txt_ext4_sized.txt",
			"csv2html_ext4_sized.html");
}

/* ---- (3) the rules one by one ------------------------------------------ */

static void base(struct mset *s)
{
	s->n = 0;
	add(s, "bonnie_line", 1);
	add(s, "seed", 1);
	add(s, "file_size_mib", 256);
	add(s, "num_files", 4);
}

Test(bonniecsv, fast_test_is_plus_signs_with_its_latency)
{
	struct mset s;

	base(&s);
	add(&s, "put_block_fast", 1);
	add(&s, "put_block_latency_us", 2820);
	cr_expect_str_eq(field(&s, 11), "+++++");
	cr_expect_str_eq(field(&s, 12), "+++");
	cr_expect_str_eq(field(&s, 39), "2820us");

	/* fast wins over a rate, as bonnie++ never prints one under 0.5 s */
	add(&s, "put_block", 421108);
	add(&s, "put_block_cpu", 36);
	cr_expect_str_eq(field(&s, 11), "+++++");

	/* T_fast 0 is not fast */
	add(&s, "put_block_fast", 0);
	cr_expect_str_eq(field(&s, 11), "421108");
	cr_expect_str_eq(field(&s, 12), "36");

	/* a file test, seeks */
	add(&s, "ran_del_fast", 1);
	add(&s, "seeks_fast", 1);
	cr_expect_str_eq(field(&s, 36), "+++++");
	cr_expect_str_eq(field(&s, 37), "+++");
	cr_expect_str_eq(field(&s, 19), "+++++");
	cr_expect_str_eq(field(&s, 20), "+++");
}

Test(bonniecsv, tests_not_run_are_empty_latency_included)
{
	struct mset s;
	int i;

	base(&s);
	add(&s, "putc_latency_us", 45047);	/* a latency alone: not run */
	add(&s, "getc_fast", 0);
	add(&s, "getc_latency_us", 37416);
	add(&s, "seq_stat_latency_us", 4163);
	for (i = 0; i < NFIELDS; i++) {
		if (i == 0 || i == 1 || i == 2 || i == 3 || i == 4 || i == 5 ||
		    i == 7 || i == 8 || i == 21)
			continue;
		cr_expect_str_empty(field(&s, i), "field %d", i);
	}
	cr_expect_str_eq(field(&s, 5), "256M");
	cr_expect_str_eq(field(&s, 21), "4");
}

Test(bonniecsv, io_tests_off_empties_fields_5_to_20)
{
	struct mset s;
	int i;

	full_run(&s);
	add(&s, "file_size_mib", 0);
	for (i = 5; i <= 20; i++)
		cr_expect_str_empty(field(&s, i), "field %d", i);
	for (i = 38; i <= 43; i++)
		cr_expect_str_empty(field(&s, i), "latency %d", i);
	cr_expect_str_eq(field(&s, 26), "37652");
	cr_expect_str_eq(field(&s, 44), "8538us");
}

Test(bonniecsv, file_tests_off_empties_fields_21_to_37)
{
	struct mset s;
	int i;

	full_run(&s);
	add(&s, "num_files", 0);
	for (i = 21; i <= 37; i++)
		cr_expect_str_empty(field(&s, i), "field %d", i);
	for (i = 44; i <= 49; i++)
		cr_expect_str_empty(field(&s, i), "latency %d", i);
	cr_expect_str_eq(field(&s, 11), "421108");
	cr_expect_str_eq(field(&s, 43), "150s");
}

static void expect_latency(double us, const char *want)
{
	char buf[32];

	memset(buf, 'x', sizeof(buf));
	bonniecsv_latency(us, buf, sizeof(buf));
	cr_expect_str_eq(buf, want, "latency of %.3f us", us);
}

/*
 * bonnie++ takes "us" up to 0.099999 s, "ms" up to 99.999999 s, truncating
 * each; its latencies are whole microseconds (gettimeofday).
 */
Test(bonniecsv, latency_units_and_boundaries)
{
	char small[4];

	expect_latency(0, "");
	expect_latency(-5, "");
	expect_latency(NAN, "");
	expect_latency(0.4, "0us");
	expect_latency(1, "1us");
	expect_latency(71.9, "71us");
	expect_latency(99999, "99999us");
	expect_latency(99999.9, "99999us");
	expect_latency(100000, "100ms");
	expect_latency(100999, "100ms");
	expect_latency(421000, "421ms");
	expect_latency(983000, "983ms");
	expect_latency(99999999, "99999ms");
	expect_latency(100000000, "100s");
	expect_latency(150e6, "150s");
	expect_latency(INFINITY, "9223372036854s");

	/* a short buffer gets a terminated prefix, never more */
	memset(small, 'x', sizeof(small));
	bonniecsv_latency(45047, small, sizeof(small));
	cr_expect_str_eq(small, "450");
	bonniecsv_latency(45047, small, 0);
	cr_expect_eq(small[0], '4');
}

Test(bonniecsv, latency_fields_use_the_same_units)
{
	struct mset s;

	base(&s);
	add(&s, "rewrite", 276736);
	add(&s, "rewrite_cpu", 29);
	add(&s, "rewrite_latency_us", 983000);
	add(&s, "seq_del", 1453);
	add(&s, "seq_del_cpu", 2);
	add(&s, "seq_del_latency_us", 100000000);
	cr_expect_str_eq(field(&s, 40), "983ms");
	cr_expect_str_eq(field(&s, 46), "100s");
	add(&s, "seq_del_latency_us", 0);
	cr_expect_str_empty(field(&s, 46));
}

Test(bonniecsv, rates_cpu_and_seeks_are_formatted_like_bonnie)
{
	struct mset s;

	base(&s);
	add(&s, "putc", 542.99);
	add(&s, "putc_cpu", 95.9);
	add(&s, "seq_create", 1271.7);
	add(&s, "seq_create_cpu", 3);
	add(&s, "seeks", 999.94);
	add(&s, "seeks_cpu", 1);
	cr_expect_str_eq(field(&s, 9), "542");
	cr_expect_str_eq(field(&s, 10), "95");
	cr_expect_str_eq(field(&s, 26), "1271");
	cr_expect_str_eq(field(&s, 19), "999.9");
	add(&s, "seeks", 999.96);	/* under 1000, so "%.1f" rounds up */
	cr_expect_str_eq(field(&s, 19), "1000.0");
	add(&s, "seeks", 1000);
	cr_expect_str_eq(field(&s, 19), "1000");
	add(&s, "seeks", 4321.7);
	cr_expect_str_eq(field(&s, 19), "4322");
	add(&s, "seeks", 0.25);
	cr_expect_str_eq(field(&s, 19), "0.2");
	/* a rate without its cpu: the cpu field stays empty */
	add(&s, "getc", 500);
	cr_expect_str_eq(field(&s, 15), "500");
	cr_expect_str_empty(field(&s, 16));
	/* NaN or infinity is no value: not run */
	base(&s);
	add(&s, "getc", NAN);
	add(&s, "getc_cpu", 1);
	add(&s, "getc_latency_us", 5);
	add(&s, "rewrite", INFINITY);
	cr_expect_str_empty(field(&s, 13));
	cr_expect_str_empty(field(&s, 15));
	cr_expect_str_empty(field(&s, 16));
	cr_expect_str_empty(field(&s, 41));
}

Test(bonniecsv, file_size_in_mib_or_whole_gib)
{
	struct mset s;

	base(&s);
	cr_expect_str_eq(field(&s, 5), "256M");
	add(&s, "file_size_mib", 1024);
	cr_expect_str_eq(field(&s, 5), "1G");
	add(&s, "file_size_mib", 1536);
	cr_expect_str_eq(field(&s, 5), "1536M");
	add(&s, "file_size_mib", 49152);
	cr_expect_str_eq(field(&s, 5), "48G");
	cr_expect_str_empty(field(&s, 6));
}

Test(bonniecsv, defaults_for_concurrency_and_seeks)
{
	struct mset s;

	base(&s);
	cr_expect_str_eq(field(&s, 3), "1");
	cr_expect_str_eq(field(&s, 7), "8192");
	cr_expect_str_eq(field(&s, 8), "5");
	add(&s, "concurrency", 3);
	add(&s, "seeks_count", 4000);
	add(&s, "seek_procs", 2);
	add(&s, "seed", 3000000000.0);	/* seeds are unsigned */
	cr_expect_str_eq(field(&s, 3), "3");
	cr_expect_str_eq(field(&s, 4), "3000000000");
	cr_expect_str_eq(field(&s, 7), "4000");
	cr_expect_str_eq(field(&s, 8), "2");
}

Test(bonniecsv, file_test_shape_fields_21_to_25)
{
	struct mset s;

	base(&s);
	add(&s, "num_dirs", 1);		/* one directory: not written */
	cr_expect_str_empty(field(&s, 25));
	add(&s, "min_size", 1024);	/* a min without a max: not written */
	cr_expect_str_empty(field(&s, 22));
	cr_expect_str_empty(field(&s, 23));
	add(&s, "max_size", 2048);
	cr_expect_str_eq(field(&s, 22), "2048");
	cr_expect_str_eq(field(&s, 23), "1024");
	add(&s, "min_size", 0);
	cr_expect_str_eq(field(&s, 22), "2048");
	cr_expect_str_empty(field(&s, 23));
	add(&s, "num_dirs", 3);
	cr_expect_str_empty(field(&s, 24));
	cr_expect_str_eq(field(&s, 25), "3");
	add(&s, "max_size_link", 1);
	cr_expect_str_eq(field(&s, 22), "link");
	cr_expect_str_empty(field(&s, 23));
	add(&s, "max_size_link", 2);
	cr_expect_str_eq(field(&s, 22), "symlink");
}

Test(bonniecsv, commas_in_the_name_become_semicolons)
{
	struct mset s;
	char buf[1024];
	int len;

	full_run(&s);
	len = bonniecsv_line("ext4,noatime,\r\ndiscard", s.m, s.n, buf,
			     sizeof(buf));
	cr_assert_gt(len, 0);
	cr_expect_eq(count_fields(buf), NFIELDS);
	cr_expect(strncmp(buf, "1.98,2.00a,ext4;noatime;  discard,1,", 36) == 0,
		  "%s", buf);
	cr_expect_eq(strcspn(buf, "\r\n"), strlen(buf));
	len = bonniecsv_line(NULL, s.m, s.n, buf, sizeof(buf));
	cr_expect(strncmp(buf, "1.98,2.00a,,1,4242,", 19) == 0, "%s", buf);
}

Test(bonniecsv, no_bonnie_line_no_line)
{
	struct mset s;
	char buf[1024];

	full_run(&s);
	cr_assert_str_eq(s.m[0].name, "bonnie_line");
	s.m[0].name = "bonnie_lines";	/* names match whole */
	strcpy(buf, "untouched");
	cr_expect_eq(line_of("x", &s, buf, sizeof(buf)), -1);
	cr_expect_str_empty(buf);
	add(&s, "bonnie_line", 0);
	cr_expect_eq(line_of("x", &s, buf, sizeof(buf)), -1);
	cr_expect_eq(bonniecsv_line("x", NULL, 0, buf, sizeof(buf)), -1);
	add(&s, "bonnie_line", 1);
	cr_expect_gt(line_of("x", &s, buf, sizeof(buf)), 0);
}

/* Every buffer short of the line and its NUL fails, without overrunning. */
Test(bonniecsv, buffer_too_small)
{
	struct mset s;
	size_t want = strlen(full_line), len;
	char *buf;

	full_run(&s);
	cr_expect_eq(line_of("fsplan-ext4", &s, NULL, 0), -1);
	for (len = 1; len <= want; len++) {
		buf = malloc(len);
		cr_assert(buf);
		cr_expect_eq(line_of("fsplan-ext4", &s, buf, len), -1,
			     "len %zu", len);
		cr_expect_eq(buf[0], '\0');
		free(buf);
	}
	buf = malloc(want + 1);
	cr_assert(buf);
	cr_expect_eq(line_of("fsplan-ext4", &s, buf, want + 1), (int)want);
	cr_expect_str_eq(buf, full_line);
	free(buf);
}

/* A later report of the same name replaces the earlier one. */
Test(bonniecsv, last_value_of_a_name_wins)
{
	struct mset s;

	base(&s);
	add(&s, "put_block", 1000);
	add(&s, "put_block", 2000);
	add(&s, "put_block_cpu", 7);
	cr_expect_str_eq(field(&s, 11), "2000");
}
