/* test_agereport: report's aging table, from a hand-made run directory. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "e2e.h"
#include "resset.h"

#define AGED "ext4::noatime@age=80%x4"
#define FRESH "ext4::noatime"

static void fini(void)
{
	rs_free();
	e2e_cleanup();
}

TestSuite(agereport, .fini = fini);

/* A config's own row in round k (cell label#k, rep k). */
static void conf(const char *label, int k, const char *metric, double v,
		 const char *unit)
{
	rs_add("t,\"%s#%d\",%s,ext4,,noatime,,,%d,%s,%.17g,%s\n", label, k,
	       label, k, metric, v, unit);
}

/* Round k of the aged config: what the run measures after aging. */
static void aged_round(int k, double shift)
{
	conf(AGED, k, "mkfs_s", 0.5, "s");
	conf(AGED, k, "age_fill_pct", 80 + shift, "%");
	conf(AGED, k, "age_files", 1100 + 100 * shift, "");
	conf(AGED, k, "age_layout_score", 0.813 + shift / 1000, "");
	conf(AGED, k, "age_extents_per_file", 3.23 + shift / 100, "");
	conf(AGED, k, "age_extents_per_file_p99", 41 + shift, "");
	conf(AGED, k, "age_free_extents", 600 + 100 * shift, "");
	conf(AGED, k, "age_free_extent_p50_kib", 80 + 16 * shift, "KiB");
	conf(AGED, k, "age_seconds", 13 + shift / 2, "s");
	conf(AGED, k, "age_bytes_written", (5 + shift) * 1073741824.0, "B");
	conf(AGED, k, "age_churn_rounds", 4, "");
}

/* A run directory: the configs' own rows (aged ones with age_* when
 * aged), a phase w of each, and a manifest with the aged config's age. */
static const char *rundir(int aged)
{
	const char *d = e2e_tmpdir();
	const char *label = aged ? AGED : FRESH "-b";

	rs_begin();
	for (int k = 1; k <= 2; k++) {
		if (aged)
			aged_round(k, k == 1 ? -1 : 1);
		else
			conf(label, k, "mkfs_s", 0.5, "s");
		conf(FRESH, k, "mkfs_s", 0.4, "s");
		rs_row(label, "w", "", k, "rate_mbs", "100", "MiB/s");
		rs_status(label, "w", "", k, "ok");
		rs_row(FRESH, "w", "", k, "rate_mbs", "120", "MiB/s");
		rs_status(FRESH, "w", "", k, "ok");
	}
	e2e_write(d, "results.csv", rs.text);
	e2e_write(d, "manifest.json",
		  "{\"run_id\": \"t\", \"plan\": {\"name\": \"t\"},"
		  " \"status\": \"done\", \"order\": \"rounds\","
		  " \"phases\": [{\"name\": \"w\", \"key\": [\"rate_mbs\"]}],"
		  " \"configs\": [{\"label\": \"" AGED "\", \"type\": \"ext4\","
		  "  \"age\": {\"name\": \"80%x4\", \"fill\": 0.8,"
		  "  \"churn\": 4, \"seed\": 7, \"dirs\": 8, \"reuse\": true}},"
		  " {\"label\": \"" FRESH "\", \"type\": \"ext4\"},"
		  " {\"label\": \"" FRESH "-b\", \"type\": \"ext4\"}]}\n");
	return d;
}

Test(agereport, text_has_the_means_and_a_dash_for_fresh)
{
	const char *d = rundir(1), *t;

	cr_assert_eq(e2e_fsplan((const char *[]){ "report", d, NULL }), 0,
		     "%s", e2e_err);
	t = strstr(e2e_out, "== aging (measured after aging; fresh "
		   "configs: -) ==\n");
	cr_assert_not_null(t, "%s", e2e_out);
	/* after the configs' table, which leaves the age_* figures to it */
	cr_expect_lt(strstr(e2e_out, "== filesystem configs"), t);
	cr_expect(strstr(e2e_out, "mkfs (s)"), "%s", e2e_out);
	cr_expect_null(strstr(e2e_out, "age fill"), "%s", e2e_out);
	rs_expect_line(t, "config age fill (%) files layout score "
		       "extents/file p99 free extents free p50 (KiB) "
		       "aging (s) written (GiB)");
	/* the means of the two rounds */
	rs_expect_line(t, AGED " 80%x4 80.0 1100 0.813 3.23 41.0 600 80.0 13.0 "
		       "5.00");
	rs_expect_line(t, FRESH " none - - - - - - - - -");
	cr_expect(strstr(t, "Smith and Seltzer 1997"), "%s", t);
	/* in the configs' order: the aged one first */
	cr_expect_lt(strstr(t, AGED " "), strstr(t, FRESH " "));
}

Test(agereport, html_has_the_table_too)
{
	const char *d = rundir(1);
	char out[600], *page, *t;

	snprintf(out, sizeof(out), "%s/report.html", d);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", d, "--format",
				"html", "-o", out, NULL }), 0, "%s", e2e_err);
	page = e2e_slurp(out, NULL);
	t = strstr(page, "How aged each config was");
	cr_assert_not_null(t, "no aging table in the page");
	cr_expect(strstr(t, "<td>80%x4</td>"), "no age name");
	cr_expect(strstr(t, "0.813"), "no layout score");
	cr_expect(strstr(t, "layout score (Smith and Seltzer 1997)"),
		  "no note on the layout score");
	cr_expect(strstr(t, "<td>none</td>"), "no fresh config");
	free(page);
}

Test(agereport, a_run_without_aging_has_no_table)
{
	const char *d = rundir(0);
	char out[600], *page;

	cr_assert_eq(e2e_fsplan((const char *[]){ "report", d, NULL }), 0,
		     "%s", e2e_err);
	cr_expect(strstr(e2e_out, "== filesystem configs"), "%s", e2e_out);
	cr_expect_null(strstr(e2e_out, "== aging"), "%s", e2e_out);
	snprintf(out, sizeof(out), "%s/report.html", d);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", d, "--format",
				"html", "-o", out, NULL }), 0, "%s", e2e_err);
	page = e2e_slurp(out, NULL);
	cr_expect_null(strstr(page, "How aged each config was"));
	free(page);
}
