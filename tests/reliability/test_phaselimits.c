/* test_phaselimits: a phase's memory and output are bounded, its device
 * counters count only its own writes, and its I/O error reaches the reason. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

/* Write a plan of one ext4 config and the phases given, with the
 * module module (named name.lua) beside it; its path. */
static char *write_plan(const char *name, const char *module,
			const char *target, const char *phases)
{
	const char *dir = e2e_tmpdir();
	char plan[4096], file[64];

	if (module) {
		snprintf(file, sizeof(file), "%s.lua", name);
		e2e_write(dir, file, module);
	}
	snprintf(plan, sizeof(plan),
		 "fsplan: 1\n"
		 "name: %s\n"
		 "target: {%s}\n"
		 "between: [none]\n"
		 "filesystems:\n"
		 "  - {type: ext4}\n"
		 "phases:\n%s", name, target, phases);
	return e2e_write(dir, "plan.yaml", plan);
}

/* Run it into dir/run (its path in rd). fsplan's status. */
static int run_phases(const char *name, const char *module,
		      const char *target, const char *phases, char *rd,
		      size_t len)
{
	char *plan = write_plan(name, module, target, phases);

	snprintf(rd, len, "%s/run", e2e_tmpdir());
	return e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					    NULL });
}

/* The one exec/ file of rd that ends in suffix (".out", ".err") and
 * has pattern in its name; its size in *size. */
static const char *exec_file(const char *rd, const char *pattern,
			     const char *suffix, off_t *size)
{
	static char path[1024];
	char want[1024];
	struct stat st;
	glob_t g;

	snprintf(want, sizeof(want), "%s/exec/*%s*%s", rd, pattern, suffix);
	cr_assert_eq(glob(want, 0, NULL, &g), 0, "no %s", want);
	cr_assert_eq(g.gl_pathc, 1, "%zu files match %s", g.gl_pathc, want);
	snprintf(path, sizeof(path), "%s", g.gl_pathv[0]);
	globfree(&g);
	cr_assert_eq(stat(path, &st), 0);
	*size = st.st_size;
	return path;
}

/* The run's log.txt (its first MiB). */
static const char *log_txt(const char *rd)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/log.txt", rd);
	return e2e_read(path);
}

/* ---- memory ---- */

Test(phaselimits, twenty_thousand_names_fail_clearly_at_the_cap,
     .fini = fini, .timeout = 240)
{
	static const char mod[] =
		"return {\n"
		"  worker = function(w, ctx)\n"
		"    for i = 1, 20000 do w:time(\"x\" .. i, function() end) end\n"
		"  end,\n"
		"}\n";
	char rd[256];
	const char *why, *peak;

	e2e_require_root();
	/* ram: for the memory cgroup's memory_peak_bytes row */
	run_phases("names", mod, "image: 64M",
		   "  - use: names.lua\n    with: {ram: 1G}\n", rd, sizeof(rd));
	why = e2e_reason(rd, "ext4/names#1");
	cr_expect(why && strstr(why, "w:time: a phase may name at most 4096 "
				"ops/metrics; 'x4097' is one too many"),
		  "%s", why);
	/* 20,000 names took 385 MB; 4096 of them hold about 45 MiB */
	peak = e2e_metric(rd, "ext4/names#1", "memory_peak_bytes");
	cr_expect(peak && atof(peak) < 160.0 * 1048576, "peak %s", peak);
}

Test(phaselimits, a_counter_past_the_cap_and_a_small_memory_fail_clearly,
     .fini = fini, .timeout = 240)
{
	static const char mod[] =
		"return {\n"
		"  params = { what = \"count\" },\n"
		"  worker = function(w, ctx)\n"
		"    for i = 1, 5000 do\n"
		"      if ctx.params.what == \"count\" then w:count(\"c\" .. i)\n"
		"      else w:time(\"t\" .. i, function() end) end\n"
		"    end\n"
		"  end,\n"
		"}\n";
	char rd[256];
	const char *why;

	e2e_require_root();
	run_phases("cap", mod, "image: 64M",
		   "  - {name: count, use: cap.lua}\n"
		   "  - {name: time, use: cap.lua, with: {what: time}, "
		   "memory: 8M}\n", rd, sizeof(rd));
	why = e2e_reason(rd, "ext4/count#1");
	cr_expect(why && strstr(why, "w:count: a phase may name at most "
				"4096 ops/metrics; 'c4097' is one too many"),
		  "%s", why);
	/* an op's table and histogram are charged to memory: */
	why = e2e_reason(rd, "ext4/time#1");
	cr_expect(why && strstr(why, "w:time: not enough memory for 't") &&
		  strstr(why, "the phase's memory: 8M"), "%s", why);
}

