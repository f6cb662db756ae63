/* metrics_wire: what the phase child reports: its metrics or its failure. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/metrics.h"
#include "util/units.h"

#define MAX_NAMES	4096	/* per kind (op, counter, report) in a report */
#define TOKEN_MAX	40	/* longer than any number we print */
#define DBL_CHARS	24	/* "%.17g" of any finite double */

/* ---- wire format: encoding ---------------------------------------------- */

struct out {
	char *buf;
	size_t cap, len;
	int bad;		/* our size bound was wrong */
};

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->cap - o->len)
		o->bad = 1;
	else
		o->len += (size_t)n;
}

/* An upper bound of m's and rep's text, or 0 if they hold what the
 * format cannot carry. */
static size_t bound(const struct metrics *m, const struct metric_row *rep,
		    int n_rep)
{
	size_t cap = sizeof("M seconds \nM written \nEND\n") + DBL_CHARS + 21;
	int i;

	if (!isfinite(m->seconds) || m->seconds < 0)
		return 0;
	for (i = 0; i < m->n_ops; i++) {
		const struct op_stat *s = &m->ops[i];

		if (!metrics_name_ok(s->name, strnlen(s->name, sizeof(s->name))))
			return 0;
		cap += 2 * (2 + METRICS_NAME_LEN + 1) + 7 * 21;
		for (unsigned int k = 0; s->lat.b && k < HIST_BUCKETS; k++)
			if (s->lat.b[k])
				cap += sizeof(" 2751:4294967295") - 1;
	}
	for (i = 0; i < m->n_counters; i++) {
		const struct counter *c = &m->counters[i];

		if (!metrics_name_ok(c->name, strnlen(c->name, sizeof(c->name))) ||
		    !isfinite(c->value))
			return 0;
		cap += 2 + METRICS_NAME_LEN + 1 + DBL_CHARS + 1;
	}
	for (i = 0; i < n_rep; i++) {
		const char *unit = rep[i].unit ? rep[i].unit : "";

		if (!metrics_metric_name_ok(rep[i].name, strnlen(rep[i].name,
				sizeof(rep[i].name))) || !isfinite(rep[i].value) ||
		    (*unit && !metrics_unit_ok(unit, strlen(unit))))
			return 0;
		cap += 2 + METRICS_METRIC_LEN + 1 + DBL_CHARS + 1 + 32 + 1;
	}
	return cap;
}

/* Doubles as %.17g, so they read back bit for bit. */
char *metrics_encode(const struct metrics *m, const struct metric_row *rep,
		     int n_rep, size_t *len)
{
	struct out o = { .cap = bound(m, rep, n_rep) };
	unsigned int k;
	int i;

	if (!o.cap) {
		errno = EINVAL;
		return NULL;
	}
	o.buf = malloc(o.cap);
	if (!o.buf) {
		errno = ENOMEM;
		return NULL;
	}

	put(&o, "M seconds %.17g\n", m->seconds);
	if (m->written)
		put(&o, "M written %llu\n", (unsigned long long)m->written);
	for (i = 0; i < m->n_ops; i++) {
		const struct op_stat *s = &m->ops[i];
		const struct hist *h = &s->lat;

		if (s->ring || s->sys)
			put(&o, "O %s %llu %llu %llu\n", s->name,
			    (unsigned long long)s->bytes,
			    (unsigned long long)s->ring,
			    (unsigned long long)s->sys);
		else
			put(&o, "O %s %llu\n", s->name,
			    (unsigned long long)s->bytes);
		put(&o, "H %s %llu %llu %llu %llu", s->name,
		    (unsigned long long)h->count, (unsigned long long)h->sum,
		    (unsigned long long)h->min, (unsigned long long)h->max);
		for (k = 0; h->b && k < HIST_BUCKETS; k++)
			if (h->b[k])
				put(&o, " %u:%lu", k, (unsigned long)h->b[k]);
		put(&o, "\n");
	}
	for (i = 0; i < m->n_counters; i++)
		put(&o, "C %s %.17g\n", m->counters[i].name,
		    m->counters[i].value);
	for (i = 0; i < n_rep; i++) {
		const char *unit = rep[i].unit ? rep[i].unit : "";

		put(&o, "R %s %.17g%s%s\n", rep[i].name, rep[i].value,
		    *unit ? " " : "", unit);
	}
	put(&o, "END\n");
	if (o.bad) {
		free(o.buf);
		errno = EOVERFLOW;
		return NULL;
	}
	*len = o.len;
	return o.buf;
}

/* ---- wire format: decoding ---------------------------------------------- */

/*
 * The child runs the phase's Lua as nobody and may be anything by the
 * time it writes: every field is checked, nothing in m changes unless the
 * whole text is good, and the report() values are passed on only then.
 */
