/* test_htmlrun: the html page of a real run — a colour per config, the op
 * histograms kept and merged, CDF and scaling charts, the tools used. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"
#include "pagepart.h"
#include "report/html.h"
#include "report/htmlused.h"
#include "results/histcsv.h"

static void fini(void)
{
	html_configs_reset();
	e2e_cleanup();
}

TestSuite(htmlrun, .fini = fini);

/* ---- without a run ------------------------------------------------------ */

Test(htmlrun, only_the_tools_the_run_used)
{
	json_t *m = json_loads("{\"configs\": [{\"type\": \"ext3\"}, "
		"{\"type\": \"xfs\"}], \"phases\": [{\"use\": "
		"\"../lib/bonnie.lua\"}, {\"exec\": \"/usr/bin/fio job.fio\"}, "
		"{\"use\": \"oltp\"}, {\"exec\": \"dbench-wrapper 4\"}]}", 0,
		NULL);

	cr_assert_not_null(m);
	cr_expect(htmlused_tool(m, NULL, "mount"));
	cr_expect(htmlused_tool(m, NULL, "mkfs.ext4"), "mke2fs makes ext3");
	cr_expect(htmlused_tool(m, NULL, "mkfs.xfs"));
	cr_expect_not(htmlused_tool(m, NULL, "mkfs.btrfs"));
	cr_expect(htmlused_tool(m, NULL, "bonnie++"), "use: a path to bonnie.lua");
	cr_expect(htmlused_tool(m, NULL, "fio"), "an exec naming it");
	cr_expect_not(htmlused_tool(m, NULL, "dbench"), "dbench-wrapper is not it");
	/* oltp emulates InnoDB in Lua: no server, no sysbench */
	cr_expect_not(htmlused_tool(m, NULL, "mariadbd"));
	cr_expect_not(htmlused_tool(m, NULL, "sysbench"));
	json_decref(m);
}

Test(htmlrun, the_kernels_changes_not_the_applied_string)
{
	json_t *o = json_loads("{\"mount_requested\": \"noatime\", "
		"\"mount_applied\": \"rw,relatime rw\"}", 0, NULL);
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	cr_assert_not_null(o);
	cr_assert_eq(htmlused_mount_change(f, o), 0);
	fclose(f);
	cr_expect(strstr(out, ">noatime became relatime<"), "%s", out);
	cr_expect(strstr(out, "title=\"applied: rw,relatime rw\""), "%s",
		  out);
	free(out);
	json_decref(o);
}

Test(htmlrun, a_config_keeps_its_colour_and_the_palette_is_okabe_ito)
{
	cr_assert_eq(html_config_index("b"), 0);
	cr_assert_eq(html_config_index("a"), 1);
	cr_expect_eq(html_config_index("b"), 0);
	cr_expect_eq(html_config_known("a"), 1);
	cr_expect_eq(html_config_known("c"), -1, "known only finds");
	cr_expect_str_eq(html_color(0), "#0072B2");
	cr_expect_str_eq(html_color(1), "#E69F00");
	cr_expect_str_eq(html_dash(3), "");
	/* past the palette: the colours again, dashed */
	cr_expect_str_eq(html_color(16), html_color(0));
	cr_expect_str_neq(html_dash(16), "");
}

Test(htmlrun, human_units_on_a_log_axis)
{
	static const double x[] = { 30, 400, 9000 }, y[] = { 0, .5, 1 };
	struct html_series s = { "ext4", x, y, 3 };
	char *out = NULL, buf[32];
	size_t len;
	FILE *f = open_memstream(&out, &len);

	html_lines_chart(f, &(struct html_lines){ .cls = "fsplan-cdf",
			 .title = "t", .xtitle = "latency", .ytitle = "share",
			 .s = &s, .n = 1, .logx = 1, .decades = 1,
			 .xfmt = html_fmt_us, .ymax = 1 });
	fclose(f);
	/* 10 us to 10 ms at 1-2-5 steps */
	cr_expect(strstr(out, ">10 us<") && strstr(out, ">20 us<") &&
		  strstr(out, ">500 us<") && strstr(out, ">1 ms<") &&
		  strstr(out, ">10 ms<"), "%s", out);
	cr_expect_null(strstr(out, ">10000<"), "%s", out);
	cr_expect(strstr(out, "viewBox=") && strstr(out, "width=\"100%\""),
		  "%s", out);
	free(out);
	html_fmt_bytes(buf, sizeof(buf), 65536);
	cr_expect_str_eq(buf, "64 KiB");
	html_fmt_num(buf, sizeof(buf), 12500);
	cr_expect_str_eq(buf, "12.5k");
}

