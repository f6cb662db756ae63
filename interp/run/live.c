/* live: a config while its cells run — its rows' key and its own figures. */
#include <stdlib.h>

#include "run/live.h"

int live_axes(const struct expansion *e, const struct cell *c,
	      const struct fsconf *fc, struct strbuf *b)
{
	const struct plan *p = e->plan;
	int n = 0;

	strbuf_str(b, "");
	for (int i = 0; i < p->n_matrix; i++)
		strbuf_printf(b, "%s%s=%s", n++ ? ";" : "", p->matrix[i].name,
			      p->matrix[i].values[fc->axis[i]].s);
	for (int i = 0; c && i < p->phases[c->phase].n_matrix; i++) {
		const struct plan_axis *ax = &p->phases[c->phase].matrix[i];

		strbuf_printf(b, "%s%s=%s", n++ ? ";" : "", ax->name,
			      cell_coord(e, c, ax->name));
	}
	return b->oom ? -1 : 0;
}

void live_key(struct run *r, const struct live *l, const struct cell *c,
	      struct strbuf *params, struct csv_key *k)
{
	live_axes(r->e, c, l->fc, params);
	k->run_id = r->run_id;
	k->cell = c ? c->id : l->cell;
	k->fs_label = l->fc->label;
	k->fs_type = l->fc->fs->type.s;
	k->mkfs_opts = l->fc->mkfs;
	k->mount_opts = l->fc->mount;
	k->phase = c ? r->plan->phases[c->phase].name : "";
	k->phase_params = params->oom ? "" : params->p;
	/* a config made anew each round has figures of each round */
	k->rep = c ? c->rep : l->round;
}

void live_metric(struct run *r, const struct live *l,
		 const char *metric, double secs)
{
	struct strbuf params = { 0 };
	struct csv_key k;

	live_key(r, l, NULL, &params, &k);
	sink_conf_metric(&r->sink, &k, l->fc->index - 1, metric, secs);
	free(params.p);
}

void live_value(struct run *r, const struct live *l, const char *metric,
		const char *unit, double v)
{
	struct strbuf params = { 0 };
	struct csv_key k;

	live_key(r, l, NULL, &params, &k);
	sink_conf_value(&r->sink, &k, l->fc->index - 1, metric, unit, v);
	free(params.p);
}

