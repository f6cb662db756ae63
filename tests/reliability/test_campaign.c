/* test_campaign: kills at seeded random points of a multi-config run, each
 * followed by leak checks and a --resume that keeps every byte. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

/* Three configs, two phases each, every phase run a few tens of ms:
 * kills land in mkfs, mount, a phase, between phase runs, umount. */
static const char plan_text[] =
	"fsplan: 1\n"
	"target: {image: 64M}\n"
	"between: [sync]\n"
	"filesystems:\n"
	"  - {type: ext4}\n"
	"  - {type: ext2, mount: noatime}\n"
	"  - {type: tmpfs, mount: size=16M}\n"
	"phases:\n"
	"  - {name: write, exec: 'dd if=/dev/zero of=f bs=64k count=32 "
	"conv=fsync status=none; sleep 0.0%05d', repeat: 2}\n"
	"  - {name: read, exec: 'cat f > /dev/null'}\n";

/* Whether process pid catches sig yet (SigCgt of /proc/pid/status): a
 * signal before main() installs the handlers — the loader's and ASan's
 * start take tens of ms — meets the default action, with nothing made. */
static int catches(pid_t pid, int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		/* not yet exec'd: the test's own handlers say nothing */
		if (!strncmp(line, "Name:", 5) && !strstr(line, "fsplan"))
			break;
		if (sscanf(line, "SigCgt: %llx", &mask) == 1)
			break;
	}
	fclose(f);
	return (int)(mask >> (sig - 1) & 1);
}

/* Wait (up to 5 s) until nothing is mounted, attached or running. */
static int settled(const char *dir, const char *token)
{
	for (int i = 0; i < 100; i++) {
		if (!e2e_mounted_under(dir) && !e2e_loops_under(dir) &&
		    !e2e_processes_with(token))
			return 1;
		usleep(50000);
	}
	return 0;
}

Test(campaign, seeded_kills_then_resume_keep_every_byte, .fini = fini,
     .timeout = 300)
{
	static const int sigs[] = { SIGKILL, SIGINT, SIGTERM };
	const char *dir;
	char text[sizeof(plan_text) + 16], token[32], *plan;
	unsigned seed = 20261201;
	int clean = 0, tried = 0, mark = (int)(getpid() % 100000);

	e2e_require_root();
	dir = e2e_tmpdir();
	snprintf(text, sizeof(text), plan_text, mark);
	snprintf(token, sizeof(token), "sleep 0.0%05d", mark);
	plan = e2e_write(dir, "plan.yaml", text);
	for (int round = 0; round < 9; round++) {
		char rd[256], csv[300];
		struct timespec ts;
		char *before, *after;
		size_t blen, alen;
		int sig = sigs[round % 3], status, rc, early;
		long ms;
		pid_t pid;

		seed = seed * 1103515245u + 12345u;
		/* the first round of each signal within 50 ms */
		ms = round < 3 ? (long)(seed >> 16) % 50
			       : (long)(seed >> 16) % 2500;
		snprintf(rd, sizeof(rd), "%s/run%d", dir, round);
		snprintf(csv, sizeof(csv), "%s/results.csv", rd);
		pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd,
			"-q", "--workdir", dir, NULL });
		ts.tv_sec = ms / 1000;
		ts.tv_nsec = (ms % 1000) * 1000000L;
		nanosleep(&ts, NULL);
		early = !catches(pid, sig);
		kill(pid, sig);
		waitpid(pid, &status, 0);
		tried++;
		if (sig != SIGKILL && early)
			/* before main(): the default action, nothing made */
			cr_expect(WIFEXITED(status) || access(rd, F_OK),
				  "round %d (signal %d at %ld ms, before the "
				  "handlers): status %#x and a run directory",
				  round, sig, ms, status);
		else if (sig != SIGKILL)
			cr_expect(WIFEXITED(status) &&
				  (WEXITSTATUS(status) == 128 + sig ||
				   WEXITSTATUS(status) == 0),
				  "round %d (signal %d at %ld ms): status %#x",
				  round, sig, ms, status);
		cr_expect(settled(dir, token), "round %d (signal %d at %ld "
			  "ms): something is left mounted, attached or "
			  "running", round, sig, ms);
		if (access(csv, F_OK)) {	/* stopped before anything */
			clean++;
			continue;
		}
		before = e2e_slurp(csv, &blen);
		rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd,
			"-q", "--workdir", dir, NULL });
		cr_expect_eq(rc, 0, "round %d (signal %d at %ld ms): resume: "
			     "exit %d, %s; failed: %s", round, sig, ms, rc,
			     e2e_err, e2e_failed(rd));
		after = e2e_slurp(csv, &alen);
		cr_expect(alen >= blen && !memcmp(before, after, blen),
			  "round %d: results.csv before the resume is not a "
			  "prefix of it after", round);
		cr_expect_eq(e2e_count(rd, "status"), 9, "round %d", round);
		cr_expect(settled(dir, token), "round %d: the resume left "
			  "something", round);
		if (alen >= blen && !memcmp(before, after, blen) && !rc)
			clean++;
		free(before);
		free(after);
	}
	cr_expect_eq(clean, tried, "kills tried %d, clean %d", tried, clean);
	/* no image of any round is left beside the runs */
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "ls %s | grep 'fsplan-.*\\.img'",
			 dir);
		cr_expect_neq(system(cmd), 0, "an image is left in %s", dir);
	}
}
