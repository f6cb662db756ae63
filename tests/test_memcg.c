/* test_memcg: `ram` as a memory cgroup around the phase child, what the device
 * saw, the run's conditions — end to end. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

/* The cgroups fsplan made that are still there, where it makes them:
 * our own v1 memory cgroup, the unified root (fsplan-<pid>-<n>). */
static char last_cgroup[512];

/* Those in top named for owner (its pid), or with owner 0 those whose
 * run has ended: leftovers. Runs of other tests go on meanwhile. */
static int count_in(const char *top, pid_t owner)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(top);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		long pid;

		if (strncmp(de->d_name, "fsplan-", 7) ||
		    de->d_name[7] < '0' || de->d_name[7] > '9')
			continue;
		pid = strtol(de->d_name + 7, NULL, 10);
		if (owner ? pid != owner : !kill((pid_t)pid, 0))
			continue;
		snprintf(last_cgroup, sizeof(last_cgroup), "%s/%s", top,
			 de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static int cgroups_of(pid_t owner)
{
	char line[1024], top[1200];
	FILE *f = fopen("/proc/self/cgroup", "re");
	int n = 0;

	last_cgroup[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, ":memory:");

		if (!p)
			continue;
		p[8 + strcspn(p + 8, "\n")] = '\0';
		snprintf(top, sizeof(top), "/sys/fs/cgroup/memory%s", p + 8);
		n += count_in(top, owner);
	}
	if (f)
		fclose(f);
	n += count_in("/sys/fs/cgroup/unified", owner);
	if (!access("/sys/fs/cgroup/cgroup.controllers", F_OK))
		n += count_in("/sys/fs/cgroup", owner);
	return n;
}

static int cgroups_left(void)
{
	return cgroups_of(0);
}

/* Skip unless this host has a memory controller fsplan can use. */
static void require_memcg(void)
{
	char buf[512] = "";
	FILE *f = fopen("/sys/fs/cgroup/cgroup.controllers", "re");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	if (!strstr(buf, "memory") &&
	    access("/sys/fs/cgroup/memory/memory.limit_in_bytes", F_OK))
		cr_skip_test("no memory cgroup controller here");
}

static int run_plan(const char *body, char *rd, size_t len)
{
	const char *dir = e2e_tmpdir();
	char text[4096];
	char *plan;

	snprintf(text, sizeof(text), "fsplan: 1\nname: memcg\n%s", body);
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, len, "%s/run", dir);
	return e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					    "--workdir", dir, NULL });
}

/* The phases given on one small ext4 image, as root with a memory
 * controller (else the test skips). */
static int run_small(const char *phases, char *rd, size_t len)
{
	char text[2048];

	e2e_require_root();
	require_memcg();
	snprintf(text, sizeof(text), "target: {image: 64M}\n"
		 "filesystems: [{type: ext4}]\nphases:\n%s", phases);
	return run_plan(text, rd, len);
}

static void expect_no_cgroups(void)
{
	cr_expect_eq(cgroups_left(), 0, "a memory cgroup is left: %s",
		     last_cgroup);
}

/*
 * The test: a 256M tiobench read under ram 64M must reach the
 * device (at most a quarter of the file fits in the cgroup), and the
 * same kind of read without a limit, of a 64M file the page cache holds,
 * must not.
 */
