/* probe: each distinct mkfs × mount of a plan tried on a sparse image. */
#ifndef FSPLAN_PROBE_H
#define FSPLAN_PROBE_H

#include <signal.h>

#include "cells/expand.h"
#include "util/diag.h"
#include "util/strbuf.h"

/*
 * What a probe is given and what it finds. The caller fills the first
 * part; probe_run the rest (per config of e, by its position in
 * e->confs), and probe_free frees it.
 */
struct probe {
	const struct expansion *e;
	const unsigned char *want;	/* per config: probe it (NULL: all) */
	const char *dir;		/* ours: images and mount point go
					 * there, and are gone after */
	volatile sig_atomic_t *stop;	/* stops it between steps */
	int log_fd;			/* mkfs's output, or -1 */
	/* each refusal (warning 0) and changed option (1), at its place */
	void (*say)(void *ctx, const struct diag *d, int warning);
	void (*line)(void *ctx, const char *text);	/* a set's timing */
	void *ctx;
	/* found */
	char **applied;		/* per config: the kernel's options, or NULL */
	char **warning;		/* per config: what it changed, or NULL */
	int n_refused, n_warned, n_sets;
	struct strbuf said;	/* what p->say was given, once each */
};

/*
 * Every distinct (type, mkfs words) of the wanted configs made once on a
 * sparse image in p->dir (its size the plan's image, 1 GiB for a device
 * target, at least the tool's minimum; never the device itself), and
 * every distinct mount words of it mounted and unmounted once, in the
 * caller's mount namespace (private: probe_private_ns). Skips nodev
 * types and target.dir plans. Refusals and changes go to p->say. 0, or
 * -1 with d when it could not probe at all (no loop device, stopped).
 */
int probe_run(struct probe *p, struct diag *d);
void probe_free(struct probe *p);

/* This process in a mount namespace of its own, / private: 0, or -1
 * with d. */
int probe_private_ns(struct diag *d);

#endif
