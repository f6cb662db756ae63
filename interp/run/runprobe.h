/* runprobe: the run's probe of its mkfs and mount words, before config 1. */
#ifndef FSPLAN_RUNPROBE_H
#define FSPLAN_RUNPROBE_H

#include "run/run.h"

/*
 * In the run's namespace, before its first config: every distinct
 * mkfs × mount of the configs still to run tried once (host/probe.h) on
 * a sparse image in the run directory's .probe/. Refusals and changed
 * options on stderr and in the log at their place; each config's applied
 * options and warnings in the manifest ("probe"). 0 to go on, or the
 * run's exit status: a refusal stops it before anything is made.
 */
int runprobe(struct run *r);

#endif
