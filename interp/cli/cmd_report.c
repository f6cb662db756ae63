/* cmd_report: fsplan report — options, help; report/report.c reports. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cmd.h"
#include "report/report.h"
#include "util/exitcode.h"

static const char report_help[] =
"Read RUNDIR/results.csv (and manifest.json) and print what the published\n"
"studies print. By default, about a screen per phase:\n"
"\n"
"  - the filesystem configs: type, mkfs and mount options, mkfs, mount\n"
"    and umount times;\n"
"  - for each phase its key metrics, as its module names them (key = {\n"
"    ... }, recorded in manifest.json): tiobench's four sections\n"
"    (Sequential/Random Reads/Writes; a row per config and thread count)\n"
"    when the phase reports rate_mbs and block_bytes, bonnie++'s two\n"
"    blocks when it reports bonnie_line, and a table for each key\n"
"    metric those do not show; an exec phase's key is its parser's,\n"
"    then seconds. A phase\n"
"    without a key (or a run recorded before keys were) shows its\n"
"    seconds, _mbs and _iops figures, or only its tiobench or bonnie++\n"
"    tables when it has them;\n"
"  - the phase runs that failed or were skipped, with their reasons,\n"
"    and how many cells did not run (an interrupted run's rest; those a\n"
"    stop rule made unneeded apart).\n"
"\n"
"A metric's table is per parameter set (workers=1 and workers=4 apart),\n"
"a row per filesystem config: n,\n"
"mean, stdev, 95% confidence interval (mean +- t(0.975, n-1) s/sqrt(n);\n"
"'-' for n < 2), high and low over the repetitions, best first, under\n"
"its unit (rate (MB/s), latency (ms), seconds (s); bytes in KiB, MiB or\n"
"GiB). Lower is better for times, latencies, percentages, CPU and\n"
"memory peaks: a name ending in _s, _ms, _us, seconds, _latency, _pct,\n"
"_cpu, _peak_bytes or _peak_kib, a unit s, ms or us, fs_used_bytes and\n"
"write_amp; higher is better for the rest and for\n"
"rates (a name ending in per_s, per_sec, _iops, _mbs; a unit .../s). Only\n"
"phase runs whose status is ok count. The group column: configs that\n"
"share a letter do not differ significantly (pairwise Welch t-tests,\n"
"Holm's correction at 0.05; the best's group is 'a'; '-' for n < 2).\n"
"Figures have 3 significant figures.\n"
"\n"
"  --format text   the tables (default)\n"
"  --format csv    wide CSV, one row per phase run: cell, rep, fs_label,\n"
"                  fs_type, mkfs_opts, mount_opts, phase, phase_params,\n"
"                  status, reason, then one column per metric, sorted\n"
"                  (every metric: --metric and --all are for text\n"
"                  and html)\n"
"  --format html   one self-contained HTML page (inline SVG charts, no\n"
"                  script, nothing fetched): the machine, kernel, tool\n"
"                  versions and mount options from manifest.json; per\n"
"                  phase a bar chart per key metric (per parameter set)\n"
"                  of the configs, best first, with 95% CI whiskers and\n"
"                  n; tiobench's rate against threads per mode; the\n"
"                  study tables and bonnie++ blocks; the metric tables;\n"
"                  the runs that failed or were skipped, with reasons\n"
"  -o, --output FILE\n"
"                  write to FILE instead of standard output\n"
"  --metric GLOB   instead of the key metrics, the tables of the metrics\n"
"                  whose name matches GLOB, e.g. 'rate_mbs' or\n"
"                  '*_lat_p99_ms', in the order given (repeat for more;\n"
"                  the tiobench and bonnie++ tables always show)\n"
"  --all           every metric of every phase, and the configs' own\n"
"                  metrics as tables\n"
"  --where KEY=VALUE\n"
"                  only the runs whose coordinate KEY is VALUE (repeat:\n"
"                  all of them); KEY is type, label, mkfs, mount, phase,\n"
"                  a phase parameter, a matrix axis or a design factor\n"
"                  (+ or -)\n"
"  --by AXIS       instead, per phase a pivot of its first key metric:\n"
"                  a row per config (and its other parameters), a column\n"
"                  per value of AXIS, each cell the mean (text, csv, html)\n"
"  --audit         only the audit, for CI: exit 1 when a check fails\n"
"\n"
"Text and html begin with an audit of the method, a line per check:\n"
"pass, warn or fail, its name, the figure behind it. repetitions: the\n"
"fewest ok runs of a cell (fail under 2) and the widest 95% CI of its\n"
"first key metric (warn over 10% of the mean); cache: phase runs with\n"
"neither a memory limit nor direct loop I/O (warn); aged: how many\n"
"configs were aged (warn when none); steady: runs never steady (warn);\n"
"disturbed: runs with others_cores or steal_cores over 0.25 (warn;\n"
"fail over a third); cpu-bound: runs whose cpu_pct is 90 or more\n"
"(warn); tools: mkfs versions missing from the manifest (warn). steady\n"
"has no line when no phase has a steady rule.\n"
"\n"
"Exit 0, 1 when --audit finds a failed check, or 2 on a usage error (a\n"
"--metric that matches no metric of the run among them, a --where or\n"
"--by key no run has) or when RUNDIR/results.csv cannot be read or the\n"
"output cannot be written.\n";
static const struct opt report_opts_table[] = {
	OPT_CALL_OF("format", 0, struct report_opts, fmt, outfmt_take),
	OPT_STRING_OF("output", 'o', struct report_opts, out),
	OPT_LIST_OF("metric", 0, struct report_opts, metric),
	OPT_FLAG_OF("all", 0, struct report_opts, all),
	OPT_LIST_OF("where", 0, struct report_opts, where),
	OPT_STRING_OF("by", 0, struct report_opts, by),
	OPT_FLAG_OF("audit", 0, struct report_opts, audit),
	OPT_END
};

const struct opts_cmd report_cmd = {
	"report",
	"report RUNDIR [--format text|csv|html] [-o FILE]\n"
	"[--metric GLOB]... [--all] [--where KEY=VALUE]... [--by AXIS]\n"
	"[--audit]",
	report_help, report_opts_table, "RUNDIR", 0,
	offsetof(struct report_opts, rundir),
	"each phase's key metrics: mean, spread, best first (--all: all)"
};

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { FMT_TEXT, NULL, NULL, { NULL, 0 }, 0,
				 { NULL, 0 }, NULL, 0, NULL };
	struct strbuf notes = { 0 };
	struct diag d = { 0 };
	int rc = opts_parse(&report_cmd, argc, argv, &o), failed = 0;

	if (rc == OPTS_GO && o.metric.n && o.all)
		rc = opts_usage("report", "%s", "--all shows every metric: "
				"it does not go with --metric");
	if (rc == OPTS_GO) {
		o.audit_failed = &failed;
		rc = report_run(&o, &notes, &d) ? EXIT_USAGE :
		     failed ? EXIT_FAILED : EXIT_OK;
		cmd_notes(stderr, "report", &notes);
		if (rc)
			cmd_fail_named(stderr, "report", &d);
	}
	free(notes.p);
	diag_release(&d);
	opts_free(&report_cmd, &o);
	return rc;
}
