/* test_devices: no mkfs or mount option, second run or full workdir can reach a
 * device but the run's own target — the campaign's device cases. */
#include <criterion/criterion.h>
#include <signal.h>
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

	/* an axis value holds no '/' (it is part of the cell ids) and a
	 * literal /dev is refused as written: the device's name from the
	 * axis, the rest from a parameter and the text around it */
	snprintf(at, sizeof(at), "plan.yaml:6:11: mkfs option '%s' (in "
		 "'-f %s', as ${...} expanded) is a path under /dev", victim,
		 victim);
	refused("matrix: {dev: [\"%s\"]}\n"
		"params: {pre: /de}\n"
		"filesystems:\n"
		"  - type: btrfs\n"
		"    mkfs: \"-f ${pre}v/${dev}\"\n"
		"phases: [{name: t, exec: 'true'}]\n",
		victim + strlen("/dev/"), NULL, at);
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

/* Wait up to s seconds for text to appear in the file at path. */
static int wait_for(const char *path, const char *text, int s)
{
	for (int i = 0; i < s * 10; i++) {
		if (strstr(e2e_read(path), text))
			return 1;
		usleep(100000);
	}
	return 0;
}

/* A run on the victim whose setup hook sleeps: between the guard and
 * mkfs nothing but the claim holds the device. */
static const char *claim_plan(const char *name, const char *dev,
			      const char *setup)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "fsplan: 1\n"
		 "target: {device: %s, wipe: true}\n"
		 "filesystems: [{type: ext4%s%s%s}]\n"
		 "phases: [{name: a, exec: 'sleep 1'},\n"
		 "         {name: b, exec: 'true'}]\n",
		 dev, setup ? ", setup: '" : "", setup ? setup : "",
		 setup ? "'" : "");
	return e2e_write(e2e_tmpdir(), name, text);
}

static pid_t start_claim(const char *rd)
{
	char log[400];
	pid_t pid;

	pid = e2e_fsplan_bg((const char *[]){ "run",
		claim_plan("plan.yaml", victim, "sleep 8"), "-o", rd, "-q",
		"--destroy", victim, NULL });
	snprintf(log, sizeof(log), "%s/log.txt", rd);
	cr_assert(wait_for(log, "setup: sleep 8", 90), "the first run did "
		  "not reach its setup hook: %s", e2e_read(log));
	return pid;
}

