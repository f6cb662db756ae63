/* metrics: per-op histograms and counters: merge, wire format, result rows. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

#define SUB		(1u << HIST_SUB_BITS)	/* buckets in a group */
#define NAME_LEN	31
#define MAX_NAMES	4096	/* per kind (op, counter, report) in a report */
#define TOKEN_MAX	40	/* longer than any number we print */
#define DBL_CHARS	24	/* "%.17g" of any finite double */

/* ---- histogram ---------------------------------------------------------- */

/*
 * Group 0 holds 0 .. 2^SUB_BITS - 1 exactly; group g >= 1 holds the values
 * whose highest bit is g + SUB_BITS - 1, in SUB buckets of width 2^(g-1).
 * The last group ends at 2^(HIST_GROUPS + SUB_BITS) ns; anything above
 * goes to the last bucket, whose range then reaches up to max.
 */
static unsigned int hist_index(uint64_t v)
{
	unsigned int msb, g;

	if (v < SUB)
		return (unsigned int)v;
	msb = 63 - (unsigned int)__builtin_clzll(v);
	g = msb - HIST_SUB_BITS + 1;
	if (g > HIST_GROUPS)
		return HIST_BUCKETS - 1;
	return (g << HIST_SUB_BITS) +
	       (unsigned int)((v >> (msb - HIST_SUB_BITS)) & (SUB - 1));
}

/* The nominal range [lo, hi] of bucket i. */
static void bucket_range(unsigned int i, uint64_t *lo, uint64_t *hi)
{
	unsigned int g = i >> HIST_SUB_BITS;

	if (!g) {
		*lo = *hi = i;
		return;
	}
	*lo = (uint64_t)(SUB + (i & (SUB - 1))) << (g - 1);
	*hi = *lo + ((uint64_t)1 << (g - 1)) - 1;
}

/*
 * Besides -ENOMEM, -EOVERFLOW when the value's bucket already holds
 * UINT32_MAX values or the sum would wrap: nothing is recorded then, so
 * count always equals the sum of the buckets, which the decoder checks.
 */
int hist_add(struct hist *h, uint64_t ns)
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
	bucket_range(i, &lo, &hi);
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
	bucket_range(i, &lo, &hi);
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

static int name_ok(const char *s, size_t n)
{
	size_t k;

	if (!n || n > NAME_LEN)
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

/*
 * arr, holding n elements of size sz, with room for one more, or NULL
 * (arr untouched). Arrays grow to powers of two from 4, so n alone tells
 * the capacity: struct metrics has no field for it. That is why these
 * arrays must only ever grow through here.
 */
static void *grow(void *arr, int n, size_t sz)
{
	if (n > 0 && (n < 4 || (n & (n - 1))))
		return arr;
	if (n >= INT_MAX / 2)
		return NULL;
	return realloc(arr, (n ? 2 * (size_t)n : 4) * sz);
}

static struct op_stat *find_op(const struct metrics *m, const char *name)
{
	int i;

	for (i = 0; i < m->n_ops; i++)
		if (!strcmp(m->ops[i].name, name))
			return &m->ops[i];
	return NULL;
}

static struct counter *find_counter(const struct metrics *m,
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
	struct op_stat *o = find_op(m, name);
	size_t n = strlen(name);

	if (o)
		return o;
	if (!name_ok(name, n)) {
		errno = EINVAL;
		return NULL;
	}
	o = grow(m->ops, m->n_ops, sizeof(*m->ops));
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
	struct counter *c = find_counter(m, name);
	size_t len = strlen(name);

	if (!isfinite(n))
		return -EINVAL;
	if (c) {
		if (!isfinite(c->value + n))
			return -EOVERFLOW;
		c->value += n;
		return 0;
	}
	if (!name_ok(name, len))
		return -EINVAL;
	c = grow(m->counters, m->n_counters, sizeof(*m->counters));
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
	}
	for (i = 0; i < src->n_counters; i++) {
		err = metrics_count(dst, src->counters[i].name,
				    src->counters[i].value);
		if (err)
			return err;
	}
	if (src->seconds > dst->seconds)
		dst->seconds = src->seconds;
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

/* ---- wire format: encoding ---------------------------------------------- */

struct out {
	char *buf;
	size_t cap, len;
	int bad;		/* our size bound was wrong */
};

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->cap - o->len)
		o->bad = 1;
	else
		o->len += (size_t)n;
}

