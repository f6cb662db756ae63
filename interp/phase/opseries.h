/* opseries: a Lua worker's ops per interval (DESIGN.md section 8), kept by the
 * worker alone, merged into T lines after the workers are joined. */
#ifndef FSPLAN_OPSERIES_H
#define FSPLAN_OPSERIES_H

#include <stddef.h>
#include <stdint.h>

#include "results/metrics.h"
#include "util/strbuf.h"

/*
 * An interval's latencies go to a coarse log-linear histogram (the rule
 * of results/metrics.h's loglin_index): 8 buckets per power of two
 * (OPSERIES_SUB_BITS 3), so a quantile is its bucket's
 * midpoint, within 6.25% of the value; up to 2^40 ns (18 min), longer
 * ones in the last bucket. The interval's max is exact.
 */
#define OPSERIES_SUB_BITS	3
#define OPSERIES_GROUPS		37
#define OPSERIES_BUCKETS	((OPSERIES_GROUPS + 1) << OPSERIES_SUB_BITS)
/* Op classes a worker publishes for the steady watch (the first ones). */
#define OPSERIES_PUB		16
/*
 * Bounds: a worker keeps at most OPSERIES_MAX_K intervals and about
 * OPSERIES_MAX_BYTES of them (OPSERIES_ALL_BYTES over its workers, each
 * at least 256 KiB: struct opseries's max_bytes); past either its
 * intervals are merged in pairs (the interval doubles), never dropped.
 * The merged report then holds at most OPSERIES_MAX_POINTS points (op
 * classes x intervals).
 */
#define OPSERIES_MAX_K		(1u << 15)
#define OPSERIES_MAX_BYTES	((size_t)16 << 20)
#define OPSERIES_ALL_BYTES	((size_t)256 << 20)
#define OPSERIES_MAX_POINTS	(1 << 16)

/* The phase run's clock: set before the workers start, read-only then. */
struct opseries_clock {
	uint64_t t0_ns;		/* the timed start */
	uint64_t step_ns;	/* the interval; 0: no series */
};

/* One closed interval of one op class: its counts, and n_ent histogram
 * entries ((bucket << 23) | count) in its op's pool. */
struct opseries_pt {
	uint32_t k, n_ent;
	uint64_t ops, bytes, max_ns;
};

struct opseries_op {
	struct opseries_pt *pt;
	int n, cap;
	uint32_t *ent;
	size_t n_ent, cap_ent;
	uint64_t lo, hi;	/* ns: the open interval [lo, hi) */
	uint32_t k;		/* its index */
	uint64_t ops, bytes, max_ns;
	uint64_t *b;		/* its buckets; NULL: none open yet */
	uint64_t cum_ops, cum_bytes;	/* all intervals' */
	int pub;		/* its slot in pub, or -1 */
};

/* What a worker publishes for the main thread: per op class, its ops
 * and bytes so far (relaxed atomic stores; n with a release store once
 * the name is there). */
struct opseries_pub {
	char name[METRICS_NAME_LEN + 1];
	uint64_t ops, bytes;
};

struct opseries {
	const struct opseries_clock *clk;	/* NULL: no series */
	int shift;		/* the interval is step_ns << shift */
	struct opseries_op *op;	/* by the op's index in the worker's m */
	int n_op;
	size_t bytes;		/* what the closed intervals hold */
	size_t max_bytes;	/* past it, coarser; 0: OPSERIES_MAX_BYTES */
	int lost;		/* out of memory: some ops not in the series */
	int publish;		/* a steady stop watches: publish */
	struct opseries_pub pub[OPSERIES_PUB];
	int n_pub;
};

/* The first op of an interval, of an op class: its slow path. */
void opseries_add_other(struct opseries *s, int i, const char *name,
			uint64_t t, uint64_t ns, uint64_t bytes);

/* One op into o's open interval: the worker's own counts, and two
 * relaxed stores for the steady watch. */
static inline void opseries_count(struct opseries *s, struct opseries_op *o,
				  uint64_t ns, uint64_t bytes)
{
	o->ops++;
	o->bytes += bytes;
	if (ns > o->max_ns)
		o->max_ns = ns;
	o->b[loglin_index(ns, OPSERIES_SUB_BITS, OPSERIES_GROUPS)]++;
	o->cum_ops++;
	o->cum_bytes += bytes;
	if (o->pub >= 0) {
		__atomic_store_n(&s->pub[o->pub].ops, o->cum_ops,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&s->pub[o->pub].bytes, o->cum_bytes,
				 __ATOMIC_RELAXED);
	}
}

/* One op of class i (its index in the worker's m, named name) that
 * completed at t (ns, the clock's) after ns, moving bytes, counted in
 * the interval t falls in. No lock, no read-modify-write another thread
 * shares. */
static inline void opseries_add(struct opseries *s, int i, const char *name,
				uint64_t t, uint64_t ns, uint64_t bytes)
{
	if (!s->clk)
		return;
	if (i >= s->n_op || !s->op[i].b || t >= s->op[i].hi ||
	    t < s->op[i].lo) {
		opseries_add_other(s, i, name, t, ns, bytes);
		return;
	}
	opseries_count(s, &s->op[i], ns, bytes);
}

void opseries_free(struct opseries *s);

/*
 * The workers' series merged (each one's op names in its m), as T lines
 * (series_encode) appended to out: per interval, per op class,
 * <op>_ops, <op>_iops, <op>_mbs (an op that moved bytes), and with ops
 * in the interval <op>_lat_p50_ms, _p99_ms, _max_ms. end_s: the workers'
 * end since t0; the last interval ends there. 0, or -1 out of memory.
 * The workers' series are closed and may be coarsened by it.
 */
int opseries_encode(struct opseries *const *s, const struct metrics *const *m,
		    int n, double end_s, struct strbuf *out);

#endif
