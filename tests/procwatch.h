/* procwatch: what tests of process runners check — the time, and whether a
 * process still runs. */
#ifndef FSPLAN_TEST_PROCWATCH_H
#define FSPLAN_TEST_PROCWATCH_H

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline double watch_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Gone, or a zombie nobody has reaped yet: either way it no longer runs. */
static inline int watch_dead(long pid)
{
	char p[64], buf[512], *rp;
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "/proc/%ld/stat", pid);
	f = fopen(p, "r");
	if (!f)
		return 1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	return rp && (rp[2] == 'Z' || rp[2] == 'X');
}

/* watch_dead within about a second (a SIGKILL takes a moment). */
static inline int watch_gone(long pid)
{
	for (int i = 0; i < 100 && !watch_dead(pid); i++)
		usleep(10000);
	return watch_dead(pid);
}

#endif