Test(memcg, ram_makes_reads_reach_the_device, .fini = fini, .timeout = 240)
{
	char rd[256];
	double bytes, dev, peak;
	const char *cell = "ext4/limited#1";
	int rc;

	e2e_require_root();
	require_memcg();
	rc = run_plan("target: {image: 1G}\n"
		      "filesystems: [{type: ext4}]\n"
		      "phases:\n"
		      "  - name: limited\n"
		      "    use: tiobench\n"
		      "    with: {file_size: 256M, ram: 64M, mode: seq_read,"
		      " block: 64k}\n"
		      "  - name: free\n"
		      "    repeat: 5\n"
		      "    use: tiobench\n"
		      "    with: {file_size: 64M, ram: 0, mode: seq_read,"
		      " block: 64k}\n", rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_assert_str_eq(e2e_metric(rd, cell, "status"), "ok", "%s",
			 e2e_reason(rd, cell));
	cr_expect(!strncmp(e2e_metric(rd, cell, "ram_limit"), "cgroup-v", 8),
		  "ram_limit %s", e2e_metric(rd, cell, "ram_limit"));
	cr_expect_eq(e2e_num(rd, cell, "ram_mib"), 64);
	bytes = e2e_num(rd, cell, "tio_bytes");
	dev = e2e_num(rd, cell, "dev_read_bytes");
	cr_expect_eq(bytes, 256 << 20, "read %.0f bytes", bytes);
	cr_expect_geq(dev, bytes / 2, "the device saw %.0f of %.0f bytes read",
		      dev, bytes);
	peak = e2e_num(rd, cell, "memory_peak_bytes");
	cr_expect_gt(peak, 0);
	cr_expect_leq(peak, 64 << 20, "peak %.0f over the limit", peak);

	/*
	 * Another run's drop_caches (the machine is shared) can empty the
	 * page cache between a repetition's write and its read: the best
	 * of five must have read from the cache.
	 */
	dev = -1;
	for (int i = 1; i <= 5; i++) {
		char c[64];
		double d;

		snprintf(c, sizeof(c), "ext4/free#%d", i);
		cr_assert_str_eq(e2e_metric(rd, c, "status"), "ok", "%s",
				 e2e_reason(rd, c));
		cr_expect_str_eq(e2e_metric(rd, c, "ram_limit"), "none");
		cr_expect_null(e2e_metric(rd, c, "memory_peak_bytes"));
		bytes = e2e_num(rd, c, "tio_bytes");
		d = e2e_num(rd, c, "dev_read_bytes");
		if (dev < 0 || d < dev)
			dev = d;
	}
	cr_expect_lt(dev, bytes / 50, "from the page cache, the device saw "
		     "%.0f of %.0f bytes read", dev, bytes);
	/* the conditions, per phase run */
	cr_expect_geq(e2e_num(rd, cell, "load_1m"), 0);
	cr_expect_geq(e2e_num(rd, cell, "others_cpu_s"), 0);
	expect_no_cgroups();
}

/* The host's page cache of the image's file after config c, from the
 * log line its teardown hook wrote ("host cache <label>: N"). */
static double host_cache(const char *rd, const char *label)
{
	char path[512], key[64];
	const char *log, *p;

	snprintf(path, sizeof(path), "%s/log.txt", rd);
	log = e2e_read(path);
	/* the output line, not the hook's command the log shows first */
	snprintf(key, sizeof(key), "\nhost cache %s: ", label);
	p = strstr(log, key);
	cr_assert_not_null(p, "no '%s' in the log:\n%s", key, log);
	return strtod(p + strlen(key), NULL);
}

/*
 * The other half of the 2xRAM rule: the memory cgroup bounds the page
 * cache of the filesystem under test, and the loop device must not hand
 * the image to the host's, outside any limit, where a "2xRAM" read would
 * find it. A loop device made buffered by a setup hook shows what that
 * looks like, and that loop_io reads what the device does, not what was
 * asked.
 */
Test(memcg, the_image_stays_out_of_the_hosts_page_cache, .fini = fini,
     .timeout = 240)
{
	char rd[256];
	double direct, buffered;
	int rc;

	e2e_require_root();
	require_memcg();
	if (access("/usr/bin/fincore", X_OK))
		cr_skip_test("no fincore (util-linux) to look at the cache");
	/* Another test's drop_caches (between: runs) can empty the host's
	 * cache before a teardown looks: then the buffered image shows
	 * nothing and the run says nothing either way; up to 5 runs. */
	for (int i = 0; i < 5; i++) {
		rc = run_plan("target: {image: 512M}\n"
			      "filesystems:\n"
			      "  - {type: ext4, label: direct, teardown: "
			      "'echo host cache direct: $(fincore -nb -o RES "
			      "\"$(losetup -nO BACK-FILE $FSPLAN_DEV)\")'}\n"
			      "  - {type: ext4, label: buffered, setup: "
			      "'losetup --direct-io=off $FSPLAN_DEV', "
			      "teardown: 'echo host cache buffered: $(fincore "
			      "-nb -o RES \"$(losetup -nO BACK-FILE "
			      "$FSPLAN_DEV)\")'}\n"
			      "phases:\n"
			      "  - use: tiobench\n"
			      "    with: {file_size: 128M, ram: 32M, mode: "
			      "seq_read, block: 64k}\n", rd, sizeof(rd));
		cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
		cr_expect_str_eq(e2e_metric(rd, "direct/tiobench#1",
					    "loop_io"), "direct");
		cr_expect_str_eq(e2e_metric(rd, "buffered/tiobench#1",
					    "loop_io"), "buffered");
		direct = host_cache(rd, "direct");
		buffered = host_cache(rd, "buffered");
		cr_assert_lt(direct, 4 << 20, "the host caches %.0f bytes of "
			     "a direct I/O image", direct);
		if (buffered > 64 << 20 || i == 4)
			break;
		e2e_cleanup();
	}
	{
		const char *args[] = { "report", rd, NULL };

		/* the report's head says which */
		cr_assert_eq(e2e_fsplan(args), 0, "%s", e2e_err);
		cr_expect(strstr(e2e_out, "\ntarget: loop images of 512 MiB; "
				 "through the host's page cache for "
				 "buffered "), "%s", e2e_out);
	}
	snprintf(rd + strlen(rd), sizeof(rd) - strlen(rd), "/manifest.json");
	cr_expect(strstr(e2e_read(rd), "\"loop_io\": \"direct\""), "%s",
		  e2e_read(rd));
	cr_expect(strstr(e2e_read(rd), "\"loop_io\": \"buffered\""), "%s",
		  e2e_read(rd));
	expect_no_cgroups();
	/* 128 MiB written and read through each image; a suite running
	 * beside this one (make check's --jobs) can drop the host's cache
	 * every few tenths of a second, and then nothing can tell */
	if (buffered <= 64 << 20)
		cr_skip_test("the host cached only %.0f bytes of a buffered "
			     "image in 5 runs (another test's drop_caches): "
			     "the direct image's 0 cannot be told apart",
			     buffered);
}

/* Every process of an exec phase is inside: the shell's child reads its
 * own cgroup, and it is fsplan's. */
Test(memcg, exec_phase_and_its_children_are_inside, .fini = fini,
     .timeout = 120)
{
	char rd[256], path[512];
	const char *out;
	int rc;

	rc = run_small("  - name: where\n"
		      "    exec: \"sh -c 'cat /proc/self/cgroup; id -u'\"\n"
		      "    with: {ram: 32M}\n", rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_eq(e2e_num(rd, "ext4/where#1", "ram_mib"), 32);
	snprintf(path, sizeof(path), "%s/exec/000001-ext4_where_1.out", rd);
	out = e2e_read(path);
	cr_expect(strstr(out, "/fsplan-"), "not in fsplan's cgroup: %s", out);
	cr_expect(!strstr(out, "\n0\n"), "ran as root: %s", out);
	expect_no_cgroups();
}

/* A limit too small to start the phase: a failed row that says so. */
Test(memcg, too_small_a_limit_is_a_clear_failure, .fini = fini,
     .timeout = 120)
{
	char rd[256];
	const char *why;
	int rc;

	/* the shell goes on after its child is killed, and exits 0 */
	rc = run_small("  - use: tiobench\n"
		      "    with: {file_size: 8M, ram: 1M, mode: seq_write}\n"
		      "  - name: hog\n"
		      "    exec: python3 -c 'x = bytearray(100 << 20)'; true\n"
		      "    with: {ram: 32M}\n",
		      rd, sizeof(rd));
	cr_expect_eq(rc, 1, "exit %d: %s", rc, e2e_err);
	cr_assert_str_eq(e2e_metric(rd, "ext4/tiobench#1", "status"),
			 "failed");
	why = e2e_reason(rd, "ext4/tiobench#1");
	cr_expect(strstr(why, "ram 1 MiB is too small"), "reason: %s", why);
	cr_expect_str_eq(e2e_metric(rd, "ext4/hog#1", "status"), "failed");
	why = e2e_reason(rd, "ext4/hog#1");
	cr_expect(why && strstr(why, "ram 32 MiB is too small for this phase: "
				"the memory cgroup's OOM killer killed 1 of "
				"its processes, and it went on without them"),
		  "reason: %s", why);
	expect_no_cgroups();
}

/* A program spinning beside a phase that uses no CPU: its user-mode time
 * is the others' (others_cores over a quarter), and report marks the
 * run. The kernel threads of an I/O-bound phase would not count. */
Test(memcg, a_busy_neighbour_is_marked, .fini = fini, .timeout = 60)
{
	char rd[256];
	pid_t hog;
	int rc;

	e2e_require_root();
	hog = fork();
	cr_assert_geq(hog, 0);
	if (hog == 0) {
		alarm(30);	/* whatever happens to the test */
		for (volatile unsigned long i = 0;; i++)
			;
	}
	rc = run_plan("target: {image: 64M}\n"
		      "filesystems: [{type: ext4}]\n"
		      "phases:\n"
		      "  - {name: idle, exec: sleep 1.5}\n", rd, sizeof(rd));
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_gt(e2e_num(rd, "ext4/idle#1", "others_cores"), 0.25);
	cr_expect_leq(e2e_num(rd, "ext4/idle#1", "others_user_cpu_s"),
		      e2e_num(rd, "ext4/idle#1", "others_cpu_s") + 0.02);
	rc = e2e_fsplan((const char *[]){ "report", rd, NULL });
	cr_expect_eq(rc, 0);
	cr_expect(strstr(e2e_out, "! 1 of 1 phase runs were disturbed: "
			 "other programs"), "%s", e2e_out);
	/* the hypervisor's share: in others_cpu_s, and none of it here
	 * would be hard to tell from a quiet host */
	cr_expect_geq(e2e_num(rd, "ext4/idle#1", "steal_s"), 0);
	cr_expect_leq(e2e_num(rd, "ext4/idle#1", "steal_s"),
		      e2e_num(rd, "ext4/idle#1", "others_cpu_s") + 0.02);
	cr_expect_float_eq(e2e_num(rd, "ext4/idle#1", "steal_cores"),
			   e2e_num(rd, "ext4/idle#1", "steal_s") /
			   e2e_num(rd, "ext4/idle#1", "seconds"), 2e-3);
}

Test(memcg, bad_ram_values_name_their_place, .fini = fini, .timeout = 60)
{
	static const char *const bad[][2] = {
		{ "{ram: lots}", "'ram' is the phase's memory limit" },
		{ "{ram: 8M, size: 1M}", "an 'exec' command takes ${...}" },
	};
	char rd[256], text[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		snprintf(text, sizeof(text), "filesystems: [{type: ext4}]\n"
			 "phases:\n  - exec: \"true\"\n    with: %s\n",
			 bad[i][0]);
		cr_expect_eq(run_plan(text, rd, sizeof(rd)), 2, "%s",
			     bad[i][0]);
		cr_expect(strstr(e2e_err, "plan.yaml:6:") &&
			  strstr(e2e_err, bad[i][1]), "%s", e2e_err);
	}
}

/* A SIGKILL of fsplan in a ram-limited phase leaves its cgroup (nobody
 * is left to remove it); the next run removes it as it starts. */
Test(memcg, sigkill_leftover_is_removed_by_the_next_run, .fini = fini,
     .timeout = 120)
{
	const char *dir;
	char rd[256], rd2[256], text[1024], *plan;
	pid_t pid;
	int status, rc;

	e2e_require_root();
	require_memcg();
	dir = e2e_tmpdir();
	snprintf(text, sizeof(text),
		 "fsplan: 1\nname: killed\n"
		 "params: {secs: 30.25}\n"
		 "target: {image: 64M}\n"
		 "filesystems: [{type: ext4}]\n"
		 "phases:\n"
		 "  - name: slow\n"
		 "    exec: \"sleep ${secs}\"\n"
		 "    with: {ram: 16M}\n");
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd, "-q",
					      "--workdir", dir, NULL });
	/* a sleep of its own length: other suites run sleeps of 30 s */
	for (int i = 0; i < 200 && (!e2e_processes_with("sleep 30.25") ||
				    cgroups_of(pid) != 1); i++)
		usleep(50000);
	cr_assert_eq(cgroups_of(pid), 1, "no cgroup while the phase runs");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	/* the namespace's processes die with it; the cgroup stays */
	for (int i = 0; i < 40 && e2e_processes_with("sleep 30.25"); i++)
		usleep(100000);
	cr_expect_eq(cgroups_of(pid), 1, "the killed run's cgroup is gone "
		     "already: the test proves nothing");
	snprintf(rd2, sizeof(rd2), "%s/run2", dir);
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", rd2, "-q",
					  "--workdir", dir, "-D", "secs=0",
					  NULL });
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	snprintf(text, sizeof(text), "%s/log.txt", rd2);
	cr_expect_eq(cgroups_of(pid), 0, "the killed run's cgroup is still "
		     "there: %s", last_cgroup);
	expect_no_cgroups();
	cr_expect(strstr(e2e_read(text), "removed the memory cgroups"),
		  "the next run did not say it removed them");
}

