/* series: a phase run's time series, its wire line and the steady test. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/series.h"

int series_add(struct series *s, double t_s, const char *metric, double v,
	       const char *unit)
{
	struct series_pt *p;
	size_t ml = strlen(metric), ul = unit ? strlen(unit) : 0;

	if (!metrics_metric_name_ok(metric, ml) || !isfinite(t_s) ||
	    !isfinite(v) || (ul && !metrics_unit_ok(unit, ul)) ||
	    ul >= sizeof(p->unit))
		return -EINVAL;
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 64;

		p = realloc(s->p, (size_t)cap * sizeof(*p));
		if (!p)
			return -1;
		s->p = p;
		s->cap = cap;
	}
	p = &s->p[s->n++];
	p->t_s = t_s;
	p->value = v;
	memcpy(p->metric, metric, ml + 1);
	memcpy(p->unit, unit ? unit : "", ul + 1);
	return 0;
}

int series_join(struct series *dst, const struct series *src)
{
	for (int i = 0; i < src->n; i++) {
		const struct series_pt *p = &src->p[i];

		if (series_add(dst, p->t_s, p->metric, p->value, p->unit) == -1)
			return -1;
	}
	return 0;
}

void series_free(struct series *s)
{
	free(s->p);
	memset(s, 0, sizeof(*s));
}

/* Points are appended interval by interval, each metric's in time
 * order, but a metric's points may sit between others': a stable
 * insertion keeps a late point (a parser's) in its place. */
int series_of(const struct series *s, const char *metric, double **t,
	      double **v, int *n)
{
	int k = 0;

	*t = *v = NULL;
	*n = 0;
	for (int i = 0; i < s->n; i++)
		k += !strcmp(s->p[i].metric, metric);
	if (!k)
		return 0;
	*t = malloc((size_t)k * sizeof(**t));
	*v = malloc((size_t)k * sizeof(**v));
	if (!*t || !*v) {
		free(*t);
		free(*v);
		*t = *v = NULL;
		return -1;
	}
	for (int i = 0; i < s->n; i++) {
		int j;

		if (strcmp(s->p[i].metric, metric))
			continue;
		for (j = *n; j > 0 && (*t)[j - 1] > s->p[i].t_s; j--) {
			(*t)[j] = (*t)[j - 1];
			(*v)[j] = (*v)[j - 1];
		}
		(*t)[j] = s->p[i].t_s;
		(*v)[j] = s->p[i].value;
		(*n)++;
	}
	return 0;
}

int series_encode(struct strbuf *out, double t_s, const char *metric,
		  double v, const char *unit)
{
	size_t ul = unit ? strlen(unit) : 0;

	if (!metrics_metric_name_ok(metric, strlen(metric)) ||
	    !isfinite(t_s) || !isfinite(v) ||
	    (ul && (!metrics_unit_ok(unit, ul) || ul >= 32)))
		return -EINVAL;
	return strbuf_printf(out, "T %.6f %s %.17g%s%s\n", t_s, metric, v,
			     ul ? " " : "", ul ? unit : "") ? -1 : 0;
}

/* One T line's fields (line has no newline): 0, or -1 malformed. */
static int decode_line(struct series *s, const char *line, size_t len)
{
	char buf[256], metric[METRICS_METRIC_LEN + 2], unit[40];
	double t, v;
	int used = 0, tend = 0, vend = 0, n;

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, line, len);
	buf[len] = '\0';
	unit[0] = '\0';
	n = sscanf(buf, "T %lf%n %64s %lf%n %39s%n", &t, &tend, metric, &v,
		   &vend, unit, &used);
	if (n == 3)
		used = vend;
	/* each number ends at a space: "1x" is no number and a name */
	if (n < 3 || (size_t)used != len || buf[tend] != ' ' ||
	    (buf[vend] && buf[vend] != ' '))
		return -1;
	return series_add(s, t, metric, v, unit) ? -1 : 0;
}

int series_decode(struct series *s, const char *text, size_t len)
{
	size_t at = 0;

	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t l = nl ? (size_t)(nl - text) - at : len - at;

		if (l >= 2 && text[at] == 'T' && text[at + 1] == ' ' &&
		    decode_line(s, text + at, l))
			return -1;
		at += l + 1;
	}
	return 0;
}

/* Where point i's interval began: the one before it ended there, the
 * first began at the timed start. */
static double begun(const double *t, int i)
{
	return i > 0 ? t[i - 1] : 0;
}

/* The figures of the window v[a..b] (t for the slope). */
static void window_figures(const double *t, const double *v, int a, int b,
			   double window_s, struct steady_out *o)
{
	double lo = v[a], hi = v[a], st = 0, sv = 0, stt = 0, stv = 0;
	double k = b - a + 1, den;

	for (int i = a; i <= b; i++) {
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
		st += t[i];
		sv += v[i];
		stt += t[i] * t[i];
		stv += t[i] * v[i];
	}
	o->from_s = begun(t, a);
	o->to_s = t[b];
	o->mean = sv / k;
	o->range_pct = o->mean != 0 ? (hi - lo) / fabs(o->mean) * 100 : 0;
	o->slope_pct = 0;
	den = k * stt - st * st;
	if (k > 1 && den > 0 && o->mean != 0)
		o->slope_pct = (k * stv - st * sv) / den * window_s /
			       fabs(o->mean) * 100;
}

int steady_test(const double *t, const double *v, int n,
		const struct steady_rule *rule, double warmup_s,
		struct steady_out *o)
{
	const double eps = 1e-6;
	int a = 0, tested = 0;

	memset(o, 0, sizeof(*o));
	o->at_s = -1;
	while (a < n && t[a] <= warmup_s + eps)
		a++;
	if (a >= n)
		return -1;
	for (int b = a + 1; b < n; b++) {
		int s = b;

		while (s > a && begun(t, s) > t[b] - rule->window_s + eps)
			s--;
		if (begun(t, s) > t[b] - rule->window_s + eps)
			continue;	/* not a whole window yet */
		tested = 1;
		window_figures(t, v, s, b, rule->window_s, o);
		if (o->mean > 0 && o->range_pct <= rule->range * 100 + eps &&
		    fabs(o->slope_pct) <= rule->slope * 100 + eps) {
			o->steady = 1;
			o->at_s = t[b];
			return 0;
		}
	}
	if (tested)
		return 0;
	window_figures(t, v, a, n - 1, rule->window_s, o);
	return -1;
}
