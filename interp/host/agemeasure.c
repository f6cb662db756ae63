/* agemeasure: how aged a mounted filesystem is, measured by root. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <linux/fiemap.h>
#include <linux/fs.h>

#include "host/agefree.h"
#include "host/agemeasure.h"
#include "results/stats.h"
#include "util/grow.h"

/*
 * The tree is walked by file descriptor (openat, O_NOFOLLOW), never by
 * path: the runas user wrote it, and root must neither follow a link it
 * planted nor leave the mount (a directory whose st_dev differs, another
 * mount or a btrfs subvolume, is not entered). Directories deeper than
 * AGEMEASURE_DEPTH levels are left out: the aging workload makes shallow
 * trees, and each level holds a descriptor.
 *
 * For the tests, in the environment: FSPLAN_AGEMEASURE_NO_GETFSMAP=1
 * skips GETFSMAP, so that they reach the tools' path (e2freefrag,
 * xfs_db) on a kernel that has it; FSPLAN_AGEMEASURE_MAX_FILES=N lowers
 * AGEMEASURE_MAX_FILES to N, so that they reach the sample.
 */
#define AGEMEASURE_DEPTH 200
#define AGEMEASURE_BATCH 128		/* extents asked for by one FIEMAP */

/* Extents without a place of their own on the device. */
#define NOT_PLACED (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC | \
		    FIEMAP_EXTENT_DATA_INLINE)

struct walk {
	dev_t dev;
	uint64_t bsize;
	uint64_t every;		/* FIEMAP every k-th file; 0: only count */
	uint64_t files, sampled;
	int no_fiemap;		/* the filesystem has none */
	double *ext;		/* extents of each sampled file with data */
	size_t n_ext, cap_ext;
	/* of the files with two blocks or more: the blocks after each
	 * one's first, and of them those right after the previous one */
	uint64_t after_first, contig;
	struct fiemap *fm;
	struct diag *d;
};

/* An entry that went away or changed while walked (a file now a link
 * or a directory now a file), or a file that another holds a lease on,
 * is passed over: 0; any other failure is -1 with d. */
static int gone(struct walk *w, int err, const char *what)
{
	if (err == ENOENT || err == ESTALE || err == ELOOP ||
	    err == ENOTDIR || err == EWOULDBLOCK)
		return 0;
	return diag_fail(w->d, DIAG_SYSTEM, err, "cannot %s under the mount",
			 what);
}

/* One file's extents, as FIEMAP gives them, counted into w. 0, or
 * -ENOMEM. */
static int file_done(struct walk *w, uint64_t n, uint64_t blocks,
		      uint64_t contig)
{
	if (n) {
		double *g = grow_array(w->ext, &w->cap_ext, w->n_ext + 1,
				       sizeof(*w->ext), 4096);

		if (!g)
			return -ENOMEM;
		w->ext = g;
		w->ext[w->n_ext++] = (double)n;
	}
	if (blocks >= 2) {
		w->after_first += blocks - 1;
		w->contig += contig;
	}
	return 0;
}

/*
 * Map the file open at fd in batches: within an extent every block but
 * the first follows its previous one; an extent's first block does when
 * it starts where the one before it ended on the device. 0, or -errno.
 */
static int file_map(struct walk *w, int fd)
{
	struct fiemap *fm = w->fm;
	uint64_t start = 0, end = 0, n = 0, blocks = 0, contig = 0;
	int last = 0, have = 0;

	while (!last) {
		memset(fm, 0, sizeof(*fm));
		fm->fm_start = start;
		fm->fm_length = FIEMAP_MAX_OFFSET - start;
		fm->fm_flags = FIEMAP_FLAG_SYNC;
		fm->fm_extent_count = AGEMEASURE_BATCH;
		if (ioctl(fd, FS_IOC_FIEMAP, fm))
			return -errno;
		if (!fm->fm_mapped_extents)
			break;
		for (unsigned int i = 0; !last && i < fm->fm_mapped_extents;
		     i++) {
			const struct fiemap_extent *e = &fm->fm_extents[i];
			uint64_t b = (e->fe_length + w->bsize - 1) / w->bsize;

			last = (e->fe_flags & FIEMAP_EXTENT_LAST) ||
			       e->fe_logical + e->fe_length <= start;
			start = e->fe_logical + e->fe_length;
			if ((e->fe_flags & NOT_PLACED) || !b)
				continue;
			contig += b - 1 + (have && e->fe_physical == end);
			end = e->fe_physical + e->fe_length;
			have = 1;
			blocks += b;
			n++;
		}
	}
	return file_done(w, n, blocks, contig);
}

