/* test_metrics: histogram accuracy, merging, the child's wire format, rows. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/metrics.h"

#define N_OF(a)	(sizeof(a) / sizeof((a)[0]))

/* splitmix64: the same numbers on every libc. */
static uint64_t seed;

static uint64_t rnd(void)
{
	uint64_t z = (seed += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double rnd01(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

static uint64_t rnd_in(uint64_t lo, uint64_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The rank hist_quantile documents: the ceil(q n)-th smallest, at least
 * the first. */
static uint64_t exact_quantile(const uint64_t *sorted, size_t n, double q)
{
	double r = ceil(q * (double)n);

	if (r < 1)
		r = 1;
	if (r > (double)n)
		r = (double)n;
	return sorted[(size_t)r - 1];
}

static void fill(struct hist *h, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(hist_add(h, v[i]), 0);
}

/*
 * Build the histogram of v, check count, sum, min, max and mean exactly
 * and every quantile against sorting; the worst relative error found.
 */
static double check_set(const char *what, const uint64_t *v, size_t n)
{
	static const double named[] = { 0, 0.5, 0.9, 0.99, 0.999, 1 };
	struct hist h = { 0 };
	uint64_t *s = malloc(n * sizeof(*s)), sum = 0;
	double worst = 0;

	cr_assert(s);
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_u64);
	for (size_t i = 0; i < n; i++)
		sum += s[i];
	fill(&h, v, n);
	cr_expect_eq(h.count, n, "%s: count", what);
	cr_expect_eq(h.sum, sum, "%s: sum", what);
	cr_expect_eq(h.min, s[0], "%s: min", what);
	cr_expect_eq(h.max, s[n - 1], "%s: max", what);
	cr_expect_eq(hist_quantile(&h, 0), s[0], "%s: p0 is min", what);
	cr_expect_eq(hist_quantile(&h, 1), s[n - 1], "%s: p100 is max", what);

	/* The named ones, then every 0.1% and the far tail. */
	for (int k = -(int)N_OF(named); k <= 1000 + 9; k++) {
		double q = k < 0 ? named[k + (int)N_OF(named)] :
			   k <= 1000 ? k / 1000.0 : 1 - pow(10, -(k - 997));
		uint64_t want = exact_quantile(s, n, q);
		uint64_t got = hist_quantile(&h, q);
		double err = want ? fabs((double)got - (double)want) /
				    (double)want : (double)(got != 0);

		cr_expect_leq(err, 0.01, "%s: q=%g got %llu want %llu", what,
			      q, (unsigned long long)got,
			      (unsigned long long)want);
		if (s[n - 1] < 64)
			cr_expect_eq(got, want, "%s: q=%g not exact", what, q);
		if (err > worst)
			worst = err;
	}
	cr_log_info("%s: n=%zu, worst relative quantile error %.4f%%", what, n,
		    100 * worst);
	hist_free(&h);
	free(s);
	return worst;
}

Test(metrics, quantiles_on_a_log_grid)
{
	uint64_t v[701];

	for (int k = 0; k <= 700; k++)
		v[k] = (uint64_t)llround(pow(10, k / 100.0));
	check_set("log grid 1 ns..10 ms", v, N_OF(v));
}

Test(metrics, quantiles_of_uniform_random_values)
{
	size_t n = 200000;
	uint64_t *v = malloc(n * sizeof(*v));

	cr_assert(v);
	seed = 42;
	for (size_t i = 0; i < n; i++)
		v[i] = rnd_in(1, 10000000);
	check_set("uniform 1..1e7 ns", v, n);
	for (size_t i = 0; i < n; i++)	/* log-uniform, 1 ns .. 100 s */
		v[i] = (uint64_t)exp(rnd01() * log(1e11));
	check_set("log-uniform 1 ns..100 s", v, n);
	free(v);
}

Test(metrics, quantiles_of_a_bimodal_set)
{
	size_t n = 100000;
	uint64_t *v = malloc(n * sizeof(*v));

	cr_assert(v);
	seed = 7;
	for (size_t i = 0; i < n; i++) {
		uint64_t r = rnd() % 1000;

		if (r < 899)		/* cache hits, 60..100 us */
			v[i] = rnd_in(60000, 100000);
		else if (r < 999)	/* seeks, 35..45 ms */
			v[i] = rnd_in(35000000, 45000000);
		else			/* stalls, 2..12 s */
			v[i] = rnd_in(2000000000ull, 12000000000ull);
	}
	check_set("bimodal 80 us / 40 ms / stalls", v, n);
	free(v);
}

Test(metrics, small_values_are_exact)
{
	uint64_t v[640];
	struct hist h = { 0 };

	seed = 3;
	for (size_t i = 0; i < N_OF(v); i++)
		v[i] = rnd() % 64;
	check_set("random 0..63 ns", v, N_OF(v));
	fill(&h, v, N_OF(v));
	for (size_t i = 0; i < N_OF(v); i++)
		cr_expect_gt(h.b[v[i]], 0, "%llu not in its own bucket",
			     (unsigned long long)v[i]);
	hist_free(&h);
}

Test(metrics, empty_and_edge_quantiles)
{
	struct hist h = { 0 };

	cr_expect_eq(hist_quantile(&h, 0.5), 0);
	cr_expect_eq(hist_share_above(&h, 0), 0);
	cr_expect_null(h.b, "allocated before the first add");
	cr_assert_eq(hist_add(&h, 123456789), 0);
	cr_expect_not_null(h.b);
	cr_expect_eq(hist_quantile(&h, 0), 123456789);
	cr_expect_eq(hist_quantile(&h, 0.5), 123456789);
	cr_expect_eq(hist_quantile(&h, 1), 123456789);
	cr_assert_eq(hist_add(&h, 5), 0);
	cr_expect_eq(hist_quantile(&h, NAN), 5);
	cr_expect_eq(hist_quantile(&h, -1), 5);
	cr_expect_eq(hist_quantile(&h, 2), 123456789);
	hist_free(&h);
	cr_expect_null(h.b);
	cr_expect_eq(h.count, 0);
}

Test(metrics, values_beyond_the_last_group_keep_max_exact)
{
	struct hist h = { 0 };
	uint64_t big = (1ull << 52) + 12345;

	cr_assert_eq(hist_add(&h, 1000), 0);
	cr_assert_eq(hist_add(&h, big), 0);
	cr_assert_eq(hist_add(&h, big - 7), 0);
	cr_assert_eq(hist_add(&h, 1ull << 48), 0);	/* first beyond */
	cr_assert_eq(hist_add(&h, (1ull << 48) - 1), 0);	/* last in */
	cr_expect_eq(h.b[HIST_BUCKETS - 1], 4);
	cr_expect_eq(h.b[HIST_BUCKETS - 2], 0);
	cr_expect_eq(h.max, big);
	cr_expect_eq(hist_quantile(&h, 1), big);
	cr_expect_leq(hist_quantile(&h, 0.6), big);
	cr_expect_geq(hist_quantile(&h, 0.6), 1ull << 47);
	cr_expect_float_eq(hist_share_above(&h, 1ull << 46), 0.8, 1e-12);
	cr_expect_eq(hist_share_above(&h, big), 0);

	/* The very top, and a sum that would wrap is refused whole. */
	hist_free(&h);
	cr_assert_eq(hist_add(&h, UINT64_MAX), 0);
	cr_expect_eq(hist_quantile(&h, 0.999), UINT64_MAX);
	cr_expect_eq(hist_add(&h, 1), -EOVERFLOW);
	cr_expect_eq(h.count, 1);
	cr_expect_eq(h.min, UINT64_MAX);
	hist_free(&h);
}

Test(metrics, merge_equals_the_histogram_of_the_union)
{
	struct hist a = { 0 }, b = { 0 }, u = { 0 }, e = { 0 };

	seed = 11;
	for (int i = 0; i < 5000; i++) {
		uint64_t x = rnd_in(50, 5000000), y = rnd_in(1000, 900000000);

		cr_assert_eq(hist_add(&a, x), 0);
		cr_assert_eq(hist_add(&u, x), 0);
		cr_assert_eq(hist_add(&b, y), 0);
		cr_assert_eq(hist_add(&u, y), 0);
	}
	cr_assert_eq(hist_add(&b, 3), 0);	/* b holds the min */
	cr_assert_eq(hist_add(&u, 3), 0);
	cr_assert_eq(hist_merge(&a, &e), 0, "an empty source");
	cr_assert_eq(hist_merge(&e, &a), 0, "into an empty destination");
	cr_assert_eq(hist_merge(&e, &b), 0);
	cr_assert_eq(hist_merge(&a, &b), 0);
	for (int k = 0; k < 2; k++) {
		struct hist *m = k ? &e : &a;

		cr_expect_eq(m->count, u.count);
		cr_expect_eq(m->sum, u.sum);
		cr_expect_eq(m->min, u.min);
		cr_expect_eq(m->max, u.max);
		cr_expect_eq(memcmp(m->b, u.b, HIST_BUCKETS * sizeof(*u.b)), 0,
			     "buckets differ");
		cr_expect_eq(hist_quantile(m, 0.99), hist_quantile(&u, 0.99));
	}
	hist_free(&a);
	hist_free(&b);
	hist_free(&u);
	hist_free(&e);
}

Test(metrics, metrics_merge_by_name)
{
	struct metrics a = { 0 }, b = { 0 };
	struct op_stat *o;

	a.seconds = 2;
	b.seconds = 3.5;
	o = metrics_op(&a, "read");
	cr_assert_not_null(o);
	o->bytes = 100;
	cr_assert_eq(hist_add(&o->lat, 10), 0);
	cr_assert_eq(metrics_count(&a, "files", 2), 0);
	o = metrics_op(&b, "write");
	cr_assert_not_null(o);
	cr_assert_eq(hist_add(&o->lat, 20), 0);
	o = metrics_op(&b, "read");
	cr_assert_not_null(o);
	o->bytes = 50;
	cr_assert_eq(hist_add(&o->lat, 30), 0);
	cr_assert_eq(metrics_count(&b, "files", 0.5), 0);
	cr_assert_eq(metrics_count(&b, "dirs", 1), 0);

	cr_assert_eq(metrics_merge(&a, &b), 0);
	cr_expect_eq(a.n_ops, 2);
	cr_expect_str_eq(a.ops[0].name, "read");
	cr_expect_eq(a.ops[0].bytes, 150);
	cr_expect_eq(a.ops[0].lat.count, 2);
	cr_expect_eq(a.ops[0].lat.sum, 40);
	cr_expect_str_eq(a.ops[1].name, "write");
	cr_expect_eq(a.ops[1].lat.max, 20);
	cr_expect_eq(a.n_counters, 2);
	cr_expect_float_eq(a.counters[0].value, 2.5, 1e-12);
	cr_expect_str_eq(a.counters[1].name, "dirs");
	cr_expect_float_eq(a.seconds, 3.5, 0);
	b.seconds = 1;
	cr_assert_eq(metrics_merge(&a, &b), 0);
	cr_expect_float_eq(a.seconds, 3.5, 0, "seconds is the longest");
	cr_expect_eq(a.ops[0].lat.count, 3);
	metrics_free(&a);
	metrics_free(&b);
	cr_expect_null(a.ops);
	cr_expect_eq(a.n_ops, 0);
}

Test(metrics, names_are_checked)
{
	struct metrics m = { 0 };
	struct op_stat *o;

	o = metrics_op(&m, "w.time-1_x");
	cr_assert_not_null(o);
	cr_expect_eq(metrics_op(&m, "w.time-1_x"), o, "made twice");
	cr_expect_null(metrics_op(&m, ""));
	cr_expect_null(metrics_op(&m, "two words"));
	cr_expect_null(metrics_op(&m, "a/b"));
	cr_expect_null(metrics_op(&m, "abcdefghijabcdefghijabcdefghij12"));
	cr_expect_eq(errno, EINVAL);
	cr_expect_not_null(metrics_op(&m, "abcdefghijabcdefghijabcdefghij1"));
	cr_expect_eq(metrics_count(&m, "x y", 1), -EINVAL);
	cr_expect_eq(metrics_count(&m, "n", NAN), -EINVAL);
	cr_expect_eq(metrics_count(&m, "n", 1e308), 0);
	cr_expect_eq(metrics_count(&m, "n", 1e308), -EOVERFLOW);
	for (int i = 0; i < 100; i++) {		/* growth keeps them */
		char name[16];

		snprintf(name, sizeof(name), "op%d", i);
		cr_assert_not_null(metrics_op(&m, name));
	}
	cr_expect_eq(m.n_ops, 102);
	cr_expect_str_eq(m.ops[0].name, "w.time-1_x");
	cr_expect_str_eq(m.ops[101].name, "op99");
	metrics_free(&m);
}

Test(metrics, share_above)
{
	static uint64_t v[100000];
	struct hist h = { 0 };
	uint64_t thr[] = { 2000000000ull, 1000000000ull, 12345678, 777,
			   9999999999ull };

	/* Under 128 ns every bucket is one value wide: exact. */
	for (uint64_t x = 1; x <= 100; x++)
		cr_assert_eq(hist_add(&h, x), 0);
	for (uint64_t t = 0; t <= 101; t++)
		cr_expect_float_eq(hist_share_above(&h, t),
				   t >= 100 ? 0 : (100 - t) / 100.0, 1e-12,
				   "above %llu", (unsigned long long)t);
	hist_free(&h);

	/* tiobench's % > 2 s and > 10 s, no value near a threshold. */
	for (int i = 0; i < 500; i++) {
		cr_assert_eq(hist_add(&h, 1000000), 0);
		cr_assert_eq(hist_add(&h, i < 50 ? 11000000000ull :
					  3000000000ull), 0);
	}
	cr_expect_float_eq(hist_share_above(&h, 2000000000ull), 0.5, 1e-12);
	cr_expect_float_eq(hist_share_above(&h, 10000000000ull), 0.05, 1e-12);
	cr_expect_float_eq(hist_share_above(&h, 999999), 1, 0);
	cr_expect_float_eq(hist_share_above(&h, 11000000000ull), 0, 0);
	hist_free(&h);

	/*
	 * One bucket 2^24 ns wide, 64 values evenly over its upper half:
	 * interpolated over [min, max], not over the whole bucket.
	 */
	for (uint64_t k = 0; k < 64; k++)
		cr_assert_eq(hist_add(&h, (1ull << 30) + (1ull << 23) +
					  (k << 17)), 0);
	cr_expect_eq(h.b[25u << HIST_SUB_BITS], 64, "not one bucket");
	cr_expect_float_eq(hist_share_above(&h, (1ull << 30) + (1ull << 23) +
						(32ull << 17)),
			   31 / 64.0, 0.01);
	hist_free(&h);

	/* Random values: off by at most the values next to the threshold. */
	seed = 5;
	for (size_t i = 0; i < N_OF(v); i++)
		v[i] = rnd_in(1, 10000000000ull);
	fill(&h, v, N_OF(v));
	for (size_t j = 0; j < N_OF(thr); j++) {
		size_t above = 0, near = 0;
		double got = hist_share_above(&h, thr[j]), want;

		for (size_t i = 0; i < N_OF(v); i++) {
			above += v[i] > thr[j];
			near += v[i] + thr[j] / 64 >= thr[j] &&
				v[i] <= thr[j] + thr[j] / 64;
		}
		want = (double)above / N_OF(v);
		cr_expect_leq(fabs(got - want), (double)near / N_OF(v) + 1e-12,
			      "above %llu: %g, want %g",
			      (unsigned long long)thr[j], got, want);
	}
	hist_free(&h);
}

/* ---- wire format -------------------------------------------------------- */

struct got {
	int n;
	char name[4][32];
	double v[4];
	char unit[4][32];
};

static void on_report(void *ctx, const char *name, double v,
		      const char *unit)
{
	struct got *g = ctx;

	if (g->n < 4) {
		snprintf(g->name[g->n], sizeof(g->name[0]), "%s", name);
		snprintf(g->unit[g->n], sizeof(g->unit[0]), "%s", unit);
		g->v[g->n] = v;
	}
	g->n++;
}

static void sample(struct metrics *m)
{
	struct op_stat *o;

	memset(m, 0, sizeof(*m));
	m->seconds = 1.0 / 3;
	o = metrics_op(m, "read");
	cr_assert_not_null(o);
	o->bytes = 123456789012ull;
	seed = 9;
	for (int i = 0; i < 3000; i++)
		cr_assert_eq(hist_add(&o->lat, rnd_in(0, 50000000)), 0);
	cr_assert_eq(hist_add(&o->lat, 1ull << 55), 0);
	cr_assert_not_null(metrics_op(m, "idle"));	/* no ops at all */
	o = metrics_op(m, "fsync");
	cr_assert_not_null(o);
	cr_assert_eq(hist_add(&o->lat, 5), 0);
	cr_assert_eq(metrics_count(m, "files", 4096), 0);
	cr_assert_eq(metrics_count(m, "ratio", -0.1), 0);
	cr_assert_eq(metrics_count(m, "tiny", 5e-324), 0);
}

static void expect_same(const struct metrics *a, const struct metrics *b)
{
	cr_expect_eq(memcmp(&a->seconds, &b->seconds, sizeof(double)), 0);
	cr_assert_eq(a->n_ops, b->n_ops);
	for (int i = 0; i < a->n_ops; i++) {
		const struct op_stat *x = &a->ops[i], *y = &b->ops[i];

		cr_expect_str_eq(x->name, y->name);
		cr_expect_eq(x->bytes, y->bytes);
		cr_expect_eq(x->lat.count, y->lat.count);
		cr_expect_eq(x->lat.sum, y->lat.sum);
		cr_expect_eq(x->lat.min, y->lat.min);
		cr_expect_eq(x->lat.max, y->lat.max);
		cr_expect_eq(!x->lat.b, !y->lat.b);
		if (x->lat.b && y->lat.b)
			cr_expect_eq(memcmp(x->lat.b, y->lat.b,
					    HIST_BUCKETS * sizeof(uint32_t)),
				     0, "%s: buckets differ", x->name);
	}
	cr_assert_eq(a->n_counters, b->n_counters);
	for (int i = 0; i < a->n_counters; i++) {
		cr_expect_str_eq(a->counters[i].name, b->counters[i].name);
		cr_expect_eq(memcmp(&a->counters[i].value,
				    &b->counters[i].value, sizeof(double)), 0,
			     "%s", a->counters[i].name);
	}
}

Test(metrics, wire_format_is_sparse_text)
{
	struct metrics m = { 0 };
	struct op_stat *o = metrics_op(&m, "read");
	size_t len;
	char *t;

	cr_assert_not_null(o);
	m.seconds = 1.5;
	o->bytes = 4096;
	cr_assert_eq(hist_add(&o->lat, 5), 0);
	cr_assert_eq(hist_add(&o->lat, 100), 0);
	cr_assert_eq(hist_add(&o->lat, 5), 0);
	cr_assert_eq(hist_add(&o->lat, 1000), 0);
	cr_assert_eq(metrics_count(&m, "files", 3), 0);
	t = metrics_encode(&m, NULL, 0, &len);
	cr_assert_not_null(t);
	cr_expect_str_eq(t, "M seconds 1.5\n"
			    "O read 4096\n"
			    "H read 4 1110 5 1000 5:2 100:1 317:1\n"
			    "C files 3\n"
			    "END\n");
	cr_expect_eq(len, strlen(t));
	free(t);
	metrics_free(&m);
}

Test(metrics, encode_decode_round_trip)
{
	struct metrics m, d = { 0 }, again = { 0 };
	struct got g = { 0 };
	size_t len, tlen;
	char *t, *full;

	sample(&m);
	t = metrics_encode(&m, NULL, 0, &len);
	cr_assert_not_null(t);
	tlen = len;
	cr_assert_eq(metrics_decode(&d, t, len, NULL, NULL), 0);
	expect_same(&m, &d);

	/* report() values come through, wherever they are before END. */
	full = malloc(len + 64);
	cr_assert_not_null(full);
	len = (size_t)sprintf(full, "R bonnie.putc_kps 812.25 KiB/s\n%.*s",
			      (int)len, t);
	memcpy(full + len - 4, "R x -1e-3\nEND\n", 15);
	len += 10;
	cr_assert_eq(metrics_decode(&again, full, len, on_report, &g), 0);
	expect_same(&m, &again);
	cr_expect_eq(g.n, 2);
	cr_expect_str_eq(g.name[0], "bonnie.putc_kps");
	cr_expect_float_eq(g.v[0], 812.25, 0);
	cr_expect_str_eq(g.unit[0], "KiB/s");
	cr_expect_str_eq(g.name[1], "x");
	cr_expect_float_eq(g.v[1], -0.001, 0);
	cr_expect_str_eq(g.unit[1], "");

	/* Into a non-empty m: merged. */
	cr_assert_eq(metrics_decode(&d, t, tlen, NULL, NULL), 0);
	cr_expect_eq(d.ops[0].lat.count, 2 * m.ops[0].lat.count);
	cr_expect_eq(d.ops[0].bytes, 2 * m.ops[0].bytes);

	/* "END" without its newline is whole too. */
	metrics_free(&again);
	cr_assert_eq(metrics_decode(&again, t, tlen - 1, NULL, NULL), 0);
	free(full);
	free(t);
	metrics_free(&m);
	metrics_free(&d);
	metrics_free(&again);
}

static int reports;

static void count_report(void *ctx, const char *name, double v,
			 const char *unit)
{
	(void)ctx;
	(void)name;
	(void)v;
	(void)unit;
	reports++;
}

Test(metrics, malformed_reports_are_refused)
{
	static const char *const bad[] = {
		"",
		"M seconds 1\n",				/* no END */
		"M seconds 1\nO read 5\nH read 1 7 7 7 7:1",	/* torn */
		"END\nO read 5\n",				/* after END */
		"END\nx",
		"END\n\n",
		"END\nEND\n",
		"\nEND\n",					/* empty line */
		"END \n",
		"M seconds 1\r\nEND\n",
		"M seconds -1\nEND\n",
		"M seconds nan\nEND\n",
		"M seconds inf\nEND\n",
		"M seconds 1e999\nEND\n",
		"M seconds 0x10\nEND\n",
		"M seconds  1\nEND\n",
		"M seconds 1 \nEND\n",
		" M seconds 1\nEND\n",
		"M seconds 1\nM seconds 2\nEND\n",
		"M minutes 1\nEND\n",
		"M seconds\nEND\n",
		"M seconds 1 2\nEND\n",
		"X foo 1\nEND\n",
		"O re/ad 5\nEND\n",				/* bad names */
		"O re\tad 5\nEND\n",
		"O 0123456789abcdef0123456789abcdef 5\nEND\n",
		"O r\xc3\xa9 5\nEND\n",
		"O read -5\nEND\n",				/* numbers */
		"O read +5\nEND\n",
		"O read 5x\nEND\n",
		"O read 18446744073709551616\nEND\n",
		"O read 1.5\nEND\n",
		"O read\nEND\n",
		"O read 5\nO read 6\nEND\n",			/* twice */
		"H read 1 7 7 7 7:1\nEND\n",			/* no O */
		"O read 0\nH read 1 7 7 7 7:1\nH read 1 7 7 7 7:1\nEND\n",
		"O read 0\nH read 1 7 7 7 2752:1\nEND\n",	/* index */
		"O read 0\nH read 1 7 7 7 99999999999999999999:1\nEND\n",
		"O read 0\nH read 4294967296 7 7 7 7:4294967296\nEND\n",
		"O read 0\nH read 18446744073709551616 0 0 0\nEND\n",
		"O read 0\nH read 2 14 7 7 7:1\nEND\n",	/* sum of buckets */
		"O read 0\nH read 1 7 7 7 7:2\nEND\n",
		"O read 0\nH read 2 14 7 7 7:1 7:1\nEND\n",	/* twice */
		"O read 0\nH read 2 17 7 10 10:1 7:1\nEND\n",	/* order */
		"O read 0\nH read 1 7 7 7 7:0 7:1\nEND\n",
		"O read 0\nH read 1 7 7 7 7\nEND\n",
		"O read 0\nH read 1 7 7 7 :1\nEND\n",
		"O read 0\nH read 1 7 7 7 7:\nEND\n",
		"O read 0\nH read 1 7 7 7 7:1:1\nEND\n",
		"O read 0\nH read 1 7 7 7 -7:1\nEND\n",
		"O read 0\nH read 1 7 8 8 7:1\nEND\n",		/* min, max */
		"O read 0\nH read 2 17 10 7 7:1 10:1\nEND\n",
		"O read 0\nH read 2 18 7 10 7:1 10:1\nEND\n",	/* sum */
		"O read 0\nH read 3 16 7 10 7:2 10:1\nEND\n",
		"O read 0\nH read 3 28 7 10 7:1 10:2\nEND\n",
		"O read 0\nH read 4 30 7 10 7:3 10:1\nEND\n",
		"O read 0\nH read 0 1 0 0\nEND\n",
		"O read 0\nH read 1 7 7 7\nEND\n",
		"O read 0\nH read 1 7 7\nEND\n",
		"C files 1\nC files 2\nEND\n",
		"C files inf\nEND\n",
		"C files 1e400\nEND\n",
		"C files\nEND\n",
		"C files 1 1\nEND\n",
		"R x\nEND\n",
		"R x 1\n",
		"R x nan\nEND\n",
		"R x 1 a,b\nEND\n",		/* a unit breaks no row */
		"R x 1 KiB/s more\nEND\n",
		"R x 1\nO read 0\nH read 1 7 7 7 8:1\nEND\n",
		"O read 0\nH read 3 24 7 10 7:1 10:1 7:0\nEND\n",
		"O read 0\nH read 3 24 7 10 7:0 10:1\nEND\n",
	};
	static const char nul[] = "O read 0\n\0END\n";

	for (size_t i = 0; i < N_OF(bad); i++) {
		struct metrics m = { 0 };

		reports = 0;
		cr_expect_eq(metrics_decode(&m, bad[i], strlen(bad[i]),
					    count_report, NULL), -1,
			     "accepted: \"%s\"", bad[i]);
		cr_expect_eq(reports, 0, "reported from: \"%s\"", bad[i]);
		cr_expect_null(m.ops, "m changed by: \"%s\"", bad[i]);
		cr_expect_null(m.counters);
		metrics_free(&m);
	}
	{
		struct metrics m = { 0 };

		cr_expect_eq(metrics_decode(&m, nul, sizeof(nul) - 1, NULL,
					    NULL), -1, "NUL byte");
		cr_expect_eq(metrics_decode(&m, NULL, 0, NULL, NULL), -1);
	}
}

/* And the close calls that must pass. */
Test(metrics, decode_accepts_what_is_consistent)
{
	static const char *const good[] = {
		"END\n",
		"END",
		"O read 0\nEND\n",
		"O read 0\nH read 0 0 0 0\nEND\n",
		"O read 0\nH read 2 17 7 10 7:1 10:1\nEND\n",
		"O read 0\nH read 3 27 7 10 7:1 10:2\nEND\n",
		"O a 1\nO b 2\nC x 1e-300\nR r -0\nM seconds 0\nEND\n",
		"O read 0\nH read 1 100 100 100 100:1\nEND\n",
		"O read 0\nH read 2 2001 1000 1001 317:2\nEND\n",
	};

	for (size_t i = 0; i < N_OF(good); i++) {
		struct metrics m = { 0 };

		cr_expect_eq(metrics_decode(&m, good[i], strlen(good[i]), NULL,
					    NULL), 0, "refused \"%s\"",
			     good[i]);
		metrics_free(&m);
	}
}

/* n lines of fmt (with the line number twice), then END. */
static char *repeat(const char *fmt, int n, size_t *len)
{
	size_t cap = (size_t)n * (strlen(fmt) + 16) + 8;
	char *t = malloc(cap);

	cr_assert_not_null(t);
	*len = 0;
	for (int i = 0; i < n; i++)
		*len += (size_t)snprintf(t + *len, cap - *len, fmt, i, i);
	*len += (size_t)snprintf(t + *len, cap - *len, "END\n");
	return t;
}

Test(metrics, at_most_4096_names)
{
	static const char *const fmt[] = {
		"O op%d 0\nH op%d 1 9 9 9 9:1\n",
		"C c%d %d\n",
		"R r%d %d\n",
	};
	struct metrics m = { 0 };
	size_t len;
	char *t;

	for (size_t k = 0; k < N_OF(fmt); k++) {
		for (int n = 4097; n >= 4096; n--) {
			t = repeat(fmt[k], n, &len);
			cr_expect_eq(metrics_decode(&m, t, len, NULL, NULL),
				     n == 4096 ? 0 : -1, "%d of \"%s\"", n,
				     fmt[k]);
			free(t);
		}
		metrics_free(&m);
	}
	t = repeat(fmt[0], 4096, &len);
	cr_assert_eq(metrics_decode(&m, t, len, NULL, NULL), 0);
	cr_expect_eq(m.n_ops, 4096);
	cr_expect_str_eq(m.ops[4095].name, "op4095");
	metrics_free(&m);
	free(t);
}

/* Random damage to a good report: refused or taken, never a crash or a
 * leak; whatever is taken encodes and decodes again. */
Test(metrics, damaged_reports_never_crash)
{
	static const char alphabet[] = "0123456789 :\n-+.eEHOCMRENDx\0";
	struct metrics m;
	size_t len, n;
	char *t, *buf;
	int taken = 0;

	sample(&m);
	t = metrics_encode(&m, NULL, 0, &len);
	cr_assert_not_null(t);
	buf = malloc(len + 1);
	cr_assert_not_null(buf);
	seed = 1234;
	for (int it = 0; it < 20000; it++) {
		struct metrics d = { 0 }, e = { 0 };
		char *again;
		size_t alen;

		memcpy(buf, t, len);
		n = len;
		for (int k = (int)(rnd() % 3); k >= 0; k--) {
			size_t at = rnd() % n;

			switch (rnd() % 4) {
			case 0:
			case 1:
				buf[at] = alphabet[rnd() % sizeof(alphabet)];
				break;
			case 2:
				n = at + 1;
				break;
			default:
				memmove(buf + at, buf + at + 1, n - at - 1);
				if (n > 1)
					n--;
			}
		}
		if (metrics_decode(&d, buf, n, NULL, NULL))
			continue;
		taken++;
		again = metrics_encode(&d, NULL, 0, &alen);
		cr_assert_not_null(again);
		cr_expect_eq(metrics_decode(&e, again, alen, NULL, NULL), 0);
		free(again);
		metrics_free(&d);
		metrics_free(&e);
	}
	cr_log_info("damaged reports taken: %d of 20000", taken);
	free(buf);
	free(t);
	metrics_free(&m);
}

/* ---- rows --------------------------------------------------------------- */

struct want_row {
	const char *name;
	double value;
	const char *unit;
};

static void expect_rows(const struct metric_row *r, int n,
			const struct want_row *w, int nw)
{
	cr_expect_eq(n, nw, "%d rows, want %d", n, nw);
	for (int i = 0; i < n && i < nw; i++) {
		cr_expect_str_eq(r[i].name, w[i].name, "row %d", i);
		cr_expect_str_eq(r[i].unit, w[i].unit, "%s", w[i].name);
		cr_expect_float_eq(r[i].value, w[i].value,
				   1e-12 * fmax(1, fabs(w[i].value)),
				   "%s: %.17g, want %.17g", w[i].name,
				   r[i].value, w[i].value);
	}
}

Test(metrics, rows_by_hand)
{
	static const struct want_row want[] = {
		{ "read_ops", 4, "ops" },
		{ "read_bytes", 4194304, "bytes" },
		{ "read_mbs", 2, "MiB/s" },		/* 4 MiB in 2 s */
		{ "read_iops", 2, "ops/s" },
		{ "read_lat_avg_ms", 2.25, "ms" },	/* 9 ms / 4 */
		{ "read_lat_max_ms", 4.5, "ms" },
		{ "read_lat_p50_ms", 1.5, "ms" },	/* rank 2 */
		{ "read_lat_p99_ms", 4.5, "ms" },	/* rank 4 */
		{ "read_lat_p999_ms", 4.5, "ms" },
		{ "read_over_2ms_pct", 25, "%" },
		{ "read_over_0.5ms_pct", 100, "%" },
		{ "read_over_2000ms_pct", 0, "%" },
		{ "fsync_ops", 2, "ops" },
		{ "fsync_iops", 1, "ops/s" },
		{ "fsync_lat_avg_ms", 0.015, "ms" },
		{ "fsync_lat_max_ms", 0.02, "ms" },
		{ "fsync_lat_p50_ms", 0.01, "ms" },
		{ "fsync_lat_p99_ms", 0.02, "ms" },
		{ "fsync_lat_p999_ms", 0.02, "ms" },
		{ "fsync_over_2ms_pct", 0, "%" },
		{ "fsync_over_0.5ms_pct", 0, "%" },
		{ "fsync_over_2000ms_pct", 0, "%" },
		{ "idle_ops", 0, "ops" },
		{ "idle_bytes", 10485760, "bytes" },
		{ "idle_mbs", 5, "MiB/s" },
		{ "idle_iops", 0, "ops/s" },
		{ "files", 12, "" },
		{ "ratio", -0.25, "" },
	};
	static const double thr[] = { 2, 0.5, 2000 };
	struct metrics m = { 0 };
	struct op_stat *o;
	struct metric_row *r;
	int n;

	m.seconds = 2;
	o = metrics_op(&m, "read");
	cr_assert_not_null(o);
	o->bytes = 4 << 20;
	for (int i = 0; i < 3; i++)
		cr_assert_eq(hist_add(&o->lat, 1500000), 0);
	cr_assert_eq(hist_add(&o->lat, 4500000), 0);
	o = metrics_op(&m, "fsync");
	cr_assert_not_null(o);
	cr_assert_eq(hist_add(&o->lat, 10000), 0);
	cr_assert_eq(hist_add(&o->lat, 20000), 0);
	o = metrics_op(&m, "idle");
	cr_assert_not_null(o);
	o->bytes = 10 << 20;
	cr_assert_eq(metrics_count(&m, "files", 12), 0);
	cr_assert_eq(metrics_count(&m, "ratio", -0.25), 0);

	r = metrics_rows(&m, thr, N_OF(thr), &n);
	cr_assert_not_null(r);
	expect_rows(r, n, want, N_OF(want));
	free(r);

	/* No wall time: no rates. */
	m.seconds = 0;
	r = metrics_rows(&m, NULL, 0, &n);
	cr_assert_not_null(r);
	cr_expect_eq(n, 2 + 5 + 1 + 5 + 2 + 2);
	for (int i = 0; i < n; i++) {
		cr_expect_null(strstr(r[i].name, "mbs"), "%s", r[i].name);
		cr_expect_null(strstr(r[i].name, "iops"), "%s", r[i].name);
	}
	free(r);

	/* Thresholds that mean nothing are refused. */
	{
		static const double neg[] = { -1 }, nan_[] = { NAN };

		cr_expect_null(metrics_rows(&m, neg, 1, &n));
		cr_expect_null(metrics_rows(&m, nan_, 1, &n));
		cr_expect_null(metrics_rows(&m, NULL, 1, &n));
	}
	metrics_free(&m);
}

Test(metrics, rows_of_nothing)
{
	struct metrics m = { 0 };
	struct metric_row *r;
	int n = -1;

	r = metrics_rows(&m, NULL, 0, &n);
	cr_assert_not_null(r);
	cr_expect_eq(n, 0);
	free(r);
}

/* A failure crosses whole: kind, errno, place, a message with newlines
 * and a detail of 64 KiB come back as they went, after the lines before
 * them and before those after. */
Test(metrics, a_failure_record_round_trips_whole)
{
	struct diag d = { 0 }, back = { 0 };
	struct strbuf why = { 0 }, text = { 0 };
	size_t len, big = 64u << 10;
	char *rec, *detail = malloc(big + 1);

	cr_assert_not_null(detail);
	for (size_t i = 0; i < big; i++)
		detail[i] = i % 100 == 99 ? '\n' : (char)('a' + i % 26);
	detail[0] = 'E';	/* a detail line may look like a record */
	detail[1] = ' ';
	detail[big] = '\0';
	diag_set(&d, "/plans/plan.yaml", "a\nb\nc\nd\ne\nf\ng\nh\n"
		 "    with: {n: 2}\n", (struct pos){ 9, 20 },
		 "setup: n: not 2\nsecond line\nE 1 2");
	d.kind = DIAG_LIMIT;
	d.err = ENOSPC;
	diag_detail(&d, detail);
	rec = metrics_diag_encode(&d, &len);
	cr_assert_not_null(rec);
	strbuf_str(&text, "P a 1 x\n");
	strbuf_add(&text, rec, len);
	strbuf_str(&text, "P b 2 y\n");
	cr_assert_eq(metrics_diag_decode(text.p, text.len, &back), 1);
	cr_expect_eq(back.kind, DIAG_LIMIT);
	cr_expect_eq(back.err, ENOSPC);
	cr_expect_eq(back.pos.line, 9);
	cr_expect_eq(back.pos.col, 20);
	cr_expect_str_eq(back.file, "/plans/plan.yaml");
	cr_expect_str_eq(back.msg, d.msg);
	cr_expect_str_eq(back.srcline, "    with: {n: 2}");
	cr_assert_eq(back.detail.len, big);
	cr_expect_eq(memcmp(back.detail.p, detail, big), 0);
	/* the reason: the place, then the detail's first line, whole */
	cr_assert_eq(metrics_diag_reason(&back, &why), 0);
	cr_expect_eq(strncmp(why.p, "/plans/plan.yaml:9:20: E ", 25), 0,
		     "%.60s", why.p);
	cr_expect_eq(why.len, 23 + 99, "%zu", why.len);
	/* none, torn, or lying about its lengths: never taken */
	diag_release(&back);
	cr_expect_eq(metrics_diag_decode("P a 1 x\n", 8, &back), 0);
	cr_expect_eq(metrics_diag_decode(rec, len - 1, &back), -1);
	cr_expect_eq(metrics_diag_decode("E phase 0 0 0 0 5 0 0\nabc\n", 26,
					 &back), -1);
	cr_expect_eq(metrics_diag_decode("E fire 0 0 0 0 3 0 0\nabc\n", 25,
					 &back), -1);
	cr_expect_eq(metrics_diag_decode("E phase 0 0 0 0 3 0 0\nabc\n", 26,
					 &back), 1);
	cr_expect_str_eq(back.msg, "abc");
	diag_release(&back);
	free(rec);
	free(text.p);
	free(why.p);
	free(detail);
	diag_release(&d);
}

/* The metrics and the report() values go in one text, ending it. */
Test(metrics, encode_carries_report_values_before_end)
{
	struct metrics m = { .seconds = 2 }, back = { 0 };
	const struct metric_row rep[] = {
		{ "ops_per_s", 12.5, "1/s" }, { "plain", 3, NULL },
	};
	const struct metric_row bad = { "-no", 1, NULL };
	struct got g = { 0 };
	size_t len;
	char *t = metrics_encode(&m, rep, 2, &len);

	cr_assert_not_null(t);
	cr_expect_str_eq(t, "M seconds 2\nR ops_per_s 12.5 1/s\nR plain 3\n"
			    "END\n");
	cr_assert_eq(metrics_decode(&back, t, len, on_report, &g), 0);
	cr_expect_eq(g.n, 2);
	free(t);
	errno = 0;
	cr_expect_null(metrics_encode(&m, &bad, 1, &len));
	cr_expect_eq(errno, EINVAL);
	metrics_free(&back);
}
