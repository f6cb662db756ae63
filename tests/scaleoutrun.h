/* scaleoutrun: run tests/scaleout.sh from a test and keep what it printed. */
#ifndef FSPLAN_TEST_SCALEOUTRUN_H
#define FSPLAN_TEST_SCALEOUTRUN_H

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <criterion/criterion.h>

#include "e2e.h"

/* What the last scaleout() printed, stdout and stderr together. */
static char log_text[1 << 16];

/* tests/scaleout.sh how plan (in the test's private directory): its
 * exit status (128 when it did not exit), its output in log_text. */
static inline int scaleout(const char *how, const char *plan)
{
	char cmd[1024];
	size_t n = 0;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "bash scaleout.sh %s '%s' '%s' 2>&1", how,
		 plan, e2e_tmpdir());
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (n + 1 < sizeof(log_text) &&
	       fgets(log_text + n, (int)(sizeof(log_text) - n), p))
		n += strlen(log_text + n);
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

#endif
