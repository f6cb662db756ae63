/* metrics: per-op latency histograms and counters of a phase run, merged and
 * reported. */
#ifndef FSPLAN_METRICS_H
#define FSPLAN_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"
#include "util/strbuf.h"

/* The phase child's end of its report pipe, after the drop: the metrics
 * wire format, a failure record (metrics_diag_encode) and a parser's "P "
 * lines go there. */
#define METRICS_REPORT_FD 3

/* The line a Lua phase's child writes there when its setup is done: the
 * parent reads the devices' counters then, so that setup's I/O is not
 * counted as the phase's (it is not part of the report), and answers
 * METRICS_GO on the same fd (a socket pair); the child starts no timed
 * op before it has read it. */
#define METRICS_SETUP_DONE "S setup done\n"
#define METRICS_GO 'G'

/*
 * A log-linear histogram of latencies in ns, like fio's: values below
 * 2^HIST_SUB_BITS are exact; above, each power of two is split into
 * 2^HIST_SUB_BITS linear buckets, so a bucket's midpoint is within about
 * 1% of any value in it. min, max, count and sum are exact.
 */
#define HIST_SUB_BITS	6
#define HIST_GROUPS	42	/* groups end at 2^48 ns (78 h); max stays exact */
#define HIST_BUCKETS	((HIST_GROUPS + 1) << HIST_SUB_BITS)

struct hist {
	uint64_t count;
	uint64_t sum;		/* ns */
	uint64_t min, max;	/* ns, exact */
	uint32_t *b;		/* HIST_BUCKETS counts, allocated on first add */
};

/*
 * The bucket of a value in a log-linear histogram of sub_bits precision
 * and groups groups (this one's, HIST_*; a Lua worker's series keeps a
 * coarser one, phase/opseries.h). Group 0 holds 0 .. 2^sub_bits - 1
 * exactly; group g >= 1 holds the values whose highest bit is
 * g + sub_bits - 1, in 2^sub_bits buckets of width 2^(g-1). The last
 * group ends at 2^(groups + sub_bits) ns; anything above goes to the last
 * bucket, whose range then reaches up to max. Inline, with hist_add:
 * every op.
 */
static inline unsigned int loglin_index(uint64_t v, unsigned int sub_bits,
					unsigned int groups)
{
	unsigned int msb, g;

	if (v < (1u << sub_bits))
		return (unsigned int)v;
	msb = 63 - (unsigned int)__builtin_clzll(v);
	g = msb - sub_bits + 1;
	if (g > groups)
		return ((groups + 1) << sub_bits) - 1;
	return (g << sub_bits) +
	       (unsigned int)((v >> (msb - sub_bits)) &
			      ((1u << sub_bits) - 1));
}

/* The values bucket i of that rule holds: [*lo, *hi]. */
static inline void loglin_range(unsigned int i, unsigned int sub_bits,
				uint64_t *lo, uint64_t *hi)
{
	unsigned int g = i >> sub_bits, sub = 1u << sub_bits;

	if (!g) {
		*lo = *hi = i;
		return;
	}
	*lo = (uint64_t)(sub + (i & (sub - 1))) << (g - 1);
	*hi = *lo + ((uint64_t)1 << (g - 1)) - 1;
}

static inline unsigned int hist_index(uint64_t v)
{
	return loglin_index(v, HIST_SUB_BITS, HIST_GROUPS);
}

/* hist_add's first value (the buckets allocated) and its refusals. */
int hist_add_other(struct hist *h, uint64_t ns);

/* 0, -ENOMEM, or -EOVERFLOW when a bucket or the sum is full (then
 * nothing is recorded, so count stays the sum of the buckets). */
static inline int hist_add(struct hist *h, uint64_t ns)
{
	unsigned int i = hist_index(ns);

	if (!h->count || !h->b || h->b[i] == UINT32_MAX ||
	    h->sum > UINT64_MAX - ns)
		return hist_add_other(h, ns);
	h->b[i]++;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->count++;
	h->sum += ns;
	return 0;
}
int hist_merge(struct hist *dst, const struct hist *src);
/* The value at quantile q (0..1): the midpoint of its bucket, but never
 * above max or below min; 0 when empty. */
uint64_t hist_quantile(const struct hist *h, double q);
/* The share of values above ns (0..1). */
double hist_share_above(const struct hist *h, uint64_t ns);
void hist_free(struct hist *h);

/* What one worker, and after merging one phase run, measured. */
struct op_stat {
	char name[32];		/* "read", "write", a w:time() name, ... */
	uint64_t bytes;
	uint64_t ring, sys;	/* engine ops through io_uring / a syscall */
	struct hist lat;	/* one entry per op */
};

struct counter {
	char name[32];
	double value;
};

struct metrics {
	struct op_stat *ops;
	int n_ops;
	struct counter *counters;	/* w:count() */
	int n_counters;
	double seconds;			/* wall time of the phase's workers */
	uint64_t written;		/* bytes its write requests wrote, for
					 * write_amp: every op, recorded or
					 * not */
};

/* The op_stat named name, made on first use; NULL if out of memory. */
struct op_stat *metrics_op(struct metrics *m, const char *name);
int metrics_count(struct metrics *m, const char *name, double n);
int metrics_merge(struct metrics *dst, const struct metrics *src);
void metrics_free(struct metrics *m);

/* Shared by metrics.c and metrics_wire.c: whether a name is one the wire
 * format carries ([A-Za-z0-9_.-]{1,31}); arr with room for one more
 * element of sz after its n (NULL: no memory). */
