/* test_plan: valid plans load with the values, defaults and types DESIGN.md
 * gives. */
#include <dirent.h>
#include <stdio.h>

#include "helpers.h"
#include "fsconfcmd.h"


Test(plan, defaults)
{
	struct expansion *e = expand_text(
		"fsplan: 1\n"
		"filesystems: [{type: ext4}]\n"
		"phases: [{exec: 'true'}]\n", NULL, 0);
	const struct plan *p = e->plan;

	cr_expect_str_eq(p->name, "t");
	cr_expect_eq(p->seed, 1);
	cr_expect_eq(p->repeat, 1);
	cr_expect_str_eq(p->runas, "nobody");
	cr_expect_eq(p->target.kind, TARGET_IMAGE);
	cr_expect_eq(p->target.image_bytes, 4ull << 30);
	cr_expect_eq(p->between.n, 2);
	cr_expect_eq(p->between.act[0], BETWEEN_SYNC);
	cr_expect_eq(p->between.act[1], BETWEEN_DROP_CACHES);
	cr_expect_eq(p->phases[0].timeout_s, 3600);
	cr_expect_eq(p->phases[0].repeat, 0);
	cr_expect_eq(p->phases[0].between.n, -1);
	cr_expect_str_eq(p->phases[0].name, "true");
	cr_expect_eq(e->n_cells, 1);
	cr_expect_str_eq(e->cells[0].id, "ext4/true#1");
	free_expanded(e);
}

Test(plan, every_key_with_units)
{
	struct expansion *e = expand_text(
		"fsplan: 1\n"
		"name: full-plan\n"
		"description: every key once\n"
		"params: {size: 64M, secs: 90s}\n"
		"seed: 42\n"
		"target: {image: 2G}\n"
		"runas: nobody\n"
		"repeat: 3\n"
		"between: remount\n"
		"filesystems:\n"
		"  - type: xfs\n"
		"    label: xfs-big\n"
		"    mkfs: -f -l size=32768b\n"
		"    mount: noatime,logbufs=8\n"
		"    setup: echo up\n"
		"    teardown: echo down\n"
		"phases:\n"
		"  - name: dd\n"
		"    exec: dd bs=${size}\n"
		"    timeout: ${secs}\n"
		"    repeat: 2\n"
		"    between: none\n"
		"  - use: tree\n"
		"    memory: 128M\n", NULL, 0);
	const struct plan *p = e->plan;
	const struct plan_phase *ph = &p->phases[0];

	cr_expect_str_eq(p->name, "full-plan");
	cr_expect_str_eq(p->description, "every key once");
	cr_expect_eq(p->seed, 42);
	cr_expect_eq(p->target.image_bytes, 2ull << 30);
	cr_expect_eq(p->repeat, 3);
	cr_expect_eq(p->between.n, 1);
	cr_expect_eq(p->between.act[0], BETWEEN_REMOUNT);
	cr_expect_str_eq(p->fs[0].label.s, "xfs-big");
	cr_expect_str_eq(e->confs[0].label, "xfs-big");
	cr_expect_str_eq(e->confs[0].setup, "echo up");
	cr_expect_str_eq(e->confs[0].teardown, "echo down");
	cr_expect_float_eq(ph->timeout_s, 90, 1e-9);
	cr_expect_eq(ph->repeat, 2);
	cr_expect_eq(ph->between.n, 0);
	cr_expect_eq(p->phases[1].memory, 128ull << 20);
	/* the phase's repeat wins over the plan's: 2 cells, then 3 */
	cr_expect_eq(e->n_cells, 5);
	free_expanded(e);
}

Test(plan, params_defines_and_escapes)
{
	static const char text[] =
		"fsplan: 1\n"
		"params: {size: 1G, twice: '${size}+${size}'}\n"
		"filesystems: [{type: ext4, mkfs: '-E size=${twice}'}]\n"
		"phases: [{exec: 'echo $HOME $${size} ${size}'}]\n";
	static const struct plan_define defs[] = { { "size", "8M" } };
	struct expansion *e = expand_text(text, NULL, 0);
	char *cmd;

	cr_expect_str_eq(plan_param(e->plan, "twice"), "1G+1G");
	cr_expect_str_eq(e->confs[0].mkfs, "-E size=1G+1G");
	cmd = cell_exec(e, &e->cells[0]);
	cr_expect_str_eq(cmd, "echo $HOME ${size} 1G");
	free(cmd);
	free_expanded(e);

	e = expand_text(text, defs, 1);
	cr_expect_str_eq(plan_param(e->plan, "twice"), "8M+8M");
	cr_expect_str_eq(e->confs[0].mkfs, "-E size=8M+8M");
	free_expanded(e);
}

