/* runlog: log.txt of a run — what happened, with times. */
#ifndef FSPLAN_RUNLOG_H
#define FSPLAN_RUNLOG_H

/* Open (append) path; echo: also to stderr. 0 or -errno. */
int runlog_open(const char *path, int echo);
/* The log's fd, for tools' output (mkfs), or -1. */
int runlog_fd(void);
void runlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void runlog_close(void);

#endif
