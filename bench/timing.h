/* bench/timing.h: the clocks bench/limit.c and bench/lualimit.c read alike. */
#ifndef BENCH_TIMING_H
#define BENCH_TIMING_H

#include <sys/resource.h>
#include <time.h>

/* Monotonic seconds. */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds of the process, user + system (io_uring's kernel threads
 * included). */
static inline double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

#endif
