/* test_units: sizes, durations, counts and booleans as the plan writes them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/subst.h"
#include "util/units.h"

Test(units, sizes_are_powers_of_1024)
{
	static const struct { const char *s; uint64_t v; } ok[] = {
		{ "512", 512 }, { "4k", 4096 }, { "4K", 4096 },
		{ "64M", 64ull << 20 }, { "8G", 8ull << 30 },
		{ "1T", 1ull << 40 }, { "2KiB", 2048 }, { "3MB", 3ull << 20 },
		{ " 16m ", 16ull << 20 }, { "0", 0 }, { "100b", 100 },
		{ "4096P", 1ull << 62 },
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cr_expect_eq(units_size(ok[i].s, &v), 0, "'%s' rejected",
			     ok[i].s);
		cr_expect_eq(v, ok[i].v, "'%s' gave %llu", ok[i].s,
			     (unsigned long long)v);
	}
}

Test(units, bad_sizes_are_refused)
{
	static const char *const bad[] = {
		"", "k", "12Q", "1.5G", "-1", "4 G B", "1GG", "8E",
		"99999999999999999999", "0x10", "4Gx",
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(units_size(bad[i], &v), -1, "'%s' accepted",
			     bad[i]);
}

Test(units, durations_in_seconds)
{
	static const struct { const char *s; double v; } ok[] = {
		{ "90", 90 }, { "90s", 90 }, { "5m", 300 }, { "1h", 3600 },
		{ "1.5h", 5400 }, { "250ms", 0.25 }, { "2d", 172800 },
	};
	double v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cr_expect_eq(units_duration(ok[i].s, &v), 0, "'%s'", ok[i].s);
		cr_expect_float_eq(v, ok[i].v, 1e-9, "'%s' gave %g", ok[i].s,
				   v);
	}
	cr_expect_eq(units_duration("soon", &v), -1);
	cr_expect_eq(units_duration("5x", &v), -1);
	cr_expect_eq(units_duration("-3s", &v), -1);
	cr_expect_eq(units_duration("1e300", &v), -1);
	/* strtod's other numbers are no durations */
	cr_expect_eq(units_duration("0x10s", &v), -1);
	cr_expect_eq(units_duration("nan", &v), -1);
	cr_expect_eq(units_duration("inf", &v), -1);
	cr_expect_eq(units_duration("", &v), -1);
}

Test(units, integers_and_booleans)
{
	int64_t v;
	int b;

	cr_expect_eq(units_int("42", 1, 100, &v), 0);
	cr_expect_eq(v, 42);
	cr_expect_eq(units_int("0", 1, 100, &v), -1);
	cr_expect_eq(units_int("101", 1, 100, &v), -1);
	cr_expect_eq(units_int("4k", 1, 100000, &v), -1);
	cr_expect_eq(units_int("", 0, 1, &v), -1);
	cr_expect_eq(units_bool("Yes", &b), 0);
	cr_expect_eq(b, 1);
	cr_expect_eq(units_bool("off", &b), 0);
	cr_expect_eq(b, 0);
	cr_expect_eq(units_bool("maybe", &b), -1);
}

Test(units, size_formatting)
{
	char buf[32];

	units_fmt_size(64ull << 20, buf, sizeof(buf));
	cr_expect_str_eq(buf, "64M");
	units_fmt_size(1000, buf, sizeof(buf));
	cr_expect_str_eq(buf, "1000");
	units_fmt_size(3ull << 40, buf, sizeof(buf));
	cr_expect_str_eq(buf, "3T");
}

static const char *look(void *ctx, const char *name, size_t len)
{
	(void)ctx;
	if (len == 4 && !memcmp(name, "size", 4))
		return "1G";
	if (len == 3 && !memcmp(name, "dir", 3))
		return "${size}";	/* values are not re-scanned */
	return NULL;
}

Test(subst, expands_once_and_keeps_shell_dollars)
{
	struct subst_error e;
	char *out;

	cr_assert_eq(subst("-s ${size} -d $HOME $$x $${size} ${dir}", look,
			   NULL, &out, &e), 0);
	cr_expect_str_eq(out, "-s 1G -d $HOME $x ${size} ${size}");
	free(out);
	cr_expect(subst_has_ref("a ${size}"));
	cr_expect(!subst_has_ref("a $${size} $HOME"));
}

Test(subst, errors_name_the_offset)
{
	struct subst_error e;
	char *out = NULL;

	cr_expect_eq(subst("bs=${blok} count=1", look, NULL, &out, &e), -1);
	cr_expect_eq(e.offset, 3);
	cr_expect_str_eq(e.name, "blok");
	cr_expect_null(out);
	cr_expect_eq(subst("x ${size", look, NULL, NULL, &e), -1);
	cr_expect_eq(e.offset, 2);
	cr_expect(strstr(e.what, "unterminated"));
	cr_expect_eq(subst("${9lives}", look, NULL, NULL, &e), -1);
	cr_expect_eq(e.offset, 0);
}

/* results.csv's one number parser: what strtod takes besides decimals
 * (hex, inf, nan, spaces) is not a number there. */
Test(units, a_decimal_is_finite_and_decimal_only)
{
	static const char *const ok[] = { "0", "-1", "+2.5", ".5", "5.",
		"1e+06", "1.5E-3", "0.000122", "1e-320" };
	static const char *const bad[] = { "", "0x10", "0X1p3", "nan", "NaN",
		"inf", "-inf", "infinity", " 1", "1 ", "1,5", "abc", "1e",
		"1e+", "-", ".", "1e999", "1\n2", "+-1", "1..2" };
	char max[400];
	double v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++)
		cr_expect_eq(units_decimal(ok[i], strlen(ok[i]), &v), 0,
			     "'%s'", ok[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		cr_expect_eq(units_decimal(bad[i], strlen(bad[i]), &v), -1,
			     "'%s'", bad[i]);
	cr_expect_eq(units_decimal("12x", 2, &v), 0, "a token, not a string");
	cr_expect_eq(v, 12);
	/* the sink's "%.6f" of the largest double */
	snprintf(max, sizeof(max), "%.6f", 1.7976931348623157e308);
	cr_expect_eq(units_decimal(max, strlen(max), &v), 0, "%zu bytes",
		     strlen(max));
}

/* Half of SUBST_MAX and a byte, for any name. */
static const char *look_half(void *ctx, const char *name, size_t len)
{
	static char *half;

	(void)ctx, (void)name, (void)len;
	if (!half) {
		half = calloc(SUBST_MAX / 2 + 2, 1);
		cr_assert_not_null(half);
		memset(half, 'x', SUBST_MAX / 2 + 1);
	}
	return half;
}

Test(subst, an_expansion_past_1_mib_is_an_error_at_the_name)
{
	struct subst_error e;
	char *out = NULL;

	cr_expect_eq(subst("${a}", look_half, NULL, &out, &e), 0);
	free(out);
	out = NULL;
	cr_expect_eq(subst("ab ${a}${b}", look_half, NULL, &out, &e), -1);
	cr_expect_null(out);
	cr_expect_eq(e.offset, 7);
	cr_expect_str_eq(e.name, "b");
	cr_expect(!e.undefined);
	cr_expect_eq(e.length, 3 + 2 * (SUBST_MAX / 2 + 1));
	/* checking only (out NULL) counts the same */
	cr_expect_eq(subst("ab ${a}${b}", look_half, NULL, NULL, &e), -1);
	cr_expect_eq(e.offset, 7);
}
