/* fig: one number format for report and compare tables, 3 significant figures. */
#ifndef FSPLAN_REPORT_FIG_H
#define FSPLAN_REPORT_FIG_H

#include <stddef.h>

/* Room for any figure fig_text writes, with a sign and a unit. */
#define FIG_LEN 48

/*
 * v in 3 significant figures into buf (returned): 1180, 118, 11.8,
 * 1.18, 0.118, 0.00118 — never an exponent between 0.001 and 1e9 (a
 * figure that rounds to 1000 prints 1000, never 1e+03); outside that
 * range %.3g. 0 is "0", NAN "-", infinities "inf"/"-inf". pre and post
 * (NULL for none) go around it ("±", "%"); plus: a sign on a positive
 * figure too ("+4.2").
 */
const char *fig_text(char *buf, size_t len, double v, int plus,
		     const char *pre, const char *post);

#endif
