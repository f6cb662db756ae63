/* probe: a plan's mkfs and mount words tried on a sparse image first. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/fs.h"
#include "host/probe.h"
#include "host/target.h"
#include "util/clock.h"
#include "util/mountopts.h"

#define MIB (1024ULL * 1024)

/* One (type, mkfs words) made on an image, and its mount sets tried. */
struct set {
	struct probe *p;
	int first;		/* the first config of the group */
	struct target_dev td;
	char mnt[PATH_MAX];
	char base[1024];	/* the options of a mount with none */
	double mkfs_ms;
};

/*
 * The image: the plan's size up to 512 MiB (full 0), or the plan's size
 * (full 1, for mkfs words such as a journal that a smaller one cannot
 * hold); 1 GiB for a device target; at least what the tool takes.
 * Sparse: it costs what mkfs writes. 512 MiB keeps the geometry of a
 * bigger filesystem (ext4 makes one below it with 1 KiB blocks) at a
 * third of the mkfs time of 1 GiB.
 */
static uint64_t image_size(const struct plan *pl, const char *type, int full)
{
	uint64_t b = pl->target.kind == TARGET_IMAGE ?
		     pl->target.image_bytes : 1024 * MIB;
	uint64_t min = !strcmp(type, "xfs") ? 300 * MIB :
		       !strcmp(type, "btrfs") ? 128 * MIB : 64 * MIB;

	if (!full && b > 512 * MIB)
		b = 512 * MIB;
	return b < min ? min : b;
}

static int wanted(const struct probe *p, int i)
{
	return (!p->want || p->want[i]) && !p->e->confs[i].fs->nodev;
}

static int same_mkfs(const struct fsconf *a, const struct fsconf *b)
{
	return !strcmp(a->fs->type.s, b->fs->type.s) &&
	       !strcmp(a->mkfs, b->mkfs);
}

static int same_set(const struct fsconf *a, const struct fsconf *b)
{
	return same_mkfs(a, b) && !strcmp(a->mount, b->mount);
}

/* Whether a word of cand (or its key, before '=') is named in msg. */
static int named_in(const char *cand, const char *msg, int mount)
{
	char buf[256];
	const char *s = cand;

	while (*s) {
		size_t n = mount ? strcspn(s, ",") : strcspn(s, " \t");
		size_t k = strcspn(s, "=");

		if (k > n)
			k = n;
		if (n && n < sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s", (int)n, s);
			if (strstr(msg, buf))
				return 1;
			snprintf(buf, sizeof(buf), "%.*s", (int)k, s);
			if (k > 2 && strstr(msg, buf))
				return 1;
		}
		s += n;
		s += strspn(s, mount ? "," : " \t");
	}
	return 0;
}

/* A candidate place: its words are the config's, and (named) msg names
 * one of them. */
static int fits(const struct pstr *c, const char *words, const char *msg,
		int mount)
{
	return c && c->s && *c->s && c->pos.line && strstr(words, c->s) &&
	       (!msg || named_in(c->s, msg, mount));
}

/* The k-th place fc's mkfs (mount 0) or mount words may come from: the
 * entry's alternative, then each factor's two levels (the one fc's
 * design row does not have fits nothing); NULL after the last. */
static const struct pstr *cand(const struct fsconf *fc, int mount, int k)
{
	static const struct pstr none;	/* no words: fits nothing */
	const struct plan_fs *fs = fc->fs;
	const struct plan_factor *f;

	if (k == 0) {
		int a = mount ? fc->mount_alt : fc->mkfs_alt;

		if (a < 0 || a >= (mount ? fs->n_mount : fs->n_mkfs))
			return &none;
		return mount ? &fs->mount[a] : &fs->mkfs[a];
	}
	if (--k >= 2 * fs->n_factors)
		return NULL;
	/* only the level this design row has */
	if (fc->levels && fc->levels[k / 2] != (k % 2 ? '+' : '-'))
		return &none;
	f = &fs->factors[k / 2];
	return mount ? &f->mount[k % 2] : &f->mkfs[k % 2];
}

/* Whether words alone are refused on the set's filesystem. */
static int refused_alone(struct set *s, const char *type, const char *words)
{
	struct diag d = { 0 };

	if (fs_mount(type, words, s->td.path, s->mnt, &d))
		return 1;
	if (fs_umount(s->mnt, &d))
		(void)umount2(s->mnt, MNT_DETACH);
	return 0;
}

/*
 * Where in the plan fc's mkfs (mount 0) or mount words were written: the
 * entry's alternative or a factor's level that msg (the kernel's or the
 * tool's words) names; else (s given, mount) the first whose words alone
 * the kernel refuses on s; else the first of the config's; else the
 * entry.
 */
