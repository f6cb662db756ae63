/* resolve: a loaded plan checked against this machine — its users, kernel and
 * files. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host/fs.h"
#include "host/privdrop.h"
#include "phase/libsrc.h"
#include "plan/field.h"
#include "plan/secage.h"
#include "run/phfiles.h"
#include "run/resolve.h"
#include "util/strbuf.h"

static int is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* Phases chdir to their work directory and read inputs beside the plan. */
static int absolute_dir(struct plan *p, struct diag *d)
{
	char *abs = realpath(p->dir, NULL);

	if (!abs) {
		if (errno == ENOMEM)
			return diag_set(d, p->file, NULL, (struct pos){ 0, 0 },
					"out of memory");
		return 0;	/* text given without a file: as written */
	}
	free(p->dir);
	p->dir = abs;
	return 0;
}

/* The one lookup of the user, privdrop's, with the place runas: is at. */
static int runas(const struct plan *p, struct diag *d)
{
	struct runas who;
	char msg[sizeof(d->msg)];

	if (!privdrop_resolve(p->runas, &who, d))
		return 0;
	snprintf(msg, sizeof(msg), "%s", d->msg);
	return diag_set(d, p->file, p->text, p->runas_pos, "%s", msg);
}

/* A type the kernel lists as nodev has no device: no mkfs for it. */
static int kernel_nodev(const struct plan *p, struct plan_fs *fs,
			struct diag *d)
{
	int nodev = 0;

	if (fs->nodev || !fs_kernel_has(fs->type.s, &nodev) || !nodev)
		return 0;
	fs->nodev = 1;
	if (fs->mkfs_pos.line)
		return diag_set(d, p->file, p->text, fs->mkfs_pos,
				PLAN_NODEV_MKFS, fs->type.s);
	for (int i = 0; i < fs->n_age; i++)
		if (fs->age[i].fill > 0)
			return diag_set(d, p->file, p->text, fs->age[i].pos,
					SECAGE_NODEV, fs->type.s);
	return 0;
}

/* An entry that ages on target.volumes: which volume would it age? */
static int aged_volumes(const struct plan *p, const struct plan_fs *fs,
			struct diag *d)
{
	for (int i = 0; p->target.n_volumes && i < fs->n_age; i++)
		if (fs->age[i].fill > 0)
			return diag_set(d, p->file, p->text, fs->age[i].pos,
					"age: with target.volumes is not "
					"supported yet: age a plan of one "
					"filesystem");
	return 0;
}

/* `use: NAME` is lua/NAME.lua; a path ending in .lua is plan-relative. */
static int module(const struct plan *p, struct plan_phase *ph,
		  struct diag *d)
{
	const char *u = ph->use.s, *lib = libsrc_dir();
	const char *slash = strrchr(p->file, '/');
	size_t len = strlen(u);
	char path[PATH_MAX];

	if (len > 4 && !strcmp(u + len - 4, ".lua")) {
		if (u[0] == '/' || !slash)
			snprintf(path, sizeof(path), "%s", u);
		else
			snprintf(path, sizeof(path), "%.*s/%s",
				 (int)(slash - p->file), p->file, u);
		if (!is_file(path))
			return diag_set(d, p->file, p->text, ph->use.pos,
					"phase module '%s' not found (looked "
					"for %s)", u, path);
	} else {
		snprintf(path, sizeof(path), "%s/%s.lua", lib, u);
		if (!is_file(path))
			return diag_set(d, p->file, p->text, ph->use.pos,
					"no phase module '%s' in the library "
					"(%s)", u, lib);
	}
	/* absolute: the phase child runs in the work directory */
	free(ph->module_path);
	ph->module_path = realpath(path, NULL);
	if (!ph->module_path)
		return diag_set(d, p->file, p->text, ph->use.pos,
				"phase module '%s': %s", u, strerror(errno));
	return 0;
}

static int parser(const struct plan *p, const struct plan_phase *ph,
		  struct diag *d)
{
	const char *lib = libsrc_dir();
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/parse/%s.lua", lib, ph->parse.s);
	if (!is_file(path))
		return diag_set(d, p->file, p->text, ph->parse.pos,
				"no parser '%s' in the library (%s/parse)",
				ph->parse.s, lib);
	return 0;
}

int resolve_plan(struct plan *p, struct diag *d)
{
	if (absolute_dir(p, d) || runas(p, d) || phfiles_check(p, d))
		return -1;
	for (int i = 0; i < p->n_fs; i++)
		if (kernel_nodev(p, &p->fs[i], d) ||
		    aged_volumes(p, &p->fs[i], d))
			return -1;
	for (int i = 0; i < p->n_phases; i++) {
		struct plan_phase *ph = &p->phases[i];

		if ((ph->use.s && module(p, ph, d)) ||
		    (ph->parse.s && parser(p, ph, d)))
			return -1;
	}
	return 0;
}

/* One config's mkfs (m 0) or mount options, as expanded, against
 * fs_device_word: refused at the options' place in the plan, at the
 * word itself when the text is as written. */
static int conf_devices(const struct plan *p, const struct fsconf *fc,
			int m, struct diag *d)
{
	const struct pstr *raw = m ? &fc->fs->mount[fc->mount_alt]
				   : &fc->fs->mkfs[fc->mkfs_alt];
	const char *opts = m ? fc->mount : fc->mkfs;
	struct strbuf note = { 0 };
	struct pos at = raw->pos;
	struct devword w;
	int rc = fs_device_word(opts, m, &w);

	if (rc <= 0)
		return rc ? diag_set(d, p->file, NULL, (struct pos){ 0, 0 },
				     "out of memory") : 0;
	if (raw->s && !strcmp(raw->s, opts))
		at = field_offset_pos(raw, w.off);
	else if (strbuf_str(&note, " (in '") || strbuf_str(&note, opts) ||
		 strbuf_str(&note, "', as ${...} expanded)"))
		note.oom = 1;	/* the message goes without it */
	diag_set(d, p->file, p->text, at, DEVWORD_REFUSED, m ? "mount" : "mkfs",
		 w.word, note.p && !note.oom ? note.p : "", w.why.msg);
	free(note.p);
	devword_free(&w);
	return -1;
}

int resolve_devices(const struct expansion *e, struct diag *d)
{
	for (int i = 0; i < e->n_confs; i++)
		for (int m = 0; m < 2; m++)
			if (conf_devices(e->plan, &e->confs[i], m, d))
				return -1;
	return 0;
}
