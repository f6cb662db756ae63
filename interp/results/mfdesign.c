/* mfdesign: the manifest's screening-design keys (cells/design.h's end). */
#include <stdlib.h>
#include <string.h>

#include "plan/secfactors.h"
#include "results/mfdesign.h"

static json_t *level_json(const struct plan_factor *f, int l)
{
	return json_pack("{s:s, s:s}", "mkfs", f->mkfs[l].s, "mount",
			 f->mount[l].s);
}

/* "E = ABC\n..." as ["E = ABC", ...]. */
static json_t *lines_json(const char *s)
{
	json_t *a = json_array();

	while (a && s && *s) {
		size_t n = strcspn(s, "\n");
		char *line = strndup(s, n);

		if (line)
			json_array_append_new(a, json_string(line));
		free(line);
		s += n + (s[n] == '\n');
	}
	return a;
}

static json_t *entry_json(const struct expansion *e, int f)
{
	const struct plan_fs *fs = &e->plan->fs[f];
	const struct design *d = &e->designs[f].d;
	json_t *o = json_object(), *fa = json_array(), *gen = json_array();
	struct strbuf al = { 0 };

	if (!o || !fa || !gen) {
		json_decref(o);
		json_decref(fa);
		json_decref(gen);
		return NULL;
	}
	json_object_set_new(o, "entry", json_integer(f + 1));
	json_object_set_new(o, "label", json_string(fs->label.s ? fs->label.s
							       : fs->type.s));
	json_object_set_new(o, "type",
			    json_string(secfactors_kind_name(d->kind)));
	if (d->kind == DESIGN_FRACTIONAL)
		json_object_set_new(o, "resolution",
				    json_integer(d->resolution));
	json_object_set_new(o, "runs", json_integer(d->n));
	for (int j = 0; j < fs->n_factors; j++) {
		char letter[2] = { design_letter(j), '\0' };

		json_array_append_new(fa, json_pack("{s:s, s:s, s:o, s:o}",
			"name", fs->factors[j].name, "letter", letter,
			"minus", level_json(&fs->factors[j], 0),
			"plus", level_json(&fs->factors[j], 1)));
	}
	json_object_set_new(o, "factors", fa);
	for (int g = 0; g < d->n_gen; g++)
		json_array_append_new(gen, json_string(d->gen[g]));
	json_object_set_new(o, "generators", gen);
	/* out of memory, the aliases are left empty, as jansson would */
	design_aliases(d, &al);
	json_object_set_new(o, "aliases", lines_json(al.oom ? NULL : al.p));
	free(al.p);
	return o;
}

json_t *mfdesign_designs(const struct expansion *e)
{
	json_t *a = NULL;

	for (int f = 0; f < e->plan->n_fs; f++) {
		if (!e->plan->fs[f].n_factors)
			continue;
		if (!a && !(a = json_array()))
			return NULL;
		json_array_append_new(a, entry_json(e, f));
	}
	return a;
}

json_t *mfdesign_conf(const struct expansion *e, const struct fsconf *fc)
{
	if (!fc->levels)
		return NULL;
	return json_pack("{s:i, s:i, s:s}", "entry",
			 (int)(fc->fs - e->plan->fs) + 1, "row",
			 fc->design_row, "levels", fc->levels);
}