Test(phaselimits, four_workers_share_the_default_memory, .fini = fini,
     .timeout = 240)
{
	/* each worker alone stays under the 1G default; four together
	 * held 1.8 GB when it was each state's */
	static const char mod[] =
		"return {\n"
		"  worker = function(w, ctx)\n"
		"    local t = {}\n"
		"    for i = 1, 400 do\n"
		"      t[i] = string.rep(string.char(64 + w.id), 1048000) .. i\n"
		"    end\n"
		"  end,\n"
		"}\n";
	char rd[256];
	const char *why, *peak;

	e2e_require_root();
	run_phases("big", mod, "image: 64M",
		   "  - use: big.lua\n    with: {workers: 4, ram: 3G}\n", rd,
		   sizeof(rd));
	why = e2e_reason(rd, "ext4/big#1");
	cr_expect(why && strstr(why, "not enough memory") &&
		  strstr(why, "the phase's memory: 1G"), "%s", why);
	peak = e2e_metric(rd, "ext4/big#1", "memory_peak_bytes");
	/* 1G, and what the process and the sanitizers add to it */
	cr_expect(peak && atof(peak) < 1.5 * 1073741824, "peak %s", peak);
}

/* ---- output ---- */

/* The file keeps the cap, its head and its tail, and says what it left
 * out where it did; log.txt says so too. */
static void expect_cut(const char *rd, const char *path, off_t size,
		       const char *what)
{
	char *text = e2e_slurp(path, NULL);
	const char *note = strstr(text, "[fsplan: ");

	cr_expect_leq(size, 64 << 20, "%s: %lld bytes", path,
		      (long long)size);
	cr_expect_geq(size, 63 << 20, "%s: %lld bytes", path,
		      (long long)size);
	cr_expect(note && strstr(note, " bytes left out here]\n"), "%s", path);
	cr_expect(note && note - text >= 32 << 20, "the note at %ld",
		  note ? (long)(note - text) : -1L);
	free(text);
	cr_expect(strstr(log_txt(rd), what),
		  "log.txt has no '%s'", what);
}

Test(phaselimits, an_exec_phase_printing_200_mb_keeps_64_mib, .fini = fini,
     .timeout = 240)
{
	char rd[256];
	const char *path;
	off_t size;

	e2e_require_root();
	run_phases("yes", NULL, "image: 64M",
		   "  - name: yes\n    exec: yes | head -c 200M\n", rd,
		   sizeof(rd));
	cr_expect_str_eq(e2e_metric(rd, "ext4/yes#1", "status"), "ok");
	path = exec_file(rd, "yes", ".out", &size);
	expect_cut(rd, path, size, "its stdout passed 64 MiB");
	/* 200 MiB - 64 MiB, and the note's own bytes */
	cr_expect(strstr(log_txt(rd), "14260637"),
		  "the count left out");
}

Test(phaselimits, w_log_in_a_loop_keeps_64_mib, .fini = fini, .timeout = 240)
{
	static const char mod[] =
		"return {\n"
		"  worker = function(w, ctx)\n"
		"    local line = string.rep(\"y\", 1000)\n"
		"    for i = 1, 200000 do w:log(i, line) end\n"
		"  end,\n"
		"}\n";
	char rd[256], *text;
	const char *path;
	off_t size;

	e2e_require_root();
	run_phases("logs", mod, "image: 64M", "  - use: logs.lua\n", rd,
		   sizeof(rd));
	cr_expect_str_eq(e2e_metric(rd, "ext4/logs#1", "status"), "ok");
	path = exec_file(rd, "logs", ".err", &size);
	expect_cut(rd, path, size, "its stderr passed 64 MiB");
	/* its first line and its last are the first and last logged */
	text = e2e_slurp(path, NULL);
	cr_expect(!strncmp(text, "[worker 1] 1 yyy", 16), "its head");
	cr_expect(strstr(text + size - 1100, "[worker 1] 200000 yyy"),
		  "its tail");
	free(text);
}

