/* metrics: per-op histograms and counters, merged, and the result rows. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/csv.h"
#include "results/metrics.h"

/* ---- histogram ---------------------------------------------------------- */

/*
 * Besides -ENOMEM, -EOVERFLOW when the value's bucket already holds
 * UINT32_MAX values or the sum would wrap: nothing is recorded then, so
 * count always equals the sum of the buckets, which the decoder checks.
 */
int hist_add_other(struct hist *h, uint64_t ns)
{
	unsigned int i = hist_index(ns);

	if (!h->b) {
		h->b = calloc(HIST_BUCKETS, sizeof(*h->b));
		if (!h->b)
			return -ENOMEM;
	}
	if (h->b[i] == UINT32_MAX || h->sum > UINT64_MAX - ns)
		return -EOVERFLOW;
	h->b[i]++;
	if (!h->count || ns < h->min)
		h->min = ns;
	if (!h->count || ns > h->max)
		h->max = ns;
	h->count++;
	h->sum += ns;
	return 0;
}

/* 0, -ENOMEM or -EOVERFLOW; dst is unchanged on failure. */
int hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned int i;

	if (!src->count || !src->b)
		return 0;
	if (dst->count > UINT64_MAX - src->count ||
	    dst->sum > UINT64_MAX - src->sum)
		return -EOVERFLOW;
	if (dst->b) {
		for (i = 0; i < HIST_BUCKETS; i++)
			if (dst->b[i] > UINT32_MAX - src->b[i])
				return -EOVERFLOW;
	} else {
		dst->b = calloc(HIST_BUCKETS, sizeof(*dst->b));
		if (!dst->b)
			return -ENOMEM;
	}
	for (i = 0; i < HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (!dst->count || src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	return 0;
}

/*
 * The value of rank ceil(q * count) (1-based, at least 1), as sorting
 * would give it, within half a bucket: under 1/128 relative. Ranks 1 and
 * count are min and max, known exactly.
 */
uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, cum = 0, lo, hi, mid;
	unsigned int i;

	if (!h->count || !h->b)
		return 0;
	if (!(q > 0))		/* NaN too */
		return h->min;
	if (q >= 1)
		return h->max;
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank <= 1)
		return h->min;
	if (rank >= h->count)
		return h->max;
	for (i = 0; i < HIST_BUCKETS; i++) {
		cum += h->b[i];
		if (cum >= rank)
			break;
	}
	if (i == HIST_BUCKETS)		/* buckets short of count: not ours */
		return h->max;
	loglin_range(i, HIST_SUB_BITS, &lo, &hi);
	mid = lo + (hi - lo) / 2;
	if (mid < h->min)
		return h->min;
	return mid > h->max ? h->max : mid;
}

/*
 * Buckets wholly above ns count in full, those at or below not at all.
 * The one bucket holding ns counts by the share of its integer values
 * above ns, as if its values were spread evenly over its range narrowed
 * to [min, max]. So the error is at most the share of values in that one
 * bucket (about 1% of ns wide), and the result is exact when no value
 * shares ns's bucket, when ns < 128 (buckets of width 1), or when ns is
 * below min or at or above max.
 */
double hist_share_above(const struct hist *h, uint64_t ns)
{
	uint64_t lo, hi;
	unsigned int i = hist_index(ns), j;
	double above = 0;

	if (!h->count || !h->b || ns >= h->max)
		return 0;
	if (ns < h->min)
		return 1;
	loglin_range(i, HIST_SUB_BITS, &lo, &hi);
	if (i == HIST_BUCKETS - 1 && hi < h->max)
		hi = h->max;		/* it holds the values beyond, too */
	if (lo < h->min)
		lo = h->min;
	if (hi > h->max)
		hi = h->max;
	/* min <= ns < max, so lo <= ns <= hi */
	above = h->b[i] * ((double)(hi - ns) / ((double)(hi - lo) + 1));
	for (j = i + 1; j < HIST_BUCKETS; j++)
		above += h->b[j];
	return above / (double)h->count;
}

void hist_free(struct hist *h)
{
	free(h->b);
	memset(h, 0, sizeof(*h));
}

