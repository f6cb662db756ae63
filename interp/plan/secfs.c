/* secfs: the plan's target and filesystems sections. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "plan/field.h"
#include "plan/optcheck.h"
#include "plan/secage.h"
#include "plan/secfactors.h"
#include "plan/secfs.h"
#include "util/units.h"

/* ---- target ---- */

static int h_image(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_target *t = obj;
	struct pstr ps;
	int rc = 0;

	if (field_pstr_params(L, n, "image", &ps))
		return -1;
	if (units_size(ps.s, &t->image_bytes))
		rc = field_error(L, ps.pos, "'image' is not a size (e.g. 512M, "
				 "4G, 1T): '%s'", ps.s);
	else if (t->image_bytes < (UINT64_C(16) << 20))
		rc = field_error(L, ps.pos, "'image' of %s is too small for "
				 "any filesystem (at least 16M)", ps.s);
	t->kind = TARGET_IMAGE;
	free(ps.s);
	return rc;
}

static int abs_path(struct loader *L, yaml_node_t *n, const char *key,
		    char **out)
{
	struct pstr ps;

	if (field_pstr_params(L, n, key, &ps))
		return -1;
	*out = ps.s;
	if (ps.s[0] != '/')
		return field_error(L, ps.pos, "'%s' must be an absolute path, "
				   "not '%s'", key, ps.s);
	return 0;
}

static int h_device(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_target *t = obj;

	t->kind = TARGET_DEVICE;
	return abs_path(L, n, "device", &t->device);
}

static int h_dir(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_target *t = obj;

	t->kind = TARGET_DIR;
	return abs_path(L, n, "dir", &t->dir);
}

static int h_wipe(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_target *t = obj;
	struct pstr ps;
	int rc = 0;

	if (field_pstr_params(L, n, "wipe", &ps))
		return -1;
	if (units_bool(ps.s, &t->wipe))
		rc = field_error(L, ps.pos, "'wipe' is true or false, not '%s'",
				 ps.s);
	else if (t->kind != TARGET_DEVICE)
		rc = field_error(L, ps.pos, "'wipe' applies only to a "
				 "target.device");
	free(ps.s);
	return rc;
}

/* volumes: names that become directories in the work directory, so
 * each is a plain lower-case identifier. One device cannot be several
 * filesystems, and a directory has nothing to make: images only. */
static int h_volumes(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_target *t = obj;

	if (n->type != YAML_SEQUENCE_NODE)
		return field_error(L, ydoc_pos(n), "'volumes' is a list of "
				   "names, e.g. [source, target]");
	if (field_list(L, n, "volumes", &t->volumes, &t->n_volumes, 1, NULL,
		       0))
		return -1;
	if (t->n_volumes > PLAN_MAX_VOLUMES)
		return field_error(L, t->volumes[PLAN_MAX_VOLUMES].pos,
				   "'volumes' lists more than %d names",
				   PLAN_MAX_VOLUMES);
	for (int i = 0; i < t->n_volumes; i++) {
		const struct pstr *v = &t->volumes[i];
		const char *c = v->s;

		if (!islower((unsigned char)*c))
			goto bad;
		while (*++c)
			if (!islower((unsigned char)*c) &&
			    !isdigit((unsigned char)*c) && *c != '_')
				goto bad;
		if (strlen(v->s) > 32)
			return field_error(L, v->pos, "volume name '%s' is "
					   "longer than 32 characters", v->s);
		continue;
bad:
		return field_error(L, field_offset_pos(v, c - v->s), "'%s' is "
				   "not a volume name: use [a-z][a-z0-9_]*",
				   v->s);
	}
	if (t->kind == TARGET_DEVICE)
		return field_error(L, ydoc_pos(n), "'volumes' needs one "
				   "device per volume, and target.device "
				   "names one: use image (volumes on devices "
				   "are not supported)");
	if (t->kind == TARGET_DIR)
		return field_error(L, ydoc_pos(n), "'volumes' makes and "
				   "mounts filesystems, and target.dir has "
				   "none to make: use image");
	return 0;
}

static const struct field target_fields[] = {
	{ "image", h_image, 0 },
	{ "device", h_device, 0 },
	{ "dir", h_dir, 0 },
	{ "wipe", h_wipe, 0 },	/* after device: it checks the kind */
	{ "volumes", h_volumes, 0 },	/* after the kind too */
	{ NULL, NULL, 0 }
};

int secfs_target(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan *p = obj;
	const char *first = NULL;

	p->target.pos = ydoc_pos(n);
	if (n->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *pr = n->data.mapping.pairs.start;
		     pr < n->data.mapping.pairs.top; pr++) {
			yaml_node_t *k = ydoc_node(&L->y, pr->key);
			const char *key = ydoc_scalar(k);

			if (strcmp(key, "image") && strcmp(key, "device") &&
			    strcmp(key, "dir"))
				continue;
			if (first)
				return field_error(L, ydoc_pos(k), "target "
						   "has both '%s' and '%s': "
						   "choose one", first, key);
			first = key;
		}
	}
	return field_mapping(L, n, target_fields, &p->target, "target");
}

/* ---- filesystems ---- */

/* What the name alone says; resolve_plan asks /proc/filesystems too. */
static int nodev_type(const char *type)
{
	return !strcmp(type, "tmpfs") || !strcmp(type, "ramfs") ||
	       !strncmp(type, "fuse.", 5);
}

