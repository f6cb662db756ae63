/* run: `fsplan run` — options, the run directory, safety guards, then the namespace. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "phase/phase.h"
#include "run/phasecheck.h"
#include "host/execpath.h"
#include "phase/libsrc.h"
#include "run/run.h"
#include "run/runlog.h"
#include "cells/select.h"
#include "util/sha256.h"
#include "host/sysinfo.h"

static struct run *the_run;

static void on_signal(int sig)
{
	if (the_run && !the_run->stop)
		the_run->stop = sig;
}

static int usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "fsplan run: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see 'fsplan help run')\n");
	return RUN_USAGE;
}

struct run_opts {
	struct plan_define defs[64];
	int n_defs;
	const char *only[64];
	int n_only;
	int shard_k, shard_n;
	const char *out, *resume, *workdir, *plan;
};

static int parse(int argc, char **argv, struct run_opts *o, struct run *r)
{
	static const struct option longs[] = {
		{ "only", required_argument, NULL, 'O' },
		{ "shard", required_argument, NULL, 'S' },
		{ "resume", required_argument, NULL, 'R' },
		{ "workdir", required_argument, NULL, 'W' },
		{ "destroy", required_argument, NULL, 'X' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "D:o:qv", longs, NULL)) != -1) {
		switch (c) {
		case 'D': {
			char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg || o->n_defs == 64)
				return usage("-D takes name=value, not '%s'",
					     optarg);
			*eq = '\0';
			o->defs[o->n_defs].name = optarg;
			o->defs[o->n_defs++].value = eq + 1;
			break;
		}
		case 'O':
			if (o->n_only == 64)
				return usage("%s", "too many --only");
			o->only[o->n_only++] = optarg;
			break;
		case 'S':
			if (select_parse_shard(optarg, &o->shard_k,
					       &o->shard_n))
				return usage("--shard takes K/N with 1 <= K "
					     "<= N, not '%s'", optarg);
			break;
		case 'o': o->out = optarg; break;
		case 'R': o->resume = optarg; break;
		case 'W': o->workdir = optarg; break;
		case 'X': r->destroy = optarg; break;
		case 'q': r->quiet = 1; break;
		case 'v': r->verbose = 1; break;
		default:
			return usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage("%s", optind == argc ? "which plan? (a PLAN "
			     "file is required)" : "one PLAN file only");
	if (o->out && o->resume)
		return usage("%s", "-o and --resume both name the run "
			     "directory: give one");
	o->plan = argv[optind];
	return 0;
}

static void mark_done(void *ctx, const char *cell, const char *status)
{
	struct run *r = ctx;

	(void)status;
	/* ids are unique; a linear scan per row is fine for resumes */
	for (size_t i = 0; i < r->e->n_cells; i++)
		if (!strcmp(r->e->cells[i].id, cell))
			r->done[i] = 1;
}

/* mkdir -p of everything above path. */
static int mkdir_parents(const char *path)
{
	char buf[PATH_MAX];

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -1;
	for (char *s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return 0;
}

/* The run directory: new, or the one to resume (same plan text). */
static int prepare_dir(struct run *r, const struct run_opts *o)
{
	char stamp[32], path[PATH_MAX + 32], sha[65], old[65];
	struct diag d = { 0 };
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (o->resume) {
		snprintf(path, sizeof(path), "%s", o->resume);
		sha256_hex(r->plan->text, r->plan->text_len, sha);
		if (manifest_read_plan_sha(path, old))
			return usage("--resume %s: no manifest.json there",
				     path);
		if (strcmp(sha, old))
			return usage("--resume %s: the plan has changed since "
				     "that run (sha256 differs)", path);
	} else if (o->out) {
		snprintf(path, sizeof(path), "%s", o->out);
	} else {
		snprintf(path, sizeof(path), "results/%s-%s", r->plan->name,
			 stamp);
	}
	if (!o->resume && (mkdir_parents(path) || mkdir(path, 0755))) {
		fprintf(stderr, "fsplan run: cannot make %s: %s%s\n", path,
			strerror(errno), errno == EEXIST ?
			" (use --resume to continue a run)" : "");
		return RUN_USAGE;
	}
	if (!realpath(path, r->dir))
		return usage("cannot resolve %s", path);
	{
		const char *base = strrchr(r->dir, '/');

		snprintf(r->run_id, sizeof(r->run_id), "%s", base + 1);
	}
	snprintf(path, sizeof(path), "%s/exec", r->dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/results.csv", r->dir);
	if (o->resume && csv_read_status(path, mark_done, r, &d)) {
		diag_print(&d);
		return RUN_USAGE;
	}
	if (csv_open(&r->csv, path, &d)) {
		diag_print(&d);
		return RUN_USAGE;
	}
	snprintf(path, sizeof(path), "%s/log.txt", r->dir);
	if (runlog_open(path, r->verbose))
		return usage("cannot open %s", path);
	return 0;
}

/* A refused run leaves no run directory behind: it never began. */
static void discard_dir(struct run *r)
{
	static const char *const files[] = { "results.csv", "log.txt" };
	static const char *const dirs[] = { "exec", "" };
	char path[PATH_MAX + 32];

	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", r->dir, files[i]);
		unlink(path);
	}
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", r->dir, dirs[i]);
		rmdir(path);
	}
	r->dir[0] = '\0';
}

