/* csvtext: a results.csv (or any text) built line by line in a test. */
#ifndef FSPLAN_TEST_CSVTEXT_H
#define FSPLAN_TEST_CSVTEXT_H

#include <stdarg.h>
#include <stdio.h>

#include <criterion/criterion.h>

/* The text so far, and its length (set len to 0 to start anew). */
static char csv[1 << 16];
static size_t len;

/* fmt's text appended to csv. */
static void add(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void add(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	len += vsnprintf(csv + len, sizeof(csv) - len, fmt, ap);
	va_end(ap);
	cr_assert_lt(len, sizeof(csv));
}

#endif