static struct pos place(const struct fsconf *fc, int mount, const char *msg,
			struct set *s)
{
	const struct plan_fs *fs = fc->fs;
	const char *words = mount ? fc->mount : fc->mkfs;
	const struct pstr *c;

	for (int k = 0; msg && (c = cand(fc, mount, k)); k++)
		if (fits(c, words, msg, mount))
			return c->pos;
	for (int k = 0; s && mount && (c = cand(fc, mount, k)); k++)
		if (fits(c, words, NULL, mount) &&
		    refused_alone(s, fs->type.s, c->s))
			return c->pos;
	for (int k = 0; (c = cand(fc, mount, k)); k++)
		if (fits(c, words, NULL, mount))
			return c->pos;
	if (!mount && fs->mkfs_pos.line)
		return fs->mkfs_pos;
	return fs->type.pos.line ? fs->type.pos : fs->pos;
}

/* What says the same as another message: its place and msg (or text),
 * with loop device numbers left out (each image has its own), in out. */
static void same_key(struct strbuf *out, const struct diag *d,
		     const char *msg)
{
	strbuf_printf(out, "@%d:%d ", d->pos.line, d->pos.col);
	for (const char *m = msg; *m; m++)
		if (!(m[0] >= '0' && m[0] <= '9' && m > msg + 3 &&
		      !strncmp(m - 4, "loop", 4)))
			strbuf_add(out, m, 1);
		else
			while (m[1] >= '0' && m[1] <= '9')
				m++;
	strbuf_str(out, "\n");
}

static void say(struct probe *p, const struct fsconf *fc, int mount,
		const char *msg, struct set *s, int warning,
		const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* An error (warning 0) or a warning about fc's words at its place, once
 * for the same words at the same place (another row, another image). */
static void say(struct probe *p, const struct fsconf *fc, int mount,
		const char *msg, struct set *s, int warning,
		const char *fmt, ...)
{
	const struct plan *pl = p->e->plan;
	struct diag d = { 0 };
	struct strbuf b = { 0 }, key = { 0 };
	va_list ap;

	va_start(ap, fmt);
	strbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	diag_set(&d, pl->file, pl->text, place(fc, mount, msg, s), "%s%s",
		 warning ? "warning: " : "", b.oom ? "out of memory" : b.p);
	d.kind = DIAG_INPUT;
	same_key(&key, &d, msg ? msg : d.msg);
	if (p->say && !key.oom &&
	    !(p->said.p && strstr(p->said.p, key.p))) {
		p->say(p->ctx, &d, warning);
		strbuf_str(&p->said, key.p);
	}
	diag_release(&d);
	free(b.p);
	free(key.p);
}

/* /dev/kmsg read from its end on: the kernel's words for one mount. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		(void)lseek(fd, 0, SEEK_END);
	return fd;
}

/* Whether msg names a loop device other than name ("(loop3)", "device
 * loop3"): another run's line. */
static int other_loop(const char *msg, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = strstr(msg, "loop"); l; l = strstr(l + 4, "loop"))
		if (l[4] >= '0' && l[4] <= '9' &&
		    (strncmp(l, name, n) || (l[n] >= '0' && l[n] <= '9')))
			return 1;
	return 0;
}

/* The records since kmsg_open that name dev or type (but no other loop
 * device: another run's), joined by "; " into out. */
static void kmsg_read(int fd, const char *type, const char *dev,
		      struct strbuf *out)
{
	const char *name = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	int ext = !strncmp(type, "ext", 3);
	char rec[2048];
	ssize_t n;

	while (fd >= 0 && ((n = read(fd, rec, sizeof(rec) - 1)) > 0 ||
			   (n < 0 && errno == EPIPE))) {
		char *msg;

		if (n < 0)
			continue;	/* overwritten under us: go on */
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg++)
			continue;
		msg[strcspn(msg, "\n")] = '\0';
		if (other_loop(msg, name))
			continue;
		if (!strstr(msg, name) && !strcasestr(msg, type) &&
		    !(ext && strstr(msg, "EXT4-fs")))
			continue;
		strbuf_printf(out, "%s%s", out->len ? "; " : "", msg);
	}
	if (fd >= 0)
		close(fd);
}

/* "rw,relatime rw,data=journal" as one list, each word once. */
static void shown(const char *applied, struct strbuf *out)
{
	char *copy = strdup(applied), *save = NULL;

	for (char *w = copy ? strtok_r(copy, " ,", &save) : NULL; w;
	     w = strtok_r(NULL, " ,", &save)) {
		char *at = out->p ? strstr(out->p, w) : NULL;
		size_t n = strlen(w);

		while (at && !((at == out->p || at[-1] == ',') &&
			       (at[n] == ',' || !at[n])))
			at = strstr(at + 1, w);
		if (!at)
			strbuf_printf(out, "%s%s", out->len ? "," : "", w);
	}
	free(copy);
}