/* Doubles as %.17g, so they read back bit for bit. NULL with errno EINVAL
 * if m holds what the format cannot carry, ENOMEM. */
char *metrics_encode(const struct metrics *m, size_t *len)
{
	struct out o = { 0 };
	unsigned int k;
	int i;

	/* An upper bound first, then one allocation. */
	o.cap = sizeof("M seconds \nEND\n") + DBL_CHARS;
	if (!isfinite(m->seconds) || m->seconds < 0)
		goto inval;
	for (i = 0; i < m->n_ops; i++) {
		const struct op_stat *s = &m->ops[i];

		if (!name_ok(s->name, strnlen(s->name, sizeof(s->name))))
			goto inval;
		o.cap += 2 * (2 + NAME_LEN + 1) + 5 * 21;
		for (k = 0; s->lat.b && k < HIST_BUCKETS; k++)
			if (s->lat.b[k])
				o.cap += sizeof(" 2751:4294967295") - 1;
	}
	for (i = 0; i < m->n_counters; i++) {
		const struct counter *c = &m->counters[i];

		if (!name_ok(c->name, strnlen(c->name, sizeof(c->name))) ||
		    !isfinite(c->value))
			goto inval;
		o.cap += 2 + NAME_LEN + 1 + DBL_CHARS + 1;
	}
	o.buf = malloc(o.cap);
	if (!o.buf) {
		errno = ENOMEM;
		return NULL;
	}

	put(&o, "M seconds %.17g\n", m->seconds);
	for (i = 0; i < m->n_ops; i++) {
		const struct op_stat *s = &m->ops[i];
		const struct hist *h = &s->lat;

		put(&o, "O %s %llu\n", s->name, (unsigned long long)s->bytes);
		put(&o, "H %s %llu %llu %llu %llu", s->name,
		    (unsigned long long)h->count, (unsigned long long)h->sum,
		    (unsigned long long)h->min, (unsigned long long)h->max);
		for (k = 0; h->b && k < HIST_BUCKETS; k++)
			if (h->b[k])
				put(&o, " %u:%lu", k, (unsigned long)h->b[k]);
		put(&o, "\n");
	}
	for (i = 0; i < m->n_counters; i++)
		put(&o, "C %s %.17g\n", m->counters[i].name,
		    m->counters[i].value);
	put(&o, "END\n");
	if (o.bad) {
		free(o.buf);
		errno = EOVERFLOW;
		return NULL;
	}
	*len = o.len;
	return o.buf;
inval:
	errno = EINVAL;
	return NULL;
}

/* ---- wire format: decoding ---------------------------------------------- */

/*
 * The child runs the phase's Lua as nobody and may be anything by the
 * time it writes: every field is checked, nothing in m changes unless the
 * whole text is good, and the report() values are passed on only then.
 */
struct decoder {
	struct metrics m;
	struct counter *rep;		/* R lines, delivered at the end */
	int n_rep;
	int have_seconds;
	unsigned char h_seen[MAX_NAMES];	/* per op: its H line came */
};

/* One line, without its newline, split at single spaces. */
struct line {
	const char *p, *end;
};

/* 1 and the next token, 0 at the end of the line, -1 for an empty token
 * (two spaces in a row, a leading or a trailing space). */
static int token(struct line *l, const char **t, size_t *n)
{
	const char *s = l->p, *e;

	if (s == l->end)
		return 0;
	e = memchr(s, ' ', (size_t)(l->end - s));
	if (!e)
		e = l->end;
	if (e == s)
		return -1;
	*t = s;
	*n = (size_t)(e - s);
	l->p = e;
	if (e != l->end && ++l->p == l->end)
		return -1;
	return 1;
}

