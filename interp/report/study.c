/* study: the registry of study tables that report and its html page walk. */
#include <string.h>

#include "report/bonnie.h"
#include "report/classic.h"
#include "report/dbench.h"
#include "report/hometree.h"
#include "report/study.h"
#include "report/studies.h"

const struct study study_list[] = {
	{ "tiobench", 0, classic_tio_tables, classic_tio_shows,
	  "\ntiobench: means over the repetitions\n"
	  "  File Size = MiB   Blk Size = bytes   Rate = MiB/s\n"
	  "  CPU% = (user + sys) / wall time, the test's own "
	  "(test_cpu_pct) where the phase reports it\n"
	  "  Latency = ms   Lat% = % of requests slower than 2 s / 10 s\n"
	  "  CPU Eff = Rate / (CPU% / 100)\n", NULL, NULL,
	  "tiobench: means over the repetitions. CPU% = (user + sys) / wall "
	  "time, the test's own (test_cpu_pct) where the phase reports it; "
	  "Lat% = % of requests slower than 2 s / 10 s; CPU Eff = Rate / "
	  "(CPU% / 100)." },
	{ "bonnie", 0, bonnie_tables, bonnie_shows,
	  "\nbonnie++: means over the repetitions (K/sec, seeks/sec, "
	  "files/sec; %CP; the longest op)\n", NULL, NULL, NULL },
	{ "dbench", 0, dbench_tables, dbench_shows,
	  "\ndbench: throughput over the repetitions, MB/s (10^6 bytes of "
	  "ReadX and WriteX)\n", NULL, NULL, NULL },
	{ "tree", 1, hometree_tables, NULL,
	  "\n== the home tree (copy/move/rm study): means of the ok runs; "
	  "df after each step ==\n", "tree",
	  "The home tree (copy/move/rm study)",
	  "Means of the ok runs; user and system: the step's CPU seconds; "
	  "source and target MiB: df after each step; a move is a rename and "
	  "an rm unlinks, with no MiB/s; mkfs and mount: per volume." },
	{ "ffsb", 1, studies_ffsb_tables, NULL,
	  "\n== ffsb (the 2008 ext4 study): means of the ok runs, by threads "
	  "==\n", "ffsb", "ffsb (the 2008 ext4 study)",
	  "Means of the ok runs, by threads; %CPU is ffsb's (user + system "
	  "over the run, can pass 100)." },
	{ "oltp", 1, studies_oltp_tables, NULL,
	  "\n== OLTP (the 2008 sysbench study): means of the ok runs; "
	  "latency in ms ==\n", "oltp", "OLTP (the 2008 sysbench study)",
	  STUDIES_OLTP_NOTE },
	{ NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL },
};

unsigned study_bit(const char *name)
{
	for (unsigned i = 0; study_list[i].name; i++)
		if (!strcmp(study_list[i].name, name))
			return 1u << i;
	return 0;
}

int study_tables(const char *name, const struct table_src *in,
		 struct tables *out)
{
	for (const struct study *s = study_list; s->name; s++)
		if (!strcmp(s->name, name))
			return s->tables(out, in) || tables_failed(out) ?
			       -1 : 0;
	return -1;
}

/* Each study of the kind that has a table, rendered. */
static int each(FILE *f, const struct table_src *in, int spans, int html)
{
	unsigned mask = 0;

	for (unsigned i = 0; study_list[i].name; i++) {
		const struct study *s = &study_list[i];
		struct tables ts = { 0 };
		int bad;

		if (s->spans != spans)
			continue;
		bad = s->tables(&ts, in) || tables_failed(&ts);
		if (!bad && ts.n) {
			mask |= 1u << i;
			if (!html)
				fputs(s->text_before, f);
			else if (s->html_heading)
				fprintf(f, "<h2 id=\"%s\">%s</h2>\n"
					"<p class=\"note\">%s</p>\n",
					s->html_id, s->html_heading,
					s->html_note);
			else if (s->html_note)
				fprintf(f, "<p class=\"note\">%s</p>\n",
					s->html_note);
			for (size_t k = 0; k < ts.n; k++)
				(html ? table_html : table_text)(f, ts.t[k]);
		}
		tables_free(&ts);
		if (bad)
			return -1;
	}
	return (int)mask;
}

int study_text(FILE *f, const struct table_src *in, int spans)
{
	return each(f, in, spans, 0);
}

int study_html(FILE *f, const struct table_src *in, int spans)
{
	return each(f, in, spans, 1);
}

int study_shows(unsigned mask, const char *metric)
{
	for (unsigned i = 0; study_list[i].name; i++)
		if ((mask & 1u << i) && study_list[i].shows &&
		    study_list[i].shows(metric))
			return 1;
	return 0;
}
