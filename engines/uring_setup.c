/* uring_setup: a worker's ring made, or why not in words a user acts on. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "uring_setup.h"

static const struct {
	int op;
	const char *name;
} needed_ops[] = {
	{ IORING_OP_READ, "READ" },
	{ IORING_OP_WRITE, "WRITE" },
	{ IORING_OP_FSYNC, "FSYNC" },
	{ IORING_OP_FALLOCATE, "FALLOCATE" },
	{ IORING_OP_OPENAT2, "OPENAT2" },
	{ IORING_OP_CLOSE, "CLOSE" },
	{ IORING_OP_STATX, "STATX" },
	{ IORING_OP_UNLINKAT, "UNLINKAT" },
	{ IORING_OP_MKDIRAT, "MKDIRAT" },
	{ IORING_OP_RENAMEAT, "RENAMEAT" },
	{ IORING_OP_LINKAT, "LINKAT" },
	{ IORING_OP_SYMLINKAT, "SYMLINKAT" },
};

/* The first line of a /proc/sys file, or "?" if it cannot be read. */
static void read_sysctl(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	snprintf(buf, len, "?");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* Why io_uring_queue_init failed with EPERM or ENOSYS, in words a user
 * can act on (errno is in the words, so not appended). */
static void explain_setup(int err, struct diag *d)
{
	char disabled[32], group[32];

	read_sysctl("/proc/sys/kernel/io_uring_disabled", disabled,
		    sizeof(disabled));
	read_sysctl("/proc/sys/kernel/io_uring_group", group, sizeof(group));
	if (err == -ENOSYS)
		diag_fail(d, DIAG_SYSTEM, 0, "io_uring is not available in "
			  "this kernel (ENOSYS); use engine: sync");
	else if (!strcmp(disabled, "1"))
		diag_fail(d, DIAG_SYSTEM, 0, "io_uring is disabled on this "
			  "machine (kernel.io_uring_disabled=1, and this user "
			  "is not in kernel.io_uring_group=%s); use engine: "
			  "sync", group);
	else if (strcmp(disabled, "0"))
		diag_fail(d, DIAG_SYSTEM, 0, "io_uring is disabled on this "
			  "machine (kernel.io_uring_disabled=%s); use engine: "
			  "sync", disabled);
	else
		diag_fail(d, DIAG_SYSTEM, 0, "io_uring_setup was refused "
			  "(EPERM) with kernel.io_uring_disabled=%s, so by a "
			  "seccomp filter or container policy; use engine: "
			  "sync", disabled);
}

/*
 * io_uring counts every ring against the user's RLIMIT_MEMLOCK (all of
 * the user's processes together); ENOMEM from setup is usually that.
 */
static void explain_memlock(unsigned entries, struct diag *d)
{
	struct rlimit rl;
	char lim[32] = "?";

	if (!getrlimit(RLIMIT_MEMLOCK, &rl)) {
		if (rl.rlim_cur == RLIM_INFINITY)
			snprintf(lim, sizeof(lim), "unlimited");
		else
			snprintf(lim, sizeof(lim), "%llu KiB",
				 (unsigned long long)rl.rlim_cur >> 10);
	}
	diag_fail(d, DIAG_SYSTEM, 0, "io_uring_queue_init(%u): Cannot "
		  "allocate memory: the rings of this user's processes exceed "
		  "RLIMIT_MEMLOCK (%s; fsplan raises it for the phase's own "
		  "workers, so other processes of the same user hold the "
		  "rest): run the phase as a user of its own (runas:), raise "
		  "its memlock limit (limits.conf, ulimit -l) or use fewer "
		  "workers", entries, lim);
}

/* 0, or -EOPNOTSUPP with the opcodes this kernel's io_uring lacks. */
static int probe(struct io_uring *ring, bool *have_ftruncate,
		 struct diag *d)
{
	struct io_uring_probe *p = io_uring_get_probe_ring(ring);
	char missing[160] = "";
	size_t i, used = 0;

	if (!p) {
		diag_fail(d, DIAG_SYSTEM, 0, "io_uring cannot say which "
			  "operations it supports (kernel older than 5.6?); "
			  "use engine: sync");
		return -EOPNOTSUPP;
	}
	for (i = 0; i < sizeof(needed_ops) / sizeof(needed_ops[0]); i++) {
		if (io_uring_opcode_supported(p, needed_ops[i].op))
			continue;
		used += (size_t)snprintf(missing + used, sizeof(missing) - used,
					 "%s%s", used ? ", " : "",
					 needed_ops[i].name);
		if (used >= sizeof(missing))
			break;
	}
	*have_ftruncate = io_uring_opcode_supported(p, URING_OP_FTRUNCATE);
	io_uring_free_probe(p);
	if (used) {
		diag_fail(d, DIAG_SYSTEM, 0, "this kernel's io_uring lacks "
			  "operations fsplan needs: %s; use engine: sync",
			  missing);
		return -EOPNOTSUPP;
	}
	return 0;
}

int uring_setup_ring(struct io_uring *ring, unsigned entries,
		     bool *have_ftruncate, struct diag *d)
{
	int ret;

	/*
	 * One thread submits to this ring, and completions run when it
	 * waits: SINGLE_ISSUER lets the kernel skip the ring lock's
	 * contention path, DEFER_TASKRUN runs the completions' task work
	 * in the wait, in a batch, rather than interrupting the thread
	 * (Linux 6.1); else COOP_TASKRUN (5.19), which at least spares the
	 * interrupt; else none.
	 */
	ret = io_uring_queue_init(entries, ring, IORING_SETUP_SINGLE_ISSUER |
				  IORING_SETUP_DEFER_TASKRUN);
	if (ret == -EINVAL)
		ret = io_uring_queue_init(entries, ring,
					  IORING_SETUP_COOP_TASKRUN);
	if (ret == -EINVAL)
		ret = io_uring_queue_init(entries, ring, 0);
	if (ret < 0) {
		if (ret == -EPERM || ret == -ENOSYS)
			explain_setup(ret, d);
		else if (ret == -ENOMEM)
			explain_memlock(entries, d);
		else
			diag_fail(d, DIAG_SYSTEM, -ret,
				  "io_uring_queue_init(%u)", entries);
		if (d)
			d->err = -ret;
		return ret;
	}
	ret = probe(ring, have_ftruncate, d);
	if (ret)
		io_uring_queue_exit(ring);
	return ret;
}
