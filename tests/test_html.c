/* test_html: `fsplan report --format html` — its pieces, a page of hand-made
 * results, and a real run rendered in headless Chromium. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"
#include "pagepart.h"
#include "report/html.h"

static char *buf;
static size_t len;

static FILE *mem(void)
{
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	return f;
}

static const char *done(FILE *f)
{
	cr_assert_eq(fclose(f), 0);
	return buf;
}

static void fini(void)
{
	free(buf);
	buf = NULL;
	e2e_cleanup();
}

TestSuite(html, .fini = fini);

/* ---- the pieces --------------------------------------------------------- */

Test(html, text_is_escaped_for_text_and_attributes)
{
	FILE *f = mem();

	html_text(f, "a<b>&\"c\" 'd'\x01\ttab\xc2\xb1");
	cr_expect_str_eq(done(f), "a&lt;b&gt;&amp;&quot;c&quot; &#39;d&#39;"
			 "\xef\xbf\xbd\ttab\xc2\xb1");
}

Test(html, a_bar_per_entry_in_the_given_order_with_whiskers_and_n)
{
	const char *label[] = { "xfs <1>", "ext4 & co", "btrfs" };
	const double mean[] = { 30, 20.5, 10 }, ci[] = { 2, NAN, 0.5 };
	const int n[] = { 3, 1, 2 };
	struct html_bars b = { "rate_mbs: rate (MiB/s)", "higher is better",
			       3, label, mean, ci, n, 1, NULL };
	FILE *f = mem();
	const char *s, *x, *e, *bt;

	html_bar_chart(f, &b);
	s = done(f);
	cr_expect_eq(page_count(s, "<rect class=\"fsplan-bar\""), 3, "%s", s);
	cr_expect_eq(page_count(s, "class=\"fsplan-ci\""), 2,
		     "no whisker for n=1:\n%s", s);
	x = strstr(s, "<title>xfs &lt;1&gt;: 30.0 \xc2\xb1" "2.00, n=3</title>");
	e = strstr(s, "<title>ext4 &amp; co: 20.5, n=1</title>");
	bt = strstr(s, "<title>btrfs: 10.0 \xc2\xb1" "0.500, n=2</title>");
	cr_assert(x && e && bt, "%s", s);
	cr_expect(x < e && e < bt, "the order given is the order drawn");
	cr_expect(strstr(s, "(n=3)</text>"));
	cr_expect_null(strstr(s, "xfs <1>"));
	cr_expect_null(strstr(s, "ext4 & co"));
}

/* compare's verdicts colour the bars; an unknown kind is left plain. */
Test(html, bars_coloured_by_verdict)
{
	const char *label[] = { "a", "b", "c" }, *kind[] = { "better", NULL,
		"x\" onload=\"y" };
	const double mean[] = { 3, 2, 1 }, ci[] = { 0, 0, 0 };
	const int n[] = { 1, 1, 1 };
	struct html_bars b = { "t", NULL, 3, label, mean, ci, n, 0, kind };
	FILE *f = mem();
	const char *s;

	html_bar_chart(f, &b);
	s = done(f);
	cr_expect_eq(page_count(s, "<rect class=\"fsplan-bar"), 3, "%s", s);
	cr_expect_eq(page_count(s, "<rect class=\"fsplan-bar fsplan-better\""), 1);
	cr_expect_eq(page_count(s, "<rect class=\"fsplan-bar\""), 2, "%s", s);
	cr_expect_null(strstr(s, "onload"));
}

Test(html, a_line_per_series)
{
	const double x[] = { 1, 2, 4 }, y1[] = { 10, 18, 30 },
		     y2[] = { 12, 13, 14 };
	const struct html_series s[] = { { "ext4 <a>", x, y1, 3 },
					 { "xfs", x, y2, 3 } };
	FILE *f = mem();
	const char *t;

	html_line_chart(f, "tiobench Sequential Reads", "threads",
			"rate (MiB/s)", s, 2);
	t = done(f);
	cr_expect_eq(page_count(t, "<polyline class=\"fsplan-line\""), 2, "%s", t);
	cr_expect_eq(page_count(t, "<circle "), 6);
	cr_expect(strstr(t, ">ext4 &lt;a&gt;</text>"), "the legend: %s", t);
	cr_expect(strstr(t, ">4</text>"), "a tick at each thread count");
}

