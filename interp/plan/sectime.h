/* sectime: the plan's keys of behaviour over time (interval, warmup, steady). */
#ifndef FSPLAN_SECTIME_H
#define FSPLAN_SECTIME_H

#include "plan/field.h"

/* DESIGN.md section 8: the interval when the plan gives none, the
 * shortest one taken (0 turns the series off) and the longest. */
#define SECTIME_INTERVAL_S	1.0
#define SECTIME_INTERVAL_MIN_S	0.1
#define SECTIME_INTERVAL_MAX_S	86400.0
/* steady:'s defaults, as fractions */
#define SECTIME_RANGE		0.20
#define SECTIME_SLOPE		0.10

/* Field handlers: interval: at the top level (obj the struct plan), and
 * a phase's interval:, warmup: and steady: (obj the struct plan_phase;
 * in this order in the phase's table, after timeout and exec). */
int sectime_plan_interval(struct loader *L, yaml_node_t *n, void *obj);
int sectime_phase_interval(struct loader *L, yaml_node_t *n, void *obj);
int sectime_phase_warmup(struct loader *L, yaml_node_t *n, void *obj);
int sectime_phase_steady(struct loader *L, yaml_node_t *n, void *obj);

/* Before a phase's keys are read: its interval unset. */
void sectime_phase_init(struct plan_phase *ph);
/* After: the plan's interval when the phase has none. */
void sectime_phase_finish(const struct plan *p, struct plan_phase *ph);

#endif