Test(htmlrun, figures_in_a_larger_unit_when_they_are_large)
{
	const char *u;

	cr_expect_eq(html_human_unit("KiB/s", 100000, &u), 1024);
	cr_expect_str_eq(u, "MiB/s");
	cr_expect_eq(html_human_unit("bytes", 3.0 * (1 << 30), &u),
		     1 << 20, "3072 MiB: four digits stay");
	cr_expect_str_eq(u, "MiB");
	cr_expect_eq(html_human_unit("bytes", 30.0 * (1 << 30), &u),
		     1 << 30);
	cr_expect_str_eq(u, "GiB");
	cr_expect_eq(html_human_unit("us", 2500, &u), 1, "2500 us stays");
	cr_expect_str_eq(u, "us");
	cr_expect_eq(html_human_unit("ops/s", 1e6, &u), 1, "no ladder");
	cr_expect_str_eq(u, "ops/s");
}

Test(htmlrun, histograms_csv_rows_and_blocks)
{
	struct metrics m = { 0 };
	struct op_stat *rd = metrics_op(&m, "read");
	struct op_stat *fs = metrics_op(&m, "fsync");
	struct seriescsv *w;
	struct diag d = { 0 };
	char path[512];
	const char *text, *at_fsync, *at_read;
	const char *a[] = { "r", "c#1", "read", "1.000", "1.007", "3" };
	const char *b[] = { "r", "c#1", "read", "249.856", "251.903", "1" };
	const char *c[] = { "r", "c#1", "fsync", "1.000", "1.007", "3" };
	const char *e[] = { "r", "c#2", "read", "1.000", "1.007", "3" };

	cr_assert(rd && fs);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(hist_add(&rd->lat, 1000), 0);
	cr_assert_eq(hist_add(&rd->lat, 250000), 0);
	cr_assert_eq(hist_add(&fs->lat, 5000000), 0);
	snprintf(path, sizeof(path), "%s/histograms.csv", e2e_tmpdir());
	cr_assert_eq(histcsv_open(&w, path, &d), 0, "%s", d.msg);
	cr_assert_eq(histcsv_block(w, "r", "c#1", &m), 0);
	cr_assert_eq(seriescsv_sync(w), 0);
	seriescsv_close(w);
	metrics_free(&m);
	text = e2e_read(path);
	/* the ops by name, each one's buckets lowest first, in us */
	at_fsync = strstr(text, "\nr,c#1,fsync,");
	at_read = strstr(text, "\nr,c#1,read,1.000,1.007,3\n");
	cr_expect(!strncmp(text, HISTCSV_HEADER "\n",
			   strlen(HISTCSV_HEADER) + 1), "%s", text);
	cr_expect(at_fsync && at_read && at_fsync < at_read, "%s", text);
	cr_expect(strstr(text, "\nr,c#1,read,249.856,251.903,1\n"), "%s",
		  text);
	cr_expect_eq(page_count(text, "\n"), 4, "%s", text);
	cr_expect(histcsv_block_starts(NULL, a));
	cr_expect_not(histcsv_block_starts(a, b), "the next bucket");
	cr_expect(histcsv_block_starts(b, c), "an op before: written again");
	cr_expect(histcsv_block_starts(b, a), "the op from its start again");
	cr_expect(histcsv_block_starts(a, e), "another cell");
}

/* ---- a real run --------------------------------------------------------- */

/* The sum of histograms.csv's counts of op in cell (quoted cells are
 * not this plan's). */
static double hist_count(const char *csv, const char *cell, const char *op)
{
	double n = 0;
	char want[256];

	snprintf(want, sizeof(want), ",%s,%s,", cell, op);
	for (const char *p = csv; (p = strstr(p, want)); p++) {
		char line[256];
		const char *c;

		snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"),
			 p);
		c = strrchr(line, ',');
		n += strtod(c + 1, NULL);
	}
	return n;
}

/* The colour each chart gives label: every bar's fill and line's stroke
 * whose title starts with it must be the same; it, or "" if none. */
static const char *colour_of(const char *page, const char *label,
			     int *charts)
{
	static char seen[16];
	static const char *const mark[][2] = {
		{ "<rect class=\"fsplan-bar\" style=\"fill:", "\"" },
		{ "<polyline class=\"fsplan-line\" stroke=\"", "\"" },
	};

	seen[0] = '\0';
	*charts = 0;
	for (int k = 0; k < 2; k++)
		for (const char *p = page; (p = strstr(p, mark[k][0])); p++) {
			const char *c = p + strlen(mark[k][0]);
			const char *t = strstr(c, "<title>") + 7;
			char col[16] = "";

			if (strncmp(t, label, strlen(label)) ||
			    (t[strlen(label)] != ':' &&
			     t[strlen(label)] != ' ' &&
			     t[strlen(label)] != '<'))
				continue;
			snprintf(col, sizeof(col), "%.*s",
				 (int)strcspn(c, mark[k][1]), c);
			if (!seen[0])
				strcpy(seen, col);
			cr_expect_str_eq(col, seen, "%s: one colour", label);
			++*charts;
		}
	return seen;
}

