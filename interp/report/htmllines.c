/* htmllines: line charts of the html page, on linear or log axes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "results/stats.h"

enum { LW = 640, LH = 300, LLEFT = 72, LRIGHT = 20, LTOP = 12, LBOTTOM = 44,
       LEGEND = 22, MAX_X = 64 };

/* ---- units -------------------------------------------------------------- */

/* v / 1024^k with the unit of k, as "%g" to 3 significant figures. */
static void scaled(char *buf, size_t len, double v, double base,
		   const char *const *unit, int n)
{
	int k = 0;

	while (k + 1 < n && fabs(v) >= base) {
		v /= base;
		k++;
	}
	snprintf(buf, len, "%.3g %s", v, unit[k]);
}

void html_fmt_bytes(char *buf, size_t len, double v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };

	scaled(buf, len, v, 1024, unit, 5);
}

void html_fmt_us(char *buf, size_t len, double v)
{
	if (fabs(v) >= 1e6)
		snprintf(buf, len, "%.3g s", v / 1e6);
	else if (fabs(v) >= 1e3)
		snprintf(buf, len, "%.3g ms", v / 1e3);
	else
		snprintf(buf, len, "%.3g us", v);
}

void html_fmt_num(char *buf, size_t len, double v)
{
	static const char *const unit[] = { "", "k", "M", "G", "T" };
	int k = 0;

	if (fabs(v) < 1e4) {
		snprintf(buf, len, "%.4g", fabs(v) < 1e-9 ? 0 : v);
		return;
	}
	while (k < 4 && fabs(v) >= 1000) {
		v /= 1000;
		k++;
	}
	snprintf(buf, len, "%.3g%s", v, unit[k]);
}

/* The units a value may be shown in, each the one before times `by`. */
static const struct ladder {
	double by;
	const char *unit[5];
} ladders[] = {
	{ 1024, { "bytes", "KiB", "MiB", "GiB", "TiB" } },
	{ 1024, { "B", "KiB", "MiB", "GiB", "TiB" } },
	{ 1024, { "KiB/s", "MiB/s", "GiB/s" } },
	{ 1024, { "B/s", "KiB/s", "MiB/s", "GiB/s" } },
	{ 1000, { "us", "ms", "s" } },
	{ 1000, { "ns", "us", "ms", "s" } },
};

double html_human_unit(const char *unit, double max, const char **shown)
{
	*shown = unit;
	for (size_t l = 0; unit && l < sizeof(ladders) / sizeof(ladders[0]);
	     l++) {
		const struct ladder *d = &ladders[l];
		double scale = 1;
		int k = 0;

		for (k = 0; k < 5 && d->unit[k]; k++)
			if (!strcmp(d->unit[k], unit))
				break;
		if (k == 5 || !d->unit[k])
			continue;
		/* up while the figures keep four digits or more */
		while (k + 1 < 5 && d->unit[k + 1] &&
		       max / scale >= 10 * d->by) {
			scale *= d->by;
			k++;
		}
		*shown = d->unit[k];
		return scale;
	}
	return 1;
}

/* ---- axes --------------------------------------------------------------- */

/* The distinct finite x values of every series, sorted; how many. */
static size_t xs_of(const struct html_series *s, size_t n, double *xs,
		    size_t max, int logx)
{
	size_t k = 0, m = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < s[i].n && k < max; j++)
			if (isfinite(s[i].x[j]) && (!logx || s[i].x[j] > 0))
				xs[k++] = s[i].x[j];
	qsort(xs, k, sizeof(*xs), stats_cmp_double);
	for (size_t i = 0; i < k; i++)
		if (!m || xs[m - 1] != xs[i])
			xs[m++] = xs[i];
	return m;
}

/* The pixel of x: linear, or by log10 when logx. */
static double at_x(const struct html_axis *a, double x, int logx)
{
	return html_at(a, logx ? log10(x) : x);
}

static int drawn(const struct html_lines *l, size_t i, size_t j)
{
	const struct html_series *s = &l->s[i];

	return isfinite(s->x[j]) && isfinite(s->y[j]) &&
	       (!l->logx || s->x[j] > 0);
}

