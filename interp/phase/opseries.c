/* opseries: a Lua worker's ops per interval, closed, coarsened and merged. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phase/opseries.h"
#include "util/grow.h"
#include "results/series.h"

#define ENT_BITS	23
#define ENT_MAX		((1u << ENT_BITS) - 1)

static uint64_t step_of(const struct opseries *s)
{
	return s->clk->step_ns << s->shift;
}

/* Room for op index i: 0, or -1 out of memory. */
static int ensure_op(struct opseries *s, int i)
{
	struct opseries_op *p;
	int n = s->n_op ? 2 * s->n_op : 4;

	if (i < s->n_op)
		return 0;
	if (n <= i)
		n = i + 1;
	p = realloc(s->op, (size_t)n * sizeof(*p));
	if (!p)
		return -1;
	memset(p + s->n_op, 0, (size_t)(n - s->n_op) * sizeof(*p));
	for (int j = s->n_op; j < n; j++)
		p[j].pub = -1;
	s->op = p;
	s->n_op = n;
	return 0;
}

/* Buckets b as entries at out (room for what they take): how many. */
static uint32_t emit(uint64_t *b, uint32_t *out)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < OPSERIES_BUCKETS; i++) {
		while (b[i]) {
			uint64_t c = b[i] > ENT_MAX ? ENT_MAX : b[i];

			out[n++] = (i << ENT_BITS) | (uint32_t)c;
			b[i] -= c;
		}
	}
	return n;
}

static uint32_t entries_of(const uint64_t *b)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < OPSERIES_BUCKETS; i++)
		n += (uint32_t)((b[i] + ENT_MAX - 1) / ENT_MAX);
	return n;
}

/* grow_array's room for need into *p: 0, or -1 (then *p as it was). */
static int grow(void **p, size_t *cap, size_t need, size_t sz)
{
	void *q = grow_array(*p, cap, need, sz, 16);

	if (!q)
		return -1;
	*p = q;
	return 0;
}

/* o's open interval into its points (dropped, and s->lost, without
 * memory). It is empty after. */
static void close_open(struct opseries *s, struct opseries_op *o)
{
	uint32_t n;
	size_t cap = (size_t)o->cap;

	if (!o->b || !o->ops)
		return;
	n = entries_of(o->b);
	if (grow((void **)&o->pt, &cap, (size_t)o->n + 1, sizeof(*o->pt)) ||
	    grow((void **)&o->ent, &o->cap_ent, o->n_ent + n,
		 sizeof(*o->ent))) {
		s->lost = 1;
		memset(o->b, 0, OPSERIES_BUCKETS * sizeof(*o->b));
	} else {
		o->pt[o->n++] = (struct opseries_pt){ o->k,
			emit(o->b, o->ent + o->n_ent), o->ops, o->bytes,
			o->max_ns };
		o->n_ent += n;
		s->bytes += sizeof(*o->pt) + n * sizeof(*o->ent);
	}
	o->cap = (int)cap;
	o->ops = o->bytes = o->max_ns = 0;
	o->lo = o->hi = 0;
}

/* o's points merged in pairs (k / 2), in place: a merged interval has
 * no more entries than its halves had. */
static void coarsen_op(struct opseries_op *o, uint64_t *tmp)
{
	size_t re = 0, we = 0;
	int r = 0, w = 0;

	while (r < o->n) {
		struct opseries_pt acc = { o->pt[r].k >> 1, 0, 0, 0, 0 };

		memset(tmp, 0, OPSERIES_BUCKETS * sizeof(*tmp));
		for (; r < o->n && o->pt[r].k >> 1 == acc.k; r++) {
			const struct opseries_pt *p = &o->pt[r];

			for (uint32_t e = 0; e < p->n_ent; e++, re++)
				tmp[o->ent[re] >> ENT_BITS] +=
					o->ent[re] & ENT_MAX;
			acc.ops += p->ops;
			acc.bytes += p->bytes;
			if (p->max_ns > acc.max_ns)
				acc.max_ns = p->max_ns;
		}
		acc.n_ent = emit(tmp, o->ent + we);
		we += acc.n_ent;
		o->pt[w++] = acc;
	}
	o->n = w;
	o->n_ent = we;
}

/* Every op's intervals doubled: 0, or -1 out of memory (nothing done). */
static int coarsen(struct opseries *s)
{
	uint64_t *tmp = malloc(OPSERIES_BUCKETS * sizeof(*tmp));

	if (!tmp)
		return -1;
	s->bytes = 0;
	for (int i = 0; i < s->n_op; i++) {
		struct opseries_op *o = &s->op[i];

		close_open(s, o);
		coarsen_op(o, tmp);
		s->bytes += (size_t)o->n * sizeof(*o->pt) +
			    o->n_ent * sizeof(*o->ent);
	}
	s->shift++;
	free(tmp);
	return 0;
}

