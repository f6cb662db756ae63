/* htmltime: a phase's behaviour over time on the html page, as SVG charts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/htmltime.h"
#include "report/table.h"

enum { W = 760, PH = 260, LEFT = 72, RIGHT = 20, TOP = 12, AXIS = 46,
       LEGEND = 20, MAX_BINS = 400 };

enum kind { MAIN, FAINT, DASHED };

/* One line of a chart: a value per bin, NAN where there is none. */
struct tline {
	double *v;
	size_t color;
	enum kind kind;
	int set;		/* its config's n-th parameter set: a dash */
	const char *label;
};

/* The dash of a line: the machine chart's second series, or a config's
 * second, third.. parameter set (its colour is the config's). */
static const char *dash_of(enum kind kind, int set)
{
	static const char *const dash[] = { "", " stroke-dasharray=\"2 3\"",
		" stroke-dasharray=\"10 3 2 3\"", " stroke-dasharray=\"1 6\"" };

	if (kind == DASHED)
		return " stroke-dasharray=\"6 4\"";
	return dash[set % 4];
}

struct tshade {
	double from, to;
	size_t color;
};

struct tchart {
	const char *title, *ytitle, *note, *dashed;
	double tmax;
	size_t nb;
	const struct overtime_grid *g;
	struct tline *l;
	size_t n;
	struct tshade *sh;
	size_t n_sh;
};

/* ---- drawing ------------------------------------------------------------ */

static void axes(FILE *f, const struct tchart *c, const struct html_axis *ax,
		 const struct html_axis *ay)
{
	double base = TOP + PH;

	for (double t = ay->lo; t <= ay->hi + ay->step / 2; t += ay->step) {
		char tick[48];

		html_fmt_num(tick, sizeof(tick), fabs(t) < ay->step / 1e6 ?
			     0 : t);
		fprintf(f, "<line class=\"fsplan-grid\" x1=\"%d\" y1=\"%.1f\" "
			"x2=\"%d\" y2=\"%.1f\"/><text class=\"fsplan-tick\" "
			"x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			LEFT, html_at(ay, t), W - RIGHT, html_at(ay, t),
			LEFT - 6, html_at(ay, t) + 4, tick);
	}
	for (double t = ax->lo; t <= ax->hi + ax->step / 2; t += ax->step)
		fprintf(f, "<text class=\"fsplan-tick\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\">%g</text>\n", html_at(ax, t),
			base + 16, t);
	fprintf(f, "<line class=\"fsplan-axis\" x1=\"%d\" y1=\"%.1f\" "
		"x2=\"%d\" y2=\"%.1f\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"middle\">seconds since the phase's timed start"
		" (s)</text>\n<text x=\"14\" y=\"%.1f\" text-anchor=\"middle\""
		" transform=\"rotate(-90 14 %.1f)\">", LEFT, base, W - RIGHT,
		base, (LEFT + W - RIGHT) / 2.0, base + 36, TOP + PH / 2.0,
		TOP + PH / 2.0);
	html_text(f, c->ytitle);
	fputs("</text>\n", f);
}

static void line(FILE *f, const struct tchart *c, const struct tline *l,
		 const struct html_axis *ax, const struct html_axis *ay)
{
	static const char *const cls[] = { "fsplan-series", "fsplan-rep",
					   "fsplan-series fsplan-dashed" };
	int pen = 0;

	fprintf(f, "<path class=\"%s\" stroke=\"%s\"%s d=\"", cls[l->kind],
		html_color(l->color), dash_of(l->kind, l->set));
	for (size_t i = 0; i < c->nb; i++) {
		double t = overtime_bin_end(c->g, i, c->tmax);

		if (!isfinite(l->v[i])) {
			pen = 0;
			continue;
		}
		fprintf(f, "%c%.1f %.1f", pen ? 'L' : 'M', html_at(ax, t),
			html_at(ay, l->v[i]));
		pen = 1;
	}
	fputs("\"><title>", f);
	html_text(f, l->label);
	fputs("</title></path>\n", f);
}