static int guard_target(struct run *r, json_t **identity)
{
	const struct plan_target *t = &r->plan->target;
	struct diag d = { 0 };
	struct stat st;
	int refused = 0;

	r->dev.fd = r->dev.lock_fd = -1;
	*identity = json_object();
	switch (t->kind) {
	case TARGET_IMAGE:
		json_object_set_new(*identity, "kind", json_string("image"));
		json_object_set_new(*identity, "image_bytes",
				    json_integer((json_int_t)t->image_bytes));
		json_object_set_new(*identity, "workdir",
				    json_string(r->workdir));
		return 0;
	case TARGET_DIR:
		json_object_set_new(*identity, "kind", json_string("dir"));
		json_object_set_new(*identity, "dir", json_string(t->dir));
		if (stat(t->dir, &st) || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "fsplan run: target.dir %s is not a "
				"directory\n", t->dir);
			return RUN_REFUSED;
		}
		return 0;
	case TARGET_DEVICE:
		json_decref(*identity);
		*identity = NULL;
		if (target_device_open(&r->dev, t->device, r->destroy, t->wipe,
				       r->dir, r->workdir, identity, &refused,
				       &d)) {
			diag_print(&d);
			return refused ? RUN_REFUSED : RUN_USAGE;
		}
		json_object_set_new(*identity, "kind", json_string("device"));
		return 0;
	}
	return 0;
}