/* ---- ops and counters --------------------------------------------------- */

int metrics_name_ok(const char *s, size_t n)
{
	return n <= METRICS_NAME_LEN && metrics_metric_name_ok(s, n);
}

int metrics_metric_name_ok(const char *s, size_t n)
{
	size_t k;

	/* a leading - would make a spreadsheet formula of the row's
	 * metric column (csv_formula) */
	if (!n || n > METRICS_METRIC_LEN || s[0] == '-')
		return 0;
	for (k = 0; k < n; k++) {
		char c = s[k];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == '-'))
			return 0;
	}
	return 1;
}

int metrics_unit_ok(const char *s, size_t n)
{
	if (n < 1 || n > 31)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isgraph((unsigned char)s[i]) || s[i] == ',' || s[i] == '"')
			return 0;
	return 1;
}

/*
 * What sink.c (process, measured, status, steady rows), the sampler
 * (root's series: cpu_pct, dev_*, dirty_mib, ...), conf.c (a config's
 * mkfs_s, mount_s, umount_s, _<volume> too), luaphase.c (rss_peak_kib) and
 * metrics_rows (<op>_path) write: a module's row under one of these
 * names would stand for fsplan's own figure. "x*" is a prefix, "*x" a
 * suffix. cpu_ and ram_ are the names fsplan writes, not prefixes: the
 * library's tiobench reports cpu_eff (its CPU Eff), bonnie ram_given.
 */
static const char *const reserved[] = {
	"status", "exit_status", "signal", "seconds", "cpu_user_s",
	"cpu_sys_s", "cpu_pct", "dev_*", "write_amp*", "fs_used_bytes*",
	"ram_mib", "ram_limit", METRICS_RSS_PEAK,
	"memory_peak_bytes", "load_1m", "others_*", "steal_*", "reps_run",
	"stop_reason", "loop_io", "mkfs_s*", "mount_s*", "umount_s*",
	"*_path",
	/* root's own series (timeseries.csv) and the steady rows */
	"dirty_mib", "writeback_mib", "cgroup_mib", "steady", "steady_*",
	"*_steady",
};

const char *metrics_reserved(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
		const char *p = reserved[i];
		size_t pl = strlen(p) - 1;

		if (p[0] == '*' ? n >= pl && !strcmp(name + n - pl, p + 1) :
		    p[pl] == '*' ? !strncmp(name, p, pl) : !strcmp(name, p))
			return p;
	}
	return NULL;
}

int metrics_refuse(const char *name, double v, const char *unit,
		   struct diag *d)
{
	if (metrics_reserved(name))
		return diag_fail(d, DIAG_PHASE, 0, "'%s' is a row fsplan "
				 "writes itself", name);
	if (!isfinite(v))
		return diag_fail(d, DIAG_PHASE, 0, "value of '%s' is %s: a "
				 "result must be a finite number", name,
				 isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
	if (unit && csv_formula(unit))
		return diag_fail(d, DIAG_PHASE, 0, "unit of '%s' ('%s') could "
				 "start a spreadsheet formula: a unit must not "
				 "begin with = + - or @", name, unit);
	return 0;
}

int metrics_op_refuse(const char *op, struct diag *d)
{
	/* every pattern but *_path is a whole name or a prefix, so an op's
	 * _ops row meets the prefixes and its _bytes row the one whole
	 * name that ends as an op's row does (memory_peak_bytes) */
	static const char *const suffix[] = { "_ops", "_bytes" };
	char row[METRICS_METRIC_LEN + 1];

	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		const char *p;

		snprintf(row, sizeof(row), "%.31s%s", op, suffix[i]);
		p = metrics_reserved(row);
		if (p && strcmp(p, "*_path"))
			return diag_fail(d, DIAG_PHASE, 0, "op '%s': its row "
					 "'%s' is one fsplan writes itself", op,
					 row);
	}
	return 0;
}

/*
 * arr, holding n elements of size sz, with room for one more, or NULL
 * (arr untouched). Arrays grow to powers of two from 4, so n alone tells
 * the capacity: struct metrics has no field for it. That is why these
 * arrays must only ever grow through here.
 */
