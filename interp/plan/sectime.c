/* sectime: the plan's keys of behaviour over time (interval, warmup, steady). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/sectime.h"
#include "util/units.h"

#define EPS 1e-9

/* A duration at n for key: 0, or -1 with the error at its place. */
static int duration(struct loader *L, yaml_node_t *n, const char *key,
		    const char *eg, double *out, struct pos *pos)
{
	struct pstr ps;
	int rc = 0;

	if (field_pstr_params(L, n, key, &ps))
		return -1;
	if (pos)
		*pos = ps.pos;
	if (units_duration(ps.s, out))
		rc = field_error(L, ps.pos, "'%s' is a duration (e.g. %s), "
				 "not '%s'", key, eg, ps.s);
	free(ps.s);
	return rc;
}

static int interval(struct loader *L, yaml_node_t *n, double *out)
{
	struct pos pos;
	double v;

	if (duration(L, n, "interval", "1s, 500ms; 0: no series", &v, &pos))
		return -1;
	if (v > 0 && v < SECTIME_INTERVAL_MIN_S - EPS)
		return field_error(L, pos, "'interval' of %g ms is below the "
				   "shortest, 100ms (0: no series)", v * 1e3);
	if (v > SECTIME_INTERVAL_MAX_S)
		return field_error(L, pos, "'interval' of %g s is over a day, "
				   "the longest", v);
	*out = v;
	return 0;
}

int sectime_plan_interval(struct loader *L, yaml_node_t *n, void *obj)
{
	return interval(L, n, &((struct plan *)obj)->interval_s);
}

int sectime_phase_interval(struct loader *L, yaml_node_t *n, void *obj)
{
	return interval(L, n, &((struct plan_phase *)obj)->interval_s);
}

/* The phase's timeout as it will be (finish_phase's default). */
static double timeout_of(const struct plan_phase *ph)
{
	return ph->timeout_s > 0 ? ph->timeout_s : 3600;
}

int sectime_phase_warmup(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;
	struct pos pos;

	if (duration(L, n, "warmup", "10s, 2m; 0: none", &ph->warmup_s, &pos))
		return -1;
	if (ph->warmup_s >= timeout_of(ph))
		return field_error(L, pos, "'warmup' of %g s is not shorter "
				   "than the phase's timeout (%g s): nothing "
				   "would be measured", ph->warmup_s,
				   timeout_of(ph));
	return 0;
}

/* steady: as it is read, with the places its checks point at. */
struct rule {
	struct plan_steady *s;
	struct pos metric_pos, window_pos, max_pos;
	int max_given;
};

/* The one metric-name rule (results' metrics_metric_name_ok, which this
 * layer cannot include): [A-Za-z0-9_.-]{1,63}, no - first. */
static int metric_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 63 || s[0] == '-')
		return 0;
	for (const char *c = s; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_.-", *c))
			return 0;
	return 1;
}

static int h_metric(struct loader *L, yaml_node_t *n, void *obj)
{
	struct rule *r = obj;
	struct pstr ps;
	int rc = 0;

	if (field_pstr_params(L, n, "metric", &ps))
		return -1;
	r->metric_pos = ps.pos;
	if (!metric_ok(ps.s))
		rc = field_error(L, ps.pos, "'metric' is a series' name (e.g. "
				 "write_mbs, dev_write_mbs), not '%s'", ps.s);
	else
		snprintf(r->s->metric, sizeof(r->s->metric), "%s", ps.s);
	free(ps.s);
	return rc;
}

static int h_window(struct loader *L, yaml_node_t *n, void *obj)
{
	struct rule *r = obj;

	if (duration(L, n, "window", "30s, 2m", &r->s->window_s,
		     &r->window_pos))
		return -1;
	if (r->s->window_s <= 0)
		return field_error(L, r->window_pos, "'window' must be more "
				   "than zero");
	return 0;
}

/* A percentage of the mean, "20%": a bare number is ambiguous. */
static int percent(struct loader *L, yaml_node_t *n, const char *key,
		   const char *eg, double *out)
{
	struct pstr ps;
	size_t len;
	double v;
	int rc = 0;

	if (field_pstr_params(L, n, key, &ps))
		return -1;
	len = strlen(ps.s);
	if (len < 2 || ps.s[len - 1] != '%' ||
	    units_decimal(ps.s, len - 1, &v) || !(v > 0) || v > 100)
		rc = field_error(L, ps.pos, "'%s' is a percentage of the mean, "
				 "above 0 and at most 100%% (e.g. %s), not "
				 "'%s'", key, eg, ps.s);
	else
		*out = v / 100;
	free(ps.s);
	return rc;
}