/* ---- a page of hand-made results --------------------------------------- */

static const char results_csv[] =
"run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts,phase,phase_params,rep,"
"metric,value,unit\n"
"t,a<b&c#1,a<b&c,ext4,,defaults,w,,1,seconds,2,s\n"
"t,a<b&c#1,a<b&c,ext4,,defaults,w,,1,status,ok,\n"
"t,a<b&c#2,a<b&c,ext4,,defaults,w,,2,seconds,2.5,s\n"
"t,a<b&c#2,a<b&c,ext4,,defaults,w,,2,status,ok,\n"
"t,xfs#1,xfs,xfs,,defaults,w,,1,seconds,1,s\n"
"t,xfs#1,xfs,xfs,,defaults,w,,1,status,ok,\n"
"t,xfs#2,xfs,xfs,,defaults,w,,2,seconds,1.5,s\n"
"t,xfs#2,xfs,xfs,,defaults,w,,2,status,failed,\"exit <1> & \"\"more\"\"\"\n"
"t,jfs#1,jfs,jfs,,,w,,1,status,skipped,no jfs <here>\n"
"t,xfs,xfs,xfs,,defaults,,,0,mkfs_s,0.5,s\n";

static const char manifest_json[] =
"{\"run_id\": \"t\", \"status\": \"complete\", \"started\": \"now\",\n"
" \"plan\": {\"name\": \"p</title><script>alert(1)</script>\",\n"
"          \"path\": \"p.yaml\", \"sha256\": \"00\",\n"
"          \"description\": \"<b>bold</b>\"},\n"
" \"system\": {\"kernel\": \"Linux 6 <x>\", \"cores\": 2,\n"
"            \"tools\": {\"mkfs.xfs\": \"mkfs.xfs & co\"}},\n"
" \"phases\": [{\"name\": \"w\", \"key\": [\"seconds\"]}],\n"
" \"configs\": [{\"label\": \"a<b&c\", \"type\": \"ext4\",\n"
"   \"mount_requested\": \"defaults\",\n"
"   \"mount_applied\": \"rw,relatime\", \"status\": \"done\"}]}\n";

