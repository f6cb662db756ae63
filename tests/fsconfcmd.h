/* fsconfcmd: config 0's mkfs and mount commands, as expand shows them. */
#ifndef FSPLAN_TEST_FSCONFCMD_H
#define FSPLAN_TEST_FSCONFCMD_H

#include <stdlib.h>

#include "cells/fsconf.h"
#include "util/strbuf.h"

/* Each kept to the next call of the same one. */
static inline const char *mkfs_of(const struct expansion *e)
{
	static struct strbuf b;

	free(b.p);
	b = (struct strbuf){ 0 };
	fsconf_mkfs_cmd(e->plan, &e->confs[0], NULL, &b);
	return b.p;
}

static inline const char *mount_of(const struct expansion *e,
				   const char *dir)
{
	static struct strbuf b;

	free(b.p);
	b = (struct strbuf){ 0 };
	fsconf_mount_cmd(e->plan, &e->confs[0], NULL, dir, &b);
	return b.p;
}

#endif