void *metrics_grow(void *arr, int n, size_t sz)
{
	if (n > 0 && (n < 4 || (n & (n - 1))))
		return arr;
	if (n >= INT_MAX / 2)
		return NULL;
	return realloc(arr, (n ? 2 * (size_t)n : 4) * sz);
}

struct op_stat *metrics_find_op(const struct metrics *m, const char *name)
{
	int i;

	for (i = 0; i < m->n_ops; i++)
		if (!strcmp(m->ops[i].name, name))
			return &m->ops[i];
	return NULL;
}

struct counter *metrics_find_counter(const struct metrics *m,
				    const char *name)
{
	int i;

	for (i = 0; i < m->n_counters; i++)
		if (!strcmp(m->counters[i].name, name))
			return &m->counters[i];
	return NULL;
}

/*
 * Adding an op may move the array: a pointer from here is good until the
 * next call that makes a new op in m. NULL with errno EINVAL for a name
 * the wire format cannot carry (not [A-Za-z0-9_.-]{1,31}), ENOMEM.
 */
struct op_stat *metrics_op(struct metrics *m, const char *name)
{
	struct op_stat *o = metrics_find_op(m, name);
	size_t n = strlen(name);

	if (o)
		return o;
	if (!metrics_name_ok(name, n)) {
		errno = EINVAL;
		return NULL;
	}
	o = metrics_grow(m->ops, m->n_ops, sizeof(*m->ops));
	if (!o) {
		errno = ENOMEM;
		return NULL;
	}
	m->ops = o;
	o = &m->ops[m->n_ops++];
	memset(o, 0, sizeof(*o));
	memcpy(o->name, name, n + 1);
	return o;
}

/* Adds n to the counter name (made at 0): 0, -EINVAL (bad name, n not
 * finite), -EOVERFLOW (the sum would not be finite) or -ENOMEM. */
int metrics_count(struct metrics *m, const char *name, double n)
{
	struct counter *c = metrics_find_counter(m, name);
	size_t len = strlen(name);

	if (!isfinite(n))
		return -EINVAL;
	if (c) {
		if (!isfinite(c->value + n))
			return -EOVERFLOW;
		c->value += n;
		return 0;
	}
	if (!metrics_name_ok(name, len))
		return -EINVAL;
	c = metrics_grow(m->counters, m->n_counters, sizeof(*m->counters));
	if (!c)
		return -ENOMEM;
	m->counters = c;
	c = &m->counters[m->n_counters++];
	memset(c, 0, sizeof(*c));
	memcpy(c->name, name, len + 1);
	c->value = n;
	return 0;
}

/*
 * 0 or a negative errno. On failure dst may hold part of src: the caller
 * gives up on the run then. dst and src must differ.
 */
int metrics_merge(struct metrics *dst, const struct metrics *src)
{
	int i, err;

	for (i = 0; i < src->n_ops; i++) {
		const struct op_stat *s = &src->ops[i];
		struct op_stat *d = metrics_op(dst, s->name);

		if (!d)
			return -errno;
		if (d->bytes > UINT64_MAX - s->bytes)
			return -EOVERFLOW;
		err = hist_merge(&d->lat, &s->lat);
		if (err)
			return err;
		d->bytes += s->bytes;
		d->ring += s->ring;
		d->sys += s->sys;
	}
	for (i = 0; i < src->n_counters; i++) {
		err = metrics_count(dst, src->counters[i].name,
				    src->counters[i].value);
		if (err)
			return err;
	}
	if (src->seconds > dst->seconds)
		dst->seconds = src->seconds;
	dst->written += src->written;
	return 0;
}

void metrics_free(struct metrics *m)
{
	int i;

	for (i = 0; i < m->n_ops; i++)
		hist_free(&m->ops[i].lat);
	free(m->ops);
	free(m->counters);
	memset(m, 0, sizeof(*m));
}

/* ---- result rows -------------------------------------------------------- */