/* A regular file name in dfd: counted, and mapped when it is sampled. */
static int file_seen(struct walk *w, int dfd, const char *name)
{
	uint64_t k = w->files++;
	struct stat st;
	int fd, rc;

	if (!w->every || w->no_fiemap || k % w->every)
		return 0;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return gone(w, errno, "open a file");
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_dev != w->dev) {
		close(fd);
		return 0;
	}
	rc = file_map(w, fd);
	close(fd);
	if (rc == -EOPNOTSUPP || rc == -ENOTTY) {
		w->no_fiemap = 1;
		return 0;
	}
	if (rc)
		return diag_fail(w->d, DIAG_SYSTEM, -rc, "FIEMAP of a file "
				 "under the mount failed");
	w->sampled++;
	return 0;
}

static int dir_walk(struct walk *w, int fd, int depth);

/* A directory name in dfd, walked when it is on the same filesystem. */
static int dir_seen(struct walk *w, int dfd, const char *name, int depth)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return gone(w, errno, "open a directory");
	if (fstat(fd, &st) || st.st_dev != w->dev ||
	    depth > AGEMEASURE_DEPTH) {
		close(fd);
		return 0;
	}
	return dir_walk(w, fd, depth);
}

/* One entry of the directory dfd: a file, a directory, or nothing. */
static int entry(struct walk *w, int dfd, const struct dirent *e, int depth)
{
	unsigned char type = e->d_type;
	struct stat st;

	if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
		return 0;
	if (type == DT_UNKNOWN) {
		if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			return gone(w, errno, "stat an entry");
		type = S_ISDIR(st.st_mode) ? DT_DIR :
		       S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
	}
	if (type == DT_REG)
		return file_seen(w, dfd, e->d_name);
	if (type == DT_DIR)
		return dir_seen(w, dfd, e->d_name, depth + 1);
	return 0;
}

/* The directory open at fd (closed here), and all under it. */
static int dir_walk(struct walk *w, int fd, int depth)
{
	DIR *dir = fdopendir(fd);
	int rc = 0;

	if (!dir) {
		close(fd);
		return diag_fail(w->d, DIAG_SYSTEM, errno, "cannot read a "
				 "directory under the mount");
	}
	while (!rc) {
		struct dirent *e;

		errno = 0;
		if (!(e = readdir(dir))) {
			if (errno)
				rc = gone(w, errno, "read a directory");
			break;
		}
		rc = entry(w, dirfd(dir), e, depth);
	}
	closedir(dir);
	return rc;
}

/* The whole tree from the mount's root (root, kept open). */
static int walk_root(struct walk *w, int root)
{
	int fd = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	w->files = 0;
	if (fd < 0)
		return diag_fail(w->d, DIAG_SYSTEM, errno, "cannot open the "
				 "mount's root");
	return dir_walk(w, fd, 0);
}

/* AGEMEASURE_MAX_FILES, or the lower cap a test sets. */
static uint64_t max_files(void)
{
	const char *s = getenv("FSPLAN_AGEMEASURE_MAX_FILES");
	char *end;
	unsigned long long v = s ? strtoull(s, &end, 10) : 0;

	if (s && *s >= '0' && *s <= '9' && !*end && v > 0 &&
	    v < AGEMEASURE_MAX_FILES)
		return v;
	return AGEMEASURE_MAX_FILES;
}

/* Files, layout and extents into out. */
static int measure_files(struct walk *w, int root, const struct statvfs *sv,
			 struct age_measure *out)
{
	uint64_t used = sv->f_files > sv->f_ffree ? sv->f_files - sv->f_ffree
						  : 0, most = max_files();

