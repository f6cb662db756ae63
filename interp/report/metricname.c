/* metricname: what a table calls a metric — its name as words, its unit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/metricname.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/*
 * The unit a metric name's suffix means, as the studies print it; the
 * suffix leaves the label unless keep. A unit column that says more
 * (MiB/s, KiB/s; ops/s but for a _per_s name) wins over the suffix.
 * Longer suffixes first.
 */
static const struct { const char *suffix, *unit; int keep; } suffix_unit[] = {
	{ "_per_sec", "/s", 0 }, { "_per_s", "/s", 0 }, { "seconds", "s", 1 },
	{ "_bytes", "bytes", 0 }, { "_mibs", "MiB/s", 0 },
	{ "_iops", "IO/s", 0 }, { "_mbs", "MB/s", 0 }, { "_pct", "%", 0 },
	{ "_cpu", "%", 1 }, { "_mib", "MiB", 0 }, { "_kib", "KiB", 0 },
	{ "_ms", "ms", 0 },
	{ "_us", "us", 0 }, { "_s", "s", 0 }, { NULL, NULL, 0 },
};

/* Words of metric names, spelled out for a reader. */
static const char *const word[][2] = {
	{ "lat", "latency" }, { "avg", "average" }, { "bw", "bandwidth" },
	{ "cpu", "CPU" }, { "amp", "amplification" }, { NULL, NULL },
};

/* A word of a name as a reader says it. */
static const char *spelled(const char *w)
{
	for (int j = 0; word[j][0]; j++)
		if (!strcmp(w, word[j][0]))
			return word[j][1];
	return w;
}

/* avg, max, min, mean, p50, p999: what a latency figure is of. */
static int is_stat(const char *w)
{
	if (!strcmp(w, "avg") || !strcmp(w, "max") || !strcmp(w, "min") ||
	    !strcmp(w, "mean"))
		return 1;
	return w[0] == 'p' && w[1] && strspn(w + 1, "0123456789") ==
	       strlen(w + 1);
}

int metricname_digits(double top)
{
	int d;

	if (top == 0)
		return 0;
	d = 3 - (int)floor(log10(top));
	return d < 0 ? 0 : d > 6 ? 6 : d;
}

/* The suffix of name that says its unit (an index of suffix_unit), and
 * the unit the table says in u: the unit column's, unless the suffix
 * says more. */
static int unit_of(const char *name, const char *unit, struct strbuf *u)
{
	size_t n = strlen(name);
	int i;

	strbuf_str(u, unit ? unit : "");
	for (i = 0; suffix_unit[i].suffix; i++)
		if (ends_with(name, suffix_unit[i].suffix) &&
		    (suffix_unit[i].keep || strlen(suffix_unit[i].suffix) < n))
			break;
	if (!suffix_unit[i].suffix)
		return i;
	/* transactions_per_s in transactions/s, requests_per_s in
	 * queries/s (sysbench's word): the name says what a second
	 * counts, so it reads as the same rate without a unit does
	 * (lua/oltp.lua's); a data rate (MiB/s) says more */
	if (!u->len || (!strcmp(suffix_unit[i].unit, "/s") &&
			ends_with(u->p, "/s") && !ends_with(u->p, "B/s") &&
			!ends_with(u->p, "bytes/s"))) {
		u->len = 0;
		strbuf_str(u, suffix_unit[i].unit);
	}
	return i;
}

/* The words of the first n bytes of name into label. */
static void words_of(const char *name, size_t n, struct strbuf *label)
{
	char *base = strndup(name, n), *p, *next, *save = NULL;

	if (!base) {
		label->oom = 1;
		return;
	}
	for (p = strtok_r(base, "_", &save); p; p = next) {
		next = strtok_r(NULL, "_", &save);
		/* read_lat_p99: the read p99 latency */
		if (!strcmp(p, "lat") && next && is_stat(next)) {
			strbuf_printf(label, "%s%s latency",
				      label->len ? " " : "", spelled(next));
			next = strtok_r(NULL, "_", &save);
		} else {
			strbuf_printf(label, "%s%s", label->len ? " " : "",
				      spelled(p));
		}
	}
	free(base);
}

int metricname_of(const char *name, const char *unit, double top,
		  struct metricname *t)
{
	static const char *const bin[] = { "bytes", "KiB", "MiB", "GiB",
					   "TiB" };
	struct strbuf u = { 0 };
	size_t n = strlen(name), len, k;
	int i = unit_of(name, unit, &u), rc;

	if (suffix_unit[i].suffix && !suffix_unit[i].keep)
		n -= strlen(suffix_unit[i].suffix);
	memset(&t->label, 0, sizeof(t->label));
	words_of(name, n, &t->label);
	t->scale = 1;
	if (u.p && (!strcmp(u.p, "bytes") || !strcmp(u.p, "B"))) {
		for (i = 0; i < 4 && fabs(top) / t->scale >= 10 * 1024; i++)
			t->scale *= 1024;
		u.len = 0;
		strbuf_str(&u, bin[i]);
	}
	/* "read ops (ops)" says it twice */
	len = u.len;
	k = t->label.len;
	if (!len || (k > len && t->label.p[k - len - 1] == ' ' &&
		     !strcmp(t->label.p + k - len, u.p)))
		;
	else if (!strcmp(u.p, "/s"))
		strbuf_str(&t->label, "/s");
	else
		strbuf_printf(&t->label, " (%s)", u.p);
	if (!t->label.p)
		strbuf_str(&t->label, "");
	rc = u.oom || t->label.oom ? -1 : 0;
	free(u.p);
	if (rc)
		metricname_free(t);
	return rc;
}

void metricname_free(struct metricname *t)
{
	free(t->label.p);
	memset(&t->label, 0, sizeof(t->label));
}