/* A legend row: a line in the colour (dashed or faint as kind), text. */
static void legend(FILE *f, int row, size_t color, enum kind kind,
		   int set, const char *text)
{
	double y = TOP + PH + AXIS + LEGEND * (double)row;

	fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		"stroke=\"%s\" stroke-width=\"%d\"%s%s/><text x=\"%d\" "
		"y=\"%.1f\">", LEFT, y, LEFT + 28, y, html_color(color),
		kind == FAINT ? 1 : 3, kind == FAINT ?
		" stroke-opacity=\".4\"" : "", dash_of(kind, set), LEFT + 36,
		y + 4);
	html_text(f, text);
	fputs("</text>\n", f);
}

static void time_chart(FILE *f, const struct tchart *c)
{
	double lo = 0, hi = 0;
	struct html_axis ax, ay;
	int rows = 0;

	for (size_t i = 0; i < c->n; i++)
		rows += c->l[i].kind == MAIN;
	rows += (c->n_sh > 0) + (c->dashed != NULL);
	for (size_t i = 0; i < c->n; i++)
		for (size_t b = 0; b < c->nb; b++)
			if (isfinite(c->l[i].v[b])) {
				lo = fmin(lo, c->l[i].v[b]);
				hi = fmax(hi, c->l[i].v[b]);
			}
	html_axis_fit(&ax, 0, c->tmax, LEFT, W - RIGHT);
	html_axis_fit(&ay, lo, hi, TOP + PH, TOP);
	html_svg_begin(f, "fsplan-time", W, TOP + PH + AXIS + LEGEND * rows,
		       c->title, c->note);
	for (size_t i = 0; i < c->n_sh; i++) {
		double x0 = html_at(&ax, fmax(0, c->sh[i].from));
		double x1 = html_at(&ax, fmin(ax.hi, c->sh[i].to));

		fprintf(f, "<rect class=\"fsplan-steady\" fill=\"%s\" "
			"x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"/>\n",
			html_color(c->sh[i].color), x0, TOP,
			fmax(0, x1 - x0), PH);
	}
	axes(f, c, &ax, &ay);
	for (int pass = 0; pass < 2; pass++)	/* the faint ones under */
		for (size_t i = 0; i < c->n; i++)
			if ((c->l[i].kind == FAINT) == !pass)
				line(f, c, &c->l[i], &ax, &ay);
	rows = 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->l[i].kind == MAIN)
			legend(f, rows++, c->l[i].color, MAIN, c->l[i].set,
			       c->l[i].label);
	if (c->dashed)
		legend(f, rows++, 7, DASHED, 0, c->dashed);
	if (c->n_sh) {
		fprintf(f, "<rect class=\"fsplan-steady fsplan-swatch\" "
			"fill=\"%s\" x=\"%d\" y=\"%.1f\" width=\"28\" "
			"height=\"12\"/>\n",
			html_color(7), LEFT, TOP + PH + AXIS +
			LEGEND * (double)rows - 6);
		legend(f, rows++, 7, FAINT, 0, "shaded: the window the steady "
		       "test held over; faint: each run");
	}
	html_svg_end(f);
}

/* ---- the phase's charts ------------------------------------------------- */

/* The steady window's length the plan gave the phase (0: none), its
 * warm-up in *warmup (manifest.json's phases[]). */
static double window_of(json_t *phases, const char *phase, double *warmup)
{
	json_t *o;
	size_t i;

	*warmup = 0;
	json_array_foreach(phases, i, o) {
		const char *name = json_string_value(json_object_get(o,
								     "name"));

		if (!name || strcmp(name, phase))
			continue;
		*warmup = json_number_value(json_object_get(o, "warmup_s"));
		return json_number_value(json_object_get(
			json_object_get(o, "steady"), "window_s"));
	}
	return 0;
}

/* The last t_s of metric over runs, and whether any has a point. */
static double tmax_of(const struct overtime *o,
		      const struct res_run *const *runs, size_t n,
		      const char *metric, size_t *most)
{
	double t = 0;

	for (size_t i = 0; i < n; i++) {
		const struct seriesread_track *tr;

		tr = seriesread_track(&o->s, runs[i]->cell, metric);
		if (tr && tr->n) {
			t = fmax(t, tr->t[tr->n - 1]);
			*most = tr->n > *most ? tr->n : *most;
		}
	}
	return t;
}

