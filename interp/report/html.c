/* html: the pieces of a self-contained HTML page — escaping, the style, tables,
 * and SVG charts drawn here (no script, nothing fetched). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fig.h"
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
/* a wide table scrolls by itself on a narrow screen, not the page */
"table{border-collapse:collapse;margin:.5em 0;display:block;"
"max-width:100%;overflow-x:auto}\n"
"@media (max-width:40em){body{margin:.5em}}\n"
"th,td{border:1px solid #ccc;padding:.15em .5em;vertical-align:top}\n"
"th{background:#f0f0f0;text-align:left}td.num{text-align:right;"
"font-variant-numeric:tabular-nums}\n"
/* a chart takes the page's width up to its own; on a phone it keeps
 * 30em, so its text stays readable, and scrolls sideways */
"figure{display:block;margin:1em 0;overflow-x:auto}\n"
"svg.fsplan-chart{display:block;width:100%;height:auto;min-width:30em}\n"
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
	fprintf(f, "<figure style=\"max-width:%.0fpx\">\n<figcaption>",
		w);
	html_text(f, title);
	if (note) {
		fputs(" <span class=\"note\">(", f);
		html_text(f, note);
		fputs(")</span>", f);
	}
	fprintf(f, "</figcaption>\n<svg class=\"fsplan-chart %s\" "
		"xmlns=\"http://www.w3.org/2000/svg\" width=\"100%%\" "
		"viewBox=\"0 0 %.0f %.0f\" style=\"max-width:%.0fpx\" "
		"preserveAspectRatio=\"xMinYMin meet\" role=\"img\" "
		"aria-label=\"", cls, w, h, w);
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
	int chars = 6, cfg;

	/* the axis spans the means and the upper whiskers: a CI that
	 * reaches below zero (n = 2 has t = 12.7) is cut at the axis, its
	 * end left open, rather than push the axis below a rate's zero */
	for (size_t i = 0; i < b->n; i++) {
		lo = fmin(lo, b->mean[i]);
		hi = fmax(hi, b->mean[i] + half(b, i));
		chars = chars_of(b->label[i]) > chars ?
			chars_of(b->label[i]) : chars;
	}
	lw = 12 + 8 * (chars > MAX_LABEL ? MAX_LABEL + 1 : chars);
	w = lw + PLOT + VALUE;
	h = TOP + ROW * (double)b->n + BOTTOM;
	html_axis_fit(&ax, lo, hi, lw, lw + PLOT);
	html_svg_begin(f, "fsplan-bars", w, h, b->title, b->note);
	for (double t = ax.lo; t <= ax.hi + ax.step / 2; t += ax.step) {
		double x = html_at(&ax, t);

		char tick[48];

		html_fmt_num(tick, sizeof(tick), fabs(t) < ax.step / 1e6 ?
			     0 : t);
		fprintf(f, "<line class=\"fsplan-grid\" x1=\"%.1f\" y1=\"%d\" "
			"x2=\"%.1f\" y2=\"%.0f\"/>"
			"<text class=\"fsplan-tick\" x=\"%.1f\" y=\"%.0f\" "
			"text-anchor=\"middle\">%s</text>\n", x, TOP, x,
			h - BOTTOM, x, h - BOTTOM + 16, tick);
	}
	for (size_t i = 0; i < b->n; i++) {
		double y = TOP + ROW * (double)i + (ROW - BAR) / 2.0;
		double x0 = html_at(&ax, fmin(0, b->mean[i]));
		double x1 = html_at(&ax, fmax(0, b->mean[i]));
		double c = half(b, i), mid = y + BAR / 2.0;
		char mv[FIG_LEN], cv[FIG_LEN];

		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
			lw - 6, mid + 4);
		text_cut(f, b->label[i], MAX_LABEL);
		fputs("</text>\n<rect class=\"fsplan-bar", f);
		if (kind_known(b->kind ? b->kind[i] : NULL))
			fprintf(f, " fsplan-%s", b->kind[i]);
		else if ((cfg = html_config_known(b->label[i])) >= 0)
			fprintf(f, "\" style=\"fill:%s",
				html_color((size_t)cfg));
		fprintf(f, "\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%d\"><title>", x0, y, x1 - x0, BAR);
		html_text(f, b->label[i]);
		fprintf(f, ": %s", fig_text(mv, sizeof(mv), b->mean[i], 0,
					     NULL, NULL));
		if (c > 0)
			fprintf(f, " %s", fig_text(cv, sizeof(cv), c, 0,
						   "\xc2\xb1", NULL));
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
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s", lw + PLOT + 8,
			mid + 4, mv);
		if (c > 0)
			fprintf(f, " %s", cv);
		fprintf(f, " (n=%d)</text>\n", b->count[i]);
	}
	fprintf(f, "<line class=\"fsplan-axis\" x1=\"%.1f\" y1=\"%d\" "
		"x2=\"%.1f\" y2=\"%.0f\"/>\n", html_at(&ax, 0), TOP, html_at(&ax, 0),
		h - BOTTOM);
	html_svg_end(f);
}

/* ---- lines -------------------------------------------------------------- */

/*
 * The charts' palette: Okabe and Ito's eight colour-blind-safe colours
 * (the black last: it reads as an axis), then Paul Tol's bright and
 * muted ones that differ from them; past those the colours repeat, each
 * round with a dash pattern of its own (html_dash).
 */
static const char *const palette[] = { "#0072B2", "#E69F00", "#009E73",
	"#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
	"#4477AA", "#EE6677", "#228833", "#CCBB44", "#AA3377", "#BBBBBB",
	"#332288", "#882255" };
#define N_PALETTE (sizeof(palette) / sizeof(palette[0]))

const char *html_color(size_t i)
{
	return palette[i % N_PALETTE];
}

const char *html_dash(size_t i)
{
	static const char *const dash[] = { "", " stroke-dasharray=\"6 3\"",
		" stroke-dasharray=\"2 2\"", " stroke-dasharray=\"8 3 2 3\"" };

	return dash[(i / N_PALETTE) % 4];
}

/*
 * The page's configs, in the order first named: a config keeps its
 * colour on every chart of the page. A page is one process's output, so
 * the list is the page's, kept here rather than passed to every chart.
 */
static char **config_names;
static size_t n_config;

int html_config_index(const char *label)
{
	char **grown;

	if (!label)
		return -1;
	for (size_t i = 0; i < n_config; i++)
		if (!strcmp(config_names[i], label))
			return (int)i;
	if (!(grown = realloc(config_names, (n_config + 1) * sizeof(*grown))))
		return -1;
	config_names = grown;
	if (!(config_names[n_config] = strdup(label)))
		return -1;
	return (int)n_config++;
}

int html_config_known(const char *label)
{
	for (size_t i = 0; label && i < n_config; i++)
		if (!strcmp(config_names[i], label))
			return (int)i;
	return -1;
}

void html_configs_reset(void)
{
	for (size_t i = 0; i < n_config; i++)
		free(config_names[i]);
	free(config_names);
	config_names = NULL;
	n_config = 0;
}