static void publish(struct opseries *s, struct opseries_op *o,
		    const char *name)
{
	struct opseries_pub *p;

	if (!s->publish || s->n_pub >= OPSERIES_PUB)
		return;
	p = &s->pub[s->n_pub];
	strncpy(p->name, name, sizeof(p->name) - 1);
	o->pub = s->n_pub;
	__atomic_store_n(&s->n_pub, s->n_pub + 1, __ATOMIC_RELEASE);
}

/* The interval t falls in, never before o's last one (a completion
 * reaped late counts in the worker's latest interval). */
static uint32_t interval_of(struct opseries *s, struct opseries_op *o,
			    uint64_t t)
{
	uint64_t k = t > s->clk->t0_ns ? (t - s->clk->t0_ns) / step_of(s) : 0;

	if (o->n && k < o->pt[o->n - 1].k)
		k = o->pt[o->n - 1].k;
	return k > UINT32_MAX ? UINT32_MAX : (uint32_t)k;
}

/* Open the interval of t for o, coarsening first past the bounds. */
static void open_at(struct opseries *s, struct opseries_op *o, uint64_t t)
{
	size_t cap = s->max_bytes ? s->max_bytes : OPSERIES_MAX_BYTES;
	uint32_t k = interval_of(s, o, t);

	for (int tries = 0; tries < 8 && (k >= OPSERIES_MAX_K ||
					   s->bytes > cap); tries++) {
		if (coarsen(s))
			break;
		k = interval_of(s, o, t);
	}
	o->k = k;
	o->lo = s->clk->t0_ns + (uint64_t)k * step_of(s);
	o->hi = o->lo + step_of(s);
	if (t < o->lo)		/* a late completion: it counts here */
		o->lo = t;
}

void opseries_add_other(struct opseries *s, int i, const char *name,
			uint64_t t, uint64_t ns, uint64_t bytes)
{
	struct opseries_op *o;

	if (!s->clk->step_ns || i < 0)
		return;
	if (ensure_op(s, i)) {
		s->lost = 1;
		return;
	}
	o = &s->op[i];
	if (!o->b) {
		o->b = calloc(OPSERIES_BUCKETS, sizeof(*o->b));
		if (!o->b) {
			s->lost = 1;
			return;
		}
		publish(s, o, name);
	}
	if (!o->ops || t >= o->hi) {
		close_open(s, o);
		open_at(s, o, t);
	}
	/* t < lo: reaped after a later one; it counts in the open one */
	opseries_count(s, o, ns, bytes);
}

void opseries_free(struct opseries *s)
{
	for (int i = 0; i < s->n_op; i++) {
		free(s->op[i].pt);
		free(s->op[i].ent);
		free(s->op[i].b);
	}
	free(s->op);
	s->op = NULL;
	s->n_op = 0;
	s->bytes = 0;
}

/* ---- merged, after the join ---------------------------------------------- */

/* One op class across the workers: its index in each, and a cursor. */
struct name {
	const char *name;
	int moved;		/* bytes in any interval: an _mbs series */
	struct cur {
		int op;		/* -1: this worker has none */
		int r;		/* the next point */
		size_t e;	/* its first entry */
	} *at;
};

struct merge {
	struct opseries *const *s;
	int n;			/* workers */
	struct name *nm;
	int n_nm;
	size_t cap_nm;
	uint64_t b[OPSERIES_BUCKETS];
};

/* The value of rank ceil(q * ops) of the merged buckets: its bucket's
 * midpoint, never above max. */
static double quantile(const uint64_t *b, uint64_t ops, uint64_t max,
		       double q)
{
	uint64_t rank = (uint64_t)ceil(q * (double)ops), cum = 0, lo, hi;
	unsigned int i;

	if (rank >= ops)
		return (double)max;
	for (i = 0; i < OPSERIES_BUCKETS - 1; i++) {
		cum += b[i];
		if (cum >= rank)
			break;
	}
	loglin_range(i, OPSERIES_SUB_BITS, &lo, &hi);
	return fmin((double)(lo + (hi - lo) / 2), (double)max);
}

/* The op classes of every worker, by name (m: each one's names). */
static int gather(struct merge *g, const struct metrics *const *m)
{
	for (int w = 0; w < g->n; w++) {
		for (int i = 0; i < g->s[w]->n_op && i < m[w]->n_ops; i++) {
			const struct opseries_op *o = &g->s[w]->op[i];
			const char *nm = m[w]->ops[i].name;
			int j;

			if (!o->n)
				continue;
			for (j = 0; j < g->n_nm; j++)
				if (!strcmp(g->nm[j].name, nm))
					break;
			if (j == g->n_nm) {
				/* doubling: a phase may name 4096 ops */
				void *p = grow_array(g->nm, &g->cap_nm,
						     (size_t)j + 1,
						     sizeof(*g->nm), 16);

				if (!p)
					return -1;
				g->nm = p;
				g->nm[j] = (struct name){ nm, 0, NULL };
				g->nm[j].at = malloc((size_t)g->n *
						     sizeof(struct cur));
				g->n_nm++;
				if (!g->nm[j].at)
					return -1;
				for (int x = 0; x < g->n; x++)
					g->nm[j].at[x] = (struct cur){ -1, 0,
								       0 };
			}
			g->nm[j].at[w].op = i;
			g->nm[j].moved |= o->cum_bytes > 0;
		}
	}
	return 0;
}