/* An R line: a report() value, named by the metric-name rule. */
struct rep_value {
	char name[METRICS_METRIC_LEN + 1];
	double value;
	char unit[32];
};

struct decoder {
	struct metrics m;
	struct rep_value *rep;		/* R lines, delivered at the end */
	int n_rep;
	int have_seconds, have_written;
	unsigned char h_seen[MAX_NAMES];	/* per op: its H line came */
};

/* One line, without its newline, split at single spaces. */
struct line {
	const char *p, *end;
};

/* 1 and the next token, 0 at the end of the line, -1 for an empty token
 * (two spaces in a row, a leading or a trailing space). */
static int token(struct line *l, const char **t, size_t *n)
{
	const char *s = l->p, *e;

	if (s == l->end)
		return 0;
	e = memchr(s, ' ', (size_t)(l->end - s));
	if (!e)
		e = l->end;
	if (e == s)
		return -1;
	*t = s;
	*n = (size_t)(e - s);
	l->p = e;
	if (e != l->end && ++l->p == l->end)
		return -1;
	return 1;
}

static int is_word(const char *t, size_t n, const char *w)
{
	return n == strlen(w) && !memcmp(t, w, n);
}

/* A name that rule ok allows into out (room for what ok allows). */
static int get_named(struct line *l, char *out,
		     int (*ok)(const char *s, size_t n))
{
	const char *t;
	size_t n;

	if (token(l, &t, &n) != 1 || !ok(t, n))
		return -1;
	memcpy(out, t, n);
	out[n] = '\0';
	return 0;
}

/* An op's or counter's name (metrics_name_ok). */
static int get_name(struct line *l, char out[METRICS_NAME_LEN + 1])
{
	return get_named(l, out, metrics_name_ok);
}

