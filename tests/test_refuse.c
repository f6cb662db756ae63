/* test_refuse: `fsplan run` on target.device — every refusal exits 3 and
 * touches nothing. */
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

#include "e2e.h"

static char loopdev[64], other[64], mnt[256];

/* A loop device over a file in our tmpdir, by losetup (util-linux). */
static void attach(char *dev, const char *name, int mb)
{
	char cmd[512];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "truncate -s %dM %s/%s && losetup -f "
		 "--show %s/%s", mb, e2e_tmpdir(), name, e2e_tmpdir(), name);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(dev, 64, f), "losetup failed");
	pclose(f);
	dev[strcspn(dev, "\n")] = '\0';
}

static void setup(void)
{
	e2e_require_root();
	attach(loopdev, "disk.img", 320);
	attach(other, "other.img", 64);
}

static void teardown(void)
{
	char cmd[256];

	if (mnt[0]) {
		umount2(mnt, MNT_DETACH);
		mnt[0] = '\0';
	}
	for (int i = 0; i < 2; i++) {
		char *dev = i ? other : loopdev;

		if (dev[0]) {
			snprintf(cmd, sizeof(cmd), "losetup -d %s", dev);
			if (system(cmd))
				fprintf(stderr, "could not detach %s\n", dev);
			dev[0] = '\0';
		}
	}
	e2e_cleanup();
}

static char *plan(int wipe)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "fsplan: 1\n"
		 "target: {device: %s%s}\n"
		 "filesystems: [{type: xfs}]\n"
		 "phases: [{name: fstype, exec: 'stat -f -c %%T .'}]\n",
		 loopdev, wipe ? ", wipe: true" : "");
	return e2e_write(e2e_tmpdir(), "plan.yaml", text);
}

static int run(const char *p, const char *destroy)
{
	char rd[300];

	snprintf(rd, sizeof(rd), "%s/run", e2e_tmpdir());
	if (destroy)
		return e2e_fsplan((const char *[]){ "run", p, "-o", rd, "-q",
						    "--destroy", destroy,
						    NULL });
	return e2e_fsplan((const char *[]){ "run", p, "-o", rd, "-q", NULL });
}

/* Each refusal: exit 3, a reason, the device byte for byte as before. */
static void expect_refused(const char *p, const char *destroy,
			   const char *why)
{
	char before[65], after[65], rd[300];
	int rc;

	e2e_digest(loopdev, before);
	rc = run(p, destroy);
	cr_expect_eq(rc, 3, "exit %d, expected 3: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, why), "'%s' not in: %s", why, e2e_err);
	e2e_digest(loopdev, after);
	cr_expect_str_eq(after, before, "the device was written");
	snprintf(rd, sizeof(rd), "%s/run", e2e_tmpdir());
	cr_expect(access(rd, F_OK), "a refused run left %s", rd);
}

Test(refuse, without_destroy, .init = setup, .fini = teardown)
{
	expect_refused(plan(0), NULL, "--destroy");
}

Test(refuse, destroy_names_another_device, .init = setup, .fini = teardown)
{
	expect_refused(plan(0), other, "--destroy");
}

Test(refuse, existing_filesystem_without_wipe, .init = setup,
     .fini = teardown, .timeout = 60)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q %s", loopdev);
	cr_assert_eq(system(cmd), 0);
	expect_refused(plan(0), loopdev, "ext4");
}

Test(refuse, mounted_device, .init = setup, .fini = teardown, .timeout = 60)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q %s", loopdev);
	cr_assert_eq(system(cmd), 0);
	snprintf(mnt, sizeof(mnt), "%s/m", e2e_tmpdir());
	cr_assert_eq(mkdir(mnt, 0700), 0);
	cr_assert_eq(mount(loopdev, mnt, "ext4", MS_RDONLY, NULL), 0);
	/* wipe cannot make a mounted device fair game */
	expect_refused(plan(1), loopdev, "mounted");
}

