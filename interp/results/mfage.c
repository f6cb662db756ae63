/* mfage: the manifest's age object of an aged config (DESIGN.md s.10). */
#include "results/mfage.h"

/* sizes as given, [[upto_bytes, weight], ...]; NULL for the default. */
static json_t *sizes_json(const struct plan_age *a)
{
	json_t *s;

	if (!a->n_sizes)
		return NULL;
	s = json_array();
	for (int i = 0; s && i < a->n_sizes; i++)
		json_array_append_new(s, json_pack("[I, f]",
			(json_int_t)a->sizes[i].upto, a->sizes[i].weight));
	return s;
}

json_t *mfage_conf(const struct fsconf *fc)
{
	const struct plan_age *a = fc->age;
	json_t *o, *s;

	if (!a || !(o = json_object()))
		return NULL;
	/* out of memory, jansson leaves a value out: so does this */
	json_object_set_new(o, "name", json_string(a->name));
	json_object_set_new(o, "fill", json_real(a->fill));
	json_object_set_new(o, "churn", json_real(a->churn));
	json_object_set_new(o, "seed", json_integer((json_int_t)a->seed));
	json_object_set_new(o, "dirs", json_integer(a->dirs));
	json_object_set_new(o, "reuse", json_boolean(a->reuse));
	if ((s = sizes_json(a)))
		json_object_set_new(o, "sizes", s);
	return o;
}
