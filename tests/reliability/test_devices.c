/* test_devices: no mkfs or mount option, second run or full workdir can reach a device but the run's own target — the campaign's device cases. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../e2e.h"

static char victim[64], mnt[300];

/* A loop device over an image of ours, by losetup (util-linux); the
 * image carries a pattern at its start and at 100 MiB, sparse between. */
static void attach(char *dev, const char *name, int mb)
{
	char cmd[1024];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "cd %s && truncate -s %dM %s && "
		 "yes fsplan-victim | head -c 1048576 | dd of=%s conv=notrunc "
		 "status=none && yes fsplan-victim | head -c 1048576 | "
		 "dd of=%s bs=1M seek=100 conv=notrunc status=none && "
		 "losetup -f --show %s", e2e_tmpdir(), mb, name, name, name,
		 name);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(dev, 64, f), "losetup failed");
	pclose(f);
	dev[strcspn(dev, "\n")] = '\0';
}

static void detach(char *dev)
{
	char cmd[128];

	if (!dev[0])
		return;
	snprintf(cmd, sizeof(cmd), "losetup -d %s", dev);
	if (system(cmd))
		fprintf(stderr, "could not detach %s\n", dev);
	dev[0] = '\0';
}

static void setup(void)
{
	e2e_require_root();
	attach(victim, "victim.img", 256);
}

static void teardown(void)
{
	if (mnt[0]) {
		umount2(mnt, MNT_DETACH);
		mnt[0] = '\0';
	}
	detach(victim);
	e2e_cleanup();
}

/*
 * The plan (body after "fsplan: 1"; %s is the victim's path) refused by
 * check and by run, both exit 2 with at (the place and the word) in the
 * message, and the victim byte for byte as before. def: a -D, or NULL.
 */
