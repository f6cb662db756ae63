/* ns: the run's private mount and PID namespace, whose init runs it. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/devclaim.h"
#include "run/ns.h"
#include "run/run.h"
#include "util/exitcode.h"

/* Wait for pid, passing on the stop signal; its exit status. */
static int wait_relay(struct run *r, pid_t pid)
{
	int status, sent = 0;

	for (;;) {
		if (waitpid(pid, &status, 0) == pid)
			break;
		if (errno != EINTR)
			return EXIT_FAILED;
		/* ESRCH: it has just exited, and the next wait reaps it */
		if (r->stop && !sent++)
			(void)kill(pid, r->stop);
	}
	if (WIFSIGNALED(status))
		return EXIT_INTERRUPTED(WTERMSIG(status));
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
		/* unarmed, this child could outlive a killed fsplan */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || poll(&pf, 1, 0) > 0)
			_exit(EXIT_FAILED);
		close(alive[0]);
		return 0;
	}
	close(alive[0]);
	if (pid < 0)
		close(alive[1]);
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
static int private_mnt(struct run *r, struct diag *d)
{
	struct diag rt = { 0 };

	if (devclaim_runtime_dir(&rt)) {
		diag_fail(d, DIAG_SYSTEM, 0, "%s: refusing to mount on it",
			  rt.msg);
		diag_release(&rt);
		return -1;
	}
	if (mount("fsplan", FSPLAN_RUNTIME_DIR, "tmpfs",
		  MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=1m"))
		goto cannot;
	snprintf(r->mnt, sizeof(r->mnt), "%s/mnt", FSPLAN_RUNTIME_DIR);
	/* runas passes through it to the volumes' work directory, whatever
	 * the umask fsplan was started with (077 would make it root's) */
	if (mkdir(r->mnt, 0755) || chmod(r->mnt, 0755))
		goto cannot;
	return 0;
cannot:
	return diag_fail(d, DIAG_SYSTEM, errno, "cannot make the mount point "
			 "under %s", FSPLAN_RUNTIME_DIR);
}

/* The namespaces entered, / private in them, r->mnt made: 0, or -1 with
 * d (refused: no namespace of our own, where mounts would leak). */
static int enter_ns(struct run *r, struct diag *d)
{
	if (unshare(CLONE_NEWNS | CLONE_NEWPID))
		return diag_fail(d, DIAG_REFUSED, errno, "cannot make a "
				 "private namespace");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return diag_fail(d, DIAG_REFUSED, errno, "cannot make / "
				 "private in our namespace");
	return private_mnt(r, d);
}

/*
 * Only the init keeps the guarded device's fd: mkfs needs it free of
 * every other claim (O_EXCL is per open file, and fork shares it). Each
 * parent lets go of its copy, then of its end of the go pipe; the init
 * starts when the pipe says that both have (an init that raced ahead
 * met a parent's claim: mkfs.xfs "Device or resource busy").
 */
static void let_go(struct run *r, int go[2])
{
	if (r->dev.fd >= 0)
		close(r->dev.fd);
	r->dev.fd = -1;
	close(go[0]);
	close(go[1]);
}

static void wait_let_go(int go[2])
{
	char c;

	close(go[1]);
	while (read(go[0], &c, 1) < 0 && errno == EINTR)
		;
	close(go[0]);
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
int ns_run(struct run *r, int (*init)(struct run *r))
{
	struct diag d = { 0 };
	int go[2];
	pid_t pid;

	/* said here, as each link below says its own: what the run's
	 * caller gets back is the exit status, the namespace's init's */
	if (pipe2(go, O_CLOEXEC)) {
		perror("fsplan run: pipe");
		return EXIT_FAILED;
	}
	pid = fork_tied();
	if (pid < 0) {
		perror("fsplan run: fork");
		close(go[0]);
		close(go[1]);
		return EXIT_FAILED;
	}
	if (pid > 0) {
		let_go(r, go);
		return wait_relay(r, pid);
	}
	/* a forked link has no caller to hand its failure to: it says it
	 * and its exit status tells the parent the kind */
	if (enter_ns(r, &d)) {
		fprintf(stderr, "fsplan run: %s\n", d.msg);
		_exit(d.kind == DIAG_REFUSED ? EXIT_REFUSED : EXIT_FAILED);
	}
	pid = fork_tied();
	if (pid < 0)
		_exit(EXIT_FAILED);
	if (pid == 0) {
		wait_let_go(go);
		_exit(init(r));
	}
	let_go(r, go);
	_exit(wait_relay(r, pid));
}