/* What the charts of a phase are drawn from. */
struct draw {
	FILE *f;
	const struct overtime *o;
	const struct overtime_phase *p;
	char **label;		/* a config's: "ext4 (3 runs)" */
	double tmax;		/* the x axis: every series' last t_s */
	struct overtime_grid grid;
	double window;		/* the plan's steady window, or 0 */
	double warmup;		/* the phase's warm-up */
};

/* Room for n lines of d->nb bins; -1 out of memory. */
static int lines_new(struct tchart *c, const struct draw *d, size_t n)
{
	memset(c, 0, sizeof(*c));
	c->tmax = d->tmax;
	c->nb = d->grid.nb;
	c->g = &d->grid;
	c->l = calloc(n + 1, sizeof(*c->l));
	c->sh = calloc(n + 1, sizeof(*c->sh));
	if (!c->l || !c->sh)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!(c->l[i].v = calloc(d->grid.nb + 1, sizeof(double))))
			return -1;
	return 0;
}

static void lines_free(struct tchart *c, size_t n)
{
	for (size_t i = 0; c->l && i < n; i++)
		free(c->l[i].v);
	free(c->l);
	free(c->sh);
}

/* Group i's colour: its config's on the page, else its place. */
static size_t color_of(const struct overtime_phase *p, size_t i)
{
	int k = html_config_known(p->g[i].runs[0]->fs_label);

	return k >= 0 ? (size_t)k : i;
}

/* Which parameter set of its config group i is: 0 the first. */
static int set_of(const struct overtime_phase *p, size_t i)
{
	int k = 0;

	for (size_t j = 0; j < i; j++)
		k += !strcmp(p->g[j].runs[0]->fs_label,
			     p->g[i].runs[0]->fs_label);
	return k;
}

/* The line whose bins were just filled: its colour, kind, label. */
static void take(struct tchart *c, size_t color, enum kind kind,
		 const char *label)
{
	c->l[c->n].color = color;
	c->l[c->n].kind = kind;
	c->l[c->n++].label = label;
}

/* A steady run's window, shaded in its config's colour. */
static void shade(struct tchart *c, const struct draw *d,
		  const struct res_run *x, size_t color)
{
	const struct res_metric *m = results_metric(x, "steady");
	double v, at, w = d->window;
	size_t most = 0;

	if (!results_value(x, "steady", &v) || v == 0 ||
	    !results_value(x, "steady_at_s", &at) || !isfinite(at))
		return;
	/* no rule: the test's window is the last half after the warm-up */
	if (!(w > 0))
		w = (tmax_of(d->o, &x, 1, m->unit, &most) - d->warmup) / 2;
	c->sh[c->n_sh++] = (struct tshade){ at - w, at, color };
}

static int key_chart(const struct draw *d)
{
	const struct overtime_phase *p = d->p;
	struct strbuf title = { 0 }, yt = { 0 };
	struct tchart c;
	size_t n = 0;
	int rc = -1;

	for (size_t i = 0; i < p->n; i++)
		n += 1 + (p->g[i].n > 1 ? p->g[i].n : 0);
	if (lines_new(&c, d, n))
		goto out;
	for (size_t i = 0; i < p->n; i++) {
		const struct overtime_group *g = &p->g[i];

		for (size_t j = 0; g->n > 1 && j < g->n; j++) {
			overtime_bins(d->o, &g->runs[j], 1, p->key, &d->grid,
				      c.l[c.n].v);
			take(&c, color_of(p, i), FAINT, g->runs[j]->cell);
		}
		for (size_t j = 0; j < g->n; j++)
			shade(&c, d, g->runs[j], color_of(p, i));
		overtime_bins(d->o, g->runs, g->n, p->key, &d->grid,
			      c.l[c.n].v);
		c.l[c.n].set = set_of(p, i);
		take(&c, color_of(p, i), MAIN, d->label[i]);
	}
	strbuf_printf(&title, "%s over time, a line per config (the runs' "
		      "mean)", p->key);
	strbuf_printf(&yt, "%s%s%s%s", p->key, *p->unit ? " (" : "", p->unit,
		      *p->unit ? ")" : "");
	if (title.oom || yt.oom)
		goto out;
	c.title = title.p;
	c.ytitle = yt.p;
	time_chart(d->f, &c);
	rc = 0;
out:
	lines_free(&c, n);
	free(title.p);
	free(yt.p);
	return rc;
}