static void refused(const char *body, const char *path, const char *def,
		    const char *at)
{
	char text[2048], before[65], after[65], rd[300];
	const char *plan;
	int rc;

	snprintf(text, sizeof(text), "fsplan: 1\n");
	snprintf(text + strlen(text), sizeof(text) - strlen(text), body, path,
		 path);
	plan = e2e_write(e2e_tmpdir(), "plan.yaml", text);
	snprintf(rd, sizeof(rd), "%s/run", e2e_tmpdir());
	e2e_digest(victim, before);
	rc = e2e_fsplan(def ? (const char *[]){ "check", plan, "-D", def,
						NULL }
			    : (const char *[]){ "check", plan, NULL });
	cr_expect_eq(rc, 2, "check: exit %d, expected 2: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, at) &&
		  strstr(e2e_err, "OPTIONS THAT NAME A DEVICE"),
		  "check: '%s' not in: %s", at, e2e_err);
	rc = e2e_fsplan(def ? (const char *[]){ "run", plan, "-o", rd, "-q",
						"-D", def, NULL }
			    : (const char *[]){ "run", plan, "-o", rd, "-q",
						NULL });
	cr_expect_eq(rc, 2, "run: exit %d, expected 2: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, at), "run: '%s' not in: %s", at, e2e_err);
	e2e_digest(victim, after);
	cr_expect_str_eq(after, before, "the victim %s was written", victim);
	cr_expect(access(rd, F_OK), "a refused run left %s", rd);
	cr_expect_eq(e2e_loops_under(e2e_tmpdir()), 1, "only the victim is "
		     "attached");
}

Test(devices, a_btrfs_extra_device_in_mkfs_is_refused, .init = setup,
     .fini = teardown, .timeout = 120)
{
	char at[256];

	snprintf(at, sizeof(at), "plan.yaml:4:15: mkfs option '%s' is a path "
		 "under /dev", victim);
	refused("filesystems:\n"
		"  - type: btrfs\n"
		"    mkfs: \"-f %s\"\n"
		"phases: [{name: t, exec: 'true'}]\n", victim, NULL, at);
}

Test(devices, an_xfs_external_log_is_refused, .init = setup,
     .fini = teardown, .timeout = 120)
{
	char at[256];

	snprintf(at, sizeof(at), "plan.yaml:4:17: mkfs option 'logdev=%s' "
		 "names a device of its own (logdev=)", victim);
	refused("filesystems:\n"
		"  - type: xfs\n"
		"    mkfs: -f -l logdev=%s,size=64m\n"
		"    mount: logdev=%s\n"
		"phases: [{name: t, exec: 'true'}]\n", victim, NULL, at);
	/* the mount option alone too */
	snprintf(at, sizeof(at), "plan.yaml:4:22: mount option 'logdev=%s' "
		 "names a device of its own (logdev=)", victim);
	refused("filesystems:\n"
		"  - type: xfs\n"
		"    mount: [noatime, logdev=%s]\n"
		"phases: [{name: t, exec: 'true'}]\n", victim, NULL, at);
}

Test(devices, an_ext4_external_journal_is_refused, .init = setup,
     .fini = teardown, .timeout = 120)
{
	char at[256];

	snprintf(at, sizeof(at), "plan.yaml:4:15: mkfs option 'device=%s' "
		 "names a device of its own (device=)", victim);
	refused("filesystems:\n"
		"  - type: ext4\n"
		"    mkfs: \"-J device=%s\"\n"
		"phases: [{name: t, exec: 'true'}]\n", victim, NULL, at);
	snprintf(at, sizeof(at), "plan.yaml:4:12: mount option "
		 "'journal_path=%s' names a device of its own", victim);
	refused("filesystems:\n"
		"  - type: ext4\n"
		"    mount: journal_path=%s\n"
		"phases: [{name: t, exec: 'true'}]\n", victim, NULL, at);
}

/* What ${...} makes is refused at the options' place: an axis value, a
 * -D, a symlink to the victim and a path relative to the directory
 * fsplan runs in (the tests' own) lead to it as well. */
Test(devices, a_device_made_by_an_axis_or_a_define_is_refused,
     .init = setup, .fini = teardown, .timeout = 120)
{
	char at[1024], def[256], link[300], rel[128];

	snprintf(at, sizeof(at), "plan.yaml:5:11: mkfs option '%s' (in "
		 "'-f %s', as ${...} expanded) is a path under /dev", victim,
		 victim);
	refused("matrix: {dev: [\"%s\"]}\n"
		"filesystems:\n"
		"  - type: btrfs\n"
		"    mkfs: \"-f ${dev}\"\n"
		"phases: [{name: t, exec: 'true'}]\n", victim, NULL, at);
	snprintf(def, sizeof(def), "extra=%s", victim);
	snprintf(at, sizeof(at), "plan.yaml:5:11: mkfs option '%s' (in "
		 "'-f %s', as ${...} expanded)", victim, victim);
	refused("params: {extra: ''}\n"
		"filesystems:\n"
		"  - type: btrfs\n"
		"    mkfs: \"-f ${extra}\"\n"
		"phases: [{name: t, exec: 'true'}]\n", victim, def, at);
	snprintf(link, sizeof(link), "%s/alias", e2e_tmpdir());
	cr_assert_eq(symlink(victim, link), 0);
	snprintf(at, sizeof(at), "mkfs option '%s' is the block device %s",
		 link, victim);
	refused("filesystems:\n"
		"  - type: btrfs\n"
		"    mkfs: \"-f %s\"\n"
		"phases: [{name: t, exec: 'true'}]\n", link, NULL, at);
	snprintf(rel, sizeof(rel), "../../../../../../../..%s", victim);
	snprintf(def, sizeof(def), "extra=%s", rel);
	snprintf(at, sizeof(at), "mkfs option '%s' (in '-f %s', as ${...} "
		 "expanded) is the block device %s", rel, rel, victim);
	refused("params: {extra: ''}\n"
		"filesystems:\n"
		"  - type: btrfs\n"
		"    mkfs: \"-f ${extra}\"\n"
		"phases: [{name: t, exec: 'true'}]\n", victim, def, at);
}