Test(phaselimits, a_nul_in_a_log_line_or_a_name_is_refused, .fini = fini,
     .timeout = 240)
{
	static const char mod[] =
		"return {\n"
		"  params = { what = \"log\" },\n"
		"  worker = function(w, ctx)\n"
		"    local f = assert(w:open(\"f\", \"w\"))\n"
		"    local what = ctx.params.what\n"
		"    if what == \"log\" then w:log(\"before\\0after\")\n"
		"    elseif what == \"time\" then w:time(\"a\\0b\", function() end)\n"
		"    elseif what == \"count\" then w:count(\"a\\0b\")\n"
		"    elseif what == \"op\" then w:op(\"a\\0b\", function() end)\n"
		"    else f:stream{op = \"write\", bytes = 4096, tag = \"a\\0b\"} end\n"
		"    f:close()\n"
		"  end,\n"
		"}\n";
	static const char *const what[] = { "log", "time", "count", "op",
					    "stream" };
	char rd[256], cell[64];

	e2e_require_root();
	run_phases("nul", mod, "image: 64M",
		   "  - use: nul.lua\n"
		   "    matrix: {what: [log, time, count, op, stream]}\n", rd,
		   sizeof(rd));
	for (int i = 0; i < 5; i++) {
		const char *why;

		snprintf(cell, sizeof(cell), "ext4/nul/what=%s#1", what[i]);
		why = e2e_reason(rd, cell);
		cr_expect(why && strstr(why, "NUL byte"), "%s: %s", cell, why);
	}
}

/* ---- the device counters ---- */

Test(phaselimits, a_synced_sequential_write_has_write_amp_of_1_or_more,
     .fini = fini, .timeout = 300)
{
	static const char mod[] =
		"return {\n"
		"  worker = function(w, ctx)\n"
		"    local f = assert(w:open(\"seq\", \"w\"))\n"
		"    assert(f:stream{op = \"write\", block = \"1M\", "
		"bytes = \"96M\"})\n"
		"    assert(f:fsync())\n"
		"    f:close()\n"
		"  end,\n"
		"}\n";
	char rd[256], cell[64];

	e2e_require_root();
	/* the race is the parent's wake-up against the workers' start:
	 * a few times over, and ram: so the writes reach the device while
	 * they run (a small cgroup writes back its dirty pages early) */
	run_phases("seq", mod, "image: 256M",
		   "  - use: seq.lua\n    repeat: 6\n    with: {ram: 48M}\n",
		   rd, sizeof(rd));
	for (int i = 1; i <= 6; i++) {
		double dev, wrote;

		snprintf(cell, sizeof(cell), "ext4/seq#%d", i);
		dev = e2e_num(rd, cell, "dev_write_bytes");
		wrote = e2e_num(rd, cell, "write_bytes");
		cr_expect_geq(dev, wrote, "%s: the device wrote %.0f of %.0f",
			      cell, dev, wrote);
		cr_expect_geq(e2e_num(rd, cell, "write_amp"), 1.0, "%s", cell);
	}
}

/* The pid of the process that runs a phase child (a process not of
 * root with token in its command line), or 0 when none runs. */
static pid_t phase_parent(const char *token)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t ppid = 0;

	while (d && !ppid && (e = readdir(d))) {
		char path[300], buf[4096];
		const char *st, *uid;
		FILE *f;
		size_t n;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		f = fopen(path, "re");
		n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		if (f)
			fclose(f);
		for (size_t i = 0; i < n; i++)
			buf[i] = buf[i] ? buf[i] : ' ';
		buf[n] = '\0';
		if (!strstr(buf, token))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
		st = e2e_read(path);
		uid = strstr(st, "\nUid:\t");
		if (uid && strncmp(uid, "\nUid:\t0\t", 8) &&
		    strstr(st, "\nPPid:\t"))
			ppid = atoi(strstr(st, "\nPPid:\t") + 7);
	}
	if (d)
		closedir(d);
	return ppid;
}