/* Interval k of name nm merged across the workers into g->b: ops,
 * bytes, max. */
static void merge_k(struct merge *g, struct name *nm, uint32_t k,
		    uint64_t *ops, uint64_t *bytes, uint64_t *max)
{
	memset(g->b, 0, sizeof(g->b));
	*ops = *bytes = *max = 0;
	for (int w = 0; w < g->n; w++) {
		struct cur *c = &nm->at[w];
		const struct opseries_op *o;

		if (c->op < 0)
			continue;
		o = &g->s[w]->op[c->op];
		for (; c->r < o->n && o->pt[c->r].k == k; c->r++) {
			const struct opseries_pt *p = &o->pt[c->r];

			for (uint32_t e = 0; e < p->n_ent; e++, c->e++)
				g->b[o->ent[c->e] >> ENT_BITS] +=
					o->ent[c->e] & ENT_MAX;
			*ops += p->ops;
			*bytes += p->bytes;
			if (p->max_ns > *max)
				*max = p->max_ns;
		}
	}
}

/* One interval's lines of one op class. */
static int put_k(struct strbuf *out, const struct merge *g,
		 const struct name *nm, double t, double len, uint64_t ops,
		 uint64_t bytes, uint64_t max)
{
	char m[METRICS_METRIC_LEN + 1];
	int e = 0;

#define PUT(suffix, v, unit) (snprintf(m, sizeof(m), "%s" suffix,	\
				       nm->name),			\
			      e |= series_encode(out, t, m, (v), unit))
	PUT("_ops", (double)ops, "ops");
	PUT("_iops", (double)ops / len, "1/s");
	if (nm->moved)
		PUT("_mbs", (double)bytes / 1048576.0 / len, "MiB/s");
	if (ops) {
		PUT("_lat_p50_ms", quantile(g->b, ops, max, 0.50) / 1e6, "ms");
		PUT("_lat_p99_ms", quantile(g->b, ops, max, 0.99) / 1e6, "ms");
		PUT("_lat_max_ms", (double)max / 1e6, "ms");
	}
#undef PUT
	return e ? -1 : 0;
}

/* Every worker at one interval, within the points' bound;
 * the number of intervals to end_s. */
static uint64_t align(struct merge *g, double end_s)
{
	int shift = 0;
	uint64_t k_end;

	for (int w = 0; w < g->n; w++)
		if (g->s[w]->shift > shift)
			shift = g->s[w]->shift;
	for (;;) {
		double step = (double)(g->s[0]->clk->step_ns << shift) / 1e9;

		k_end = (uint64_t)ceil(end_s / step - 1e-9);
		if (!k_end)
			k_end = 1;
		if ((uint64_t)(g->n_nm ? g->n_nm : 1) * k_end <=
		    OPSERIES_MAX_POINTS || shift >= 30)
			break;
		shift++;
	}
	for (int w = 0; w < g->n; w++)
		while (g->s[w]->shift < shift)
			if (coarsen(g->s[w]))
				return 0;
	return k_end;
}

int opseries_encode(struct opseries *const *s, const struct metrics *const *m,
		    int n, double end_s, struct strbuf *out)
{
	struct merge *g;
	uint64_t k_end;
	double step;
	int rc = -1;

	if (n < 1 || !s[0]->clk || !s[0]->clk->step_ns)
		return 0;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -1;
	g->s = s;
	g->n = n;
	for (int w = 0; w < n; w++)
		for (int i = 0; i < s[w]->n_op; i++)
			close_open(s[w], &s[w]->op[i]);
	if (gather(g, m))
		goto out;
	k_end = align(g, end_s);
	if (!k_end)
		goto out;
	step = (double)step_of(s[0]) / 1e9;
	for (uint64_t k = 0; k < k_end; k++) {
		double t = fmin((double)(k + 1) * step, end_s);
		double len = t - (double)k * step;

		for (int j = 0; j < g->n_nm; j++) {
			uint64_t ops, bytes, max;

			merge_k(g, &g->nm[j], (uint32_t)k, &ops, &bytes, &max);
			if (len > 0 &&
			    put_k(out, g, &g->nm[j], t, len, ops, bytes, max))
				goto out;
		}
	}
	rc = 0;
out:
	for (int j = 0; j < g->n_nm; j++)
		free(g->nm[j].at);
	free(g->nm);
	free(g);
	return rc;
}