/* Ticks of a log axis: 1, 2, 5 times the powers of ten in lo..hi (the
 * axis in log10), or only the powers when there are many decades. */
static void log_ticks(FILE *f, const struct html_lines *l,
		      const struct html_axis *ax, double y)
{
	static const double m[] = { 1, 2, 5 };
	int decades = (int)(ax->hi - ax->lo);
	char buf[48];

	for (int e = (int)floor(ax->lo); e <= (int)ceil(ax->hi); e++)
		for (int k = 0; k < (decades > 4 ? 1 : 3); k++) {
			double v = m[k] * pow(10, e), lg = log10(v);

			if (lg < ax->lo - 1e-9 || lg > ax->hi + 1e-9)
				continue;
			l->xfmt(buf, sizeof(buf), v);
			fprintf(f, "<line class=\"fsplan-grid\" x1=\"%.1f\" "
				"y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\"/><text "
				"class=\"fsplan-tick\" x=\"%.1f\" y=\"%.1f\" "
				"text-anchor=\"middle\">", html_at(ax, lg),
				LTOP, html_at(ax, lg), y, html_at(ax, lg),
				y + 16);
			html_text(f, buf);
			fputs("</text>\n", f);
		}
}

/* The x axis: the distinct values (a scaling chart's few) as ticks, or
 * a log axis's decades. */
static void x_axis(FILE *f, const struct html_lines *l, struct html_axis *ax,
		   double ybase)
{
	double xs[MAX_X], lo = INFINITY, hi = -INFINITY;
	size_t nx = xs_of(l->s, l->n, xs, MAX_X, l->logx);
	char buf[48];

	/* the ends from every point: a CDF has more than MAX_X */
	for (size_t i = 0; i < l->n; i++)
		for (size_t j = 0; j < l->s[i].n; j++)
			if (drawn(l, i, j)) {
				lo = fmin(lo, l->s[i].x[j]);
				hi = fmax(hi, l->s[i].x[j]);
			}
	ax->lo = nx ? lo : 0;
	ax->hi = nx > 1 ? hi : ax->lo + 1;
	if (l->logx) {
		ax->lo = nx ? log10(lo) : 0;
		ax->hi = nx > 1 ? log10(hi) : ax->lo + 1;
		if (l->decades) {
			ax->lo = floor(ax->lo);
			ax->hi = fmax(ceil(ax->hi), ax->lo + 1);
		}
	}
	ax->p0 = LLEFT + (nx > 1 ? 10 : (LW - LLEFT - LRIGHT) / 2.0);
	ax->p1 = LW - LRIGHT - 10;
	ax->step = 1;
	if (l->logx && l->decades) {
		log_ticks(f, l, ax, ybase);
		return;
	}
	for (size_t i = 0; i < nx; i++) {
		l->xfmt(buf, sizeof(buf), xs[i]);
		fprintf(f, "<text class=\"fsplan-tick\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\">", at_x(ax, xs[i], l->logx),
			ybase + 16);
		html_text(f, buf);
		fputs("</text>\n", f);
	}
}

static void y_axis(FILE *f, const struct html_lines *l,
		   const struct html_axis *ay)
{
	char buf[48];

	for (double t = ay->lo; t <= ay->hi + ay->step / 2; t += ay->step) {
		html_fmt_num(buf, sizeof(buf), fabs(t) < ay->step / 1e6 ? 0 :
			     t);
		fprintf(f, "<line class=\"fsplan-grid\" x1=\"%d\" y1=\"%.1f\" "
			"x2=\"%d\" y2=\"%.1f\"/><text class=\"fsplan-tick\" "
			"x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", LLEFT,
			html_at(ay, t), LW - LRIGHT, html_at(ay, t), LLEFT - 6,
			html_at(ay, t) + 4);
		html_text(f, buf);
		fputs("</text>\n", f);
	}
	(void)l;
}

