/* expdesign: an entry's screening design made into its configs' options. */
#include <stdlib.h>
#include <string.h>

#include "cells/expdesign.h"
#include "util/mix.h"
#include "util/strbuf.h"

uint64_t expdesign_seed(const struct plan *p, int f)
{
	return mix64(p->seed ^ mix64((uint64_t)f + 1));
}

int expdesign_make(struct expansion *e, struct diag *d)
{
	const struct plan *p = e->plan;

	for (int f = 0; f < p->n_fs; f++) {
		const struct plan_fs *fs = &p->fs[f];
		struct expdesign *ed = &e->designs[f];
		char err[160];

		if (!fs->n_factors)
			continue;
		if (design_make(&fs->design, fs->n_factors, &ed->d, err,
				sizeof(err)))
			return diag_set(d, p->file, p->text, fs->design.pos,
					"%s", err);
		ed->order = malloc(ed->d.n * sizeof(*ed->order));
		if (!ed->order)
			return diag_set(d, p->file, NULL, fs->design.pos,
					"out of memory");
		design_order(ed->d.n, expdesign_seed(p, f), ed->order);
	}
	return 0;
}

void expdesign_free(struct expansion *e)
{
	for (int f = 0; e->designs && f < e->plan->n_fs; f++) {
		design_free(&e->designs[f].d);
		free(e->designs[f].order);
	}
	free(e->designs);
}

/* base, then each part of the row's levels, joined by sep, empty parts
 * skipped; the parts' ${...} made at at. */
static char *join(const struct cell_at *at, const struct pstr *base,
		  const struct plan_factor *f, int k, const signed char *x,
		  int mount)
{
	struct strbuf b = { 0 };
	const char *sep = mount ? "," : " ";

	for (int j = -1; j < k; j++) {
		const struct pstr *ps = j < 0 ? base :
			mount ? &f[j].mount[x[j] > 0] : &f[j].mkfs[x[j] > 0];
		char *s = cell_at_expand(at, ps);

		if (!s)
			goto oom;
		if (s[0] && b.len)
			strbuf_str(&b, sep);
		strbuf_str(&b, s);
		free(s);
	}
	if (!strbuf_str(&b, ""))	/* "" when every part is */
		return b.p;
oom:
	free(b.p);
	return NULL;
}

int expdesign_conf(const struct cell_at *at, struct fsconf *fc,
		   const struct expdesign *ed, int row)
{
	const struct plan_fs *fs = fc->fs;
	const signed char *x = &ed->d.x[(size_t)row * ed->d.k];
	struct strbuf b = { 0 };
	char *base;

	fc->design_row = row + 1;
	fc->levels = malloc(fs->n_factors + 1);
	if (!fc->levels)
		return -1;
	for (int j = 0; j < fs->n_factors; j++)
		fc->levels[j] = x[j] > 0 ? '+' : '-';
	fc->levels[fs->n_factors] = '\0';
	fc->mkfs = join(at, &fs->mkfs[0], fs->factors, fs->n_factors, x, 0);
	fc->mount = join(at, &fs->mount[0], fs->factors, fs->n_factors, x, 1);
	base = fs->label.s ? cell_at_expand(at, &fs->label) :
			     strdup(fs->type.s);
	if (!fc->mkfs || !fc->mount || !base) {
		free(base);
		return -1;
	}
	strbuf_str(&b, base);
	free(base);
	for (int j = 0; j < fs->n_factors; j++)
		strbuf_printf(&b, "%c%s=%c", j ? ',' : '/',
			      fs->factors[j].name, fc->levels[j]);
	if (b.oom) {
		free(b.p);
		return -1;
	}
	fc->label = b.p;
	return 0;
}
