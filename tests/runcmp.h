/* runcmp: two run directories hold the same cells — ids, coordinates, statuses
 * — whatever their values. */
#ifndef FSPLAN_TEST_RUNCMP_H
#define FSPLAN_TEST_RUNCMP_H

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"

static inline int runcmp_by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A phase run's coordinates and status, and its metric names (sorted:
 * a phase's report is a Lua table, its order is not kept), as text. */
static inline void runcmp_text(const struct res_run *x, char *buf, size_t len)
{
	const char *names[512];
	size_t n = snprintf(buf, len, "%s|%s|%s|%s|%s|%s|%s|%d|%d|%s|",
			    x->cell, x->fs_label, x->fs_type, x->mkfs_opts,
			    x->mount_opts, x->phase, x->params, x->rep,
			    x->status, x->reason ? x->reason : "");
	size_t k = x->n_m < 512 ? x->n_m : 512;

	for (size_t i = 0; i < k; i++)
		names[i] = x->m[i].name;
	qsort(names, k, sizeof(*names), runcmp_by_name);
	for (size_t i = 0; i < k && n < len; i++)
		n += snprintf(buf + n, len - n, "%s,", names[i]);
}

/*
 * want and got (run directories) have the same phase runs and config
 * records: the same cell ids with the same coordinates, statuses,
 * reasons and metric names (values differ); and their manifests the
 * same cells (index, id, config, status). Fails the test otherwise.
 */
static inline void runcmp_same_cells(const char *want, const char *got)
{
	struct results a, b;
	struct diag d = { 0 };
	char pa[512], pb[512], ta[8192], tb[8192];
	json_t *ma, *mb, *ca, *cb;

	snprintf(pa, sizeof(pa), "%s/results.csv", want);
	snprintf(pb, sizeof(pb), "%s/results.csv", got);
	cr_assert_eq(results_load(&a, pa, &d), 0, "%s: %s", pa, d.msg);
	cr_assert_eq(results_load(&b, pb, &d), 0, "%s: %s", pb, d.msg);
	cr_expect_eq(a.n_runs, b.n_runs, "%zu phase runs and config records "
		     "in %s, %zu in %s", a.n_runs, want, b.n_runs, got);
	for (size_t i = 0; i < a.n_runs; i++) {
		size_t j;

		for (j = 0; j < b.n_runs; j++)
			if (!strcmp(a.runs[i].cell, b.runs[j].cell))
				break;
		if (j == b.n_runs) {
			cr_expect_fail("cell %s of %s is not in %s",
				       a.runs[i].cell, want, got);
			continue;
		}
		runcmp_text(&a.runs[i], ta, sizeof(ta));
		runcmp_text(&b.runs[j], tb, sizeof(tb));
		cr_expect_str_eq(ta, tb);
	}
	results_free(&a);
	results_free(&b);

	snprintf(pa, sizeof(pa), "%s/manifest.json", want);
	snprintf(pb, sizeof(pb), "%s/manifest.json", got);
	ma = json_load_file(pa, 0, NULL);
	mb = json_load_file(pb, 0, NULL);
	cr_assert(ma && mb, "%s or %s is not JSON", pa, pb);
	ca = json_object_get(ma, "cells");
	cb = json_object_get(mb, "cells");
	cr_expect_eq(json_array_size(ca), json_array_size(cb), "%zu cells in "
		     "%s, %zu in %s", json_array_size(ca), pa,
		     json_array_size(cb), pb);
	for (size_t i = 0; i < json_array_size(ca); i++) {
		char *x = json_dumps(json_array_get(ca, i), JSON_SORT_KEYS);
		char *y = json_dumps(json_array_get(cb, i), JSON_SORT_KEYS);

		cr_expect_str_eq(x ? x : "", y ? y : "", "cell %zu", i);
		free(x);
		free(y);
	}
	json_decref(ma);
	json_decref(mb);
}

#endif