/* The kernel's options for config i, and what it changed, kept. */
static void judge(struct set *s, int i, const char *applied)
{
	struct probe *p = s->p;
	const struct fsconf *fc = &p->e->confs[i];
	struct strbuf ch = { 0 }, as = { 0 }, w = { 0 };

	p->applied[i] = strdup(applied);
	if (!mountopts_compare(fc->mount, applied, s->base, &ch) || ch.oom)
		goto out;
	shown(applied, &as);
	strbuf_printf(&w, "%s mounted %s as %s: %s", fc->fs->type.s,
		      fc->mount, as.oom ? applied : as.p, ch.p);
	if (w.oom)
		goto out;
	p->warning[i] = w.p;
	w.p = NULL;
	p->n_warned++;
	say(p, fc, 1, ch.p, NULL, 1, "%s", p->warning[i]);
out:
	free(ch.p);
	free(as.p);
	free(w.p);
}

/* Config i's mount words tried on the set's filesystem: "ok",
 * "changed" or "refused". */
static const char *try_mount(struct set *s, int i)
{
	struct probe *p = s->p;
	const struct fsconf *fc = &p->e->confs[i];
	struct strbuf kern = { 0 };
	struct diag md = { 0 };
	char applied[1024];
	int kfd = kmsg_open(), rc;

	rc = fs_mount(fc->fs->type.s, fc->mount, s->td.path, s->mnt, &md);
	kmsg_read(kfd, fc->fs->type.s, s->td.path, &kern);
	if (rc) {
		p->n_refused++;
		say(p, fc, 1, kern.len ? kern.p : md.msg, s, 0,
		    "%s refuses the mount options '%s': %s%s%s",
		    fc->fs->type.s, fc->mount, md.err ? strerror(md.err) :
		    md.msg, kern.len ? "; the kernel: " : "",
		    kern.len ? kern.p : "");
		free(kern.p);
		return "refused";
	}
	free(kern.p);
	if (fs_applied_options(s->mnt, applied, sizeof(applied)))
		applied[0] = '\0';
	if (fs_umount(s->mnt, &md))
		(void)umount2(s->mnt, MNT_DETACH);
	if (applied[0])
		judge(s, i, applied);
	return p->warning[i] ? "changed" : "ok";
}

/* The options of a mount with none, for what the kernel adds. */
static void base_mount(struct set *s)
{
	const char *type = s->p->e->confs[s->first].fs->type.s;
	struct diag d = { 0 };

	if (fs_mount(type, "", s->td.path, s->mnt, &d))
		return;
	if (fs_applied_options(s->mnt, s->base, sizeof(s->base)))
		s->base[0] = '\0';
	if (fs_umount(s->mnt, &d))
		(void)umount2(s->mnt, MNT_DETACH);
}

/* An image of bytes attached and mkfs run on it: 0, 1 refused (its
 * words in md), or -1 with d (no image, or stopped). */
static int mkfs_on(struct set *s, uint64_t bytes, struct diag *md,
		   struct diag *d)
{
	struct probe *p = s->p;
	const struct fsconf *fc = &p->e->confs[s->first];

	if (target_image_create(&s->td, p->dir, bytes, p->n_sets + 1, d))
		return -1;
	/* forced: a fresh image, but mke2fs asks about a small one */
	if (!fs_mkfs(fc->fs->type.s, fc->mkfs, s->td.path, 1, p->stop,
		     p->log_fd, md))
		return 0;
	if (p->stop && *p->stop)
		return diag_fail(d, DIAG_SYSTEM, 0, "stopped");
	return 1;
}

/* The group's image made and mkfs run, again on the plan's whole size
 * when a smaller image was refused: 0, 1 refused (said), or -1 with d. */
static int make(struct set *s, struct diag *d)
{
	struct probe *p = s->p;
	const struct fsconf *fc = &p->e->confs[s->first];
	const struct plan *pl = p->e->plan;
	uint64_t bytes = image_size(pl, fc->fs->type.s, 0);
	struct diag md = { 0 };
	double t = clock_now();
	int rc = mkfs_on(s, bytes, &md, d);

	if (rc > 0 && image_size(pl, fc->fs->type.s, 1) > bytes) {
		target_release(&s->td);
		diag_release(&md);
		rc = mkfs_on(s, image_size(pl, fc->fs->type.s, 1), &md, d);
	}
	if (rc > 0) {
		p->n_refused++;
		say(p, fc, 0, md.msg, NULL, 0, "%s", md.msg);
	}
	diag_release(&md);
	if (rc)
		return rc;
	s->mkfs_ms = (clock_now() - t) * 1e3;
	base_mount(s);
	return 0;
}

