/* fs: the root-only work on a filesystem: mkfs, mount, between, umount. */
#ifndef FSPLAN_FS_H
#define FSPLAN_FS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "plan/devword.h"
#include "util/diag.h"

/* Whether /proc/filesystems lists type now; *nodev (if given) says
 * whether it is marked nodev there. */
int fs_kernel_has(const char *type, int *nodev);

/*
 * Whether the kernel has filesystem `type` (/proc/filesystems, after
 * trying modprobe) and, unless nodev, whether mkfs.<type> is installed.
 * 0 if usable, else -1 with the reason in d.
 */
int fs_available(const char *type, int nodev, struct diag *d);

/*
 * Run argv without a shell (proc_run), stdin /dev/null, stdout+stderr
 * appended to log_fd, its process group killed after timeout_s, or
 * stopped when *stop is set (SIGTERM, SIGKILL a second later; stop may
 * be NULL). Returns its exit status, 128+signal, or -1 if it could not
 * start; the last line it printed is kept in last (for an error
 * message).
 */
int fs_run(const char *const argv[], int log_fd, double timeout_s,
	   volatile sig_atomic_t *stop, char *last, size_t lastlen);

/*
 * The first word of mkfs options (mount 0) or mount options that names
 * a device: by its text (devword_text), or a path that leads to a block
 * device (through symlinks, relative to the current directory, where
 * mkfs runs). 1 with w (devword_free it), 0 none, -1 out of memory.
 * fs_mkfs and fs_mount refuse such options themselves too.
 */
int fs_device_word(const char *opts, int mount, struct devword *w);

/* mkfs.<type> <opts> <dev>; force adds -f for mkfs tools that refuse an
 * existing signature (xfs, btrfs); stopped as fs_run's. Returns 0 or -1
 * with d. */
int fs_mkfs(const char *type, const char *opts, const char *dev, int force,
	    volatile sig_atomic_t *stop, int log_fd, struct diag *d);

/*
 * mkfs.<type> <opts> in its no-op mode (ext2/3/4 -n, xfs -N) on a sparse
 * file of bytes, made and removed in /tmp: 1 when it refuses (its last
 * line in d: "Filesystem must be larger than 300MB."), 0 when it would
 * make it, -1 when it cannot tell (no such mode, no such tool; d is then
 * untouched).
 */
int fs_mkfs_dry(const char *type, const char *opts, uint64_t bytes,
		struct diag *d);

/*
 * What the filesystem under dir answers to the non-blocking read and
 * write io_uring issues first (engine_probe_fd on a file of its own,
 * made and removed here): whether io_uring serves a lone op on it inline
 * or in a kernel worker thread, buffered and O_DIRECT. 0, or -1 with d.
 */
struct fs_probe {
	int read_ring, write_ring;		/* buffered */
	int direct;				/* O_DIRECT is allowed */
	int direct_read_ring, direct_write_ring;
};
int fs_probe_engine(const char *dir, struct fs_probe *p, struct diag *d);

/* mount(2) with options split the way mount(8) splits them: the VFS
 * flags (ro, noatime, nodev, ...) and the rest as the fs's data. 0, or
 * -1 with d. */
int fs_mount(const char *type, const char *opts, const char *dev,
	     const char *dir, struct diag *d);
/* A bind mount of the directory src on dir (target.dir). 0, or -1 with d. */
int fs_bind(const char *src, const char *dir, struct diag *d);
/* umount, retrying a busy mount for a few seconds. 0, or -1 with d. */
int fs_umount(const char *dir, struct diag *d);

/* The options the kernel applied, from /proc/self/mountinfo:
 * "<per-mount options> <superblock options>". */
int fs_applied_options(const char *dir, char *buf, size_t len);

int fs_syncfs(const char *dir);
int fs_drop_caches(void);

#endif
