/* resset: a hand-made results.csv, loaded back, for the report modules' tests.
 */
#ifndef FSPLAN_TEST_RESSET_H
#define FSPLAN_TEST_RESSET_H

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/results.h"

#define RS_MAX_RUNS 512

static struct {
	char text[1 << 17];
	size_t len;
	char path[64];
	struct results r;
	int loaded;
	const struct res_run *run[RS_MAX_RUNS];	/* what rs_load picked */
	size_t n;
	char *out;				/* what rs_print printed */
} rs;

static inline void rs_add(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rs.len += vsnprintf(rs.text + rs.len, sizeof(rs.text) - rs.len, fmt,
			    ap);
	va_end(ap);
	cr_assert_lt(rs.len, sizeof(rs.text));
}

/* Start a results.csv: its header. */
static inline void rs_begin(void)
{
	rs.len = 0;
	rs_add("run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts,phase,"
	       "phase_params,rep,metric,value,unit\n");
}

/* One row of the phase run label/phase/params#rep (type: the label's
 * first word); the cell id is quoted since it may hold commas. Write a
 * run's rows together: results_load takes rows of a cell that come back
 * after another's for a resumed run, which replace the earlier ones. */
static inline void rs_row(const char *label, const char *phase,
			  const char *params, int rep, const char *metric,
			  const char *value, const char *unit)
{
	char type[32];

	snprintf(type, sizeof(type), "%.*s", (int)strcspn(label, ":-"),
		 label);
	rs_add("t,\"%s/%s/%s#%d\",%s,%s,-O x,noatime,%s,%s,%d,%s,%s,%s\n",
	       label, phase, params, rep, label, type, phase, params, rep,
	       metric, value, unit);
}

static inline void rs_num(const char *label, const char *phase,
			  const char *params, int rep, const char *metric,
			  double v, const char *unit)
{
	char s[64];

	snprintf(s, sizeof(s), "%.17g", v);
	rs_row(label, phase, params, rep, metric, s, unit);
}

/* A config's own row (phase ""): mkfs_s, mount_s, umount_s. */
static inline void rs_conf(const char *label, const char *metric, double v)
{
	char type[32];

	snprintf(type, sizeof(type), "%.*s", (int)strcspn(label, ":-"),
		 label);
	rs_add("t,\"%s\",%s,%s,-O x,noatime,,,0,%s,%.17g,s\n", label, label,
	       type, metric, v);
}

static inline void rs_status(const char *label, const char *phase,
		      const char *params, int rep, const char *status)
{
	rs_row(label, phase, params, rep, "status", status,
	       strcmp(status, "ok") ? "exit status 1" : "");
}

static inline void rs_free(void)
{
	if (rs.loaded)
		results_free(&rs.r);
	rs.loaded = 0;
	if (rs.path[0])
		unlink(rs.path);
	rs.path[0] = '\0';
	free(rs.out);
	rs.out = NULL;
}

/*
 * Write the text to a temp file and read it back with results_load; pick
 * the ok runs of phase (as report does), or with phase NULL every run.
 */
static inline void rs_load(const char *phase)
{
	struct diag d = { 0 };
	int fd;

	rs_free();
	snprintf(rs.path, sizeof(rs.path), "/tmp/fsplan-resset-XXXXXX");
	fd = mkstemp(rs.path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, rs.text, rs.len), (ssize_t)rs.len);
	close(fd);
	cr_assert_eq(results_load(&rs.r, rs.path, &d), 0, "%s", d.msg);
	rs.loaded = 1;
	rs.n = 0;
	for (size_t i = 0; i < rs.r.n_runs; i++) {
		const struct res_run *x = &rs.r.runs[i];

		if (phase && (x->status != RES_OK || strcmp(x->phase, phase)))
			continue;
		cr_assert_lt(rs.n, RS_MAX_RUNS);
		rs.run[rs.n++] = x;
	}
}

/* Open a stream that rs_done turns into rs.out. */
static inline FILE *rs_stream(size_t *len)
{
	FILE *f;

	free(rs.out);
	rs.out = NULL;
	f = open_memstream(&rs.out, len);
	cr_assert_not_null(f);
	return f;
}

static inline const char *rs_done(FILE *f)
{
	cr_assert_eq(fclose(f), 0);
	return rs.out;
}

/* The line in from whose words (runs of spaces squeezed) are exactly
 * words, or NULL. */
static inline const char *rs_line(const char *from, const char *words)
{
	char raw[1024], got[1024];

	for (const char *p = from; p && *p;) {
		size_t n = strcspn(p, "\n"), k = 0;
		char *save = NULL, *tok;

		snprintf(raw, sizeof(raw), "%.*s", (int)n, p);
		got[0] = '\0';
		for (tok = strtok_r(raw, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save))
			k += snprintf(got + k, sizeof(got) - k, "%s%s",
				      k ? " " : "", tok);
		if (!strcmp(got, words))
			return p;
		p += n + (p[n] == '\n');
	}
	return NULL;
}

static inline const char *rs_expect_line(const char *from,
					  const char *words)
{
	const char *p = rs_line(from, words);

	cr_expect_not_null(p, "no line '%s' in:\n%s", words, from);
	return p;
}

/* How many times needle occurs in hay. */
static inline int rs_count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

#endif
