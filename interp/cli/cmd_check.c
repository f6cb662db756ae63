/* cmd_check: fsplan check — load and check a plan, silent when it is good. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "util/diag.h"
#include "host/fs.h"
#include "host/probe.h"
#include "cells/expand.h"
#include "phase/libsrc.h"
#include "plan/plan.h"
#include "util/exitcode.h"
#include "util/units.h"

struct check_args {
	struct plan_opts po;
	int probe;		/* --probe */
};

static const struct opt check_opts[] = {
	CELLOPTS_DEFINE(struct check_args, po.cells),
	OPT_FLAG_OF("probe", 0, struct check_args, probe),
	OPT_END
};

const struct opts_cmd check_cmd = {
	"check", "check PLAN [-D name=value]... [--probe]",
	"Load PLAN, check every key, value, ${...} reference and exclude\n"
	"rule, and expand it; print nothing when it is good. Errors name\n"
	"the place: file:line:col, the line and a caret. Exit 2 on error.\n"
	"\n"
	"  -D name=value   override a parameter of the plan's params (each\n"
	"                  name once)\n"
	"  --probe         (root) make and mount each distinct mkfs x mount\n"
	"                  of the plan once on a sparse loop image, in a\n"
	"                  private mount namespace: options the kernel\n"
	"                  refuses are errors at their place, with the\n"
	"                  kernel's words; options it changed, warnings.\n"
	"                  Exit 2 when one is refused\n",
	check_opts, "PLAN file", 0, offsetof(struct check_args, po.plan),
	"validate a plan; silent when it is good"
};

/*
 * Warn of a config whose mkfs refuses the plan's image size or its mkfs
 * options, by the tool's own dry run (ext2/3/4 and xfs have one), before
 * a run fails every cell of it: xfs below 300 MB, an unknown -O feature.
 * Each type and option string once.
 */
static void mkfs_warn(const struct expansion *e)
{
	const struct plan *p = e->plan;
	char size[32];

	if (p->target.kind != TARGET_IMAGE)
		return;
	units_fmt_size(p->target.image_bytes, size, sizeof(size));
	for (int i = 0; i < e->n_confs; i++) {
		const struct fsconf *fc = &e->confs[i];
		struct diag d = { 0 }, why = { 0 };
		int seen = 0;

		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(e->confs[j].fs->type.s,
				       fc->fs->type.s) &&
			       !strcmp(e->confs[j].mkfs, fc->mkfs);
		if (seen || fc->fs->nodev ||
		    fs_mkfs_dry(fc->fs->type.s, fc->mkfs,
				p->target.image_bytes, &why) != 1)
			continue;
		diag_set(&d, p->file, p->text, fc->fs->type.pos,
			 "warning: %s: a dry run of 'mkfs.%s%s%s' on a %s "
			 "image fails, so every cell of it would: %s",
			 fc->label, fc->fs->type.s, *fc->mkfs ? " " : "",
			 fc->mkfs, size, why.msg);
		diag_print(&d);
	}
}

static volatile sig_atomic_t probe_stop;

static void on_probe_stop(int sig)
{
	probe_stop = sig;
}

static void probe_say(void *ctx, const struct diag *d, int warning)
{
	(void)ctx;
	(void)warning;
	diag_print(d);
}

/* fsplan check --probe: the probe in a namespace and a /tmp directory
 * of our own, gone after. The exit status. */
static int check_probe(const struct expansion *e)
{
	struct sigaction sa = { .sa_handler = on_probe_stop };
	char dir[] = "/tmp/fsplan-probe-XXXXXX";
	struct probe p = { .e = e, .dir = dir, .stop = &probe_stop,
			   .log_fd = -1, .say = probe_say };
	struct diag d = { 0 };
	int rc;

	if (geteuid() != 0) {
		fprintf(stderr, "fsplan check: --probe makes and mounts "
			"filesystems on loop images: it needs root\n");
		return EXIT_USAGE;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (probe_private_ns(&d) || !mkdtemp(dir)) {
		if (!d.msg[0])
			diag_fail(&d, DIAG_SYSTEM, errno, "%s", dir);
		fprintf(stderr, "fsplan check --probe: %s\n", d.msg);
		return EXIT_FAILED;
	}
	rc = probe_run(&p, &d);
	rmdir(dir);
	if (rc)
		fprintf(stderr, "fsplan check --probe: %s\n", d.msg);
	probe_free(&p);
	if (probe_stop)
		return EXIT_INTERRUPTED(probe_stop);
	return rc ? EXIT_FAILED : p.n_refused ? EXIT_USAGE : EXIT_OK;
}

int cmd_check(int argc, char **argv)
{
	struct check_args o = { 0 };
	struct plan *p = NULL;
	struct expansion *e = NULL;
	int rc = opts_parse(&check_cmd, argc, argv, &o);

	if (rc == OPTS_GO)
		rc = cmd_load(&o.po, &p, &e);
	/* the probe runs mkfs itself: its refusal is an error */
	if (!rc && e && !o.probe)
		mkfs_warn(e);
	if (!rc && e && o.probe)
		rc = check_probe(e);
	expansion_free(e);
	plan_free(p);
	opts_free(&check_cmd, &o);
	libsrc_free();
	return rc;
}
