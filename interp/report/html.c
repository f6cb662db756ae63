/* html: the pieces of a self-contained HTML page — escaping, the style, tables,
 * and SVG charts drawn here (no script, nothing fetched). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"

/* ---- text --------------------------------------------------------------- */

void html_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
				fputs("\xef\xbf\xbd", f);
			else
				fputc(c, f);
		}
	}
}

void html_textf(FILE *f, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	html_text(f, buf);
}

/* At most max characters of s (UTF-8), escaped, "…" when cut. */
static void text_cut(FILE *f, const char *s, int max)
{
	char buf[512];
	size_t k = 0;
	int chars = 0;

	for (; s[k] && k + 4 < sizeof(buf); k++) {
		if (((unsigned char)s[k] & 0xc0) != 0x80 && ++chars > max)
			break;
		buf[k] = s[k];
	}
	buf[k] = '\0';
	html_text(f, buf);
	if (s[k])
		fputs("\xe2\x80\xa6", f);
}

static int chars_of(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* ---- the page ----------------------------------------------------------- */

static const char style[] =
"body{font:14px/1.4 sans-serif;margin:1em 2em;color:#222;max-width:100em}\n"
"h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ccc;"
"margin-top:2em}h3{font-size:1.05em;margin-bottom:.3em}\n"
"table{border-collapse:collapse;margin:.5em 0}\n"
"th,td{border:1px solid #ccc;padding:.15em .5em;vertical-align:top}\n"
"th{background:#f0f0f0;text-align:left}td.num{text-align:right;"
"font-variant-numeric:tabular-nums}\n"
"figure{display:inline-block;vertical-align:top;margin:1em 2em 1em 0}\n"
"figcaption{font-weight:bold;margin-bottom:.2em}\n"
".fsplan-chart text{font:12px sans-serif;fill:#222}\n"
".fsplan-chart .fsplan-tick{fill:#666;font-size:11px}\n"
".fsplan-grid{stroke:#e4e4e4}.fsplan-axis{stroke:#888}\n"
".fsplan-bar{fill:#4a7ebb}.fsplan-better{fill:#3a9a4a}"
".fsplan-worse{fill:#c8413b}.fsplan-same{fill:#9a9a9a}\n"
".fsplan-ci{stroke:#222;stroke-width:1.5;"
"fill:none}\n"
".fsplan-line{fill:none;stroke-width:2}\n"
".fsplan-series{fill:none;stroke-width:2}.fsplan-rep{fill:none;"
"stroke-width:1;stroke-opacity:.3}.fsplan-steady{fill-opacity:.12}\n"
".note{color:#555}.warn{color:#a35400}\n"
/* a long list without spaces (mkfs's features) wraps in its cell */
"td.words{overflow-wrap:anywhere;min-width:16em}\n"
"td.opts{overflow-wrap:anywhere;min-width:7em}\n"
/* a sparkline's marks as one even line */
"td.marks{font-family:monospace;white-space:pre;line-height:1}\n";

void html_begin(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n"
	      "<meta name=\"generator\" content=\"fsplan\">\n<title>", f);
	html_text(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
}

void html_end(FILE *f)
{
	fputs("</body>\n</html>\n", f);
}

/* ---- axes ----------------------------------------------------------- */

/* A step of 1, 2 or 5 times a power of ten, about span / 5. */
static double nice_step(double span)
{
	double raw = span / 5, mag, norm;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	mag = pow(10, floor(log10(raw)));
	norm = raw / mag;
	return (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
}

void html_axis_fit(struct html_axis *a, double lo, double hi, double p0,
		     double p1)
{
	lo = fmin(lo, 0);
	if (!(hi > lo))
		hi = lo + 1;
	a->step = nice_step(hi - lo);
	a->lo = floor(lo / a->step) * a->step;
	a->hi = ceil(hi / a->step) * a->step;
	a->p0 = p0;
	a->p1 = p1;
}

double html_at(const struct html_axis *a, double v)
{
	return a->p0 + (v - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

void html_svg_begin(FILE *f, const char *cls, double w, double h,
		      const char *title, const char *note)
{
	fputs("<figure>\n<figcaption>", f);
	html_text(f, title);
	if (note) {
		fputs(" <span class=\"note\">(", f);
		html_text(f, note);
		fputs(")</span>", f);
	}
	fprintf(f, "</figcaption>\n<svg class=\"fsplan-chart %s\" "
		"xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
		"aria-label=\"", cls, w, h, w, h);
	html_text(f, title);
	fputs("\">\n<title>", f);
	html_text(f, title);
	fputs("</title>\n", f);
}

void html_svg_end(FILE *f)
{
	fputs("</svg>\n</figure>\n", f);
}

/* ---- bars --------------------------------------------------------------- */

enum { ROW = 24, BAR = 16, TOP = 8, BOTTOM = 28, PLOT = 440, VALUE = 200,
       MAX_LABEL = 40 };

static double half(const struct html_bars *b, size_t i)
{
	return b->ci && isfinite(b->ci[i]) && b->ci[i] > 0 ? b->ci[i] : 0;
}

/* The verdicts the style sheet colours; anything else is left plain. */
static int kind_known(const char *kind)
{
	return kind && (!strcmp(kind, "better") || !strcmp(kind, "worse") ||
			!strcmp(kind, "same"));
}

void html_bar_chart(FILE *f, const struct html_bars *b)
{
	double lo = 0, hi = 0, w, h, lw;
	struct html_axis ax;
	int chars = 6;

	/* the axis spans the means and the upper whiskers: a CI that
	 * reaches below zero (n = 2 has t = 12.7) is cut at the axis, its
	 * end left open, rather than push the axis below a rate's zero */
	for (size_t i = 0; i < b->n; i++) {
		lo = fmin(lo, b->mean[i]);
		hi = fmax(hi, b->mean[i] + half(b, i));
		chars = chars_of(b->label[i]) > chars ?
			chars_of(b->label[i]) : chars;
	}
	lw = 12 + 7 * (chars > MAX_LABEL ? MAX_LABEL + 1 : chars);
	w = lw + PLOT + VALUE;
	h = TOP + ROW * (double)b->n + BOTTOM;
	html_axis_fit(&ax, lo, hi, lw, lw + PLOT);
	html_svg_begin(f, "fsplan-bars", w, h, b->title, b->note);
	for (double t = ax.lo; t <= ax.hi + ax.step / 2; t += ax.step) {
		double x = html_at(&ax, t);

		fprintf(f, "<line class=\"fsplan-grid\" x1=\"%.1f\" y1=\"%d\" "
			"x2=\"%.1f\" y2=\"%.0f\"/>"
			"<text class=\"fsplan-tick\" x=\"%.1f\" y=\"%.0f\" "
			"text-anchor=\"middle\">%g</text>\n", x, TOP, x,
			h - BOTTOM, x, h - BOTTOM + 16,
			fabs(t) < ax.step / 1e6 ? 0 : t);
	}
	for (size_t i = 0; i < b->n; i++) {
		double y = TOP + ROW * (double)i + (ROW - BAR) / 2.0;
		double x0 = html_at(&ax, fmin(0, b->mean[i]));
		double x1 = html_at(&ax, fmax(0, b->mean[i]));
		double c = half(b, i), mid = y + BAR / 2.0;

		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
			lw - 6, mid + 4);
		text_cut(f, b->label[i], MAX_LABEL);
		fputs("</text>\n<rect class=\"fsplan-bar", f);
		if (kind_known(b->kind ? b->kind[i] : NULL))
			fprintf(f, " fsplan-%s", b->kind[i]);
		fprintf(f, "\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%d\"><title>", x0, y, x1 - x0, BAR);
		html_text(f, b->label[i]);
		fprintf(f, ": %.*f", b->decimals, b->mean[i]);
		if (c > 0)
			fprintf(f, " \xc2\xb1%.*f", b->decimals, c);
		fprintf(f, ", n=%d</title></rect>\n", b->count[i]);
		if (c > 0) {
			double l = html_at(&ax, fmax(ax.lo, b->mean[i] - c));
			double r = html_at(&ax, b->mean[i] + c);

			fprintf(f, "<path class=\"fsplan-ci\" d=\"M%.1f %.1fH%.1f"
				"M%.1f %.1fV%.1f", l, mid, r, r, mid - 5,
				mid + 5);
			if (b->mean[i] - c >= ax.lo)
				fprintf(f, "M%.1f %.1fV%.1f", l, mid - 5,
					mid + 5);
			fputs("\"/>\n", f);
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%.*f", lw + PLOT + 8,
			mid + 4, b->decimals, b->mean[i]);
		if (c > 0)
			fprintf(f, " \xc2\xb1%.*f", b->decimals, c);
		fprintf(f, " (n=%d)</text>\n", b->count[i]);
	}
	fprintf(f, "<line class=\"fsplan-axis\" x1=\"%.1f\" y1=\"%d\" "
		"x2=\"%.1f\" y2=\"%.0f\"/>\n", html_at(&ax, 0), TOP, html_at(&ax, 0),
		h - BOTTOM);
	html_svg_end(f);
}

/* ---- lines -------------------------------------------------------------- */

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c",
	"#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
	"#bcbd22" };
#define N_PALETTE (sizeof(palette) / sizeof(palette[0]))

const char *html_color(size_t i)
{
	return palette[i % N_PALETTE];
}

enum { LW = 540, LH = 300, LLEFT = 64, LRIGHT = 16, LTOP = 12, LBOTTOM = 44,
       LEGEND = 22 };

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The distinct x values of every series, sorted; how many. */
static size_t xs_of(const struct html_series *s, size_t n, double *xs,
		    size_t max)
{
	size_t k = 0, m = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < s[i].n && k < max; j++)
			if (isfinite(s[i].x[j]))
				xs[k++] = s[i].x[j];
	qsort(xs, k, sizeof(*xs), cmp_double);
	for (size_t i = 0; i < k; i++)
		if (!m || xs[m - 1] != xs[i])
			xs[m++] = xs[i];
	return m;
}

void html_line_chart(FILE *f, const char *title, const char *xtitle,
		     const char *ytitle, const struct html_series *s,
		     size_t n)
{
	double xs[64], hi = 0, h = LH + LEGEND * (double)n;
	double ybase = LH - LBOTTOM;
	size_t nx = xs_of(s, n, xs, 64);
	struct html_axis ax, ay;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < s[i].n; j++)
			if (isfinite(s[i].y[j]))
				hi = fmax(hi, s[i].y[j]);
	html_axis_fit(&ay, 0, hi, ybase, LTOP);
	ax.lo = nx ? xs[0] : 0;
	ax.hi = nx > 1 ? xs[nx - 1] : ax.lo + 1;
	ax.p0 = LLEFT + (nx > 1 ? 10 : (LW - LLEFT - LRIGHT) / 2.0);
	ax.p1 = LW - LRIGHT - 10;
	ax.step = 1;
	html_svg_begin(f, "fsplan-lines", LW, h, title, NULL);
	for (double t = ay.lo; t <= ay.hi + ay.step / 2; t += ay.step)
		fprintf(f, "<line class=\"fsplan-grid\" x1=\"%d\" y1=\"%.1f\" "
			"x2=\"%d\" y2=\"%.1f\"/><text class=\"fsplan-tick\" "
			"x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			LLEFT, html_at(&ay, t), LW - LRIGHT, html_at(&ay, t), LLEFT - 6,
			html_at(&ay, t) + 4, t);
	for (size_t i = 0; i < nx; i++)
		fprintf(f, "<text class=\"fsplan-tick\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\">%g</text>\n", html_at(&ax, xs[i]),
			ybase + 16, xs[i]);
	fprintf(f, "<line class=\"fsplan-axis\" x1=\"%d\" y1=\"%.1f\" "
		"x2=\"%d\" y2=\"%.1f\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"middle\">", LLEFT, ybase, LW - LRIGHT, ybase,
		(LLEFT + LW - LRIGHT) / 2.0, ybase + 34);
	html_text(f, xtitle);
	fprintf(f, "</text>\n<text x=\"14\" y=\"%.1f\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 14 %.1f)\">", (LTOP + ybase) / 2,
		(LTOP + ybase) / 2);
	html_text(f, ytitle);
	fputs("</text>\n", f);
	for (size_t i = 0; i < n; i++) {
		const char *color = palette[i % N_PALETTE];
		double ly = LH + LEGEND * (double)i;

		fprintf(f, "<polyline class=\"fsplan-line\" stroke=\"%s\" "
			"points=\"", color);
		for (size_t j = 0; j < s[i].n; j++)
			if (isfinite(s[i].x[j]) && isfinite(s[i].y[j]))
				fprintf(f, "%s%.1f,%.1f", j ? " " : "",
					html_at(&ax, s[i].x[j]), html_at(&ay, s[i].y[j]));
		fputs("\"/>\n", f);
		for (size_t j = 0; j < s[i].n; j++) {
			if (!isfinite(s[i].x[j]) || !isfinite(s[i].y[j]))
				continue;
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
				"fill=\"%s\"><title>", html_at(&ax, s[i].x[j]),
				html_at(&ay, s[i].y[j]), color);
			html_text(f, s[i].label);
			fprintf(f, ": %g, %g</title></circle>\n", s[i].x[j],
				s[i].y[j]);
		}
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"%s\" stroke-width=\"3\"/><text x=\"%d\" "
			"y=\"%.1f\">", LLEFT, ly, LLEFT + 24, ly, color,
			LLEFT + 30, ly + 4);
		text_cut(f, s[i].label, 70);
		fputs("</text>\n", f);
	}
	html_svg_end(f);
}
