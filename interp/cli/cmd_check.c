/* cmd_check: fsplan check — load and check a plan, silent when it is good. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "util/diag.h"
#include "host/fs.h"
#include "cells/expand.h"
#include "phase/libsrc.h"
#include "plan/plan.h"
#include "util/units.h"

static const struct opt check_opts[] = {
	CELLOPTS_DEFINE(struct plan_opts, cells),
	OPT_END
};

const struct opts_cmd check_cmd = {
	"check", "check PLAN [-D name=value]...",
	"Load PLAN, check every key, value, ${...} reference and exclude\n"
	"rule, and expand it; print nothing when it is good. Errors name\n"
	"the place: file:line:col, the line and a caret. Exit 2 on error.\n"
	"\n"
	"  -D name=value   override a parameter of the plan's params (each\n"
	"                  name once)\n",
	check_opts, "PLAN file", 0, offsetof(struct plan_opts, plan),
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

int cmd_check(int argc, char **argv)
{
	struct plan_opts o = { 0 };
	struct plan *p = NULL;
	struct expansion *e = NULL;
	int rc = opts_parse(&check_cmd, argc, argv, &o);

	if (rc == OPTS_GO)
		rc = cmd_load(&o, &p, &e);
	if (!rc && e)
		mkfs_warn(e);
	expansion_free(e);
	plan_free(p);
	opts_free(&check_cmd, &o);
	libsrc_free();
	return rc;
}