/* Wait for pid, passing on the stop signal; its exit status. */
static int wait_relay(struct run *r, pid_t pid)
{
	int status, sent = 0;

	for (;;) {
		if (waitpid(pid, &status, 0) == pid)
			break;
		if (errno != EINTR)
			return RUN_FAILED;
		if (r->stop && !sent++)
			kill(pid, r->stop);
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* Fork a child that dies with us: PDEATHSIG, and a pipe that only the
 * parent holds, whose hang-up tells a child that the parent died before
 * PDEATHSIG was armed (getppid() cannot tell across PID namespaces). */
static pid_t fork_tied(void)
{
	int alive[2];
	pid_t pid;

	if (pipe2(alive, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct pollfd pf = { alive[0], POLLIN, 0 };

		close(alive[1]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (poll(&pf, 1, 0) > 0)
			_exit(RUN_FAILED);
		close(alive[0]);
		return 0;
	}
	close(alive[0]);
	/* the write end is ours until we exit; children must not keep it */
	return pid;
}

/*
 * The mount point, in our namespace, where runas can reach it whatever
 * the run directory's mode (a 0700 home, a mktemp -d): a tmpfs of our
 * own on /run/fsplan, which the host sees as an empty directory (made
 * once, kept like /run/lock; removing it while another run has its tmpfs
 * there would unmount that run's). Results stay in the run directory.
 */
static int private_mnt(struct run *r)
{
	struct stat st;

	if (mkdir(FSPLAN_RUNTIME_DIR, 0755) && errno != EEXIST)
		goto cannot;
	if (lstat(FSPLAN_RUNTIME_DIR, &st))
		goto cannot;
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022)) {
		fprintf(stderr, "fsplan run: %s is not a directory that only "
			"root can write: refusing to mount on it\n",
			FSPLAN_RUNTIME_DIR);
		return -1;
	}
	if (mount("fsplan", FSPLAN_RUNTIME_DIR, "tmpfs",
		  MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=1m"))
		goto cannot;
	snprintf(r->mnt, sizeof(r->mnt), "%s/mnt", FSPLAN_RUNTIME_DIR);
	if (mkdir(r->mnt, 0755))
		goto cannot;
	return 0;
cannot:
	fprintf(stderr, "fsplan run: cannot make the mount point under %s: "
		"%s\n", FSPLAN_RUNTIME_DIR, strerror(errno));
	return -1;
}

/*
 * A private mount namespace (nothing we mount is seen outside, or
 * outlives us) and a PID namespace whose init does the run: when it dies
 * the kernel kills every process in it, and with them go the mounts and
 * the autoclear loops. The unshare happens in a child, not here: after
 * unshare(CLONE_NEWPID) a process can make no threads, and the
 * sanitizers' leak checker needs one at exit. Each link dies with its
 * parent (PDEATHSIG), so SIGKILL of fsplan takes the namespace down.
 */
static int in_namespace(struct run *r)
{
	pid_t pid = fork_tied();

	if (pid < 0) {
		perror("fsplan run: fork");
		return RUN_FAILED;
	}
	/* Only the init keeps the guarded device's fd: mkfs needs it free
	 * of every other claim (O_EXCL is per open file, shared by fork). */
	if (pid > 0) {
		if (r->dev.fd >= 0)
			close(r->dev.fd);
		r->dev.fd = -1;
		return wait_relay(r, pid);
	}
	if (unshare(CLONE_NEWNS | CLONE_NEWPID)) {
		fprintf(stderr, "fsplan run: cannot make a private namespace: "
			"%s\n", strerror(errno));
		_exit(RUN_REFUSED);
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		fprintf(stderr, "fsplan run: cannot make / private in our "
			"namespace: %s\n", strerror(errno));
		_exit(RUN_REFUSED);
	}
	if (private_mnt(r))
		_exit(RUN_FAILED);
	pid = fork_tied();
	if (pid < 0)
		_exit(RUN_FAILED);
	if (pid == 0)
		_exit(runner_main(r));
	if (r->dev.fd >= 0)
		close(r->dev.fd);
	r->dev.fd = -1;
	_exit(wait_relay(r, pid));
}

int run_command(int argc, char **argv)
{
	struct run r = { 0 };
	struct run_opts o = { 0 };
	struct diag d = { 0 };
	struct sigaction sa = { 0 };
	json_t *identity = NULL;
	int rc;

	rc = parse(argc, argv, &o, &r);
	if (rc)
		return rc;
	if (plan_load(&r.plan, o.plan, o.defs, o.n_defs, &d) ||
	    expand_plan(r.plan, &r.e, &d) ||
	    select_cells(r.e, o.only, o.n_only, o.shard_k, o.shard_n, &d) ||
	    phasecheck_all(r.e, r.plan->runas, &d)) {
		diag_print(&d);
		rc = RUN_USAGE;
		goto out;
	}
	if (!r.e->n_selected) {
		rc = usage("%s", "no cell matches --only/--shard");
		goto out;
	}
	if (geteuid() != 0) {
		rc = usage("%s", "must be started as root: it makes and mounts "
			   "filesystems (the phases themselves run as "
			   "the plan's runas user)");
		goto out;
	}
	if (privdrop_resolve(r.plan->runas, &r.runas, &d)) {
		diag_print(&d);
		rc = RUN_USAGE;
		goto out;
	}
	execpath_warn(r.e, &r.runas);
	r.done = calloc(r.e->n_cells, 1);
	if (!r.done) {
		rc = RUN_FAILED;
		goto out;
	}
	r.progress = !r.quiet && (r.verbose || isatty(2));
	rc = prepare_dir(&r, &o);
	if (rc)
		goto out;
	if (!realpath(o.workdir ? o.workdir : r.dir, r.workdir)) {
		rc = usage("--workdir %s: no such directory", o.workdir);
		goto out;
	}
	rc = guard_target(&r, &identity);
	if (rc) {
		if (!o.resume)
			discard_dir(&r);
		goto out;
	}
	if (target_clean_stale(r.workdir) > 0)
		runlog("removed stale images from %s", r.workdir);
	r.man = manifest_new(r.e, r.run_id, argc, argv, sysinfo_collect(),
			     identity);
	identity = NULL;
	if (!r.man) {
		rc = RUN_FAILED;
		goto out;
	}
	manifest_set(r.man, "runas_uid", json_integer(r.runas.uid));
	manifest_set(r.man, "runas_gid", json_integer(r.runas.gid));
	manifest_write(r.man, r.dir);
	runlog("fsplan run %s: %zu cells%s", o.plan, r.e->n_selected,
	       o.resume ? " (resumed)" : "");
	the_run = &r;
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	rc = in_namespace(&r);
out:
	json_decref(identity);
	libsrc_free();
	runlog_close();
	csv_close(r.csv);
	manifest_free(r.man);
	if (r.dev.fd >= 0)
		close(r.dev.fd);
	free(r.done);
	expansion_free(r.e);
	plan_free(r.plan);
	return rc;
}
