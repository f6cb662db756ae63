/* lseries: a Lua phase run's series in its child — the clock, the steady
 * watch over the workers, and the T lines it reports. */
#ifndef FSPLAN_LSERIES_H
#define FSPLAN_LSERIES_H

#include <stdint.h>

#include "phase/luajob.h"
#include "phase/opseries.h"
#include "phase/phase.h"
#include "phase/worker.h"
#include "results/series.h"
#include "util/strbuf.h"

/* The op classes the steady watch follows (the workers' first ones). */
#define LSERIES_NAMES	OPSERIES_PUB

struct lseries_name {
	char name[METRICS_NAME_LEN + 1];
	uint64_t ops, bytes;		/* the workers' sums, last look */
};

struct lseries {
	struct opseries_clock clk;
	double t0;			/* s, the clock's: the timed start */
	double warmup_s;
	struct steady_rule rule;	/* window_s 0: no rule */
	int stop;			/* the rule stops the workers (max) */
	uint64_t next_k;		/* the next interval to look at */
	struct lseries_name nm[LSERIES_NAMES];
	int n_nm;
	/* the last w looks: their times, and each name's sums then */
	double *rt;
	uint64_t (*rs)[LSERIES_NAMES][2];
	int w, rn, dropped;
	double *tt, *tv;		/* the test's points (w each) */
	int held;			/* 1 steady, 2 max passed */
	struct steady_out out;		/* the rule's last test */
	char key[METRICS_METRIC_LEN + 1];	/* the series it tested */
	struct strbuf text;		/* the T lines */
	struct opseries **ser;		/* each worker's series ... */
	const struct metrics **m;	/* ... and op names */
	int n;
};

/* From the job: the interval, warmup and steady rule. 0, or -1 out of
 * memory. */
int lseries_init(struct lseries *ls, const struct luajob *job);
/* The timed start: now. */
void lseries_start(struct lseries *ls);
/*
 * The main thread's look, often (every 20 ms): at each interval's end,
 * the workers' published sums make a point of each name's rates, and
 * the rule is tested on the key's last window. 1 when the workers are
 * to stop: the rule held, or max passed.
 */
int lseries_tick(struct lseries *ls);
/* Room for n workers: 0, or -1 out of memory. */
int lseries_workers(struct lseries *ls, int n);
/* Worker i's part, before it starts: the clock, the warmup, the stop
 * (halt); its series and names are read from it. */
void lseries_worker(struct lseries *ls, int i, struct worker *w,
		    const int *halt);
/*
 * The module's `seconds` as the workers run it, and as ctx.params shows
 * it: with a steady stop, max (they stop once steady, at max at the
 * latest); else the measured seconds after the warmup (fio's
 * ramp_time). v's new value.
 */
double lseries_seconds(const struct lseries *ls, struct param_val *v);
/* The workers' series merged into ls->text, once they are joined; end_s
 * since the start. Out of memory, a note on stderr and no series. */
void lseries_encode(struct lseries *ls, double end_s);
/* ls->text to fd. 0, or -1. */
int lseries_send(const struct lseries *ls, int fd);
void lseries_free(struct lseries *ls);

#endif