Test(html, a_page_escapes_what_comes_from_the_plan_and_the_results)
{
	const char *dir = e2e_tmpdir(), *page;
	char out[512], cmd[1024], *chart;
	int rc;

	e2e_write(dir, "results.csv", results_csv);
	e2e_write(dir, "manifest.json", manifest_json);
	snprintf(out, sizeof(out), "%s/page.html", dir);
	rc = e2e_fsplan((const char *[]){ "report", dir,
		"--format", "html", "-o", out, NULL });
	cr_assert_eq(rc, 0);
	page = e2e_read(out);
	cr_assert(!strncmp(page, "<!DOCTYPE html>\n", 16), "%.200s", page);
	cr_expect(strstr(page, "</html>\n"), "the page is whole");
	/* nothing from the plan or the results is markup */
	cr_expect_null(strstr(page, "<script"), "%s", page);
	cr_expect_null(strstr(page, "<b>"));
	cr_expect_null(strstr(page, "a<b&c"));
	cr_expect_null(strstr(page, "<here>"));
	cr_expect(strstr(page, "a&lt;b&amp;c"));
	cr_expect(strstr(page, "exit &lt;1&gt; &amp; &quot;more&quot;"),
		  "the failure's reason");
	cr_expect(strstr(page, "no jfs &lt;here&gt;"), "the skip's reason");
	cr_expect(strstr(page, "Linux 6 &lt;x&gt;"), "the kernel");
	cr_expect(strstr(page, "mkfs.xfs &amp; co"), "the tool versions");
	cr_expect(strstr(page, "rw,relatime"), "the applied options");
	/* every link of the contents goes to a section of the page */
	for (const char *h = page; (h = strstr(h, "href=\"#")); h++) {
		char id[80];

		snprintf(id, sizeof(id), "id=\"%.*s\"",
			 (int)strcspn(h + 7, "\""), h + 7);
		cr_expect(strstr(page, id), "no %s for %.40s", id, h);
	}
	cr_expect(strstr(page, "href=\"#phase-1\">w</a>"), "%s", page);
	/* self-contained: nothing fetched, nothing run */
	cr_expect_eq(page_count(page, "http"), page_count(page,
		     "xmlns=\"http://www.w3.org/2000/svg\""), "a link: %s",
		     page);
	cr_expect_null(strstr(page, " src="));
	cr_expect_null(strstr(page, "<link"));
	/* the key's chart: a bar per config, best (lower) first */
	chart = page_part(page, "<svg class=\"fsplan-chart fsplan-bars\"", "</svg>",
		     0);
	cr_assert_not_null(chart, "%s", page);
	cr_expect_eq(page_count(chart, "<rect class=\"fsplan-bar\""), 2, "%s",
		     chart);
	cr_expect_lt(strstr(chart, "<title>xfs: 1.00, n=1</title>"),
		     strstr(chart, "<title>a&lt;b&amp;c: 2.25 \xc2\xb1"),
		     "%s", chart);
	free(chart);
	cr_expect_null(strstr(page, "config-metrics"), "only with --all");
	cr_expect(strstr(page, "<th>mkfs (s)</th>"), "the configs' times");
	if (system("command -v tidy > /dev/null"))
		cr_skip_test("no tidy here to validate the page (make deps)");
	snprintf(cmd, sizeof(cmd), "tidy -q -e -utf8 '%s' 2>&1", out);
	rc = system(cmd);
	cr_expect_eq(rc, 0, "tidy: exit %d (see above)", WEXITSTATUS(rc));
}

/* --all: every metric's chart and table, the configs' own ones too. */
Test(html, all_charts_every_metric_and_the_configs)
{
	const char *dir = e2e_tmpdir(), *page;
	char out[512], *part_of;

	e2e_write(dir, "results.csv", results_csv);
	e2e_write(dir, "manifest.json", manifest_json);
	snprintf(out, sizeof(out), "%s/page.html", dir);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report",
		dir, "--format", "html", "--all",
		"-o", out, NULL }), 0);
	page = e2e_read(out);
	/* the last section before the runs that did not count */
	part_of = page_part(page, "<h2 id=\"config-metrics\">", "id=\"not-ok\"",
		       0);
	cr_assert_not_null(part_of, "%s", page);
	cr_expect(strstr(part_of, "mkfs_s: mkfs (s)"), "%s", part_of);
	cr_expect_eq(page_count(part_of, "<rect class=\"fsplan-bar\""), 1,
		     "xfs alone has a mkfs time: %s", part_of);
	free(part_of);
}

/* A run the machine disturbed is marked on the page as in the text. */
Test(html, a_disturbed_run_is_marked)
{
	const char *dir = e2e_tmpdir(), *page;
	char out[512];

	e2e_write(dir, "results.csv",
		  "run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts,phase,"
		  "phase_params,rep,metric,value,unit\n"
		  "t,ext4/w#1,ext4,ext4,,,w,,1,seconds,2,s\n"
		  "t,ext4/w#1,ext4,ext4,,,w,,1,steal_cores,0.5,\n"
		  "t,ext4/w#1,ext4,ext4,,,w,,1,status,ok,\n"
		  "t,ext4/w#2,ext4,ext4,,,w,,2,seconds,2,s\n"
		  "t,ext4/w#2,ext4,ext4,,,w,,2,others_cores,0.1,\n"
		  "t,ext4/w#2,ext4,ext4,,,w,,2,status,ok,\n");
	e2e_write(dir, "manifest.json", manifest_json);
	snprintf(out, sizeof(out), "%s/page.html", dir);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report",
		dir, "--format", "html", "-o",
		out, NULL }), 0);
	page = e2e_read(out);
	cr_expect(strstr(page, "<p class=\"warn\">! 1 of 2 phase runs were "
			 "disturbed") && strstr(page, "ext4/w#1 (others 0.00, "
			 "steal 0.50)"), "%s", page);
	cr_expect_null(strstr(page, "ext4/w#2 (others"), "%s", page);
}