/* write_amp: a 64 MiB sequential write with fsync on ext4 puts about
 * as much on the device (the journal and metadata a little more). */
Test(memcg, write_amp_of_a_sequential_write, .fini = fini, .timeout = 120)
{
	const char *dir = e2e_tmpdir();
	char rd[256];
	double amp, dev;
	int rc;

	e2e_require_root();
	e2e_write(dir, "seq.lua",
		  "return {\n"
		  "  worker = function(w)\n"
		  "    local f = assert(w:open('data', 'w'))\n"
		  "    f:stream{op = 'write', block = 1048576, bytes = 64 * 1048576}\n"
		  "    f:fsync()\n"
		  "    f:close()\n"
		  "  end,\n"
		  "}\n");
	rc = run_plan("target: {image: 512M}\n"
		      "filesystems:\n"
		      "  - type: ext4\n"
		      "    mkfs: -E lazy_itable_init=0,lazy_journal_init=0\n"
		      "phases:\n"
		      "  - use: seq.lua\n", rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	dev = e2e_num(rd, "ext4:-E lazy_itable_init=0,lazy_journal_init=0/"
		      "seq#1", "dev_write_bytes");
	amp = e2e_num(rd, "ext4:-E lazy_itable_init=0,lazy_journal_init=0/"
		      "seq#1", "write_amp");
	cr_expect(amp >= 1.0 && amp <= 1.2, "write_amp %.4f (device %.0f "
		  "bytes)", amp, dev);
}

/*
 * setup's untimed writes are not the phase's: tiobench's rand_write
 * fills its file in setup (and syncs it), then writes 4000 random 4 KiB
 * blocks; the device rows and write_amp are those the workers wrote, so
 * write_amp is about 1, not (fill + writes) / writes, as seq_write's
 * (which has no fill) is.
 */
Test(memcg, write_amp_leaves_out_setup, .fini = fini, .timeout = 180)
{
	static const char *const modes[] = { "rand_write", "seq_write" };
	char rd[256], cell[128];
	double amp, dev;
	int rc;

	rc = run_small("  - use: tiobench\n"
		       "    matrix: {mode: [rand_write, seq_write]}\n"
		       "    with: {file_size: 32M, ram: 16M}\n", rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	for (int i = 0; i < 2; i++) {
		snprintf(cell, sizeof(cell), "ext4/tiobench/mode=%s#1",
			 modes[i]);
		dev = e2e_num(rd, cell, "dev_write_bytes");
		amp = e2e_num(rd, cell, "write_amp");
		cr_expect(amp > 0.5 && amp < 2, "%s: write_amp %.4f (device "
			  "%.0f bytes)", modes[i], amp, dev);
	}
	/* the 32 MiB fill is not among the rand_write's device bytes */
	dev = e2e_num(rd, "ext4/tiobench/mode=rand_write#1",
		      "dev_write_bytes");
	cr_expect_lt(dev, 24 << 20, "rand_write's device wrote %.0f bytes",
		     dev);
}

/* Each volume's device counts for itself, and the rows sum them. */
Test(memcg, each_volume_has_its_device_rows, .fini = fini, .timeout = 120)
{
	char rd[256];
	double a, b, sum;
	int rc;

	e2e_require_root();
	rc = run_plan("target: {image: 64M, volumes: [a, b]}\n"
		      "filesystems: [{type: ext4}]\n"
		      "phases:\n"
		      "  - name: w\n"
		      "    exec: \"dd if=/dev/zero of=a/x bs=1M count=8 "
		      "conv=fsync status=none\"\n", rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	a = e2e_num(rd, "ext4/w#1", "dev_write_bytes_a");
	b = e2e_num(rd, "ext4/w#1", "dev_write_bytes_b");
	sum = e2e_num(rd, "ext4/w#1", "dev_write_bytes");
	cr_expect_geq(a, 8 << 20, "volume a's device wrote %.0f", a);
	cr_expect_lt(b, 1 << 20, "volume b's device wrote %.0f", b);
	cr_expect_eq(sum, a + b);
	cr_expect_null(e2e_metric(rd, "ext4/w#1", "write_amp"),
		       "an exec phase's own writes are not known");
}

/* The stop rule's verdict, computed here from the rows: the first
 * repetition k >= min whose 95% CI half-width of seconds 1..k is within
 * ci of their mean, else max. */
static int expected_stop(const char *rd, const char *base, int min, int max,
			 double ci)
{
	double v[64], sum, mean, ss, t[] = { 0, 12.706, 4.303, 3.182, 2.776,
					     2.571, 2.447, 2.365, 2.306,
					     2.262, 2.228, 2.201, 2.179 };
	char cell[128];

	for (int k = 1; k <= max; k++) {
		snprintf(cell, sizeof(cell), "%s#%d", base, k);
		v[k - 1] = e2e_num(rd, cell, "seconds");
		if (k < min)
			continue;
		sum = ss = 0;
		for (int i = 0; i < k; i++)
			sum += v[i];
		mean = sum / k;
		for (int i = 0; i < k; i++)
			ss += (v[i] - mean) * (v[i] - mean);
		if (t[k - 1] * sqrt(ss / (k - 1)) / sqrt(k) <= ci * mean)
			return k;
	}
	return max;
}

/* repeat: {min, max, ci} on an exec phase whose sleep has a seeded jitter
 * (awk's srand(7), the n-th draw for repetition n): it stops at the
 * repetition the rule says, and at max when the rule cannot be met. */
Test(memcg, stop_rule_stops_where_the_rule_says, .fini = fini,
     .timeout = 180)
{
	char rd[256], cell[128];
	int k, rc;

	e2e_require_root();
	rc = run_plan("target: {image: 64M}\n"
		      "filesystems: [{type: ext4}]\n"
		      "phases:\n"
		      "  - name: j\n"
		      "    repeat: {min: 3, max: 12, ci: 20%}\n"
		      "    exec: \"sleep $(awk -v r=$FSPLAN_REP 'BEGIN { srand(7);"
		      " for (i = 0; i < r; i++) x = rand(); printf \\\"%.3f\\\","
		      " 0.3 + 0.1 * x }')\"\n"
		      "  - name: m\n"
		      "    repeat: {min: 2, max: 4, ci: 0.001%}\n"
		      "    exec: \"sleep 0.0$FSPLAN_REP\"\n", rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	k = expected_stop(rd, "ext4/j", 3, 12, 0.20);
	snprintf(cell, sizeof(cell), "ext4/j#%d", k);
	cr_expect_eq(e2e_num(rd, cell, "reps_run"), k);
	cr_expect_str_eq(e2e_metric(rd, cell, "stop_reason"),
			 k < 12 ? "ci" : "max");
	cr_expect_eq(e2e_count(rd, "reps_run"), 2, "one verdict a cell");
	snprintf(cell, sizeof(cell), "ext4/j#%d", k + 1);
	cr_expect_null(e2e_metric(rd, cell, "status"),
		       "repetition %d ran after the rule was met", k + 1);
	/* max honoured */
	cr_expect_eq(e2e_num(rd, "ext4/m#4", "reps_run"), 4);
	cr_expect_str_eq(e2e_metric(rd, "ext4/m#4", "stop_reason"), "max");
	cr_expect_null(e2e_metric(rd, "ext4/m#3", "stop_reason"));
	cr_expect_null(e2e_metric(rd, "ext4/m#5", "status"));
}

/* --resume continues a cell's repetitions: those results.csv has count
 * toward the rule, and are not run again. */
Test(memcg, stop_rule_resume_continues_the_repetitions, .fini = fini,
     .timeout = 180)
{
	const char *dir = e2e_tmpdir();
	char rd[256], log[300], cell[64], hold[64], text[512], *plan;
	pid_t pid;
	int status, rc, k;

	e2e_require_root();
	/* repetition 3 sleeps while the hold file is there (a resume takes
	 * the run's own parameters: the hold cannot be one) */
	snprintf(hold, sizeof(hold), "/tmp/fsplan-hold-%d", (int)getpid());
	close(open(hold, O_CREAT | O_WRONLY, 0644));
	snprintf(text, sizeof(text),
		 "fsplan: 1\nname: resumed\n"
		 "target: {image: 64M}\n"
		 "filesystems: [{type: ext4}]\n"
		 "phases:\n"
		 "  - name: j\n"
		 "    repeat: {min: 3, max: 5, ci: 90%%}\n"
		 "    exec: \"[ $FSPLAN_REP != 3 ] || [ ! -e %s ] || sleep 30; "
		 "sleep 0.2\"\n", hold);
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd, "-q",
					      "--workdir", dir, NULL });
	/* repetition 3's output file is made as it starts */
	snprintf(log, sizeof(log), "%s/exec/000003-ext4_j_3.out", rd);
	for (int i = 0; i < 300 && access(log, F_OK); i++)
		usleep(50000);
	cr_assert_eq(access(log, F_OK), 0, "repetition 3 never began");
	usleep(200000);
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	cr_expect_eq(e2e_count(rd, "status"), 2, "%s",
		     e2e_read(strcat(strcpy(log, rd), "/results.csv")));
	unlink(hold);
	rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd, "-q",
					  "--workdir", dir, NULL });
	cr_assert_eq(rc, 0, "resume: exit %d: %s", rc, e2e_err);
	/* 1 and 2 ran once each and count: the verdict's repetition k
	 * says k ran, and the rule, met or not, is the one over all k */
	k = expected_stop(rd, "ext4/j", 3, 5, 0.9);
	snprintf(cell, sizeof(cell), "ext4/j#%d", k);
	cr_expect_eq(e2e_count(rd, "status"), k);
	cr_expect_eq(e2e_num(rd, cell, "reps_run"), k);
	cr_expect_str_eq(e2e_metric(rd, cell, "stop_reason"),
			 k < 5 ? "ci" : "max");
	/* resumed again, nothing is left to run */
	rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd, "-q",
					  "--workdir", dir, NULL });
	cr_expect_eq(rc, 0);
	cr_expect_eq(e2e_count(rd, "status"), k);
}

