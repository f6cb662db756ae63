/* audit: the methodology checks at the top of a report, one line each. */
#ifndef FSPLAN_REPORT_AUDIT_H
#define FSPLAN_REPORT_AUDIT_H

#include <jansson.h>
#include <stdio.h>

#include "results/results.h"

enum audit_verdict { AUDIT_PASS, AUDIT_WARN, AUDIT_FAIL };

#define AUDIT_MAX 8

struct audit_line {
	enum audit_verdict verdict;
	const char *name;
	char text[512];
};

struct audit {
	struct audit_line line[AUDIT_MAX];
	int n;
	enum audit_verdict worst;
};

/*
 * The checks over r and its manifest m (NULL when none): repetitions,
 * cache, aged, steady, disturbed, cpu-bound, tools, in a (steady only
 * when some phase run had a steady rule). 0, or -1 out of memory.
 */
int audit_run(const struct results *r, json_t *m, struct audit *a);

/* "pass  NAME  text" lines under "== audit ==", to f. */
void audit_text(FILE *f, const struct audit *a);
/* The same as a section of the page. */
void audit_html(FILE *f, const struct audit *a);

#endif