Test(refuse, wipe_and_destroy_run_on_the_device, .init = setup,
     .fini = teardown, .timeout = 90)
{
	char cmd[128], path[512];
	int rc;

	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q %s", loopdev);
	cr_assert_eq(system(cmd), 0);
	rc = run(plan(1), loopdev);
	snprintf(path, sizeof(path), "%s/run/log.txt", e2e_tmpdir());
	cr_expect_eq(rc, 0, "exit %d: %s\n%s", rc, e2e_err, e2e_read(path));
	snprintf(path, sizeof(path), "%s/run/exec/000001-xfs_fstype_1.out",
		 e2e_tmpdir());
	cr_expect_str_eq(e2e_read(path), "xfs\n");
	snprintf(path, sizeof(path), "%s/run/manifest.json", e2e_tmpdir());
	cr_expect(strstr(e2e_read(path), "\"size_bytes\": 335544320"),
		  "the device's identity is in the manifest");
	cr_expect_eq(e2e_mounted_under(e2e_tmpdir()), 0);
}

/*
 * A blank device without wipe: the guard lets it through, and from then
 * on what it carries is the run's own. Config 2's mkfs.xfs overwrites
 * config 1's ext4 (unforced, it refuses: "appears to contain an existing
 * filesystem"), and order: rounds remakes each config on it.
 */
Test(refuse, a_blank_device_takes_every_config_in_turn, .init = setup,
     .fini = teardown, .timeout = 120)
{
	static const char *const types[] = { "ext4", "xfs", "btrfs" };
	char text[1024], path[512];
	const char *p;
	int rc;

	snprintf(text, sizeof(text),
		 "fsplan: 1\n"
		 "target: {device: %s}\n"
		 "order: rounds\n"
		 "repeat: 2\n"
		 "filesystems: [{type: ext4}, {type: xfs}, {type: btrfs}]\n"
		 "phases: [{name: fstype, exec: 'stat -f -c %%T .'}]\n",
		 loopdev);
	p = e2e_write(e2e_tmpdir(), "plan.yaml", text);
	rc = run(p, loopdev);
	snprintf(path, sizeof(path), "%s/run/log.txt", e2e_tmpdir());
	cr_expect_eq(rc, 0, "exit %d: %s\n%s", rc, e2e_err, e2e_read(path));
	snprintf(path, sizeof(path), "%s/run", e2e_tmpdir());
	for (int k = 1; k <= 2; k++)
		for (size_t i = 0; i < 3; i++) {
			char cell[64];
			const char *v;

			snprintf(cell, sizeof(cell), "%s/fstype#%d", types[i],
				 k);
			v = e2e_metric(path, cell, "status");
			cr_expect(v && !strcmp(v, "ok"), "%s: %s", cell,
				  v ? v : "no row");
		}
	cr_expect_eq(e2e_mounted_under(e2e_tmpdir()), 0);
}

/*
 * A run on a blank device stopped (SIGTERM) in its second config, xfs,
 * after the first, ext4, finished: what a --resume then finds on the
 * device is the run's own xfs. Returns the plan's path.
 */
/* A run on the device in the background, into tmpdir/run, of a plan
 * with these filesystems and a phase nap of command exec. */
static pid_t start_on_device(const char *filesystems, const char *exec,
			     const char **plan)
{
	char text[1024], rd[300];
	pid_t pid;

	snprintf(text, sizeof(text),
		 "fsplan: 1\n"
		 "target: {device: %s}\n"
		 "filesystems: %s\n"
		 "phases: [{name: nap, exec: '%s'}]\n",
		 loopdev, filesystems, exec);
	*plan = e2e_write(e2e_tmpdir(), "plan.yaml", text);
	snprintf(rd, sizeof(rd), "%s/run", e2e_tmpdir());
	pid = e2e_fsplan_bg((const char *[]){ "run", *plan, "-o", rd, "-q",
					      "--destroy", loopdev, NULL });
	cr_assert_gt(pid, 0);
	return pid;
}

static const char *stopped_in_config_2(void)
{
	char text[1024], log[512], rd[300];
	const char *p;
	int status, tries = 0;
	pid_t pid = start_on_device("[{type: ext4}, {type: xfs}]",
				    "sleep 2; stat -f -c %T .", &p);

	snprintf(rd, sizeof(rd), "%s/run", e2e_tmpdir());
	snprintf(log, sizeof(log), "%s/log.txt", rd);
	while (!strstr(e2e_read(log), "xfs/nap#1: run") && tries++ < 400)
		nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
	kill(pid, SIGTERM);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(tries < 400, "config 2 never started:\n%s", e2e_read(log));
	cr_expect_str_eq(e2e_metric(rd, "ext4/nap#1", "status"), "ok");
	cr_expect_null(e2e_metric(rd, "xfs/nap#1", "status"));
	snprintf(text, sizeof(text), "%s/manifest.json", rd);
	cr_expect(strstr(e2e_read(text), "\"device_fs\""), "%s",
		  e2e_read(text));
	return p;
}