#define METRICS_NAME_LEN 31
int metrics_name_ok(const char *s, size_t n);
/* The one metric-name rule: a metric of results.csv (an op's derived
 * rows, a parser's, a module's key) is [A-Za-z0-9_.-]{1,63}, not
 * beginning with - (a spreadsheet formula). */
#define METRICS_METRIC_LEN 63
int metrics_metric_name_ok(const char *s, size_t n);
/* A row's unit, as results.csv takes it unquoted: 1 to 31 printable
 * characters, no comma or quote. */
int metrics_unit_ok(const char *s, size_t n);
/*
 * The rows fsplan writes itself for a phase run (status, seconds, cpu_pct,
 * dev_*, ...: the one list), as a pattern: the first that name matches,
 * or NULL. Every op's automatic <op>_path row is "*_path", last.
 */
const char *metrics_reserved(const char *name);
/* The child's own counter of its peak resident memory (luaphase.c): the one
 * reserved name a phase's report carries. */
#define METRICS_RSS_PEAK "rss_peak_kib"
/*
 * Whether a value a module sends becomes a row (a report() value, a
 * counter, a parser's): 0, or -1 with d saying why not (a phase's bad
 * value) — its name is one fsplan writes itself, its value is not
 * finite, or its unit could start a spreadsheet formula. unit may be
 * NULL.
 */
int metrics_refuse(const char *name, double v, const char *unit,
		   struct diag *d);
/* The same for an op's name, by the rows it makes (<op>_ops, ...; its
 * own <op>_path is the one reserved row an op writes). */
int metrics_op_refuse(const char *op, struct diag *d);
/* The op or counter named name, or NULL (nothing is made). */
struct op_stat *metrics_find_op(const struct metrics *m, const char *name);
struct counter *metrics_find_counter(const struct metrics *m,
				     const char *name);
void *metrics_grow(void *arr, int n, size_t sz);

/* One row of derived metrics: name, value, unit. */
struct metric_row {
	char name[METRICS_METRIC_LEN + 1];
	double value;
	const char *unit;
};

/*
 * The wire format between the phase child and the parent: text lines,
 * so a torn report is detectable and a hostile child can only send
 * numbers. "M seconds <s>", "O <name> <bytes> [<ring> <sys>]", "H <name>
 * <count> <sum> <min> <max> <bucket>:<n> ...", "C <name> <value>", "R
 * <metric> <value> [<unit>]" (a report() metric; a unit is 1 to 31
 * printable characters, no comma or quote), ending with "END"; "M
 * written <bytes>" may follow the first line. Op and counter names
 * follow metrics_name_ok, an R line's metric metrics_metric_name_ok.
 * Series lines ("T ...", results/series.h) may come between them:
 * metrics_decode leaves them to series_decode. metrics_encode writes it all: m's lines, an R line per rep value (n_rep
 * of them; rep may be NULL), END. NULL with errno EINVAL if m or rep
 * holds what the format cannot carry, ENOMEM.
 */
char *metrics_encode(const struct metrics *m, const struct metric_row *rep,
		     int n_rep, size_t *len);
/* Parse what the child sent; the report() values go to fn (unit "" when
 * the line has none). 0, or -1 if the text is malformed or lacks END. */
int metrics_decode(struct metrics *m, const char *text, size_t len,
		   void (*report)(void *ctx, const char *name, double v,
				  const char *unit),
		   void *ctx);

/*
 * A failure crosses the same wire as one record, the whole struct diag:
 * "E <kind> <errno> <line> <col> <f> <m> <s> <d>" and a newline, then f
 * bytes of file, m of message, s of source line and d of detail, then a
 * newline. A record's
 * detail, when it has one, is the whole text: its first line is the
 * message whole (msg may have had to be cut), the lines after it a
 * traceback or whatever else explains it. The one record of a report is
 * its failure; the lines before it (a parser's P lines) are left alone.
 */
char *metrics_diag_encode(const struct diag *d, size_t *len);
/* d as a record to fd, all of it. 0, or -1 (then the parent is gone). */
int metrics_diag_send(int fd, const struct diag *d);
/*
 * The first record among the lines of text (up to a NUL: what follows
 * one is not lines), into d, which must be empty (zeroed or released):
 * 1, 0 if there is none, -1 if the one there is malformed (or out of
 * memory; d is then empty).
 */
int metrics_diag_decode(const char *text, size_t len, struct diag *d);
/* The one line that says why, whole, appended to out: "file:line:col: "
 * (or "file: ") when it has a place, then the message whole. 0, or -1
 * out of memory. */
int metrics_diag_reason(const struct diag *d, struct strbuf *out);

/*
 * The automatic metrics of DESIGN.md section 4 for every op:
 * <op>_ops, <op>_bytes, <op>_mbs, <op>_iops, <op>_lat_avg_ms,
 * <op>_lat_max_ms, <op>_lat_p50_ms, <op>_lat_p99_ms, <op>_lat_p999_ms
 * (_bytes and _mbs only for ops that moved bytes), <op>_path for ops
 * that went through an engine (the share through io_uring; unit ring,
 * syscall or mixed), counters as they are,
 * and for every threshold t (ms) asked for, <op>_over_<t>ms_pct.
 * Returns a malloc'd array of *n rows.
 */
struct metric_row *metrics_rows(const struct metrics *m, const double *thr_ms,
				int n_thr, int *n);

#endif
