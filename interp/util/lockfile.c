/* lockfile: an flock on a file that says who holds it — how a run claims its
 * device and its run directory. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "util/file.h"
#include "util/lockfile.h"

/* Whether pid is a live process (a zombie is not). */
static int alive(pid_t pid)
{
	char path[64], buf[512], *end;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (file_read_text(path, buf, sizeof(buf)) < 0)
		return 0;
	end = strrchr(buf, ')');	/* the name may hold anything */
	return end && end[1] == ' ' && end[2] != 'Z' && end[2] != 'X';
}

int lockfile_take(int fd, int op, int wait_s, pid_t *holder)
{
	*holder = 0;
	for (int waited = 0; flock(fd, op | LOCK_NB) < 0;) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK)
			return -errno;
		*holder = lockfile_holder(fd, NULL, 0);
		if (*holder <= 0 || alive(*holder))
			return LOCKFILE_HELD;
		if (waited++ >= wait_s * 50)
			return LOCKFILE_LEFT;
		usleep(20000);
	}
	return LOCKFILE_TAKEN;
}

int lockfile_say(int fd, pid_t pid, const char *text)
{
	char buf[4200];
	int n = snprintf(buf, sizeof(buf), "%d\n%s%s", (int)pid, text,
			 *text ? "\n" : "");

	if (n < 0 || (size_t)n >= sizeof(buf))
		return -ENAMETOOLONG;
	if (ftruncate(fd, 0) || pwrite(fd, buf, (size_t)n, 0) != n)
		return errno ? -errno : -EIO;
	return 0;
}

pid_t lockfile_holder(int fd, char *text, size_t len)
{
	char buf[4200], *nl = NULL;
	ssize_t n = 0;
	int pid;

	if (text && len)
		*text = '\0';
	for (int i = 0; i < 50 && n <= 0; i++) {
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			usleep(2000);
	}
	buf[n > 0 ? n : 0] = '\0';
	if (sscanf(buf, "%d", &pid) != 1 || pid <= 0)
		return 0;
	nl = strchr(buf, '\n');
	if (text && len && nl) {
		nl[1 + strcspn(nl + 1, "\n")] = '\0';
		snprintf(text, len, "%s", nl + 1);
	}
	return pid;
}