static void titles(FILE *f, const struct html_lines *l, double ybase)
{
	fprintf(f, "<line class=\"fsplan-axis\" x1=\"%d\" y1=\"%.1f\" "
		"x2=\"%d\" y2=\"%.1f\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"middle\">", LLEFT, ybase, LW - LRIGHT, ybase,
		(LLEFT + LW - LRIGHT) / 2.0, ybase + 34);
	html_text(f, l->xtitle);
	fprintf(f, "</text>\n<text x=\"14\" y=\"%.1f\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 14 %.1f)\">", (LTOP + ybase) / 2,
		(LTOP + ybase) / 2);
	html_text(f, l->ytitle);
	fputs("</text>\n", f);
}

/* ---- lines -------------------------------------------------------------- */

/* Series i's colour: its config's on the page, else its place. */
static size_t color_of(const struct html_lines *l, size_t i)
{
	const char *cfg = l->config ? l->config[i] : l->s[i].label;
	int k = html_config_known(cfg);

	return k >= 0 ? (size_t)k : i;
}

static void series(FILE *f, const struct html_lines *l, size_t i,
		   const struct html_axis *ax, const struct html_axis *ay)
{
	const struct html_series *s = &l->s[i];
	size_t c = color_of(l, i);
	char bx[48], by[48];
	int first = 1;

	fprintf(f, "<polyline class=\"fsplan-line\" stroke=\"%s\"%s "
		"points=\"", html_color(c), html_dash(c));
	for (size_t j = 0; j < s->n; j++)
		if (drawn(l, i, j)) {
			fprintf(f, "%s%.1f,%.1f", first ? "" : " ",
				at_x(ax, s->x[j], l->logx),
				html_at(ay, s->y[j]));
			first = 0;
		}
	fputs("\"><title>", f);
	html_text(f, s->label);
	fputs("</title></polyline>\n", f);
	for (size_t j = 0; l->marks && j < s->n; j++) {
		if (!drawn(l, i, j))
			continue;
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
			"fill=\"%s\"><title>", at_x(ax, s->x[j], l->logx),
			html_at(ay, s->y[j]), html_color(c));
		l->xfmt(bx, sizeof(bx), s->x[j]);
		html_fmt_num(by, sizeof(by), s->y[j]);
		html_textf(f, "%s: %s, %s", s->label, bx, by);
		fputs("</title></circle>\n", f);
	}
}

static void legend(FILE *f, const struct html_lines *l, size_t i)
{
	double ly = LH + LEGEND * (double)i;
	size_t c = color_of(l, i);

	fprintf(f, "<line class=\"fsplan-key\" x1=\"%d\" y1=\"%.1f\" "
		"x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"%s/>"
		"<text x=\"%d\" y=\"%.1f\">", LLEFT, ly, LLEFT + 28, ly,
		html_color(c), html_dash(c), LLEFT + 36, ly + 4);
	html_text(f, l->s[i].label);
	fputs("</text>\n", f);
}

void html_lines_chart(FILE *f, const struct html_lines *in)
{
	struct html_lines l = *in;
	double hi = l.ymax, ybase = LH - LBOTTOM;
	struct html_axis ax, ay;

	if (!l.xfmt)
		l.xfmt = html_fmt_num;
	for (size_t i = 0; !(l.ymax > 0) && i < l.n; i++)
		for (size_t j = 0; j < l.s[i].n; j++)
			if (drawn(&l, i, j))
				hi = fmax(hi, l.s[i].y[j]);
	html_axis_fit(&ay, 0, hi, ybase, LTOP);
	html_svg_begin(f, l.cls ? l.cls : "fsplan-lines", LW,
		       LH + LEGEND * (double)l.n, l.title, l.note);
	y_axis(f, &l, &ay);
	x_axis(f, &l, &ax, ybase);
	titles(f, &l, ybase);
	for (size_t i = 0; i < l.n; i++)
		series(f, &l, i, &ax, &ay);
	for (size_t i = 0; i < l.n; i++)
		legend(f, &l, i);
	html_svg_end(f);
}

void html_line_chart(FILE *f, const char *title, const char *xtitle,
		     const char *ytitle, const struct html_series *s,
		     size_t n)
{
	html_lines_chart(f, &(struct html_lines){ .title = title,
			 .xtitle = xtitle, .ytitle = ytitle, .s = s, .n = n,
			 .marks = 1 });
}
