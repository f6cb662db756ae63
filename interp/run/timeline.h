/* timeline: a phase run's series — root's points joined with its child's —
 * its key series and its steady rows. */
#ifndef FSPLAN_TIMELINE_H
#define FSPLAN_TIMELINE_H

#include <stddef.h>

#include "plan/types.h"
#include "results/series.h"

/* The most points a child may send (a phase of an hour at 100 ms with
 * some dozen series is well under it). */
#define TIMELINE_CHILD_MAX	(1 << 20)

/* Without a steady: rule: the last half, range 20%, slope 10%. */
#define TIMELINE_RANGE		0.20
#define TIMELINE_SLOPE		0.10

struct timeline {
	struct series s;		/* root's points and the child's */
	char key[METRICS_METRIC_LEN + 1];	/* the key series; "": none */
	char key_unit[32];
	int tested;			/* the steady rows are in o */
	int whole;			/* a whole window was tested: o's
					 * range and slope say something */
	struct steady_out o;
	char refused[256];		/* why the child's series was left
					 * out (its rows were not), or "" */
};

/*
 * t made of root's points and the T lines of the child's report and of
 * a parser's (either NULL). What the child sent is taken whole or not at
 * all: a malformed T line, a name root's own series use (dev_*,
 * cpu_pct, dirty_mib, ...), a time before the start or too many points
 * leave all of it out, t->refused saying why. 0, or -1 out of memory.
 */
int timeline_join(struct timeline *t, const struct series *root,
		  const char *report, size_t len, const char *parsed,
		  size_t plen);

/*
 * The key series (DESIGN.md section 8), into key (len bytes): the
 * rule's metric when it names one; a Lua phase's op class with the most
 * bytes (its <op>_mbs), else with the most ops (<op>_iops); an exec
 * phase's parser series named module_key (may be NULL); else
 * dev_write_mbs or dev_read_mbs, whichever moved more. "" when s has
 * none of them.
 */
void timeline_key(const struct series *s, const char *rule_metric, int lua,
		  const char *module_key, char *key, size_t len);

/* The key and its steady test: the phase's rule (window_s 0: none, then
 * the last half of what follows warmup_s, TIMELINE_RANGE and _SLOPE). */
void timeline_steady(struct timeline *t, const struct plan_steady *rule,
		     double warmup_s, int lua, const char *module_key);

void timeline_free(struct timeline *t);

#endif