static int h_range(struct loader *L, yaml_node_t *n, void *obj)
{
	return percent(L, n, "range", "20%", &((struct rule *)obj)->s->range);
}

static int h_slope(struct loader *L, yaml_node_t *n, void *obj)
{
	return percent(L, n, "slope", "10%", &((struct rule *)obj)->s->slope);
}

static int h_max(struct loader *L, yaml_node_t *n, void *obj)
{
	struct rule *r = obj;

	r->max_given = 1;
	if (duration(L, n, "max", "10m, 1h", &r->s->max_s, &r->max_pos))
		return -1;
	if (r->s->max_s <= 0)
		return field_error(L, r->max_pos, "'max' must be more than "
				   "zero (leave it out: the rule then judges "
				   "the run and stops nothing)");
	return 0;
}

static const struct field steady_fields[] = {
	{ "metric", h_metric, 0 },
	{ "window", h_window, 1 },
	{ "range", h_range, 0 },
	{ "slope", h_slope, 0 },
	{ "max", h_max, 0 },
	{ NULL, NULL, 0 }
};

/* Whether metric is a series a Lua phase's own child sees: an op's. */
static int child_sees(const char *m)
{
	static const char *const tail[] = { "_mbs", "_iops", "_ops" };
	size_t n = strlen(m);

	if (!strncmp(m, "dev_", 4))
		return 0;
	for (size_t i = 0; i < sizeof(tail) / sizeof(tail[0]); i++) {
		size_t t = strlen(tail[i]);

		if (n > t && !strcmp(m + n - t, tail[i]))
			return 1;
	}
	return 0;
}

/* The rule's checks against its phase: its interval, timeout, kind. */
static int check_rule(struct loader *L, const struct plan_phase *ph,
		      const struct rule *r)
{
	const struct plan_steady *s = r->s;
	double iv = ph->interval_s >= 0 ? ph->interval_s : L->p->interval_s;

	if (iv == 0)
		return field_error(L, s->pos, "'steady' tests a series, and "
				   "this phase has none: its interval is 0");
	if (s->window_s < 2 * iv - EPS)
		return field_error(L, r->window_pos, "'window' of %g s holds "
				   "fewer than 2 intervals of %g s", s->window_s,
				   iv);
	if (s->window_s >= timeout_of(ph))
		return field_error(L, r->window_pos, "'window' of %g s is not "
				   "shorter than the phase's timeout (%g s): no "
				   "run holds it", s->window_s, timeout_of(ph));
	if (!r->max_given)
		return 0;
	if (ph->exec.s)
		return field_error(L, r->max_pos, "'max' stops a Lua phase's "
				   "workers; an exec phase runs its command to "
				   "its end (leave out max: the rule then "
				   "judges the run)");
	if (s->max_s < s->window_s)
		return field_error(L, r->max_pos, "'max' of %g s is shorter "
				   "than the window (%g s)", s->max_s,
				   s->window_s);
	if (s->max_s >= timeout_of(ph))
		return field_error(L, r->max_pos, "'max' of %g s is not "
				   "shorter than the phase's timeout (%g s): "
				   "raise timeout", s->max_s, timeout_of(ph));
	if (s->metric[0] && !child_sees(s->metric))
		return field_error(L, r->metric_pos, "a stop (max) needs a "
				   "series the phase's own child sees: "
				   "<op>_mbs, <op>_iops or <op>_ops; '%s' is "
				   "known only after the run (leave out max "
				   "to judge it then)", s->metric);
	return 0;
}

int sectime_phase_steady(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;
	struct rule r = { .s = &ph->steady };

	memset(&ph->steady, 0, sizeof(ph->steady));
	ph->steady.pos = ydoc_pos(L->key);
	ph->steady.range = SECTIME_RANGE;
	ph->steady.slope = SECTIME_SLOPE;
	if (field_mapping(L, n, steady_fields, &r, "'steady' ({metric, "
			  "window, range, slope, max})") ||
	    check_rule(L, ph, &r)) {
		ph->steady.window_s = 0;
		return -1;
	}
	return 0;
}

void sectime_phase_init(struct plan_phase *ph)
{
	ph->interval_s = -1;
}

void sectime_phase_finish(const struct plan *p, struct plan_phase *ph)
{
	if (ph->interval_s < 0)
		ph->interval_s = p->interval_s;
}
