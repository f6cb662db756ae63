/* check: a plan's phases loaded and their cells' values typed, no I/O. */
#ifndef FSPLAN_CHECK_H
#define FSPLAN_CHECK_H

#include <signal.h>

#include <stddef.h>

#include "cells/expand.h"
#include "util/diag.h"

/*
 * Load every Lua phase of e's plan and every parser its exec phases
 * name, each in a fresh sandbox, and type every cell's values, here, in
 * this process (run/phasecheck.c runs it in a dropped child when root).
 * Fills out[ph] per plan phase: a module's declared key (an exec phase's:
 * its parser's, then seconds), its most workers, its exec script and
 * parser.
 * text[ph] is the module's source when the caller read it (the child may
 * not reach the plan's directory), else NULL (text and tlen may be
 * NULL). A module's Lua stops when *stop is set (stop may be NULL). 0,
 * or -1 with d at the plan's position.
 */
int check_phases(const struct expansion *e, char **text, size_t *tlen,
		 volatile sig_atomic_t *stop, struct phase_checked *out,
		 struct diag *d);

/*
 * That phase ph's exec script (an exec module's exec, which names it) is
 * there: exec/NAME beside the module or in the library. A process that is
 * not root and cannot look into the module's exec/ (a dropped child, a
 * directory of mode 0700 on the way) passes it: root looks again after
 * the child (run/phasecheck.c), and keeps its text for the runs. 0, or -1
 * with d at the phase's use of the module.
 */
int check_exec_script(const struct plan *p, int ph, const char *exec,
		      struct diag *d);

/*
 * Whether what a checking child sent is, per phase (n of them), a key of
 * 0 to PHASE_KEY_MAX + 1 metric names and library names,
 * every string NUL-ended: the parent trusts nothing else.
 */
int check_sent_ok(const struct phase_checked *c, int n);

#endif
