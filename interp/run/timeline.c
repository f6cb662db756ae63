/* timeline: a phase run's series — root's points joined with its child's —
 * its key series and its steady rows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/timeline.h"

/* What the child sent (text, its T lines) into t, whole or not at all;
 * what: "report" or "parser", for the reason. */
static int take(struct timeline *t, const char *text, size_t len,
		const char *what)
{
	struct series c = { 0 };
	const char *why = NULL;
	int rc = 0;

	if (!text || !len)
		return 0;
	if (series_decode(&c, text, len))
		why = "a malformed T line";
	for (int i = 0; !why && i < c.n; i++) {
		if (metrics_reserved(c.p[i].metric))
			why = "a series of a name fsplan writes itself";
		else if (c.p[i].t_s < 0)
			why = "a point before the timed start";
	}
	if (!why && c.n > TIMELINE_CHILD_MAX)
		why = "more points than any phase makes";
	if (why && !t->refused[0])
		snprintf(t->refused, sizeof(t->refused), "the %s's series "
			 "is left out: %s", what, why);
	else if (!why)
		rc = series_join(&t->s, &c);
	series_free(&c);
	return rc;
}

int timeline_join(struct timeline *t, const struct series *root,
		  const char *report, size_t len, const char *parsed,
		  size_t plen)
{
	memset(t, 0, sizeof(*t));
	if ((root && series_join(&t->s, root)) ||
	    take(t, report, len, "phase") || take(t, parsed, plen, "parser"))
		return -1;
	return 0;
}

/* The area of metric's series: its value over time (bytes for MiB/s,
 * ops for 1/s), 0 when it has no points; -1 out of memory. */
static double area(const struct series *s, const char *metric)
{
	double *t, *v, sum = 0;
	int n;

	if (series_of(s, metric, &t, &v, &n))
		return -1;
	for (int i = 0; i < n; i++)
		sum += v[i] * (t[i] - (i ? t[i - 1] : 0));
	free(t);
	free(v);
	return sum;
}

/* The op series ending in suffix with the largest area, into key:
 * each name once (a name seen is one of the first MAX_NAMES, or looked
 * at again, which costs time, not truth). */
#define MAX_NAMES 256
static void largest(const struct series *s, const char *suffix, char *key,
		    size_t len)
{
	const char *seen[MAX_NAMES];
	size_t k = strlen(suffix);
	double best = 0;
	int n_seen = 0;

	for (int i = 0; i < s->n; i++) {
		const char *m = s->p[i].metric;
		size_t n = strlen(m);
		double a;
		int j;

		if (n <= k || strcmp(m + n - k, suffix) || metrics_reserved(m))
			continue;
		for (j = 0; j < n_seen && strcmp(seen[j], m); j++)
			;
		if (j < n_seen)
			continue;
		if (n_seen < MAX_NAMES)
			seen[n_seen++] = m;
		a = area(s, m);
		if (a > best || (!*key && a >= 0)) {
			best = a;
			snprintf(key, len, "%s", m);
		}
	}
}

static int has(const struct series *s, const char *metric)
{
	for (int i = 0; metric && *metric && i < s->n; i++)
		if (!strcmp(s->p[i].metric, metric))
			return 1;
	return 0;
}

void timeline_key(const struct series *s, const char *rule_metric, int lua,
		  const char *module_key, char *key, size_t len)
{
	double r, w;

	*key = '\0';
	if (rule_metric && *rule_metric) {
		snprintf(key, len, "%s", rule_metric);
		return;
	}
	if (lua) {
		largest(s, "_mbs", key, len);
		if (*key && area(s, key) > 0)
			return;
		*key = '\0';
		largest(s, "_iops", key, len);
		if (*key)
			return;
	} else if (has(s, module_key)) {
		snprintf(key, len, "%s", module_key);
		return;
	}
	w = area(s, "dev_write_mbs");
	r = area(s, "dev_read_mbs");
	if (has(s, "dev_write_mbs") || has(s, "dev_read_mbs"))
		snprintf(key, len, "%s", r > w ? "dev_read_mbs" :
			 "dev_write_mbs");
}

void timeline_steady(struct timeline *t, const struct plan_steady *rule,
		     double warmup_s, int lua, const char *module_key)
{
	struct steady_rule sr = { .range = TIMELINE_RANGE,
				  .slope = TIMELINE_SLOPE };
	double *tv, *v, from = warmup_s > 0 ? warmup_s : 0;
	int n;

	timeline_key(&t->s, rule ? rule->metric : NULL, lua, module_key,
		     t->key, sizeof(t->key));
	if (!*t->key || series_of(&t->s, t->key, &tv, &v, &n) || !n)
		return;
	for (int i = 0; i < t->s.n; i++)
		if (!strcmp(t->s.p[i].metric, t->key)) {
			snprintf(t->key_unit, sizeof(t->key_unit), "%s",
				 t->s.p[i].unit);
			break;
		}
	if (rule && rule->window_s > 0) {
		sr.window_s = rule->window_s;
		sr.range = rule->range;
		sr.slope = rule->slope;
	} else {
		/* the last half of what follows the warm-up, and only it */
		sr.window_s = (tv[n - 1] - from) / 2;
		from = tv[n - 1] - sr.window_s;
	}
	t->tested = 1;
	t->whole = !steady_test(tv, v, n, &sr, from, &t->o);
	free(tv);
	free(v);
}

void timeline_free(struct timeline *t)
{
	series_free(&t->s);
}