static int h_fs_type(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_fs *fs = obj;

	if (field_pstr_params(L, n, "type", &fs->type))
		return -1;
	if (!fs->type.s[0])
		return field_error(L, fs->type.pos, "'type' is empty");
	for (const char *c = fs->type.s; *c; c++)
		if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) &&
		    !strchr("_.+-", *c))
			return field_error(L, field_offset_pos(&fs->type,
					   c - fs->type.s),
					   "'%s' is not a filesystem type name",
					   fs->type.s);
	fs->nodev = nodev_type(fs->type.s);
	return 0;
}

static int h_fs_label(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_fs *fs = obj;

	if (field_pstr(L, n, "label", &fs->label) ||
	    field_check_refs(L, &fs->label, NULL, 1))
		return -1;
	if (!fs->label.s[0])
		return field_error(L, fs->label.pos, "'label' is empty");
	for (int i = 0; i < L->p->n_fs; i++) {
		const struct pstr *o = &L->p->fs[i].label;

		if (o->s && !strcmp(o->s, fs->label.s))
			return field_error(L, fs->label.pos, "duplicate label "
					   "'%s' (first at line %d)", o->s,
					   o->pos.line);
	}
	return 0;
}

static int h_fs_mkfs(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_fs *fs = obj;

	fs->mkfs_pos = ydoc_pos(n);
	if (fs->nodev)
		return field_error(L, fs->mkfs_pos, PLAN_NODEV_MKFS,
				   fs->type.s);
	if (field_list(L, n, "mkfs", &fs->mkfs, &fs->n_mkfs, 0, NULL, 1))
		return -1;
	return optcheck_devices(L, "mkfs", fs->mkfs, fs->n_mkfs);
}

static int h_fs_mount(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_fs *fs = obj;

	if (field_list(L, n, "mount", &fs->mount, &fs->n_mount, 0, NULL, 1))
		return -1;
	return optcheck_devices(L, "mount", fs->mount, fs->n_mount);
}

static int hook(struct loader *L, yaml_node_t *n, const char *key,
		struct pstr *out)
{
	if (field_pstr(L, n, key, out) || field_check_refs(L, out, NULL, 1))
		return -1;
	if (!out->s[0])
		return field_error(L, out->pos, "'%s' is empty", key);
	return 0;
}

static int h_fs_setup(struct loader *L, yaml_node_t *n, void *obj)
{
	return hook(L, n, "setup", &((struct plan_fs *)obj)->setup);
}

static int h_fs_teardown(struct loader *L, yaml_node_t *n, void *obj)
{
	return hook(L, n, "teardown", &((struct plan_fs *)obj)->teardown);
}

static const struct field fs_fields[] = {
	{ "type", h_fs_type, 1 },	/* first: mkfs depends on it */
	{ "label", h_fs_label, 0 },
	{ "mkfs", h_fs_mkfs, 0 },
	{ "mount", h_fs_mount, 0 },
	{ "setup", h_fs_setup, 0 },
	{ "teardown", h_fs_teardown, 0 },
	{ "factors", secfactors_factors, 0 },	/* after type: nodev */
	{ "design", secfactors_design, 0 },
	{ "age", secage_fs, 0 },	/* after type: nodev */
	{ NULL, NULL, 0 }
};

/* A missing mkfs or mount is the one alternative "": defaults. */
static int default_alt(struct loader *L, struct pstr **v, int *n)
{
	if (*n)
		return 0;
	*v = calloc(1, sizeof(**v));
	if (!*v || !((*v)->s = field_strdup(L, "")))
		return field_error(L, (struct pos){ 0, 0 }, "out of memory");
	(*v)->col_shift = -1;
	*n = 1;
	return 0;
}

int secfs_filesystems(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan *p = obj;
	int cnt = field_seq_len(n);

	if (n->type != YAML_SEQUENCE_NODE)
		return field_error(L, ydoc_pos(n), "'filesystems' expects a "
				   "list of filesystems (- type: ext4 ...)");
	if (cnt == 0)
		return field_error(L, ydoc_pos(n), "'filesystems' is empty");
	if (p->target.kind == TARGET_DIR)
		return field_error(L, ydoc_pos(n), "target.dir runs in an "
				   "existing directory: leave out "
				   "'filesystems'");
	p->fs = calloc(cnt, sizeof(*p->fs));
	if (!p->fs)
		return field_error(L, ydoc_pos(n), "out of memory");
	for (int i = 0; i < cnt; i++) {
		yaml_node_t *it = ydoc_node(&L->y,
					    n->data.sequence.items.start[i]);
		struct plan_fs *fs = &p->fs[i];

		fs->pos = ydoc_pos(it);
		/* Label's duplicate check looks only at the entries before;
		 * on error this one is counted in so that it is freed. */
		p->n_fs = i;
		if (field_mapping(L, it, fs_fields, fs, "a filesystem")) {
			p->n_fs = i + 1;
			return -1;
		}
		p->n_fs = i + 1;
		if (default_alt(L, &fs->mkfs, &fs->n_mkfs) ||
		    default_alt(L, &fs->mount, &fs->n_mount) ||
		    secfactors_check(L, fs) || secage_take(L, fs))
			return -1;
	}
	return 0;
}

int secfs_dir_fs(struct loader *L)
{
	struct plan *p = L->p;

	p->fs = calloc(1, sizeof(*p->fs));
	if (!p->fs)
		return field_error(L, (struct pos){ 0, 0 }, "out of memory");
	p->n_fs = 1;
	p->fs[0].pos = p->target.pos;
	p->fs[0].nodev = 1;
	p->fs[0].type.s = field_strdup(L, "dir");
	if (!p->fs[0].type.s)
		return -1;
	return default_alt(L, &p->fs[0].mkfs, &p->fs[0].n_mkfs) ||
	       default_alt(L, &p->fs[0].mount, &p->fs[0].n_mount) ||
	       secage_take(L, &p->fs[0]);
}