static const char plan[] =
	"target: {image: 320M}\n"
	"repeat: 2\n"
	"filesystems:\n"
	"  - {type: ext4, mount: noatime}\n"
	"  - {type: xfs, mount: defaults}\n"
	"phases:\n"
	"  - name: rd\n"
	"    use: reads.lua\n"
	"    matrix: {workers: [1, 2]}\n";

static const char module[] =
	"return { params = { n = 300 }, key = { 'read_iops' },\n"
	"  setup = function(ctx, w)\n"
	"    local f = assert(w:open('data', 'w'))\n"
	"    f:stream{ op = 'write', block = '64k', bytes = '1M' }\n"
	"    f:close()\n"
	"  end,\n"
	"  worker = function(w, ctx)\n"
	"    local f = assert(w:open('data', 'r'))\n"
	"    for i = 1, ctx.params.n do\n"
	"      f:read(w:random(0, 255) * 4096, 4096)\n"
	"    end\n"
	"    f:close()\n"
	"  end }\n";

static const char *const cells[] = {
	"ext4::noatime/rd/workers=1#1", "ext4::noatime/rd/workers=1#2",
	"ext4::noatime/rd/workers=2#1", "ext4::noatime/rd/workers=2#2",
	"xfs::defaults/rd/workers=1#1", "xfs::defaults/rd/workers=1#2",
	"xfs::defaults/rd/workers=2#1", "xfs::defaults/rd/workers=2#2",
};

/* The plan's two shards and their merge, in dir; the merge's path. */
static const char *two_shards_merged(const char *dir, char *shard0,
				     size_t len)
{
	static char merged[512];
	char path[2][512], text[2048];
	const char *p;
	int rc;

	e2e_write(dir, "reads.lua", module);
	snprintf(text, sizeof(text), "fsplan: 1\nname: htmlrun\n%s", plan);
	p = e2e_write(dir, "plan.yaml", text);
	for (int s = 0; s < 2; s++) {
		snprintf(path[s], sizeof(path[s]), "%s/s%d", dir, s + 1);
		rc = e2e_fsplan((const char *[]){ "run", p, "-o", path[s],
			"-q", "--shard", s ? "2/2" : "1/2", NULL });
		cr_assert_eq(rc, 0, "shard %d: exit %d: %s %s", s + 1, rc,
			     e2e_err, e2e_failed(path[s]));
	}
	snprintf(merged, sizeof(merged), "%s/merged", dir);
	rc = e2e_fsplan((const char *[]){ "merge", path[0], path[1], "-o",
		merged, NULL });
	cr_assert_eq(rc, 0, "merge: exit %d: %s", rc, e2e_err);
	snprintf(shard0, len, "%s", path[0]);
	return merged;
}

/* The page in Chromium in a phone's width: it does not scroll sideways
 * (a wide table or chart scrolls by itself), and every line of the CDF
 * and scaling charts is drawn within the window. */
static void phone(const char *page)
{
	const char *root = getenv("FSPLAN_ROOT"), *dom, *p;
	char cmd[2048], out[700];
	int rc, w = 0, sw = 0, charts = 0;

	cr_assert_not_null(root, "FSPLAN_ROOT is not set (run through make)");
	snprintf(out, sizeof(out), "%s.shot", page);
	snprintf(cmd, sizeof(cmd), "FSPLAN_BROWSER_CHARTS=1 "
		 "FSPLAN_BROWSER_WIDTH=400 bash '%s/tests/browser.sh' '%s' "
		 "'%s'", root, page, out);
	rc = system(cmd);
	if (WIFEXITED(rc) && WEXITSTATUS(rc) == 77)
		return;	/* no chromium: the rest of the test stands */
	cr_assert_eq(rc, 0, "tests/browser.sh: %d", rc);
	snprintf(out, sizeof(out), "%s.shot.charts", page);
	dom = e2e_read(out);
	p = strstr(dom, "data-page=\"");
	cr_assert_not_null(p, "%.300s", dom);
	cr_assert_eq(sscanf(p, "data-page=\"%d %d", &w, &sw), 2);
	cr_expect_leq(sw, w, "the page is %d px wide in a %d px window", sw,
		      w);
	for (p = dom; (p = strstr(p, "<svg class=\"fsplan-chart fsplan-"));
	     p++) {
		const char *at = strstr(p, "data-drawn=\"");
		int lines, drawn, cw, ch;

		if (strncmp(p + 32, "cdf", 3) && strncmp(p + 32, "scale", 5))
			continue;
		cr_assert_not_null(at);
		cr_assert_eq(sscanf(at, "data-drawn=\"%d %d %dx%d", &lines,
				    &drawn, &cw, &ch), 4);
		cr_expect_eq(drawn, lines, "%.80s", at);
		cr_expect(lines == 2 && cw > 0 && cw <= w && ch > 0,
			  "%.80s", at);
		charts++;
	}
	cr_expect_eq(charts, 3, "two CDFs, a scaling chart");
}