	/* more inodes than files to map (or none said, btrfs): count them
	 * first, then map every k-th */
	w->every = 1;
	if (!sv->f_files || used > most) {
		w->every = 0;
		if (walk_root(w, root))
			return -1;
		w->every = (w->files + most - 1) / most;
		w->every += !w->every;
	}
	w->fm = malloc(sizeof(*w->fm) +
		       AGEMEASURE_BATCH * sizeof(struct fiemap_extent));
	if (!w->fm)
		return diag_fail(w->d, DIAG_SYSTEM, ENOMEM, "agemeasure");
	if (walk_root(w, root))
		return -1;
	out->files = w->files;
	if (w->no_fiemap)
		return 0;
	out->sampled = w->sampled;
	out->layout_score = w->after_first ?
		(double)w->contig / (double)w->after_first : NAN;
	if (w->n_ext) {
		double sum = 0;

		qsort(w->ext, w->n_ext, sizeof(*w->ext), stats_cmp_double);
		for (size_t i = 0; i < w->n_ext; i++)
			sum += w->ext[i];
		out->extents_mean = sum / (double)w->n_ext;
		/* nearest rank: the smallest with 99% at or below it */
		out->extents_p99 = w->ext[(size_t)ceil(0.99 *
				   (double)w->n_ext) - 1];
	}
	return 0;
}

/* Free space: GETFSMAP, else the tool. 0, or -1 with d out of memory. */
static int measure_free(int root, const char *dev, const char *fstype,
			uint64_t bsize, struct age_measure *out,
			struct diag *d)
{
	const char *no = getenv("FSPLAN_AGEMEASURE_NO_GETFSMAP");
	struct agefree f;
	int rc = no && !strcmp(no, "1") ? -EOPNOTSUPP
					: agefree_getfsmap(root, &f);

	if (!rc) {
		out->free_extents = f.extents;
		out->free_extent_p50_kib = f.p50_kib;
		snprintf(out->free_how, sizeof(out->free_how), "getfsmap");
		return 0;
	}
	if (rc == -ENOMEM)
		return diag_fail(d, DIAG_SYSTEM, ENOMEM, "agemeasure");
	if ((rc == -EOPNOTSUPP || rc == -ENOTTY || rc == -EINVAL) &&
	    !agefree_tool(root, dev, fstype, bsize, &f, out->free_how)) {
		out->free_extents = f.extents;
		out->free_extent_p50_kib = f.p50_kib;
	}
	return 0;
}

int age_measure(const char *mnt, const char *dev, const char *fstype,
		struct age_measure *out, struct diag *d)
{
	struct walk w = { .d = d };
	struct statvfs sv;
	struct stat st;
	int root = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	*out = (struct age_measure){ .fill_pct = NAN, .layout_score = NAN,
		.extents_mean = NAN, .extents_p99 = NAN,
		.free_extents = NAN, .free_extent_p50_kib = NAN };
	if (root < 0)
		return diag_fail(d, DIAG_SYSTEM, errno, "cannot open %s", mnt);
	if (fstat(root, &st) || fstatvfs(root, &sv)) {
		rc = diag_fail(d, DIAG_SYSTEM, errno, "cannot stat %s", mnt);
		close(root);
		return rc;
	}
	/* what is written reaches the device: the maps, and the tools,
	 * which read the device, see it */
	syncfs(root);
	if (sv.f_blocks)
		out->fill_pct = (double)(sv.f_blocks - sv.f_bfree) /
				(double)sv.f_blocks * 100;
	w.dev = st.st_dev;
	w.bsize = sv.f_frsize ? sv.f_frsize : sv.f_bsize;
	w.bsize += !w.bsize;
	rc = measure_files(&w, root, &sv, out);
	if (!rc)
		rc = measure_free(root, dev, fstype ? fstype : "", w.bsize,
				  out, d);
	free(w.fm);
	free(w.ext);
	close(root);
	return rc;
}
