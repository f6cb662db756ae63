/* agefree: a mounted filesystem's free space as extents, for agemeasure. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <linux/fsmap.h>

#include "host/agefree.h"
#include "host/mkfsinfo.h"
#include "results/stats.h"
#include "util/grow.h"

/* Records asked for by one GETFSMAP call. */
#define AGEFREE_BATCH 512
/* Ranges of a tool's histogram: e2freefrag's are powers of two of
 * bytes, xfs_db's of blocks; 64 of either is more than a device has. */
#define AGEFREE_RANGES 64

/* The median of the n sorted sizes (bytes) in KiB; NAN for none. */
static double median_kib(const double *v, size_t n)
{
	if (!n)
		return NAN;
	if (n % 2)
		return v[n / 2] / 1024;
	return (v[n / 2 - 1] + v[n / 2]) / 2 / 1024;
}

/* Add the free records of h to *v (n of cap). 0, or -ENOMEM. */
static int take_free(const struct fsmap_head *h, double **v, size_t *n,
		     size_t *cap)
{
	for (unsigned int i = 0; i < h->fmh_entries; i++) {
		const struct fsmap *r = &h->fmh_recs[i];
		double *g;

		if (!(r->fmr_flags & FMR_OF_SPECIAL_OWNER) ||
		    r->fmr_owner != FMR_OWN_FREE || !r->fmr_length)
			continue;
		if (!(g = grow_array(*v, cap, *n + 1, sizeof(**v), 1024)))
			return -ENOMEM;
		*v = g;
		(*v)[(*n)++] = (double)r->fmr_length;
	}
	return 0;
}

int agefree_getfsmap(int fd, struct agefree *out)
{
	struct fsmap_head *h = calloc(1, fsmap_sizeof(AGEFREE_BATCH));
	double *v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!h)
		return -ENOMEM;
	/* the high key: everything, on every device of the filesystem */
	h->fmh_keys[1].fmr_device = UINT32_MAX;
	h->fmh_keys[1].fmr_physical = UINT64_MAX;
	h->fmh_keys[1].fmr_owner = UINT64_MAX;
	h->fmh_keys[1].fmr_offset = UINT64_MAX;
	h->fmh_keys[1].fmr_flags = UINT32_MAX;
	h->fmh_count = AGEFREE_BATCH;
	for (;;) {
		if (ioctl(fd, FS_IOC_GETFSMAP, h)) {
			rc = -errno;
			break;
		}
		if (!h->fmh_entries)
			break;
		if ((rc = take_free(h, &v, &n, &cap)))
			break;
		if (h->fmh_recs[h->fmh_entries - 1].fmr_flags & FMR_OF_LAST)
			break;
		fsmap_advance(h);
	}
	if (!rc) {
		qsort(v, n, sizeof(*v), stats_cmp_double);
		out->extents = (double)n;
		out->p50_kib = median_kib(v, n);
	}
	free(v);
	free(h);
	return rc;
}

/* A tool's histogram: per range, its extents and their bytes. */
struct ranges {
	double count[AGEFREE_RANGES], bytes[AGEFREE_RANGES];
	size_t n;
};

/* The size of the k-th smallest extent (from 0): its range's mean. */
static double kth(const struct ranges *h, double k)
{
	double below = 0;

	for (size_t i = 0; i < h->n; i++) {
		if (k < below + h->count[i])
			return h->bytes[i] / h->count[i];
		below += h->count[i];
	}
	return NAN;
}

/* The count and median of the ranges (ascending) into out. */
static void ranges_out(const struct ranges *h, struct agefree *out)
{
	double total = 0;

	for (size_t i = 0; i < h->n; i++)
		total += h->count[i];
	out->extents = total;
	if (!total) {
		out->p50_kib = NAN;
		return;
	}
	out->p50_kib = (kth(h, floor((total - 1) / 2)) +
			kth(h, ceil((total - 1) / 2))) / 2 / 1024;
}

/* What follows key on the first line that starts with it (after
 * blanks), or NULL. */
static const char *at_line(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *s = text; s; s = strchr(s, '\n')) {
		if (*s == '\n')
			s++;
		s += strspn(s, " \t");
		if (!strncmp(s, key, n))
			return s + n;
	}
	return NULL;
}

/* The line after the one s is on, or NULL. */
static const char *next_line(const char *s)
{
	s = strchr(s, '\n');
	return s ? s + 1 : NULL;
}

/* Up to max numbers at the start of s (blanks between), into v: how
 * many, stopping at the first word that is not one. */
static int numbers(const char *s, double *v, int max)
{
	int k = 0;

	while (k < max) {
		char *end;

		s += strspn(s, " \t");
		if (*s < '0' || *s > '9')
			break;
		v[k] = strtod(s, &end);
		if (end == s || (*end && !strchr(" \t\n", *end)))
			break;
		k++;
		s = end;
	}
	return k;
}

/*
 * e2freefrag prints
 *	Blocksize: 4096 bytes
 *	...
 *	HISTOGRAM OF FREE EXTENT SIZES:
 *	Extent Size Range :  Free extents   Free Blocks  Percent
 *	    4K...    8K-  :            12            12    0.01%
 */
