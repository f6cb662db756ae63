/* bonniecsv: write one bonnie++ 2.00a CSV line (format 1.98) from metrics. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "results/bonniecsv.h"

/*
 * The line is what bon_csv2txt and bon_csv2html read, so it follows what
 * bonnie++ 2.00a prints byte for byte, quirks included (see
 * ../shared/reference/bonnie-csv.md):
 *
 *  - field 6 (io chunk size) and field 24 (num_dirs) are always empty;
 *  - the number of directories, when more than one, lands in field 25
 *    (file_chunk_size), where the converters look for it;
 *  - min_size is written only when max_size and min_size are non-zero;
 *  - a test under 0.5 s is "+++++" with cpu "+++", its latency still shown.
 *
 * Where bonnie++ has a value we cannot see (a seed, a CPU figure) the field
 * is left empty rather than made up.
 */

#define CSV_VERSION	"1.98"
#define BON_VERSION	"2.00a"

#define N_IO_TESTS	6
#define N_TESTS		12
#define SEEKS_TEST	5	/* the one rate printed with a fraction */

/* The tests in the order of their CSV columns and latency fields. */
static const char *const tests[N_TESTS] = {
	"putc", "put_block", "rewrite", "getc", "get_block", "seeks",
	"seq_create", "seq_stat", "seq_del", "ran_create", "ran_stat",
	"ran_del",
};

struct line {
	char *buf;
	size_t len;
	size_t pos;
	int full;	/* something did not fit: the line is void */
};

__attribute__((format(printf, 2, 3)))
static void put(struct line *l, const char *fmt, ...)
{
	size_t room = l->len - l->pos;
	va_list ap;
	int n;

	if (l->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->pos, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room) {
		l->full = 1;
		return;
	}
	l->pos += (size_t)n;
}

/*
 * The value of metric key; the last one wins, as a later report() of the
 * same name replaces the earlier. A NaN or infinite value is no value.
 */
static int get(const struct bonnie_metric *m, size_t n, const char *key,
	       double *v)
{
	int found = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!m[i].name || strcmp(m[i].name, key) ||
		    !isfinite(m[i].value))
			continue;
		*v = m[i].value;
		found = 1;
	}
	return found;
}

/* A metric of test: "put_block" + "_cpu" and the like. */
static int get_of(const struct bonnie_metric *m, size_t n, const char *test,
		  const char *suffix, double *v)
{
	char key[64];

	snprintf(key, sizeof(key), "%s%s", test, suffix);
	return get(m, n, key, v);
}

/* int(v) as bonnie++ takes it, toward zero, without the overflow. */
long long bonniecsv_whole(double v)
{
	if (v >= 0x1p63)
		return 0x7fffffffffffffffLL;
	if (v <= -0x1p63)
		return -0x7fffffffffffffffLL - 1;
	return (long long)v;
}

static long long get_whole(const struct bonnie_metric *m, size_t n,
			   const char *key, long long dflt)
{
	double v = 0;

	return get(m, n, key, &v) ? bonniecsv_whole(v) : dflt;
}

char bonniecsv_name_char(char c)
{
	return c == ',' ? ';' : c == '\r' || c == '\n' ? ' ' : c;
}

static void put_name(struct line *l, const char *name)
{
	for (const char *s = name ? name : ""; *s; s++)
		put(l, "%c", bonniecsv_name_char(*s));
}

/* Whether test t ran: it has a rate, or it was too fast to have one. */
static int test_ran(const struct bonnie_metric *m, size_t n, int t, int *fast)
{
	double v = 0;

	*fast = get_of(m, n, tests[t], "_fast", &v) && v != 0;
	return *fast || get(m, n, tests[t], &v);
}

/* The value and cpu fields of test t; on says its group (IO, files) ran. */
static void put_test(struct line *l, const struct bonnie_metric *m, size_t n,
		     int t, int on)
{
	double v = 0, cpu = 0;
	int fast;

	if (!on || !test_ran(m, n, t, &fast)) {
		put(l, ",,");
		return;
	}
	if (fast) {
		put(l, ",+++++,+++");
		return;
	}
	get(m, n, tests[t], &v);
	if (t == SEEKS_TEST)
		put(l, v >= 1000.0 ? ",%.0f" : ",%.1f", v);
	else
		put(l, ",%lld", bonniecsv_whole(v));
	if (get_of(m, n, tests[t], "_cpu", &cpu))
		put(l, ",%lld", bonniecsv_whole(cpu));
	else
		put(l, ",");
}

