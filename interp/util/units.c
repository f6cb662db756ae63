/* units: parse and format the plan's sizes, durations, counts and booleans. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/units.h"

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static int only_space(const char *s)
{
	return *skip_space(s) == '\0';
}

int units_size(const char *s, uint64_t *out)
{
	static const char suffixes[] = "kmgtpe";
	const char *p = skip_space(s);
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno)
		return -1;
	p = skip_space(end);
	if (*p) {
		const char *hit = strchr(suffixes, tolower((unsigned char)*p));

		if (hit) {
			shift = 10 * (int)(hit - suffixes + 1);
			p++;
			/* KiB, MiB ...; also K, KB: all powers of 1024 */
			if (*p == 'i' || *p == 'I')
				p++;
			if (*p == 'b' || *p == 'B')
				p++;
		} else if (*p == 'b' || *p == 'B') {
			p++;
		} else {
			return -1;
		}
	}
	if (!only_space(p))
		return -1;
	if (shift && v > (UINT64_C(1) << 62) >> shift)
		return -1;
	v <<= shift;
	if (v > UINT64_C(1) << 62)
		return -1;
	*out = v;
	return 0;
}

int units_duration(const char *s, double *out)
{
	const char *p = skip_space(s);
	/* the number is plain decimal digits: strtod alone would read
	 * 0x10s as 16 s and nan or inf as a duration */
	size_t n = strspn(p, "0123456789");
	double v, mult = 1;

	if (p[n] == '.')
		n += 1 + strspn(p + n + 1, "0123456789");
	if (units_decimal(p, n, &v) || v < 0)
		return -1;
	p = skip_space(p + n);
	if (!strncasecmp(p, "ms", 2)) {
		mult = 0.001;
		p += 2;
	} else if (*p) {
		switch (tolower((unsigned char)*p)) {
		case 's': mult = 1; break;
		case 'm': mult = 60; break;
		case 'h': mult = 3600; break;
		case 'd': mult = 86400; break;
		default: return -1;
		}
		p++;
	}
	if (!only_space(p))
		return -1;
	v *= mult;
	if (v > 1e9)	/* over thirty years: a typo */
		return -1;
	*out = v;
	return 0;
}

int units_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
	const char *p = skip_space(s);
	char *end;
	long long v;

	if (!isdigit((unsigned char)*p) && *p != '-' && *p != '+')
		return -1;
	errno = 0;
	v = strtoll(p, &end, 10);
	if (errno || end == p || !only_space(end) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static size_t digits(const char *s, size_t n)
{
	size_t k = 0;

	while (k < n && isdigit((unsigned char)s[k]))
		k++;
	return k;
}

int units_decimal(const char *s, size_t n, double *out)
{
	char buf[512], *end;	/* "%.6f" of DBL_MAX is 316 bytes */
	size_t i = 0, whole, frac = 0;
	double v;

	if (n >= sizeof(buf))
		return -1;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	whole = digits(s + i, n - i);
	i += whole;
	if (i < n && s[i] == '.') {
		frac = digits(s + i + 1, n - i - 1);
		i += 1 + frac;
	}
	if (!whole && !frac)
		return -1;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t sign = i + 1 < n && (s[i + 1] == '+' ||
					    s[i + 1] == '-');
		size_t exp = digits(s + i + 1 + sign, n - i - 1 - sign);

		if (!exp)
			return -1;
		i += 1 + sign + exp;
	}
	if (i != n)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	/* ERANGE from underflow is fine: a subnormal is a number */
	v = strtod(buf, &end);
	if (end != buf + n || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int units_bool(const char *s, int *out)
{
	static const char *const yes[] = { "true", "yes", "on" };
	static const char *const no[] = { "false", "no", "off" };

	for (int i = 0; i < 3; i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

void units_fmt_size(uint64_t v, char *buf, int len)
{
	static const char suffixes[] = "KMGTPE";
	int i = -1;

	while (v && !(v & 1023) && i < 5) {
		v >>= 10;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v,
			 suffixes[i]);
}
