/* test_rank_groups: the group letters (Welch, Holm) and the figures' format. */
#include <math.h>

#include "report/fig.h"
#include "report/groups.h"
#include "report/rank.h"
#include "results/stats.h"
#include "resset.h"

TestSuite(rankgroups, .fini = rs_free);

static struct res_stats st(int n, double mean, double sd)
{
	struct res_stats s = { 0 };

	s.n = n;
	s.mean = mean;
	s.sd = sd;
	return s;
}

/* The letters of configs s (best first), joined by spaces. */
static const char *letters(const struct res_stats *s, size_t n, int none)
{
	static char out[512];
	char l[16][GROUPS_LEN];

	cr_assert_eq(groups_letters(s, n, 0.05, l), none);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s",
			 i ? " " : "", l[i]);
	return out;
}

Test(rankgroups, equal_means_share_a_letter_a_different_one_does_not)
{
	struct res_stats s[] = { st(5, 100, 1), st(5, 100.3, 1),
				 st(5, 120, 1) };
	struct res_stats far[] = { st(3, 10, 0.5), st(3, 20, 0.5),
				   st(3, 30, 0.5) };

	cr_expect_str_eq(letters(s, 3, 0), "a a b");
	cr_expect_str_eq(letters(far, 3, 0), "a b c");
}

Test(rankgroups, a_chain_shares_with_both_ends)
{
	/* 10 vs 14 differs (p ~ 0.008 < 0.05/3), 12 is close to both */
	struct res_stats s[] = { st(3, 10, 1), st(3, 12, 1), st(3, 14, 1) };

	cr_expect_str_eq(letters(s, 3, 0), "a ab b");
}

Test(rankgroups, holm_steps_down_and_stops)
{
	double p[] = { 0.03, 0.04, 0.5 }, q[] = { 0.04, 0.01, 0.03 },
	       r[] = { 0.01, 0.02, 0.049 };
	char rej[3];

	/* uncorrected, two of these would count; 0.03 > 0.05/3 */
	cr_assert_eq(groups_holm(p, 3, 0.05, rej), 0);
	cr_expect(!rej[0] && !rej[1] && !rej[2]);
	/* 0.01 <= 0.05/3; then 0.03 > 0.05/2 stops it, 0.04 too */
	cr_assert_eq(groups_holm(q, 3, 0.05, rej), 0);
	cr_expect(!rej[0] && rej[1] && !rej[2]);
	/* 0.01 <= 0.0167, 0.02 <= 0.025, 0.049 <= 0.05: all */
	cr_assert_eq(groups_holm(r, 3, 0.05, rej), 0);
	cr_expect(rej[0] && rej[1] && rej[2]);
}

Test(rankgroups, holm_keeps_together_what_one_test_would_split)
{
	/* 10 and 12.67 over 3 with s = 1: t = 3.27, df 4, p ~ 0.03 alone */
	struct res_stats s[] = { st(3, 10, 1), st(3, 11.335, 1),
				 st(3, 12.67, 1) };
	struct stats_welch w;

	cr_assert_eq(stats_welch(3, 10, 1, 3, 12.67, 1, 0.95, &w), 0);
	cr_assert(w.p < 0.05 && w.p > 0.05 / 3, "p %g", w.p);
	cr_expect_str_eq(letters(s, 3, 0), "a a a");
}

Test(rankgroups, one_repetition_gets_no_letter)
{
	struct res_stats s[] = { st(3, 10, 0.1), st(1, 50, 0), st(3, 30, 0.1) };

	cr_expect_str_eq(letters(s, 3, 1), "a - b");
}

/* The same over a rank table: three configs, 5 repetitions each. */
Test(rankgroups, a_report_table_groups_its_rows)
{
	static const double base[] = { 100, 100, 120 };
	static const char *const label[] = { "ext4", "xfs", "btrfs" };
	static const double jitter[] = { -1, 0, 1, -0.5, 0.5 };
	size_t len;
	FILE *f;
	const char *out;

	rs_begin();
	for (int i = 0; i < 3; i++)
		for (int rep = 1; rep <= 5; rep++) {
			rs_num(label[i], "p", "", rep, "seconds",
			       base[i] + jitter[(rep + i) % 5], "s");
			rs_status(label[i], "p", "", rep, "ok");
		}
	rs_load("p");
	f = rs_stream(&len);
	cr_assert_eq(rank_tables(f, rs.run, rs.n, NULL), 0);
	out = rs_done(f);
	rs_expect_line(out, "config n mean stdev 95% CI high low group");
	rs_expect_line(out, "ext4 5 100 0.791 ±0.982 101 99.0 a");
	rs_expect_line(out, "xfs 5 100 0.791 ±0.982 101 99.0 a");
	rs_expect_line(out, "btrfs 5 120 0.791 ±0.982 121 119 b");
}

static const char *fig(double v, int plus)
{
	static char buf[FIG_LEN];

	return fig_text(buf, sizeof(buf), v, plus, NULL, NULL);
}

Test(rankgroups, three_significant_figures_no_exponent)
{
	cr_expect_str_eq(fig(1177.112, 0), "1180");
	cr_expect_str_eq(fig(117.7112, 0), "118");
	cr_expect_str_eq(fig(11.77112, 0), "11.8");
	cr_expect_str_eq(fig(1.177112, 0), "1.18");
	cr_expect_str_eq(fig(0.1177112, 0), "0.118");
	cr_expect_str_eq(fig(0.001177, 0), "0.00118");
	cr_expect_str_eq(fig(123456789, 0), "123000000");
	cr_expect_str_eq(fig(999.6, 0), "1000");
	cr_expect_str_eq(fig(9.996, 0), "10.0");
	cr_expect_str_eq(fig(2, 0), "2.00");
	cr_expect_str_eq(fig(0, 0), "0");
	cr_expect_str_eq(fig(-4.256, 0), "-4.26");
	cr_expect_str_eq(fig(4.2, 1), "+4.20");
	cr_expect_str_eq(fig(NAN, 0), "-");
	/* outside 0.001 .. 1e9, an exponent */
	cr_expect_str_eq(fig(2.5e9, 0), "2.5e+09");
	cr_expect_str_eq(fig(0.0000123, 0), "1.23e-05");
	{
		char buf[FIG_LEN];

		cr_expect_str_eq(fig_text(buf, sizeof(buf), -12.345, 1, "[",
					  "%"), "[-12.3%");
	}
}
