/* htmlscale: a phase's key metrics against each numeric parameter axis. */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/htmlscale.h"
#include "util/strbuf.h"
#include "util/units.h"

enum { LINES = 32, POINTS = 64, METRICS = 8, KEYS = 16 };

/* A numeric axis of the phase's parameters. */
struct axis {
	char key[64];
	int size;		/* its values are sizes ("4k"): bytes */
	double lo, hi;
};

/* params' value of key as a number (a size in bytes when *size may be
 * set): 1, or 0 absent or not a number. */
static int number_of(const char *params, const char *key, double *v,
		     int *size)
{
	char buf[128];
	const char *s = results_param(params, key, buf, sizeof(buf));
	uint64_t b;

	if (!s || !*s)
		return 0;
	if (!units_decimal(s, strlen(s), v))
		return 1;
	if (units_size(s, &b))
		return 0;
	*v = (double)b;
	*size = 1;
	return 1;
}

/* The keys of the runs' parameters whose every value is a number and
 * which take at least two: up to KEYS. */
static size_t axes_of(const struct res_run *const *runs, size_t n,
		      struct axis *ax)
{
	size_t na = 0;
	const char *p = n ? runs[0]->params : "";

	while (*p && na < KEYS) {
		size_t len = strcspn(p, "=;");
		int ok = len < sizeof(ax->key) && p[len] == '=';
		struct axis a = { { 0 }, 0, INFINITY, -INFINITY };

		if (ok)
			memcpy(a.key, p, len);
		for (size_t i = 0; ok && i < n; i++) {
			double v;

			ok = number_of(runs[i]->params, a.key, &v, &a.size);
			a.lo = fmin(a.lo, v);
			a.hi = fmax(a.hi, v);
		}
		if (ok && a.hi > a.lo)
			ax[na++] = a;
		p += strcspn(p, ";");
		p += *p == ';';
	}
	return na;
}

/* params without key: the other parameters, which a chart holds. */
static void rest_of(const char *params, const char *key, struct strbuf *out)
{
	size_t klen = strlen(key);

	out->len = 0;
	strbuf_str(out, "");
	for (const char *p = params; *p;) {
		size_t len = strcspn(p, ";");

		if (!(len > klen && !strncmp(p, key, klen) && p[klen] == '='))
			strbuf_printf(out, "%s%.*s", out->len ? " " : "",
				      (int)len, p);
		p += len;
		p += *p == ';';
	}
}

/* The lines of one chart: a config's means at each value of the axis. */
struct scale {
	struct html_series s[LINES];
	double x[LINES][POINTS], y[LINES][POINTS];
	int count[LINES][POINTS];
	size_t n;
};

static void add(struct scale *c, const char *config, double x, double y)
{
	size_t i, j;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->s[i].label, config))
			break;
	if (i == LINES)
		return;
	if (i == c->n)
		c->s[c->n++] = (struct html_series){ config, c->x[i], c->y[i],
						     0 };
	for (j = 0; j < c->s[i].n && c->x[i][j] < x; j++)
		;
	if (j < c->s[i].n && c->x[i][j] == x) {
		c->y[i][j] += y;
		c->count[i][j]++;
		return;
	}
	if (c->s[i].n == POINTS)
		return;
	memmove(&c->x[i][j + 1], &c->x[i][j], (c->s[i].n - j) * sizeof(double));
	memmove(&c->y[i][j + 1], &c->y[i][j], (c->s[i].n - j) * sizeof(double));
	memmove(&c->count[i][j + 1], &c->count[i][j],
		(c->s[i].n - j) * sizeof(int));
	c->x[i][j] = x;
	c->y[i][j] = y;
	c->count[i][j] = 1;
	c->s[i].n++;
}

/* One chart: metric against a, the other parameters as rest. */
static int chart(FILE *f, const struct res_run *const *runs, size_t n,
		 const struct axis *a, const char *metric, const char *rest,
		 struct scale *c)
{
	struct strbuf r = { 0 }, title = { 0 }, yt = { 0 };
	const char *unit = "";
	int most = 0, size = 0;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < n; i++) {
		const struct res_metric *m = results_measured(runs[i], metric);
		double x;

		rest_of(runs[i]->params, a->key, &r);
		if (!m || r.oom || strcmp(r.p, rest) ||
		    !number_of(runs[i]->params, a->key, &x, &size))
			continue;
		add(c, runs[i]->fs_label, x, m->v);
		unit = m->unit ? m->unit : "";
	}
	for (size_t i = 0; i < c->n; i++)
		for (size_t j = 0; j < c->s[i].n; j++) {
			c->y[i][j] /= c->count[i][j];
			most = (int)c->s[i].n > most ? (int)c->s[i].n : most;
		}
	strbuf_printf(&title, "%s against %s%s%s, a line per config (the "
		      "runs' mean)", metric, a->key, *rest ? ", for " : "",
		      rest);
	strbuf_printf(&yt, "%s%s%s%s", metric, *unit ? " (" : "", unit,
		      *unit ? ")" : "");
	if (!r.oom && !title.oom && !yt.oom && most >= 2)
		html_lines_chart(f, &(struct html_lines){ .cls =
				 "fsplan-scale", .title = title.p,
				 .xtitle = a->key, .ytitle = yt.p, .s = c->s,
				 .n = c->n, .marks = 1, .logx = a->size &&
				 a->hi / fmax(a->lo, 1) >= 8,
				 .xfmt = a->size ? html_fmt_bytes : NULL });
	free(r.p);
	free(title.p);
	free(yt.p);
	return r.oom || title.oom || yt.oom ? -1 : 0;
}

/* The distinct names of the runs' metrics that match globs, in the
 * order first met; how many, up to METRICS. */
static size_t metrics_of(const struct res_run *const *runs, size_t n,
			 const char *const *globs, const char **out)
{
	size_t k = 0;

	for (size_t g = 0; globs[g]; g++)
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < runs[i]->n_m; j++) {
				const char *name = runs[i]->m[j].name;
				size_t d;

				if (fnmatch(globs[g], name, 0))
					continue;
				for (d = 0; d < k && strcmp(out[d], name); d++)
					;
				if (d == k && k < METRICS)
					out[k++] = name;
			}
	return k;
}

int htmlscale_phase(FILE *f, const struct res_run *const *runs, size_t n,
		    const char *const *globs)
{
	struct axis ax[KEYS];
	const char *metric[METRICS];
	size_t na = axes_of(runs, n, ax), nm;
	struct scale *c;
	struct strbuf r = { 0 };
	int rc = 0;

	if (!na)
		return 0;
	nm = metrics_of(runs, n, globs, metric);
	if (!(c = malloc(sizeof(*c))))
		return -1;
	for (size_t a = 0; !rc && a < na; a++)
		for (size_t i = 0; !rc && i < n; i++) {
			size_t j;

			rest_of(runs[i]->params, ax[a].key, &r);
			/* each set of the other parameters once */
			for (j = 0; j < i; j++) {
				struct strbuf q = { 0 };
				int same;

				rest_of(runs[j]->params, ax[a].key, &q);
				same = !q.oom && !strcmp(q.p, r.p);
				free(q.p);
				if (same)
					break;
			}
			for (size_t k = 0; j == i && !r.oom && k < nm && !rc;
			     k++)
				rc = chart(f, runs, n, &ax[a], metric[k], r.p,
					   c);
			rc |= r.oom ? -1 : 0;
		}
	free(r.p);
	free(c);
	return rc;
}
