/* uring_setup: a worker's ring made, or why not in words a user acts on. */
#ifndef FSPLAN_URING_SETUP_H
#define FSPLAN_URING_SETUP_H

#include <stdbool.h>

#include <liburing.h>

#include "util/diag.h"

/*
 * IORING_OP_FTRUNCATE (Linux 6.9) is newer than liburing 2.3's header; the
 * number is the kernel's ABI. Where the probe lacks it, the engine
 * truncates synchronously instead.
 */
#define URING_OP_FTRUNCATE	55

/*
 * Make ring with entries SQEs, with the fastest setup flags this kernel
 * takes for a ring one thread submits to, and check that it has every
 * opcode the engine needs (*have_ftruncate: whether it has
 * URING_OP_FTRUNCATE too). 0, or -errno with d (may be NULL) saying why:
 * io_uring disabled by kernel.io_uring_disabled, RLIMIT_MEMLOCK, the
 * opcodes missing; the ring is then not made.
 */
int uring_setup_ring(struct io_uring *ring, unsigned entries,
		     bool *have_ftruncate, struct diag *d);

#endif
