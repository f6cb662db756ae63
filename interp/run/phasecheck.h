/* phasecheck: the plan's phases checked before anything runs — in a dropped
 * child when root. */
#ifndef FSPLAN_PHASECHECK_H
#define FSPLAN_PHASECHECK_H

#include <signal.h>

#include "cells/expand.h"
#include "util/diag.h"

/* How long the checking child may take before it is killed. */
#define PHASECHECK_TIMEOUT_S 60

/*
 * Load every Lua phase of the plan and every parser its exec phases name,
 * in a sandbox, and check every cell's values, without running any I/O
 * (phase/check.h). When root, this happens in a child that has dropped
 * to runas (the parent never runs Lua), through the one process runner
 * (host/child.h) with a timeout of PHASECHECK_TIMEOUT_S; the child sends
 * what it found back. Fills e->checked. A set *stop (a signal's) stops
 * the check (stop may be NULL). 0, or -1 with d.
 */
int phasecheck_all(struct expansion *e, const char *runas,
		   volatile sig_atomic_t *stop, struct diag *d);

#endif
