/* runprobe: the run's probe of its mkfs and mount words, before config 1. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/probe.h"
#include "run/runlog.h"
#include "run/runprobe.h"
#include "util/clock.h"

/* A refusal or a warning: on stderr (a warning not with -q) and in the
 * log, with its place and the plan's line. */
static void say(void *ctx, const struct diag *d, int warning)
{
	const struct run *r = ctx;
	char buf[2048];

	diag_format(d, buf, sizeof(buf));
	runlog("%s", buf);
	if (!warning || !r->quiet)
		diag_print(d);
}

static void line(void *ctx, const char *text)
{
	(void)ctx;
	runlog("%s", text);
}

/* Per config: whether a cell of it is still to run. */
static unsigned char *wanted(const struct run *r)
{
	unsigned char *w = calloc((size_t)r->e->n_confs + 1, 1);

	for (size_t i = 0; w && i < r->e->n_cells; i++) {
		const struct cell *c = &r->e->cells[i];

		if (c->selected && r->done[i] == RUN_TODO)
			w[c->conf] = 1;
	}
	return w;
}

/* Each probed config's "probe": {"applied", "warnings"} in the
 * manifest. */
static void keep(struct run *r, const struct probe *p)
{
	for (int i = 0; i < r->e->n_confs; i++) {
		json_t *o, *w;

		if (!p->applied[i])
			continue;
		o = json_object();
		w = json_array();
		if (p->warning[i])
			json_array_append_new(w, json_string(p->warning[i]));
		json_object_set_new(o, "applied", json_string(p->applied[i]));
		json_object_set_new(o, "warnings", w);
		manifest_conf(r->man, r->e->confs[i].index - 1, "probe", o);
	}
}

/* A refusal: the run ends here, nothing made; its exit status. */
static int refused(struct run *r, const struct probe *p)
{
	runlog("%s: the probe refused %d option set%s: nothing was made",
	       r->run_id, p->n_refused, p->n_refused == 1 ? "" : "s");
	fprintf(stderr, "fsplan run: the kernel or mkfs refuses %d option "
		"set%s of the plan (above): no config was run\n", p->n_refused,
		p->n_refused == 1 ? "" : "s");
	manifest_set(r->man, "probe_refused", json_integer(p->n_refused));
	manifest_set(r->man, "ended", manifest_now());
	manifest_run_state(r->man, MANIFEST_FAILED);
	sink_save(&r->sink);
	return EXIT_USAGE;
}

int runprobe(struct run *r)
{
	struct probe p = { .e = r->e, .stop = &r->stop,
			   .log_fd = -1, .say = say, .line = line,
			   .ctx = r };
	char dir[PATH_MAX + 16];
	struct diag d = { 0 };
	unsigned char *want = wanted(r);
	double t = clock_now();
	int rc;

	snprintf(dir, sizeof(dir), "%s/.probe", r->dir);
	if (!want || (mkdir(dir, 0700) && errno != EEXIST)) {
		runlog("probe: cannot make %s: %s", dir, strerror(errno));
		free(want);
		return EXIT_FAILED;
	}
	p.want = want;
	p.dir = dir;
	rc = probe_run(&p, &d);
	(void)rmdir(dir);
	runlog("probe: %d set%s in %.0f ms: %d refused, %d changed",
	       p.n_sets, p.n_sets == 1 ? "" : "s", (clock_now() - t) * 1e3,
	       p.n_refused, p.n_warned);
	/* not a refusal: the configs find out for themselves */
	if (rc && !r->stop) {
		runlog("probe: %s: the run goes on without it", d.msg);
		fprintf(stderr, "fsplan run: the probe could not run (%s): "
			"going on without it\n", d.msg);
	}
	keep(r, &p);
	/* stopped: run_all ends the run as interrupted */
	rc = !rc && !r->stop && p.n_refused ? refused(r, &p) : 0;
	probe_free(&p);
	free(want);
	return rc;
}
