/* helpers: load plans from text in tests, with the diagnostics in failures. */
#ifndef FSPLAN_TEST_HELPERS_H
#define FSPLAN_TEST_HELPERS_H

#include <criterion/criterion.h>
#include <string.h>

#include "cells/expand.h"
#include "plan/plan.h"
#include "run/resolve.h"

/* Load, resolve and expand text as `fsplan check` does; fail the test
 * with the diagnostic if it is bad. */
static inline struct expansion *expand_text(const char *text,
					    const struct plan_define *defs,
					    int n_defs)
{
	struct plan *p = NULL;
	struct expansion *e = NULL;
	struct diag d = { 0 };
	char msg[1400];

	if (plan_load_text(&p, "t.yaml", text, strlen(text), defs, n_defs,
			   &d) ||
	    resolve_plan(p, &d) || expand_plan(p, &e, &d)) {
		diag_format(&d, msg, sizeof(msg));
		plan_free(p);
		cr_assert_fail("plan rejected: %s", msg);
	}
	return e;
}

static inline void free_expanded(struct expansion *e)
{
	struct plan *p = (struct plan *)e->plan;

	expansion_free(e);
	plan_free(p);
}

/* Expect text to be refused at line:col with msg in the message. */
static inline void expect_error(const char *text, int line, int col,
				const char *msg)
{
	struct plan *p = NULL;
	struct expansion *e = NULL;
	struct diag d = { 0 };

	if (!plan_load_text(&p, "t.yaml", text, strlen(text), NULL, 0, &d)) {
		if (!resolve_plan(p, &d) && !expand_plan(p, &e, &d)) {
			expansion_free(e);
			plan_free(p);
			cr_assert_fail("plan accepted; expected '%s'", msg);
		}
		plan_free(p);
	}
	cr_expect_eq(d.pos.line, line, "line %d, expected %d (%s)",
		     d.pos.line, line, d.msg);
	cr_expect_eq(d.pos.col, col, "col %d, expected %d (%s)", d.pos.col,
		     col, d.msg);
	cr_expect(strstr(d.msg, msg), "message '%s' lacks '%s'", d.msg, msg);
}

#endif