static int resume(const char *p)
{
	char rd[300];

	snprintf(rd, sizeof(rd), "%s/run", e2e_tmpdir());
	return e2e_fsplan((const char *[]){ "run", p, "--resume", rd, "-q",
					    "--destroy", loopdev, NULL });
}

/* Without wipe, the resume takes the run's own xfs for what it is. */
Test(refuse, a_stopped_device_run_resumes_on_its_own_filesystem,
     .init = setup, .fini = teardown, .timeout = 120)
{
	const char *p = stopped_in_config_2();
	char rd[300];
	int rc = resume(p);

	snprintf(rd, sizeof(rd), "%s/run", e2e_tmpdir());
	cr_expect_eq(rc, 0, "exit %d: %s\n%s", rc, e2e_err, e2e_failed(rd));
	cr_expect_str_eq(e2e_metric(rd, "xfs/nap#1", "status"), "ok");
	cr_expect_eq(e2e_mounted_under(e2e_tmpdir()), 0);
}

/*
 * Stopped inside a mkfs: the manifest names the type with a null UUID
 * (the mkfs had not told what it made), and the resume takes whatever
 * the device then holds for the run's own. ext4's -c reads the whole
 * device for bad blocks first: half a second to catch the mkfs in, and
 * SIGSTOP holds it there until the run is stopped.
 */
Test(refuse, a_run_stopped_inside_its_mkfs_resumes, .init = setup,
     .fini = teardown, .timeout = 120)
{
	char text[1024], rd[300], token[128];
	const char *p;
	pid_t pid = start_on_device("[{type: xfs}, {type: ext4, mkfs: -c}]",
				    "stat -f -c %T .", &p), mkfs = 0;
	int status, rc;

	snprintf(rd, sizeof(rd), "%s/run", e2e_tmpdir());
	snprintf(token, sizeof(token), "mkfs.ext4 -F -c %s ", loopdev);
	for (int i = 0; i < 3000 && !mkfs; i++) {
		mkfs = e2e_process_with(token);
		if (!mkfs)
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	if (mkfs)
		kill(mkfs, SIGSTOP);
	kill(pid, SIGTERM);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	if (mkfs)
		kill(mkfs, SIGCONT);	/* had the stop not swept it */
	cr_assert(mkfs, "config 2's mkfs was never seen");
	cr_expect_eq(WEXITSTATUS(status), 143);
	cr_expect_str_eq(e2e_metric(rd, "xfs/nap#1", "status"), "ok");
	snprintf(text, sizeof(text), "%s/manifest.json", rd);
	cr_expect(strstr(e2e_read(text), "\"uuid\": null"), "%s",
		  e2e_read(text));
	rc = resume(p);
	cr_expect_eq(rc, 0, "exit %d: %s\n%s", rc, e2e_err, e2e_failed(rd));
	cr_expect_str_eq(e2e_metric(rd, "ext4:-c/nap#1", "status"), "ok");
	cr_expect_eq(e2e_mounted_under(e2e_tmpdir()), 0);
}

/* A filesystem someone else made there since is refused, untouched. */
Test(refuse, a_resume_refuses_what_another_wrote_since, .init = setup,
     .fini = teardown, .timeout = 120)
{
	const char *p = stopped_in_config_2();
	char cmd[128], before[65], after[65];
	int rc;

	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F %s", loopdev);
	cr_assert_eq(system(cmd), 0);
	e2e_digest(loopdev, before);
	rc = resume(p);
	cr_expect_eq(rc, 3, "exit %d, expected 3: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "not the filesystem this run made there"),
		  "%s", e2e_err);
	e2e_digest(loopdev, after);
	cr_expect_str_eq(after, before, "the device was written");
}
