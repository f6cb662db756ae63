/* metricname: what a table calls a metric — its name as words, its unit. */
#ifndef FSPLAN_REPORT_METRICNAME_H
#define FSPLAN_REPORT_METRICNAME_H

#include "util/strbuf.h"

/* A metric's label for a table and the scale of its figures. */
struct metricname {
	struct strbuf label;	/* "average latency (ms)"; grown */
	double scale;		/* divide the values by this */
};

/*
 * name's label with its unit: the name without its unit suffix, as words
 * (lat: latency, avg: average, ...), then the unit in parentheses (unit:
 * results.csv's unit column, or NULL); bytes in binary units chosen by
 * top, the table's largest value. 0, or -1 out of memory (t freed).
 * Free with metricname_free.
 */
int metricname_of(const char *name, const char *unit, double top,
		  struct metricname *t);
void metricname_free(struct metricname *t);

/* Decimals for about four significant digits of top, a largest figure. */
int metricname_digits(double top);

#endif