Test(memcg, bad_stop_rules_name_their_place, .fini = fini, .timeout = 60)
{
	char rd[256];

	cr_expect_eq(run_plan("repeat: {min: 3, max: 10, ci: 5}\n"
			      "filesystems: [{type: ext4}]\n"
			      "phases: [{exec: \"true\"}]\n", rd, sizeof(rd)),
		     2);
	cr_expect(strstr(e2e_err, "plan.yaml:3:") &&
		  strstr(e2e_err, "as a percentage of the mean"), "%s",
		  e2e_err);
	cr_expect_eq(run_plan("filesystems: [{type: ext4}]\n"
			      "phases:\n"
			      "  - exec: \"true\"\n"
			      "    repeat: {min: 5, max: 4, ci: 5%}\n", rd,
			      sizeof(rd)), 2);
	cr_expect(strstr(e2e_err, "plan.yaml:6:") &&
		  strstr(e2e_err, "max (4) is less than its min (5)"), "%s",
		  e2e_err);
	cr_expect_eq(run_plan("filesystems: [{type: ext4}]\n"
			      "phases:\n"
			      "  - exec: \"true\"\n"
			      "    repeat: {max: 4, ci: 5%, mn: 2}\n", rd,
			      sizeof(rd)), 2);
	cr_expect(strstr(e2e_err, "did you mean 'min'"), "%s", e2e_err);
}