static int add_row(struct metric_row *r, size_t *k, double value,
		   const char *unit, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(r[*k].name, sizeof(r[*k].name), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(r[*k].name))
		return -1;
	r[*k].value = value;
	r[*k].unit = unit;
	(*k)++;
	return 0;
}

/* Values are whole ns, so v > t exactly when v > floor(t). */
static uint64_t ms_to_ns(double ms)
{
	double ns = floor(ms * 1e6);

	return ns >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)ns;
}

static int op_rows(const struct op_stat *o, double secs, const double *thr,
		   int n_thr, struct metric_row *r, size_t *k)
{
	const struct hist *h = &o->lat;
	const char *nm = o->name;
	int j, e = 0;

	e |= add_row(r, k, (double)h->count, "ops", "%.31s_ops", nm);
	if (o->bytes) {
		e |= add_row(r, k, (double)o->bytes, "bytes", "%.31s_bytes",
			     nm);
		/* MiB/s, the MB of tiobench and bonnie++ (dbench's is
		 * 10^6 bytes: its module converts). */
		if (secs > 0)
			e |= add_row(r, k, (double)o->bytes / 1048576.0 / secs,
				     "MiB/s", "%.31s_mbs", nm);
	}
	if (secs > 0)
		e |= add_row(r, k, (double)h->count / secs, "ops/s",
			     "%.31s_iops", nm);
	/* which path the engine took: all ring, all syscall, or both */
	if (o->ring || o->sys)
		e |= add_row(r, k, (double)o->ring / (double)(o->ring + o->sys),
			     !o->sys ? "ring" : !o->ring ? "syscall" : "mixed",
			     "%.31s_path", nm);
	if (!h->count)		/* no latency of no op; 0 would mislead */
		return e;
	e |= add_row(r, k, (double)h->sum / (double)h->count / 1e6, "ms",
		     "%.31s_lat_avg_ms", nm);
	e |= add_row(r, k, (double)h->max / 1e6, "ms", "%.31s_lat_max_ms", nm);
	e |= add_row(r, k, (double)hist_quantile(h, 0.50) / 1e6, "ms",
		     "%.31s_lat_p50_ms", nm);
	e |= add_row(r, k, (double)hist_quantile(h, 0.99) / 1e6, "ms",
		     "%.31s_lat_p99_ms", nm);
	e |= add_row(r, k, (double)hist_quantile(h, 0.999) / 1e6, "ms",
		     "%.31s_lat_p999_ms", nm);
	for (j = 0; j < n_thr; j++)
		e |= add_row(r, k, 100 * hist_share_above(h,
							  ms_to_ns(thr[j])),
			     "%", "%.31s_over_%gms_pct", nm, thr[j]);
	return e;
}

/* NULL with errno EINVAL for a threshold that is negative or not finite,
 * ENOMEM. Ops without any timed op get no latency rows. */
struct metric_row *metrics_rows(const struct metrics *m, const double *thr_ms,
				int n_thr, int *n)
{
	struct metric_row *r;
	double secs = isfinite(m->seconds) ? m->seconds : 0;
	size_t rows = (size_t)m->n_counters, k = 0;
	int i;

	if (n_thr < 0 || (n_thr && !thr_ms))
		goto inval;
	for (i = 0; i < n_thr; i++)
		if (!isfinite(thr_ms[i]) || thr_ms[i] < 0)
			goto inval;
	for (i = 0; i < m->n_ops; i++) {
		const struct op_stat *o = &m->ops[i];

		rows += 1 + (o->bytes ? 1 + (secs > 0) : 0) + (secs > 0) +
			(o->ring || o->sys);
		if (o->lat.count)
			rows += 5 + (size_t)n_thr;
	}
	r = calloc(rows ? rows : 1, sizeof(*r));
	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < m->n_ops; i++)
		if (op_rows(&m->ops[i], secs, thr_ms, n_thr, r, &k))
			goto bad;
	for (i = 0; i < m->n_counters; i++)
		if (add_row(r, &k, m->counters[i].value, "", "%.31s",
			    m->counters[i].name))
			goto bad;
	*n = (int)k;
	return r;
bad:
	free(r);
inval:
	errno = EINVAL;
	return NULL;
}