/* Digits only: no sign, no space, no base prefix, no overflow. */
static int parse_u64(const char *t, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t k;

	if (!n)
		return -1;
	for (k = 0; k < n; k++) {
		unsigned int d = (unsigned char)t[k] - '0';

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static int get_u64(struct line *l, uint64_t *v)
{
	const char *t;
	size_t n;

	if (token(l, &t, &n) != 1)
		return -1;
	return parse_u64(t, n, v);
}

/* A finite decimal number: no inf, nan, hex or spaces. */
static int get_double(struct line *l, double *v)
{
	const char *t;
	size_t n;

	if (token(l, &t, &n) != 1 || n > TOKEN_MAX)
		return -1;
	return units_decimal(t, n, v);
}

static int at_end(struct line *l)
{
	return l->p == l->end ? 0 : -1;
}

/* "<index>:<n>", index in range, 1 <= n <= UINT32_MAX. */
static int parse_bucket(const char *t, size_t n, unsigned int *i,
			uint32_t *c)
{
	const char *colon = memchr(t, ':', n);
	uint64_t a, b;

	if (!colon || parse_u64(t, (size_t)(colon - t), &a) ||
	    parse_u64(colon + 1, n - (size_t)(colon - t) - 1, &b) ||
	    a >= HIST_BUCKETS || !b || b > UINT32_MAX)
		return -1;
	*i = (unsigned int)a;
	*c = (uint32_t)b;
	return 0;
}

/*
 * min, max and sum must be what count values from those buckets could
 * give: min in the first bucket, max in the last, min + max + (count - 2)
 * values in [min, max] summing to sum.
 */
static int hist_consistent(const struct hist *h, unsigned int first,
			   unsigned int last)
{
	uint64_t rest, k;

	if (!h->count)
		return !h->sum && !h->min && !h->max ? 0 : -1;
	if (h->min > h->max || hist_index(h->min) != first ||
	    hist_index(h->max) != last)
		return -1;
	if (h->count == 1)
		return h->min == h->max && h->sum == h->min ? 0 : -1;
	if (h->sum < h->min || h->sum - h->min < h->max)
		return -1;
	rest = h->sum - h->min - h->max;
	k = h->count - 2;
	if (!k)
		return rest ? -1 : 0;
	if (rest / k < h->min || rest / k + (rest % k != 0) > h->max)
		return -1;
	return 0;
}

static int decode_hist(struct decoder *d, struct line *l)
{
	char name[32];
	struct op_stat *o;
	struct hist *h;
	const char *t;
	size_t n;
	uint64_t total = 0;
	unsigned int i, first = 0, last = 0;
	uint32_t c;
	int r, any = 0;

	if (get_name(l, name))
		return -1;
	o = metrics_find_op(&d->m, name);
	if (!o || d->h_seen[o - d->m.ops])
		return -1;
	d->h_seen[o - d->m.ops] = 1;
	h = &o->lat;
	if (get_u64(l, &h->count) || get_u64(l, &h->sum) ||
	    get_u64(l, &h->min) || get_u64(l, &h->max))
		return -1;
	if (h->count) {
		h->b = calloc(HIST_BUCKETS, sizeof(*h->b));
		if (!h->b)
			return -1;
	}
	while ((r = token(l, &t, &n)) == 1) {
		if (!h->b || parse_bucket(t, n, &i, &c) ||
		    (any && i <= last) || c > h->count - total)
			return -1;
		if (!any)
			first = i;
		any = 1;
		last = i;
		h->b[i] = c;
		total += c;
	}
	if (r < 0 || total != h->count)
		return -1;
	return hist_consistent(h, first, last);
}

static int decode_line(struct decoder *d, const char *p, const char *end)
{
	struct line l = { p, end };
	char name[32];
	const char *t;
	size_t n;
	uint64_t u;
	double v;

	if (token(&l, &t, &n) != 1)
		return -1;
	if (is_word(t, n, "M")) {
		if (token(&l, &t, &n) != 1)
			return -1;
		if (is_word(t, n, "written")) {
			if (!d->have_seconds || d->have_written ||
			    get_u64(&l, &u))
				return -1;
			d->have_written = 1;
			d->m.written = u;
			return at_end(&l);
		}
		if (!is_word(t, n, "seconds") ||
		    d->have_seconds || get_double(&l, &v) || v < 0)
			return -1;
		d->have_seconds = 1;
		d->m.seconds = v;
	} else if (is_word(t, n, "O")) {
		struct op_stat *o;

		if (get_name(&l, name) || get_u64(&l, &u) ||
		    metrics_find_op(&d->m, name) || d->m.n_ops >= MAX_NAMES)
			return -1;
		o = metrics_op(&d->m, name);
		if (!o)
			return -1;
		o->bytes = u;
		if (l.p != l.end &&
		    (get_u64(&l, &o->ring) || get_u64(&l, &o->sys)))
			return -1;
	} else if (is_word(t, n, "H")) {
		if (decode_hist(d, &l))
			return -1;
	} else if (is_word(t, n, "C")) {
		if (get_name(&l, name) || get_double(&l, &v) ||
		    metrics_find_counter(&d->m, name) ||
		    d->m.n_counters >= MAX_NAMES ||
		    metrics_count(&d->m, name, v))
			return -1;
	} else if (is_word(t, n, "R")) {
		char metric[METRICS_METRIC_LEN + 1];
		struct rep_value *c;

		if (get_named(&l, metric, metrics_metric_name_ok) || get_double(&l, &v) ||
		    d->n_rep >= MAX_NAMES)
			return -1;
		c = metrics_grow(d->rep, d->n_rep, sizeof(*d->rep));
		if (!c)
			return -1;
		d->rep = c;
		c = &d->rep[d->n_rep++];
		memcpy(c->name, metric, sizeof(c->name));
		c->value = v;
		c->unit[0] = '\0';
		if (l.p != l.end && get_named(&l, c->unit, metrics_unit_ok))
			return -1;
	} else {
		return -1;
	}
	return at_end(&l);
}

/* The decoded metrics are moved into m when m is empty (the usual case),
 * else merged into it; only a failed merge (out of memory) can leave m
 * changed when -1 is returned. */
int metrics_decode(struct metrics *m, const char *text, size_t len,
		   void (*report)(void *ctx, const char *name, double v,
				  const char *unit),
		   void *ctx)
{
	struct decoder *d;
	const char *p = text, *end, *nl, *le;
	int ended = 0, ret = -1, i;

	if (!text || !len || memchr(text, '\0', len))
		return -1;
	end = text + len;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -1;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		le = nl ? nl : end;
		if (is_word(p, (size_t)(le - p), "END")) {
			ended = 1;
			p = nl ? nl + 1 : end;
			break;
		}
		/* no newline: torn; a series point's line: series_decode's */
		if (!nl || (!(le - p >= 2 && !memcmp(p, "T ", 2)) &&
			    decode_line(d, p, le)))
			goto out;
		p = nl + 1;
	}
	if (!ended || p != end)
		goto out;
	if (!m->ops && !m->counters) {
		if (d->m.seconds < m->seconds)
			d->m.seconds = m->seconds;
		*m = d->m;
		memset(&d->m, 0, sizeof(d->m));
	} else if (metrics_merge(m, &d->m)) {
		goto out;
	}
	for (i = 0; report && i < d->n_rep; i++)
		report(ctx, d->rep[i].name, d->rep[i].value, d->rep[i].unit);
	ret = 0;
out:
	metrics_free(&d->m);
	free(d->rep);
	free(d);
	return ret;
}

/* ---- wire format: a failure --------------------------------------------- */

char *metrics_diag_encode(const struct diag *d, size_t *len)
{
	struct strbuf b = { 0 };
	size_t nf = strnlen(d->file, sizeof(d->file));
	size_t nm = strnlen(d->msg, sizeof(d->msg));
	size_t ns = strnlen(d->srcline, sizeof(d->srcline));
	size_t nd = d->detail.p ? d->detail.len : 0;

	strbuf_printf(&b, "E %s %d %d %d %zu %zu %zu %zu\n",
		      diag_kind_name(d->kind), d->err > 0 ? d->err : 0,
		      d->pos.line > 0 ? d->pos.line : 0,
		      d->pos.col > 0 ? d->pos.col : 0, nf, nm, ns, nd);
	strbuf_add(&b, d->file, nf);
	strbuf_add(&b, d->msg, nm);
	strbuf_add(&b, d->srcline, ns);
	if (nd)
		strbuf_add(&b, d->detail.p, nd);
	strbuf_add(&b, "\n", 1);
	if (b.oom) {
		free(b.p);
		errno = ENOMEM;
		return NULL;
	}
	*len = b.len;
	return b.p;
}

int metrics_diag_send(int fd, const struct diag *d)
{
	static const char oom[] = "E system 12 0 0 0 13 0 0\nout of memory\n";
	size_t len = sizeof(oom) - 1, done = 0;
	char *text = metrics_diag_encode(d, &len);	/* len only if made */
	const char *p = text ? text : oom;
	ssize_t n;

	while (done < len) {
		n = write(fd, p + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	free(text);
	return done == len ? 0 : -1;
}

/* A header's number: digits, at most max. */
static int get_bounded(struct line *l, uint64_t max, uint64_t *v)
{
	return get_u64(l, v) || *v > max ? -1 : 0;
}

/* The header after "E ", and its payload from body (up to end). */
static int decode_diag(struct line *l, const char *body, const char *end,
		       struct diag *d)
{
	uint64_t err, line, col, nf, nm, ns, nd;
	const char *t;
	size_t n;
	int k;

	if (token(l, &t, &n) != 1)
		return -1;
	for (k = DIAG_INPUT; k <= DIAG_LIMIT; k++)
		if (is_word(t, n, diag_kind_name(k)))
			break;
	if (k > DIAG_LIMIT || get_bounded(l, 4095, &err) ||
	    get_bounded(l, INT_MAX, &line) || get_bounded(l, INT_MAX, &col) ||
	    get_bounded(l, sizeof(d->file) - 1, &nf) ||
	    get_bounded(l, sizeof(d->msg) - 1, &nm) ||
	    get_bounded(l, sizeof(d->srcline) - 1, &ns) ||
	    get_bounded(l, (uint64_t)(end - body), &nd) || at_end(l) ||
	    nf + nm + ns + nd + 1 > (uint64_t)(end - body) ||
	    body[nf + nm + ns + nd] != '\n')
		return -1;
	d->kind = (enum diag_kind)k;
	d->err = (int)err;
	d->pos = (struct pos){ (int)line, (int)col };
	memcpy(d->file, body, nf);
	d->file[nf] = '\0';
	memcpy(d->msg, body + nf, nm);
	d->msg[nm] = '\0';
	memcpy(d->srcline, body + nf + nm, ns);
	d->srcline[ns] = '\0';
	memset(&d->detail, 0, sizeof(d->detail));
	if (nd && strbuf_add(&d->detail, body + nf + nm + ns, nd))
		return -1;
	return 0;
}

int metrics_diag_decode(const char *text, size_t len, struct diag *d)
{
	const char *p = text, *end, *nl;

	if (!text)
		return 0;
	end = memchr(text, '\0', len);
	if (!end)
		end = text + len;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return 0;	/* torn: no record ends here */
		if (nl - p >= 2 && p[0] == 'E' && p[1] == ' ') {
			struct line l = { p + 2, nl };

			if (!decode_diag(&l, nl + 1, end, d))
				return 1;
			diag_release(d);
			return -1;
		}
		p = nl + 1;
	}
	return 0;
}

int metrics_diag_reason(const struct diag *d, struct strbuf *out)
{
	const char *msg = d->detail.len ? d->detail.p : d->msg;

	if (d->pos.line > 0)
		strbuf_printf(out, "%s:%d:%d: ", d->file, d->pos.line,
			      d->pos.col);
	else if (d->file[0])
		strbuf_printf(out, "%s: ", d->file);
	strbuf_add(out, msg, strcspn(msg, "\n"));
	return out->oom ? -1 : 0;
}