static int is_word(const char *t, size_t n, const char *w)
{
	return n == strlen(w) && !memcmp(t, w, n);
}

static int get_name(struct line *l, char out[32])
{
	const char *t;
	size_t n;

	if (token(l, &t, &n) != 1 || !name_ok(t, n))
		return -1;
	memcpy(out, t, n);
	out[n] = '\0';
	return 0;
}

/* Digits only: no sign, no space, no base prefix, no overflow. */
static int parse_u64(const char *t, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t k;

	if (!n)
		return -1;
	for (k = 0; k < n; k++) {
		unsigned int d = (unsigned char)t[k] - '0';

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static int get_u64(struct line *l, uint64_t *v)
{
	const char *t;
	size_t n;

	if (token(l, &t, &n) != 1)
		return -1;
	return parse_u64(t, n, v);
}

/* A finite decimal number: no inf, nan, hex or spaces, which strtod
 * would take. */
static int get_double(struct line *l, double *v)
{
	char buf[TOKEN_MAX + 1], *end;
	const char *t;
	size_t n, k;

	if (token(l, &t, &n) != 1 || n > TOKEN_MAX)
		return -1;
	memcpy(buf, t, n);
	buf[n] = '\0';
	for (k = 0; k < n; k++)
		if (!strchr("0123456789+-.eE", buf[k]))
			return -1;
	/* ERANGE from underflow is fine: %.17g prints subnormals too. */
	*v = strtod(buf, &end);
	if (end != buf + n || !isfinite(*v))
		return -1;
	return 0;
}

static int at_end(struct line *l)
{
	return l->p == l->end ? 0 : -1;
}

/* "<index>:<n>", index in range, 1 <= n <= UINT32_MAX. */
static int parse_bucket(const char *t, size_t n, unsigned int *i,
			uint32_t *c)
{
	const char *colon = memchr(t, ':', n);
	uint64_t a, b;

	if (!colon || parse_u64(t, (size_t)(colon - t), &a) ||
	    parse_u64(colon + 1, n - (size_t)(colon - t) - 1, &b) ||
	    a >= HIST_BUCKETS || !b || b > UINT32_MAX)
		return -1;
	*i = (unsigned int)a;
	*c = (uint32_t)b;
	return 0;
}

/*
 * min, max and sum must be what count values from those buckets could
 * give: min in the first bucket, max in the last, min + max + (count - 2)
 * values in [min, max] summing to sum.
 */
static int hist_consistent(const struct hist *h, unsigned int first,
			   unsigned int last)
{
	uint64_t rest, k;

	if (!h->count)
		return !h->sum && !h->min && !h->max ? 0 : -1;
	if (h->min > h->max || hist_index(h->min) != first ||
	    hist_index(h->max) != last)
		return -1;
	if (h->count == 1)
		return h->min == h->max && h->sum == h->min ? 0 : -1;
	if (h->sum < h->min || h->sum - h->min < h->max)
		return -1;
	rest = h->sum - h->min - h->max;
	k = h->count - 2;
	if (!k)
		return rest ? -1 : 0;
	if (rest / k < h->min || rest / k + (rest % k != 0) > h->max)
		return -1;
	return 0;
}

static int decode_hist(struct decoder *d, struct line *l)
{
	char name[32];
	struct op_stat *o;
	struct hist *h;
	const char *t;
	size_t n;
	uint64_t total = 0;
	unsigned int i, first = 0, last = 0;
	uint32_t c;
	int r, any = 0;

	if (get_name(l, name))
		return -1;
	o = find_op(&d->m, name);
	if (!o || d->h_seen[o - d->m.ops])
		return -1;
	d->h_seen[o - d->m.ops] = 1;
	h = &o->lat;
	if (get_u64(l, &h->count) || get_u64(l, &h->sum) ||
	    get_u64(l, &h->min) || get_u64(l, &h->max))
		return -1;
	if (h->count) {
		h->b = calloc(HIST_BUCKETS, sizeof(*h->b));
		if (!h->b)
			return -1;
	}
	while ((r = token(l, &t, &n)) == 1) {
		if (!h->b || parse_bucket(t, n, &i, &c) ||
		    (any && i <= last) || c > h->count - total)
			return -1;
		if (!any)
			first = i;
		any = 1;
		last = i;
		h->b[i] = c;
		total += c;
	}
	if (r < 0 || total != h->count)
		return -1;
	return hist_consistent(h, first, last);
}

static int decode_line(struct decoder *d, const char *p, const char *end)
{
	struct line l = { p, end };
	char name[32];
	const char *t;
	size_t n;
	uint64_t u;
	double v;

	if (token(&l, &t, &n) != 1)
		return -1;
	if (is_word(t, n, "M")) {
		if (token(&l, &t, &n) != 1 || !is_word(t, n, "seconds") ||
		    d->have_seconds || get_double(&l, &v) || v < 0)
			return -1;
		d->have_seconds = 1;
		d->m.seconds = v;
	} else if (is_word(t, n, "O")) {
		struct op_stat *o;

		if (get_name(&l, name) || get_u64(&l, &u) ||
		    find_op(&d->m, name) || d->m.n_ops >= MAX_NAMES)
			return -1;
		o = metrics_op(&d->m, name);
		if (!o)
			return -1;
		o->bytes = u;
	} else if (is_word(t, n, "H")) {
		if (decode_hist(d, &l))
			return -1;
	} else if (is_word(t, n, "C")) {
		if (get_name(&l, name) || get_double(&l, &v) ||
		    find_counter(&d->m, name) ||
		    d->m.n_counters >= MAX_NAMES ||
		    metrics_count(&d->m, name, v))
			return -1;
	} else if (is_word(t, n, "R")) {
		struct counter *c;

		if (get_name(&l, name) || get_double(&l, &v) ||
		    d->n_rep >= MAX_NAMES)
			return -1;
		c = grow(d->rep, d->n_rep, sizeof(*d->rep));
		if (!c)
			return -1;
		d->rep = c;
		c = &d->rep[d->n_rep++];
		memcpy(c->name, name, sizeof(c->name));
		c->value = v;
	} else {
		return -1;
	}
	return at_end(&l);
}

/*
 * The decoded metrics are moved into m when m is empty (the usual case),
 * else merged into it; only a failed merge (out of memory) can leave m
 * changed when -1 is returned.
 */
int metrics_decode(struct metrics *m, const char *text, size_t len,
		   void (*report)(void *ctx, const char *name, double v),
		   void *ctx)
{
	struct decoder *d;
	const char *p = text, *end, *nl, *le;
	int ended = 0, ret = -1, i;

	if (!text || !len || memchr(text, '\0', len))
		return -1;
	end = text + len;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -1;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		le = nl ? nl : end;
		if (is_word(p, (size_t)(le - p), "END")) {
			ended = 1;
			p = nl ? nl + 1 : end;
			break;
		}
		if (!nl || decode_line(d, p, le))	/* no newline: torn */
			goto out;
		p = nl + 1;
	}
	if (!ended || p != end)
		goto out;
	if (!m->ops && !m->counters) {
		if (d->m.seconds < m->seconds)
			d->m.seconds = m->seconds;
		*m = d->m;
		memset(&d->m, 0, sizeof(d->m));
	} else if (metrics_merge(m, &d->m)) {
		goto out;
	}
	for (i = 0; report && i < d->n_rep; i++)
		report(ctx, d->rep[i].name, d->rep[i].value);
	ret = 0;
out:
	metrics_free(&d->m);
	free(d->rep);
	free(d);
	return ret;
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

		rows += 1 + (o->bytes ? 1 + (secs > 0) : 0) + (secs > 0);
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