/* The machine's pair of series (solid, dashed) per config, if any has a
 * point: the device's MiB/s, or memory's MiB. */
static int machine_chart(const struct draw *d, const char *const *metric,
			 const char *title, const char *ytitle)
{
	const struct overtime_phase *p = d->p;
	char dashed[128];
	struct tchart c;
	size_t most = 0;
	int rc = -1;

	for (size_t i = 0; i < p->n; i++)
		for (int k = 0; k < 2; k++)
			tmax_of(d->o, p->g[i].runs, p->g[i].n, metric[k],
				&most);
	if (!most)
		return 0;
	if (lines_new(&c, d, 2 * p->n))
		goto out;
	for (size_t i = 0; i < p->n; i++)
		for (int k = 0; k < 2; k++) {
			overtime_bins(d->o, p->g[i].runs, p->g[i].n, metric[k],
				      &d->grid, c.l[c.n].v);
			take(&c, color_of(p, i), k ? DASHED : MAIN,
			     d->label[i]);
		}
	snprintf(dashed, sizeof(dashed), "solid: %s, dashed: %s", metric[0],
		 metric[1]);
	c.title = title;
	c.ytitle = ytitle;
	c.dashed = dashed;
	time_chart(d->f, &c);
	rc = 0;
out:
	lines_free(&c, 2 * p->n);
	return rc;
}

/* The x axis: every series of the phase to its end; a bin per interval
 * up to MAX_BINS. */
static void x_axis(struct draw *d, const struct res_run *const *runs,
		   size_t n)
{
	size_t most = 0;

	d->tmax = tmax_of(d->o, runs, n, d->p->key, &most);
	for (int k = 0; k < 4; k++)
		d->tmax = fmax(d->tmax, tmax_of(d->o, runs, n,
						overtime_machine[k], &most));
	overtime_grid(&d->grid, d->p->step, most ? d->tmax : 0, MAX_BINS);
}

static int charts(struct draw *d, const struct res_run *const *runs,
		  size_t n)
{
	const struct overtime_phase *p = d->p;
	int rc = -1;

	if (!(d->label = calloc(p->n + 1, sizeof(*d->label))))
		return -1;
	for (size_t i = 0; i < p->n; i++) {
		struct strbuf b = { 0 };
		const struct res_run *x = p->g[i].runs[0];

		strbuf_printf(&b, "%s%s%s (%zu run%s)", x->fs_label,
			      *x->params ? " " : "", x->params, p->g[i].n,
			      p->g[i].n == 1 ? "" : "s");
		if (!(d->label[i] = b.p))
			goto out;
	}
	x_axis(d, runs, n);
	if (!d->grid.nb) {
		fputs("<p class=\"note\">no points of these runs in "
		      "timeseries.csv: no chart over time</p>\n", d->f);
		rc = 0;
	} else if (!key_chart(d) &&
		   !machine_chart(d, overtime_machine, "the device under it",
				  "device (MiB/s)") &&
		   !machine_chart(d, overtime_machine + 2, "dirty and "
				  "writeback pages", "memory (MiB)")) {
		rc = 0;
	}
out:
	for (size_t i = 0; i < p->n; i++)
		free(d->label[i]);
	free(d->label);
	return rc;
}

int htmltime_phase(FILE *f, const struct overtime *o,
		   const struct res_run *const *runs, size_t n,
		   json_t *phases, const char *phase)
{
	struct overtime_view v;
	struct draw d = { f, o, &v.p, NULL, 0, { 0, 0, 0 }, 0, 0 };
	int rc = overtime_view(&v, o, runs, n);

	if (rc <= 0)
		return rc;
	d.window = window_of(phases, phase, &d.warmup);
	fputs("<h3>", f);
	html_text(f, v.title);
	fputs("</h3>\n", f);
	table_html(f, &v.t);
	if (v.t.note) {
		fputs("<p class=\"note\">", f);
		html_text(f, v.t.note);
		fputs("</p>\n", f);
	}
	rc = o->have ? charts(&d, runs, n) : 0;
	overtime_view_free(&v);
	return rc;
}
