/* test_stats: Student's t and Welch's test against mpmath's figures
 * (tests/fixtures/compare/welch.py). */
#include <criterion/criterion.h>
#include <math.h>

#include "results/results.h"
#include "results/stats.h"

/*
 * The expected values were printed once by tests/fixtures/compare/welch.py
 * (mpmath at 40 digits: its betainc, a bisection for the quantiles, the
 * Welch-Satterthwaite formulas) and copied here; nothing below derives
 * them again. SciPy 1.10.1 agrees with them (its t.ppf to about 1e-9).
 */

static void near(double got, double want, double rel, const char *what)
{
	cr_expect(fabs(got - want) <= rel * fmax(fabs(want), 1e-300),
		  "%s: %.15g, mpmath says %.15g", what, got, want);
}

Test(stats, incomplete_beta)
{
	near(stats_betai(2.5, 0.5, 0.3), 0.018927124071945652, 1e-12, "I");
	near(stats_betai(0.5, 3.0, 0.9), 0.99967502532072892, 1e-12, "I");
	near(stats_betai(10, 20, 0.4), 0.78531838976282618, 1e-12, "I");
	near(stats_betai(1, 1, 0.25), 0.25, 1e-14, "I");
	near(stats_betai(50, 0.5, 0.99), 0.31730439787419737, 1e-12, "I");
	cr_expect(isnan(stats_betai(-1, 1, 0.5)));
	cr_expect(isnan(stats_betai(1, 1, 1.5)));
	cr_expect_eq(stats_betai(3, 4, 0), 0);
	cr_expect_eq(stats_betai(3, 4, 1), 1);
}

Test(stats, t_cdf)
{
	near(stats_t_cdf(2.0, 3), 0.93033701572057841, 1e-12, "cdf");
	near(stats_t_cdf(-1.5, 7.5), 0.087240285293232117, 1e-12, "cdf");
	near(stats_t_cdf(0.3, 1), 0.59277357907774234, 1e-12, "cdf");
	near(stats_t_cdf(4.0, 2.2), 0.97563468663611801, 1e-12, "cdf");
	near(stats_t_cdf(10, 50), 0.99999999999991961, 1e-14, "cdf");
	cr_expect_eq(stats_t_cdf(0, 4), 0.5);
	cr_expect(isnan(stats_t_cdf(1, 0)));
}

Test(stats, t_quantile)
{
	near(stats_t_quantile(0.975, 1), 12.706204736174705, 1e-10, "q");
	near(stats_t_quantile(0.975, 9), 2.2621571627982055, 1e-10, "q");
	near(stats_t_quantile(0.975, 50), 2.0085591121007611, 1e-10, "q");
	near(stats_t_quantile(0.975, 7.3), 2.3450667365477036, 1e-10, "q");
	near(stats_t_quantile(0.995, 4.6), 4.2187411863129793, 1e-10, "q");
	near(stats_t_quantile(0.025, 12), -2.1788128296672289, 1e-10, "q");
	near(stats_t_quantile(0.999, 2.5), 13.822193110865965, 1e-10, "q");
	near(stats_t_quantile(0.975, 10000), 1.9602012398906263, 1e-10, "q");
	cr_expect_eq(stats_t_quantile(0.5, 3), 0);
	cr_expect(isnan(stats_t_quantile(1, 3)));
	cr_expect(isnan(stats_t_quantile(0.9, -2)));
	/* report's CI uses the same quantile */
	near(results_t975(9), 2.2621571627982055, 1e-10, "t975");
	near(results_t975(50), 2.0085591121007611, 1e-10, "t975");
}

/* mean and sample sd of v */
static void msd(const double *v, int n, double *m, double *sd)
{
	struct res_stats s;

	results_stats(v, n, &s);
	*m = s.mean;
	*sd = s.sd;
}

struct pair {
	double a[6], b[6];
	int na, nb;
	/* mpmath: diff, se, df, t, p, 95% lo, hi, 99% lo, hi */
	double want[9];
};

static const struct pair pairs[] = {
	{ { 100.0, 102.5, 98.7, 101.2, 99.9 },
	  { 105.1, 107.3, 104.8, 106.0, 108.2 }, 5, 5,
	  { 5.82, 0.91433035605299685, 7.9999102594714603,
	    6.3653142012301934, 0.00021703304460660241, 3.7115463010548353,
	    7.9284536989451647, 2.7520575060109343, 8.8879424939890657 } },
	{ { 10.0, 12.0, 11.0 }, { 10.5, 11.8, 12.2, 9.9 }, 3, 4,
	  { 0.1, 0.79056941504209483, 4.6551724137931034,
	    0.12649110640673517, 0.90462297628587983, -1.9783465181634379,
	    2.1783465181634379, -3.212726908389609, 3.412726908389609 } },
	{ { 1.0, 1.1, 0.9, 1.05 }, { 1.5, 2.5, 0.7, 3.1, 1.9, 2.2 }, 4, 6,
	  { 0.97083333333333333, 0.34171239531382398, 5.1576866355342921,
	    2.8410831642256738, 0.034948646477998111, 0.10045002783217159,
	    1.8412166388344951, -0.38557269206502246, 2.3272393587316891 } },
};

Test(stats, welch_against_mpmath)
{
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		const struct pair *x = &pairs[i];
		struct stats_welch w, w99;
		double ma, sa, mb, sb;

		msd(x->a, x->na, &ma, &sa);
		msd(x->b, x->nb, &mb, &sb);
		cr_assert_eq(stats_welch(x->na, ma, sa, x->nb, mb, sb, 0.95,
					 &w), 0);
		cr_assert_eq(stats_welch(x->na, ma, sa, x->nb, mb, sb, 0.99,
					 &w99), 0);
		near(w.diff, x->want[0], 1e-12, "diff");
		near(w.se, x->want[1], 1e-12, "se");
		near(w.df, x->want[2], 1e-12, "df");
		near(w.t, x->want[3], 1e-12, "t");
		near(w.p, x->want[4], 1e-9, "p");
		near(w.lo, x->want[5], 1e-9, "95% lo");
		near(w.hi, x->want[6], 1e-9, "95% hi");
		near(w99.lo, x->want[7], 1e-9, "99% lo");
		near(w99.hi, x->want[8], 1e-9, "99% hi");
	}
}

Test(stats, welch_edges)
{
	struct stats_welch w;

	cr_expect_eq(stats_welch(1, 5, 0, 3, 6, 1, 0.95, &w), -1,
		     "n < 2 cannot be tested");
	cr_assert_eq(stats_welch(3, 5, 0, 3, 5, 0, 0.95, &w), 0);
	cr_expect_eq(w.p, 1, "no spread, same mean");
	cr_assert_eq(stats_welch(3, 5, 0, 3, 6, 0, 0.95, &w), 0);
	cr_expect_eq(w.p, 0, "no spread, another mean");
	cr_expect_eq(w.lo, 1);
	cr_expect_eq(w.hi, 1);
}