Test(plan, target_dir_and_device)
{
	struct expansion *e = expand_text(
		"fsplan: 1\n"
		"target: {dir: /srv/scratch}\n"
		"phases: [{exec: 'true'}]\n", NULL, 0);
	cr_expect_eq(e->plan->target.kind, TARGET_DIR);
	cr_expect_str_eq(e->plan->target.dir, "/srv/scratch");
	cr_expect_str_eq(e->cells[0].id, "dir/true#1");
	cr_expect_str_eq(mkfs_of(e), "-");
	free_expanded(e);

	e = expand_text("fsplan: 1\n"
			"target: {device: /dev/disk/by-id/x, wipe: true}\n"
			"filesystems: [{type: ext4, mkfs: -b 4096}]\n"
			"phases: [{exec: 'true'}]\n", NULL, 0);
	cr_expect_eq(e->plan->target.kind, TARGET_DEVICE);
	cr_expect_eq(e->plan->target.wipe, 1);
	cr_expect_str_eq(mkfs_of(e),
			 "mkfs.ext4 -b 4096 /dev/disk/by-id/x");
	free_expanded(e);
}

Test(plan, nodev_types_take_no_mkfs)
{
	struct expansion *e = expand_text(
		"fsplan: 1\n"
		"filesystems: [{type: tmpfs, mount: size=2G}]\n"
		"phases: [{exec: 'true'}]\n", NULL, 0);
	cr_expect(e->plan->fs[0].nodev);
	cr_expect_str_eq(mount_of(e, "/mnt"),
			 "mount -t tmpfs -o size=2G tmpfs /mnt");
	free_expanded(e);
}

Test(plan, lua_module_path_is_plan_relative)
{
	struct plan *p = NULL;
	struct diag d = { 0 };

	cr_assert_eq(plan_load(&p, "fixtures/uses-module.yaml", NULL, 0, &d),
		     0, "%s", d.msg);
	cr_assert_eq(resolve_plan(p, &d), 0, "%s", d.msg);
	cr_expect_str_eq(p->phases[0].name, "noop");
	/* absolute: the phase child runs in its work directory */
	cr_expect(p->phases[0].module_path[0] == '/' &&
		  strstr(p->phases[0].module_path, "/tests/fixtures/noop.lua"),
		  "%s", p->phases[0].module_path);
	plan_free(p);
}

static void check_dir(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	int n = 0;

	cr_assert_not_null(dp, "cannot open %s", dir);
	while ((de = readdir(dp))) {
		char path[512];
		struct plan *p = NULL;
		struct expansion *e = NULL;
		struct diag d = { 0 };
		char msg[1400];
		size_t len = strlen(de->d_name);

		if (len < 6 || strcmp(de->d_name + len - 5, ".yaml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (plan_load(&p, path, NULL, 0, &d) ||
		    resolve_plan(p, &d) || expand_plan(p, &e, &d)) {
			diag_format(&d, msg, sizeof(msg));
			cr_expect_fail("%s", msg);
		}
		expansion_free(e);
		plan_free(p);
		n++;
	}
	closedir(dp);
	cr_expect_gt(n, 0, "no plans in %s", dir);
}

Test(plan, shipped_plans_and_examples_check)
{
	check_dir("../plans");
	check_dir("../examples");
}

/* order: rounds, with a fixed count or a stop rule; another word is
 * refused. */
Test(plan, order_rounds)
{
	struct expansion *e = expand_text(
		"fsplan: 1\n"
		"repeat: 2\n"
		"order: rounds\n"
		"filesystems: [{type: ext4}]\n"
		"phases: [{exec: 'true'}]\n", NULL, 0);

	cr_expect_eq(e->plan->rounds, 1);
	/* the same cells as order: configs; only the order they run in
	 * differs */
	cr_expect_eq(e->n_cells, 2);
	cr_expect_str_eq(e->cells[1].id, "ext4/true#2");
	free_expanded(e);
	expect_error("fsplan: 1\norder: random\n"
		     "filesystems: [{type: ext4}]\n"
		     "phases: [{exec: 'true'}]\n", 2, 8,
		     "order: 'configs' (each config's repetitions together) "
		     "or 'rounds'");
	/* a stop rule too: its cells have max repetitions, max rounds */
	e = expand_text("fsplan: 1\norder: rounds\n"
			"repeat: {min: 3, max: 10, ci: 5%}\n"
			"filesystems: [{type: ext4}]\n"
			"phases: [{exec: 'true'}]\n", NULL, 0);
	cr_expect_eq(e->n_cells, 10);
	cr_expect_eq(expansion_rounds(e), 10);
	free_expanded(e);
}