/* Fields 5..20: the size, the seeks, the six IO tests. */
static void put_io(struct line *l, const struct bonnie_metric *m, size_t n)
{
	long long mib = get_whole(m, n, "file_size_mib", 0);
	int t;

	if (mib > 0) {
		/* bonnie++ writes a whole number of GiB as "G". */
		if (mib % 1024 == 0)
			put(l, ",%lldG", mib / 1024);
		else
			put(l, ",%lldM", mib);
		put(l, ",,%lld,%lld", get_whole(m, n, "seeks_count", 8192),
		    get_whole(m, n, "seek_procs", 5));
	} else {
		put(l, ",,,,");
	}
	for (t = 0; t < N_IO_TESTS; t++)
		put_test(l, m, n, t, mib > 0);
}

/* Fields 21..37: the file-test shape and the six file tests. */
static void put_files(struct line *l, const struct bonnie_metric *m,
		      size_t n)
{
	long long files = get_whole(m, n, "num_files", 0);
	long long link, max, min, dirs;
	int t;

	if (files > 0) {
		link = get_whole(m, n, "max_size_link", 0);
		max = get_whole(m, n, "max_size", 0);
		min = get_whole(m, n, "min_size", 0);
		dirs = get_whole(m, n, "num_dirs", 0);
		put(l, ",%lld", files);
		if (link == 1)
			put(l, ",link,");
		else if (link == 2)
			put(l, ",symlink,");
		else if (max && min)
			put(l, ",%lld,%lld", max, min);
		else if (max)
			put(l, ",%lld,", max);
		else
			put(l, ",,");
		/* num_dirs stays empty; the count goes one field on. */
		put(l, ",");
		if (dirs > 1)
			put(l, ",%lld", dirs);
		else
			put(l, ",");
	} else {
		put(l, ",,,,,");
	}
	for (t = N_IO_TESTS; t < N_TESTS; t++)
		put_test(l, m, n, t, files > 0);
}

/* Fields 38..49: a latency for each test that ran and measured one. */
static void put_latencies(struct line *l, const struct bonnie_metric *m,
			  size_t n)
{
	int io = get_whole(m, n, "file_size_mib", 0) > 0;
	int files = get_whole(m, n, "num_files", 0) > 0;
	char lat[32];
	double us = 0;
	int t, fast;

	for (t = 0; t < N_TESTS; t++) {
		lat[0] = '\0';
		if ((t < N_IO_TESTS ? io : files) && test_ran(m, n, t, &fast) &&
		    get_of(m, n, tests[t], "_latency_us", &us))
			bonniecsv_latency(us, lat, sizeof(lat));
		put(l, ",%s", lat);
	}
}

/*
 * bonnie_line 0 counts as absent: a phase can report it unconditionally
 * and say 0 when its run is not one bonnie.csv should show.
 */
int bonniecsv_line(const char *name, const struct bonnie_metric *m, size_t n,
		   char *buf, size_t len)
{
	struct line l = { buf, len, 0, 0 };
	double v = 0;

	if (!buf || len == 0)
		return -1;
	buf[0] = '\0';
	if (!get(m, n, "bonnie_line", &v) || v == 0)
		return -1;

	put(&l, CSV_VERSION "," BON_VERSION ",");
	put_name(&l, name);
	put(&l, ",%lld,", get_whole(m, n, "concurrency", 1));
	if (get(m, n, "seed", &v))
		put(&l, "%lld", bonniecsv_whole(v));
	put_io(&l, m, n);
	put_files(&l, m, n);
	put_latencies(&l, m, n);

	if (l.full || l.pos > 0x7fffffff) {
		buf[0] = '\0';
		return -1;
	}
	return (int)l.pos;
}

/*
 * bonnie++ measures latency with gettimeofday(), so its figure is a whole
 * number of microseconds, and picks the unit by comparing seconds with
 * 0.099999 and 99.999999: on whole microseconds that is "under 100000 us"
 * and "under 100000000 us". We truncate to whole microseconds first and
 * compare integers, which gives the same text for every value bonnie++
 * can produce (99999us, 100ms, 99999ms, 100s) without its float edge,
 * where 99999.5 us would print "99ms". Each unit truncates, as int() does.
 */
void bonniecsv_latency(double us, char *buf, size_t len)
{
	long long u;

	if (!buf || len == 0)
		return;
	buf[0] = '\0';
	if (!(us > 0))		/* 0, negative or NaN: no latency */
		return;
	u = bonniecsv_whole(us);
	if (u < 100000)
		snprintf(buf, len, "%lldus", u);
	else if (u < 100000000)
		snprintf(buf, len, "%lldms", u / 1000);
	else
		snprintf(buf, len, "%llds", u / 1000000);
}