Test(htmlrun, histograms_kept_merged_and_drawn, .timeout = 300)
{
	const char *dir, *merged, *page, *ext, *xfs;
	char shard[512], path[600], s1[600], s2[600], *chart;
	char *hist, *h1, *h2;
	int charts, n;

	e2e_require_root();
	dir = e2e_tmpdir();
	merged = two_shards_merged(dir, shard, sizeof(shard));

	/* every op of every phase run, in the merged histograms.csv: as
	 * many as results.csv's read_ops */
	snprintf(path, sizeof(path), "%s/histograms.csv", merged);
	hist = e2e_slurp(path, NULL);
	cr_expect(!strncmp(hist, HISTCSV_HEADER "\n",
			   strlen(HISTCSV_HEADER) + 1), "%.200s", hist);
	for (size_t i = 0; i < sizeof(cells) / sizeof(cells[0]); i++) {
		double ops = e2e_num(merged, cells[i], "read_ops");

		cr_expect_gt(ops, 0);
		cr_expect_eq(hist_count(hist, cells[i], "read"), ops,
			     "%s: %.0f in histograms.csv, read_ops %.0f",
			     cells[i], hist_count(hist, cells[i], "read"),
			     ops);
	}
	/* the shards' rows, no more, no fewer */
	snprintf(s1, sizeof(s1), "%s/histograms.csv", shard);
	snprintf(s2, sizeof(s2), "%s/s2/histograms.csv", dir);
	h1 = e2e_slurp(s1, NULL);
	h2 = e2e_slurp(s2, NULL);
	cr_expect_eq(page_count(hist, "\n"), page_count(h1, "\n") + page_count(h2, "\n") - 1,
		     "one header");
	free(h1);
	free(h2);
	free(hist);

	snprintf(path, sizeof(path), "%s/report.html", dir);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", merged,
		"--format", "html", "-o", path, NULL }), 0, "%s", e2e_err);
	page = e2e_read(path);

	/* a CDF of the reads per worker count, a line per config; open and
	 * close (an op a worker) have none */
	cr_expect_eq(page_count(page, "<svg class=\"fsplan-chart fsplan-cdf\""), 2,
		     "%s", page);
	for (n = 0; (chart = page_part(page, "fsplan-chart fsplan-cdf", "</svg>",
				  n)); n++) {
		cr_expect(strstr(chart, "read latency"), "%s", chart);
		cr_expect_eq(page_count(chart, "<polyline class=\"fsplan-line\""),
			     2, "%s", chart);
		free(chart);
	}
	/* read_iops against workers, a line per config */
	chart = page_part(page, "fsplan-chart fsplan-scale", "</svg>", 0);
	cr_assert_not_null(chart, "no scaling chart: %s", page);
	cr_expect(strstr(chart, "read_iops against workers"), "%s", chart);
	cr_expect_eq(page_count(chart, "<polyline class=\"fsplan-line\""), 2);
	cr_expect_eq(page_count(chart, "<circle "), 4, "two points a line");
	free(chart);

	/* one colour per config, on bars, scaling lines and CDFs alike */
	ext = strdup(colour_of(page, "ext4::noatime", &charts));
	cr_expect_geq(charts, 5, "bars, a scaling line, two CDFs");
	xfs = colour_of(page, "xfs::defaults", &charts);
	cr_expect_geq(charts, 5);
	cr_expect(*ext && *xfs && strcmp(ext, xfs), "%s %s", ext, xfs);
	free((char *)ext);

	/* the tools: mkfs of its two types and mount, nothing else */
	chart = page_part(page, "Versions of the tools", "</table>", 0);
	cr_assert_not_null(chart);
	cr_expect(strstr(chart, "mkfs.ext4") && strstr(chart, "mkfs.xfs") &&
		  strstr(chart, ">mount<"), "%s", chart);
	cr_expect(!strstr(chart, "mkfs.btrfs") && !strstr(chart, "fio") &&
		  !strstr(chart, "bonnie") && !strstr(chart, "sysbench"),
		  "%s", chart);
	free(chart);
	phone(path);
	cr_expect_eq(e2e_mounted_under(dir), 0);
	cr_expect_eq(e2e_loops_under(dir), 0);
}
