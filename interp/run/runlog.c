/* runlog: append timestamped lines to a run's log.txt, one write each. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "run/runlog.h"

static int log_fd = -1;
static int log_echo;

int runlog_open(const char *path, int echo)
{
	log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
		      O_CLOEXEC, 0644);
	log_echo = echo;
	return log_fd < 0 ? -errno : 0;
}

int runlog_fd(void)
{
	return log_fd;
}

void runlog(const char *fmt, ...)
{
	char line[2048];
	struct timeval tv;
	struct tm tm;
	va_list ap;
	ssize_t w;
	int n;

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	n = (int)strftime(line, sizeof(line), "%Y-%m-%d %H:%M:%S", &tm);
	n += snprintf(line + n, sizeof(line) - n, ".%03d ",
		      (int)(tv.tv_usec / 1000));
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(line) - 1)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	w = log_fd >= 0 ? write(log_fd, line, n) : n;
	if (w != n) {
		/* a full disk, say: the log stops, and the user hears why */
		fprintf(stderr, "fsplan: log.txt: %s: no more is logged\n",
			strerror(w < 0 ? errno : ENOSPC));
		log_fd = -1;
	}
	if (log_echo)
		fprintf(stderr, "%.*s", n - 24, line + 24);
}

void runlog_close(void)
{
	if (log_fd >= 0) {
		/* at the end, with nowhere left to say it: the log is the
		 * one file of the run whose tail may be lost to a crash */
		(void)fdatasync(log_fd);
		close(log_fd);
	}
	log_fd = -1;
}
