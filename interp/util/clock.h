/* clock: the one monotonic clock every timing in fsplan reads. */
#ifndef FSPLAN_CLOCK_H
#define FSPLAN_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds: op latencies, engine completions. */
static inline uint64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The same clock in seconds: phase runs, deadlines, timeouts. */
static inline double clock_now(void)
{
	return (double)clock_ns() / 1e9;
}

#endif