Test(devices, a_device_is_claimed_for_the_whole_run, .init = setup,
     .fini = teardown, .timeout = 240)
{
	char rd[300], rd2[300], link[300], want[600], cell[32];
	const char *alias;
	int status, rc;
	pid_t pid;

	snprintf(rd, sizeof(rd), "%s/run", e2e_tmpdir());
	snprintf(rd2, sizeof(rd2), "%s/run2", e2e_tmpdir());
	snprintf(link, sizeof(link), "%s/alias", e2e_tmpdir());
	cr_assert_eq(symlink(victim, link), 0);
	alias = claim_plan("alias.yaml", link, NULL);
	pid = start_claim(rd);
	snprintf(want, sizeof(want), "it is in use by fsplan run %s (pid %d)",
		 rd, (int)pid);
	/* by its own path, then by another; wipe: true changes nothing */
	rc = e2e_fsplan((const char *[]){ "run", claim_plan("second.yaml",
		victim, NULL), "-o", rd2, "-q", "--destroy", victim, NULL });
	cr_expect_eq(rc, 3, "exit %d, expected 3: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, want), "'%s' not in: %s", want, e2e_err);
	rc = e2e_fsplan((const char *[]){ "run", alias, "-o", rd2, "-q",
					   "--destroy", link, NULL });
	cr_expect_eq(rc, 3, "exit %d, expected 3: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, want), "'%s' not in: %s", want, e2e_err);
	cr_expect(access(rd2, F_OK), "a refused run left %s", rd2);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "the first run: status %#x: %s", status, e2e_failed(rd));
	for (int i = 0; i < 2; i++) {
		snprintf(cell, sizeof(cell), "ext4/%s#1", i ? "b" : "a");
		cr_expect_str_eq(e2e_metric(rd, cell, "status"), "ok", "%s",
				 cell);
	}
	/* the claim went with the run */
	rc = e2e_fsplan((const char *[]){ "run", alias, "-o", rd2, "-q",
					   "--destroy", link, NULL });
	cr_expect_eq(rc, 0, "exit %d after the first run ended: %s", rc,
		     e2e_err);
	cr_expect_eq(e2e_mounted_under(e2e_tmpdir()), 0);
}

/* A SIGKILL leaves no claim behind: the next run gets the device. */
Test(devices, a_killed_runs_claim_goes_with_it, .init = setup,
     .fini = teardown, .timeout = 240)
{
	char rd[300], rd2[300];
	int status, rc;
	pid_t pid;

	snprintf(rd, sizeof(rd), "%s/run", e2e_tmpdir());
	snprintf(rd2, sizeof(rd2), "%s/run2", e2e_tmpdir());
	pid = start_claim(rd);
	cr_assert_eq(kill(pid, SIGKILL), 0);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	rc = e2e_fsplan((const char *[]){ "run", claim_plan("second.yaml",
		victim, NULL), "-o", rd2, "-q", "--destroy", victim, NULL });
	cr_expect_eq(rc, 0, "exit %d after a SIGKILL of the first: %s", rc,
		     e2e_err);
	cr_expect_eq(e2e_processes_with(rd), 0, "the killed run left one");
}

static void root_only(void)
{
	e2e_require_root();
}

/* The plan (after "fsplan: 1", on 256M images) run into rd with a tmpfs
 * of size (mount's size=) as its workdir, at mnt: fsplan's exit. */
static int run_in_tmpfs(const char *size, const char *body, char *rd,
			size_t len)
{
	char text[1024], opts[32];

	snprintf(mnt, sizeof(mnt), "%s/wd", e2e_tmpdir());
	snprintf(opts, sizeof(opts), "size=%s", size);
	cr_assert_eq(mkdir(mnt, 0700), 0);
	cr_assert_eq(mount("fsplan-test", mnt, "tmpfs", 0, opts), 0);
	snprintf(text, sizeof(text), "fsplan: 1\ntarget: {image: 256M}\n%s",
		 body);
	snprintf(rd, len, "%s/run", e2e_tmpdir());
	return e2e_fsplan((const char *[]){ "run", e2e_write(e2e_tmpdir(),
		"plan.yaml", text), "-o", rd, "-q", "--workdir", mnt, NULL });
}

/*
 * A workdir smaller than the image: a warning at the start, and the
 * phase's I/O error (the loop device could not write its file, which the
 * ext4 under test, half empty, saw as ENOSPC) names the workdir.
 */
Test(devices, a_full_workdir_is_named, .init = root_only, .fini = teardown,
     .timeout = 120)
{
	char rd[300], log[320], want[400];
	const char *why;
	int rc;

	rc = run_in_tmpfs("32m", "filesystems: [{type: ext4}]\n"
			  "phases: [{name: fill, exec: 'dd if=/dev/zero of=f "
			  "bs=1M count=64 conv=fsync'}]\n", rd, sizeof(rd));
	cr_expect_eq(rc, 1, "exit %d (1: a phase run failed): %s", rc,
		     e2e_err);
	snprintf(want, sizeof(want), "warning: the workdir %s has 32 MiB "
		 "free, less than the 256 MiB", mnt);
	cr_expect(strstr(e2e_err, want), "'%s' not in: %s", want, e2e_err);
	snprintf(log, sizeof(log), "%s/log.txt", rd);
	cr_expect(strstr(e2e_read(log), want), "not in the log: %s",
		  e2e_read(log));
	why = e2e_reason(rd, "ext4/fill#1");
	snprintf(want, sizeof(want), "the workdir %s is full (0 MiB free): "
		 "the loop image could not grow", mnt);
	cr_expect(why && strstr(why, want), "'%s' not in the reason: %s",
		  want, why);
	cr_expect_eq(e2e_loops_under(e2e_tmpdir()), 0);
}

/* A mkfs that the full workdir cut short names it; one that failed for
 * its own reason in a small workdir that is not full does not. */
Test(devices, a_mkfs_in_a_full_workdir_names_it_and_only_then,
     .init = root_only, .fini = teardown, .timeout = 120)
{
	char rd[300], want[400];
	const char *why;
	int rc;

	rc = run_in_tmpfs("2m", "filesystems: [{type: xfs}, {type: ext4}]\n"
			  "phases: [{name: t, exec: 'true'}]\n", rd,
			  sizeof(rd));
	cr_expect_eq(rc, 1, "exit %d: %s", rc, e2e_err);
	why = e2e_reason(rd, "xfs/t#1");
	cr_expect(why && strstr(why, "larger than 300MB") &&
		  !strstr(why, "workdir"), "xfs: %s", why);
	why = e2e_reason(rd, "ext4/t#1");
	snprintf(want, sizeof(want), "the workdir %s is full (0 MiB free)",
		 mnt);
	cr_expect(why && strstr(why, "mkfs.ext4 failed") &&
		  strstr(why, want), "ext4: %s", why);
}