/* ---- a real run in a real browser --------------------------------------- */

/* tests/browser.sh PAGE OUT: 0 rendered, 77 no chromium. */
static int browse(const char *page, const char *out)
{
	const char *root = getenv("FSPLAN_ROOT");
	char cmd[2048];
	int rc;

	cr_assert_not_null(root, "FSPLAN_ROOT is not set (run through make)");
	snprintf(cmd, sizeof(cmd), "FSPLAN_BROWSER_TAG=html%ld "
		 "bash '%s/tests/browser.sh' '%s' '%s'", (long)getpid(),
		 root, page, out);
	rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* The page of a run of three configs on loop images, in Chromium. */
Test(html, a_real_run_renders_in_chromium, .timeout = 300)
{
	const char *tmp, *dom, *con, *p;
	char rundir[256], page[512], out[512], path[600], cmd[1024], *chart;
	unsigned char png[24];
	double prev = -1;
	int rc, charts = 0, lines = 0;
	FILE *f;

	e2e_require_root();
	tmp = e2e_tmpdir();
	snprintf(rundir, sizeof(rundir), "%s/run", tmp);
	rc = e2e_fsplan((const char *[]){ "run", e2e_write(tmp, "plan.yaml",
		"fsplan: 1\n"
		"name: html\n"
		"target: {image: 64M}\n"
		"repeat: 2\n"
		"filesystems:\n"
		"  - {type: ext4, label: \"ext4 <&>\", mount: defaults}\n"
		"  - {type: ext4, mount: noatime}\n"
		"  - {type: ext4, mkfs: \"-O ^has_journal\"}\n"
		"phases:\n"
		"  - name: dd\n"
		"    exec: \"dd if=/dev/zero of=f bs=64k count=16 conv=fsync "
		"status=none\"\n"
		"  - use: tiobench\n"
		"    matrix: {workers: [1, 2], mode: [seq_write]}\n"
		"    with: {file_size: 4M, ram: 0}\n"),
		"-o", rundir, "-q", NULL });
	cr_assert_eq(rc, 0, "fsplan run: exit %d: %s", rc, e2e_err);
	snprintf(page, sizeof(page), "%s/report.html", tmp);
	rc = e2e_fsplan((const char *[]){ "report", rundir, "--format",
		"html", "-o", page, NULL });
	cr_assert_eq(rc, 0, "fsplan report: exit %d: %s", rc, e2e_err);
	if (!system("command -v tidy > /dev/null")) {
		snprintf(cmd, sizeof(cmd), "tidy -q -e -utf8 '%s' 2>&1", page);
		cr_expect_eq(system(cmd), 0, "tidy found faults (above)");
	}

	/* the detector works: a page that logs is caught */
	e2e_write(tmp, "bad.html", "<!DOCTYPE html><html lang=\"en\"><head>"
		  "<title>t</title></head><body><script>console.error("
		  "'seen'); nosuch();</script></body></html>\n");
	snprintf(path, sizeof(path), "%s/bad.html", tmp);
	snprintf(out, sizeof(out), "%s/bad", tmp);
	rc = browse(path, out);
	if (rc == 77)
		cr_skip_test("no chromium here (make deps installs it)");
	cr_assert_eq(rc, 0, "tests/browser.sh: exit %d", rc);
	snprintf(path, sizeof(path), "%s/bad.console", tmp);
	con = e2e_read(path);
	cr_expect(strstr(con, "seen") && strstr(con, "nosuch"), "%s", con);

	snprintf(out, sizeof(out), "%s/page", tmp);
	cr_assert_eq(browse(page, out), 0);
	snprintf(path, sizeof(path), "%s/page.console", tmp);
	con = e2e_read(path);
	cr_expect_str_eq(con, "", "the page logged to the console:\n%s", con);
	snprintf(path, sizeof(path), "%s/page.dom", tmp);
	dom = e2e_read(path);
	cr_assert(strstr(dom, "</html>"), "%s", dom);
	/* every bar chart the browser built has a bar per config */
	while ((chart = page_part(dom, "<svg class=\"fsplan-chart fsplan-bars\"",
			     "</svg>", charts))) {
		cr_expect_eq(page_count(chart, "<rect class=\"fsplan-bar\""), 3,
			     "%s", chart);
		free(chart);
		charts++;
	}
	cr_expect_geq(charts, 1, "no bar chart in:\n%s", dom);
	/* dd's seconds: the first chart; lower is better, so ascending */
	chart = page_part(dom, "<svg class=\"fsplan-chart fsplan-bars\"", "</svg>",
		     0);
	cr_assert(chart && strstr(chart, "seconds"), "%s", chart);
	for (p = chart; (p = strstr(p, "<rect class=\"fsplan-bar\""));
	     p++) {
		const char *t = strstr(strstr(p, "<title>"), ": ");
		double v = strtod(t + 2, NULL);

		cr_expect_geq(v, prev, "best first: %s", chart);
		prev = v;
	}
	free(chart);
	/* tiobench's seq_write: a line per config */
	while ((chart = page_part(dom, "<svg class=\"fsplan-chart fsplan-lines\"",
			     "</svg>", lines))) {
		cr_expect_eq(page_count(chart, "<polyline class=\"fsplan-line\""),
			     3, "%s", chart);
		free(chart);
		lines++;
	}
	cr_expect_eq(lines, 1, "one mode, one chart:\n%s", dom);
	/* and its table: a row per config and thread count */
	chart = page_part(dom, "<h3>Sequential Writes</h3>", "</table>", 0);
	cr_assert_not_null(chart, "no tiobench table in:\n%s", dom);
	cr_expect_eq(page_count(chart, "<tr>"), 1 + 3 * 2, "%s", chart);
	free(chart);
	cr_expect(strstr(dom, "ext4 &lt;&amp;&gt;"), "the label, escaped");
	cr_expect_null(strstr(dom, "ext4 <&>"));
	/* a screenshot: a PNG as wide as the window */
	snprintf(path, sizeof(path), "%s/page.png", tmp);
	f = fopen(path, "rb");
	cr_assert_not_null(f, "no screenshot");
	cr_assert_eq(fread(png, 1, sizeof(png), f), sizeof(png));
	fclose(f);
	cr_expect(!memcmp(png, "\x89PNG\r\n\x1a\n", 8), "not a PNG");
	cr_expect_eq((png[16] << 24) | (png[17] << 16) | (png[18] << 8) |
		     png[19], 1200, "the screenshot's width");
	if (getenv("FSPLAN_HTML_SHOT")) {
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", path,
			 getenv("FSPLAN_HTML_SHOT"));
		cr_expect_eq(system(cmd), 0);
	}
	/* this test's browser, not another test's running beside it */
	snprintf(cmd, sizeof(cmd), "fsplan-browser-html%ld.", (long)getpid());
	cr_expect_eq(e2e_processes_with(cmd), 0,
		     "a chromium process outlived the test");
	cr_expect_eq(e2e_mounted_under(tmp), 0);
	cr_expect_eq(e2e_loops_under(tmp), 0);
}
