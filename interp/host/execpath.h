/* execpath: the PATH of exec phases and parsers; check's missing tools. */
#ifndef FSPLAN_EXECPATH_H
#define FSPLAN_EXECPATH_H

#include "cells/expand.h"
#include "host/privdrop.h"
#include "util/diag.h"

/* The classic tools live in the sbin directories on Debian (bonnie++ in
 * /usr/sbin), so a user's PATH is not enough: this one is what they
 * get, whoever runs fsplan. */
#define EXECPATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* "PATH=" EXECPATH, for a child's environment. */
extern const char execpath_env[];

/* Whether tool (a name looked up on EXECPATH, or an absolute path) is a
 * file runas may execute. */
int execpath_find(const char *tool, const struct runas *who);

/*
 * For every exec phase whose first word is a program that runas cannot
 * run from EXECPATH, a warning at the exec's place in the plan, on
 * stderr. Returns how many.
 */
int execpath_warn(const struct expansion *e, const struct runas *who);

/*
 * Every distinct command of every exec phase parsed by the shell that
 * will run it ("sh -n -c CMD", as runas when root): broken syntax is a
 * plan error at the exec's place, found before anything is made. 0, or
 * -1 with d.
 */
int execpath_syntax(const struct expansion *e, const struct runas *who,
		    struct diag *d);

#endif