/* The timing line of config i's set (what NULL: of its mkfs refused). */
static void line(struct set *s, int i, const char *what, double ms)
{
	const struct fsconf *fc = &s->p->e->confs[i];
	char buf[1024];

	if (!s->p->line)
		return;
	if (what)
		snprintf(buf, sizeof(buf), "probe: %s mkfs '%s' mount '%s': "
			 "%s, mount %.1f ms (mkfs %.0f ms, once for its mount "
			 "sets)", fc->fs->type.s, fc->mkfs, fc->mount, what,
			 ms, s->mkfs_ms);
	else
		snprintf(buf, sizeof(buf), "probe: %s mkfs '%s': refused in "
			 "%.0f ms", fc->fs->type.s, fc->mkfs, ms);
	s->p->line(s->p->ctx, buf);
}

/* The configs of one (type, mkfs): made once, each mount set tried
 * once, the image let go. 0, or -1 with d. */
static int group(struct probe *p, int first, struct diag *d)
{
	struct set s = { .p = p, .first = first };
	double t0 = clock_now();
	int rc, sets = 0;

	s.td.fd = s.td.lock_fd = s.td.claim.fd = s.td.claim.disk_fd = -1;
	snprintf(s.mnt, sizeof(s.mnt), "%s/mnt", p->dir);
	if (mkdir(s.mnt, 0700) && errno != EEXIST)
		return diag_fail(d, DIAG_SYSTEM, errno, "%s", s.mnt);
	rc = make(&s, d);
	for (int i = first; rc >= 0 && i < p->e->n_confs; i++) {
		const struct fsconf *fc = &p->e->confs[i];
		const char *what;
		int k = first;
		double t;

		if (!wanted(p, i) || !same_mkfs(fc, &p->e->confs[first]))
			continue;
		while (k < i && !(wanted(p, k) &&
				  same_set(&p->e->confs[k], fc)))
			k++;
		if (k < i || rc) {	/* said once per set */
			p->applied[i] = p->applied[k] ?
					strdup(p->applied[k]) : NULL;
			p->warning[i] = p->warning[k] ?
					strdup(p->warning[k]) : NULL;
			continue;
		}
		if (p->stop && *p->stop) {
			rc = diag_fail(d, DIAG_SYSTEM, 0, "stopped");
			break;
		}
		p->n_sets++;
		sets++;
		t = clock_now();
		what = try_mount(&s, i);
		line(&s, i, what, (clock_now() - t) * 1e3);
	}
	if (rc > 0) {
		p->n_sets++;
		line(&s, first, NULL, (clock_now() - t0) * 1e3);
	}
	target_release(&s.td);
	rmdir(s.mnt);
	if (rc == 0 && p->line) {
		char buf[512];

		snprintf(buf, sizeof(buf), "probe: %s mkfs '%s': %d mount "
			 "set%s, %.0f ms in all (image, mkfs, mounts, release)",
			 p->e->confs[first].fs->type.s,
			 p->e->confs[first].mkfs, sets, sets == 1 ? "" : "s",
			 (clock_now() - t0) * 1e3);
		p->line(p->ctx, buf);
	}
	return rc < 0 ? -1 : 0;
}

int probe_run(struct probe *p, struct diag *d)
{
	const struct expansion *e = p->e;
	int n = e->n_confs > 0 ? e->n_confs : 1;

	p->n_refused = p->n_warned = p->n_sets = 0;
	p->applied = calloc((size_t)n, sizeof(*p->applied));
	p->warning = calloc((size_t)n, sizeof(*p->warning));
	if (!p->applied || !p->warning)
		return diag_fail(d, DIAG_SYSTEM, ENOMEM, "probe");
	if (e->plan->target.kind == TARGET_DIR)
		return 0;	/* nothing is made: a directory's own fs */
	target_clean_stale(p->dir);
	for (int i = 0; i < e->n_confs; i++) {
		struct diag na = { 0 };
		int k = 0;

		if (!wanted(p, i))
			continue;
		while (k < i && !(wanted(p, k) &&
				  same_mkfs(&e->confs[k], &e->confs[i])))
			k++;
		/* a type the host lacks: the run skips its configs */
		if (k == i && !fs_available(e->confs[i].fs->type.s, 0, &na) &&
		    group(p, i, d))
			return -1;
		diag_release(&na);
	}
	return 0;
}

void probe_free(struct probe *p)
{
	for (int i = 0; p->e && i < p->e->n_confs; i++) {
		if (p->applied)
			free(p->applied[i]);
		if (p->warning)
			free(p->warning[i]);
	}
	free(p->applied);
	free(p->warning);
	free(p->said.p);
	p->said.p = NULL;
	p->applied = p->warning = NULL;
}

int probe_private_ns(struct diag *d)
{
	if (unshare(CLONE_NEWNS))
		return diag_fail(d, DIAG_REFUSED, errno, "cannot make a "
				 "private mount namespace");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return diag_fail(d, DIAG_REFUSED, errno, "cannot make / "
				 "private in our namespace");
	return 0;
}