Test(phaselimits, a_parent_late_to_read_the_counters_counts_every_write,
     .fini = fini, .timeout = 300)
{
	/* the parent stopped while setup sleeps: its "before" reading of
	 * the counters comes after the workers' writes, as it did on a
	 * busy machine (write_amp 0.698), unless the workers wait for it */
	static const char mod[] =
		"return {\n"
		"  setup = function(ctx, w) w:sleep(1.5) end,\n"
		"  worker = function(w, ctx)\n"
		"    local f = assert(w:open(\"seq\", \"w\"))\n"
		"    assert(f:stream{op = \"write\", block = \"1M\", "
		"bytes = \"64M\"})\n"
		"    assert(f:fsync())\n"
		"    f:close()\n"
		"  end,\n"
		"}\n";
	struct timespec tick = { 0, 10000000 }, pause = { 3, 0 };
	pid_t pid, parent = 0;
	char rd[256], *plan;
	int status;

	e2e_require_root();
	plan = write_plan("late", mod, "image: 256M", "  - use: late.lua\n");
	snprintf(rd, sizeof(rd), "%s/run", e2e_tmpdir());
	pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd, "-q",
					      NULL });
	for (int i = 0; i < 3000 && !parent; i++) {
		nanosleep(&tick, NULL);
		parent = phase_parent(e2e_tmpdir());
	}
	cr_assert(parent > 0, "no phase child seen");
	kill(parent, SIGSTOP);
	nanosleep(&pause, NULL);	/* setup ends, the workers may run */
	kill(parent, SIGCONT);
	waitpid(pid, &status, 0);
	cr_expect_geq(e2e_num(rd, "ext4/late#1", "dev_write_bytes"),
		      e2e_num(rd, "ext4/late#1", "write_bytes"));
	cr_expect_geq(e2e_num(rd, "ext4/late#1", "write_amp"), 1.0);
}

/* ---- I/O errors in the reason ---- */

Test(phaselimits, a_raise_after_an_io_error_names_it_and_the_volumes,
     .fini = fini, .timeout = 240)
{
	/* native dbench's way: the write's nil, then its own error */
	static const char mod[] =
		"return {\n"
		"  worker = function(w, ctx)\n"
		"    local f = assert(w:open(\"clients.\" .. w.id, \"w\"))\n"
		"    for i = 0, 4095 do\n"
		"      if not f:write(i * 65536, 65536) then\n"
		"        error(\"wrote nil bytes, expected to write 65536\")\n"
		"      end\n"
		"    end\n"
		"    f:close()\n"
		"  end,\n"
		"}\n";
	char rd[256];
	const char *why;

	e2e_require_root();
	run_phases("root", mod, "image: 64M, volumes: [source, target]",
		   "  - use: root.lua\n", rd, sizeof(rd));
	why = e2e_reason(rd, "ext4/root#1");
	cr_expect(why && strstr(why, "expected to write 65536; first I/O "
				"error: ENOSPC in write (clients.1)"),
		  "%s", why);
	cr_expect(why && strstr(why, "the work directory itself is a 1 MiB "
				"tmpfs that only holds the volumes: write "
				"into source/ or target/"), "%s", why);
}

Test(phaselimits, a_tool_that_complains_on_stdout_has_it_in_the_reason,
     .fini = fini, .timeout = 240)
{
	char rd[256];
	const char *why;

	e2e_require_root();
	run_phases("tool", NULL, "image: 64M",
		   "  - name: tool\n"
		   "    exec: >-\n"
		   "      sh -c 'echo starting; echo \"write failed: No space "
		   "left on device\"; exit 1'\n", rd, sizeof(rd));
	why = e2e_reason(rd, "ext4/tool#1");
	cr_expect(why && !strcmp(why, "exit status 1: write failed: No space "
				 "left on device"), "%s", why);
}

Test(phaselimits, a_process_that_left_the_group_holds_no_run_up,
     .fini = fini, .timeout = 240)
{
	/* its stdout is the parent's pipe now, not a file: a daemon that
	 * keeps it must not hold the run to the phase's timeout */
	struct timespec t0, t1;
	char rd[256];

	e2e_require_root();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run_phases("esc", NULL, "image: 64M",
		   "  - name: esc\n"
		   "    exec: \"setsid sh -c 'sleep 30' & echo hi\"\n"
		   "    timeout: 25s\n", rd, sizeof(rd));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_expect_str_eq(e2e_metric(rd, "ext4/esc#1", "status"), "ok");
	cr_expect_lt(t1.tv_sec - t0.tv_sec, 15, "%ld s",
		     (long)(t1.tv_sec - t0.tv_sec));
}
