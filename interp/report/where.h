/* where: a run's coordinates by name — report's --where k=v and --by AXIS. */
#ifndef FSPLAN_REPORT_WHERE_H
#define FSPLAN_REPORT_WHERE_H

#include <jansson.h>
#include <stddef.h>

#include "results/results.h"
#include "util/diag.h"
#include "util/opts.h"

/*
 * The value of coordinate key of run x into buf (returned), or NULL when
 * x has none: type, label, mkfs, mount, phase, a phase parameter (of
 * x's params), and from manifest m (NULL: none) its config's matrix
 * axes and design factors ('+' or '-').
 */
const char *where_value(const struct res_run *x, json_t *m, const char *key,
			char *buf, size_t len);

/*
 * Whether key is a coordinate of some run of r (m as above): 0 if so,
 * else -1 with d saying so, opt ("--where") and the nearest name.
 */
int where_known(const struct results *r, json_t *m, const char *key,
		const char *opt, struct diag *d);

/*
 * Keep the runs of r whose coordinates equal every k=v of where (all
 * of them: and), leave out the rest. Returns 0, or -1 with d filled (a
 * term without '=', an unknown key, no run left, out of memory).
 */
int where_apply(struct results *r, json_t *m, const struct opt_list *where,
		struct diag *d);

#endif
