/* html: the pieces of a self-contained HTML page — escaping, the style, tables,
 * and SVG charts drawn here (no script, nothing fetched). */
#ifndef FSPLAN_REPORT_HTML_H
#define FSPLAN_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>


/* s with & < > " ' as entities and other control characters but tab and
 * newline as U+FFFD: safe in text and in a quoted attribute. */
void html_text(FILE *f, const char *s);
/* printf's format, the result escaped as html_text does. */
void html_textf(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The doctype, the head (charset, title, the inline style sheet), <body>;
 * and the end of the page. */
void html_begin(FILE *f, const char *title);
void html_end(FILE *f);

/*
 * A horizontal bar chart: a bar per entry, in the order given (sort
 * best first before), its 95% confidence interval as a whisker (ci[i] is
 * the half-width; 0 or NAN: none, as for n < 2) and "mean ±ci (n=N)" at
 * its end. Each bar is <rect class="fsplan-bar">, so a test can count
 * them; the chart is <svg class="fsplan-chart fsplan-bars">. kind, when
 * not NULL, colours bar i by kind[i]: "better" green, "worse" red,
 * "same" grey (a verdict, as compare gives), NULL the default blue.
 */
struct html_bars {
	const char *title;		/* "rate_mbs: rate (MiB/s)" */
	const char *note;		/* "higher is better", or NULL */
	size_t n;
	const char *const *label;	/* each bar's config */
	const double *mean;
	const double *ci;
	const int *count;		/* the n of each mean */
	int decimals;			/* of the figures shown */
	const char *const *kind;	/* NULL, or each bar's verdict */
};
void html_bar_chart(FILE *f, const struct html_bars *b);

/*
 * A line chart of y over x, a line per series (<polyline
 * class="fsplan-line">), its points marked when marks, a legend, and
 * the axes' titles. A series is coloured as its config (config[i], or
 * its label, as html_config_known finds it), else by its place. logx: x on
 * a log scale (x <= 0 left out), its ticks at 1-2-5 steps of the
 * decades when decades, else at the series' x values; xfmt writes an x
 * value (NULL: html_fmt_num); ymax: the y axis's top (0: the data's).
 */
struct html_series {
	const char *label;
	const double *x, *y;		/* n points, x ascending */
	size_t n;
};
struct html_lines {
	const char *cls;		/* the svg's class (NULL:
					 * fsplan-lines) */
	const char *title, *note, *xtitle, *ytitle;
	const struct html_series *s;
	size_t n;
	const char *const *config;	/* each series' config (NULL:
					 * their labels) */
	int logx, decades, marks;
	void (*xfmt)(char *buf, size_t len, double v);
	double ymax;
};
void html_lines_chart(FILE *f, const struct html_lines *l);
/* The chart with linear x, its points marked. */
void html_line_chart(FILE *f, const char *title, const char *xtitle,
		     const char *ytitle, const struct html_series *s,
		     size_t n);
/* Values in human units, to 3 significant figures: bytes as B, KiB,
 * MiB..; microseconds as us, ms, s; a plain number as 950, 12.5k, 3.2M. */
void html_fmt_bytes(char *buf, size_t len, double v);
void html_fmt_us(char *buf, size_t len, double v);
void html_fmt_num(char *buf, size_t len, double v);
/* What to divide values in unit up to max by to show them in a larger
 * unit of the same kind (bytes as MiB, KiB/s as MiB/s, us as ms) while
 * the largest keeps four digits or more; the unit in *shown (unit
 * itself, and 1, when there is none larger or unit is not one of
 * those). */
double html_human_unit(const char *unit, double max, const char **shown);

/* The charts' common parts, for the charts of other files. An axis: the
 * values at its ends and its tick spacing, their pixels. */
struct html_axis {
	double lo, hi, step;
	double p0, p1;
};
/* lo (at most 0) to hi in nice steps, drawn from pixel p0 to p1. */
void html_axis_fit(struct html_axis *a, double lo, double hi, double p0,
		   double p1);
/* The pixel of v on a. */
double html_at(const struct html_axis *a, double v);
/* The figure, its caption (title, then note in grey) above the chart,
 * the <svg> of class "fsplan-chart cls"; and their end. */
void html_svg_begin(FILE *f, const char *cls, double w, double h,
		    const char *title, const char *note);
void html_svg_end(FILE *f);
/* The i-th colour of the charts' palette (Okabe-Ito's, then Paul
 * Tol's), and the dash pattern (an attribute, "" for none) that tells
 * the i-th from an earlier one of the same colour. */
const char *html_color(size_t i);
const char *html_dash(size_t i);
/* A config's place on the page, which gives its colour on every chart:
 * html_config_index makes it on first use (-1 out of memory),
 * html_config_known only finds it (-1: not a config of the page);
 * html_configs_reset forgets them all (a page's end). */
int html_config_index(const char *label);
int html_config_known(const char *label);
void html_configs_reset(void);

#endif