int agefree_e2freefrag(const char *text, struct agefree *out)
{
	const char *bs = at_line(text, "Blocksize:");
	const char *s = at_line(text, "HISTOGRAM OF FREE EXTENT SIZES:");
	struct ranges h = { .n = 0 };
	double bsize = bs ? strtod(bs, NULL) : 0, v[2];

	if (!s || !(bsize > 0) || !(s = next_line(s)))
		return -1;
	/* past the column heads, a row a range, up to the first that is
	 * not one */
	for (s = next_line(s); s && *s; s = next_line(s)) {
		const char *colon = strchr(s, ':'), *eol = strchr(s, '\n');

		if (!colon || (eol && colon > eol) ||
		    numbers(colon + 1, v, 2) != 2)
			break;
		if (h.n == AGEFREE_RANGES)
			return -1;
		if (v[0] > 0) {
			h.count[h.n] = v[0];
			h.bytes[h.n++] = v[1] * bsize;
		}
	}
	ranges_out(&h, out);
	return 0;
}

/*
 * xfs_db -r -c 'freesp -s' prints
 *	   from      to extents  blocks    pct
 *	      1       1      16      16   0.02
 *	   2048    4095       1    4086   6.24
 *	total free extents 21
 */
int agefree_xfs_db(const char *text, uint64_t bsize, struct agefree *out)
{
	const char *s = at_line(text, "from");
	struct ranges h = { .n = 0 };
	double v[5], fl = 0;

	if (!s || !bsize || !at_line(text, "total free extents"))
		return -1;
	for (const char *c = text; (c = at_line(c, "flcount = "));)
		fl += strtod(c, NULL);
	for (s = next_line(s); s && *s; s = next_line(s)) {
		if (numbers(s, v, 5) != 5)
			break;
		if (h.n == AGEFREE_RANGES)
			return -1;
		/* the free lists' blocks, in the range of one block */
		if (v[0] == 1 && fl > 0) {
			double take = fmin(fl, v[2]);

			v[2] -= take;
			v[3] -= take;
			fl -= take;
		}
		if (v[2] > 0) {
			h.count[h.n] = v[2];
			h.bytes[h.n++] = v[3] * (double)bsize;
		}
	}
	ranges_out(&h, out);
	return 0;
}

/* xfs_db's freesp, and the free list's length of each of the agcount
 * allocation groups (mkfsinfo reads it); malloc'd, or NULL. */
static char *xfs_freesp(const char *dev)
{
	struct diag d = { 0 };
	json_t *info = NULL;
	long long ags = 0;
	const char **argv = NULL;
	char (*agf)[32] = NULL, *text = NULL;
	size_t k = 0;

	if (!mkfsinfo_read("xfs", dev, &info, &d))
		ags = json_integer_value(json_object_get(info, "agcount"));
	json_decref(info);
	if (ags <= 0 || ags > 1 << 20 ||
	    !(argv = calloc(4 * (size_t)ags + 6, sizeof(*argv))) ||
	    !(agf = calloc((size_t)ags, sizeof(*agf))))
		goto out;
	argv[k++] = "xfs_db";
	argv[k++] = "-r";
	argv[k++] = "-c";
	argv[k++] = "freesp -s";
	for (long long i = 0; i < ags; i++) {
		snprintf(agf[i], sizeof(agf[i]), "agf %lld", i);
		argv[k++] = "-c";
		argv[k++] = agf[i];
		argv[k++] = "-c";
		argv[k++] = "p flcount";
	}
	argv[k++] = dev;
	text = mkfsinfo_tool(argv, dev, &d);
out:
	diag_release(&d);
	free(argv);
	free(agf);
	return text;
}

int agefree_tool(int fd, const char *dev, const char *fstype,
		 uint64_t bsize, struct agefree *out, char how[16])
{
	const char *ext[] = { "e2freefrag", dev, NULL };
	int is_ext = !strcmp(fstype, "ext2") || !strcmp(fstype, "ext3") ||
		     !strcmp(fstype, "ext4");
	struct diag d = { 0 };
	char *text;
	int rc;

	if (!dev || !*dev || (!is_ext && strcmp(fstype, "xfs")))
		return -1;
	/*
	 * The tool reads the device, where the free space maps are only as
	 * new as the filesystem last wrote them back (a synced journal or
	 * log holds the rest: xfs_db saw a just-mounted xfs as mkfs left
	 * it). A freeze writes them all back; the thaw follows at once, so
	 * no writer waits on it. Nothing else changes on the device.
	 */
	if (!ioctl(fd, FIFREEZE, 0))
		ioctl(fd, FITHAW, 0);
	text = is_ext ? mkfsinfo_tool(ext, dev, &d) : xfs_freesp(dev);
	diag_release(&d);
	if (!text)
		return -1;
	rc = is_ext ? agefree_e2freefrag(text, out)
		    : agefree_xfs_db(text, bsize, out);
	free(text);
	if (!rc)
		snprintf(how, 16, "%s", is_ext ? "e2freefrag" : "xfs_db");
	return rc;
}
