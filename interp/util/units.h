/* units: the plan's scalar types — sizes, durations, counts, booleans. */
#ifndef FSPLAN_UNITS_H
#define FSPLAN_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* "512", "4k", "64M", "8G", "1T" (powers of 1024, case-blind; "KiB",
 * "MB" and a trailing "B" accepted). 0 on success, -1 if malformed or
 * larger than 2^62. */
int units_size(const char *s, uint64_t *out);
/* "90", "90s", "5m", "1h", "2d", "1.5h", "250ms": seconds. */
int units_duration(const char *s, double *out);
/* A decimal integer in [min, max]. */
int units_int(const char *s, int64_t min, int64_t max, int64_t *out);
/* A finite decimal number, the n bytes at s whole: [+-]digits[.digits]
 * [e[+-]digits] (or .digits). No spaces, hex, inf or nan, all of which
 * strtod takes. 0, or -1. */
int units_decimal(const char *s, size_t n, double *out);
/* true/false, yes/no, on/off (case-blind). */
int units_bool(const char *s, int *out);

/* Human forms for labels and logs: "64M", "1.5h". */
void units_fmt_size(uint64_t v, char *buf, int len);

#endif
