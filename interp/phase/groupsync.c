/* groupsync: group commit: one fdatasync serves every worker waiting on it. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>

#include "phase/groupsync.h"

/*
 * The workers of a phase run are threads of one child with nothing
 * shared in Lua, so the queue lives here. A caller takes a ticket after
 * its write has completed; a leader's sync, begun when tickets up to T
 * were taken, makes all of them durable. Files are few (a redo log or
 * two): a small table, searched under the lock.
 */
#define GSYNC_FILES 16

struct group {
	dev_t dev;
	ino_t ino;
	uint64_t asked;		/* tickets handed out */
	uint64_t done;		/* tickets a finished sync covered */
	int busy;		/* a leader's sync is in flight */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t synced = PTHREAD_COND_INITIALIZER;
static struct group groups[GSYNC_FILES];
static int n_groups;

static struct group *group_of(const struct stat *st)
{
	for (int i = 0; i < n_groups; i++)
		if (groups[i].dev == st->st_dev && groups[i].ino == st->st_ino)
			return &groups[i];
	if (n_groups == GSYNC_FILES)
		return NULL;
	groups[n_groups] = (struct group){ st->st_dev, st->st_ino, 0, 0, 0 };
	return &groups[n_groups++];
}

int groupsync_wait(int fd, int (*sync)(void *ctx), void *ctx)
{
	struct stat st;
	struct group *g;
	uint64_t mine;
	int led = 0, rc = 0;

	if (fstat(fd, &st))
		return -errno;
	pthread_mutex_lock(&lock);
	g = group_of(&st);
	if (!g) {
		/* past the table: a sync of its own, still correct */
		pthread_mutex_unlock(&lock);
		rc = sync(ctx);
		return rc < 0 ? rc : 1;
	}
	mine = ++g->asked;
	while (g->done < mine && !rc) {
		uint64_t upto;

		if (g->busy) {
			pthread_cond_wait(&synced, &lock);
			continue;
		}
		g->busy = 1;
		upto = g->asked;
		pthread_mutex_unlock(&lock);
		rc = sync(ctx);
		led = 1;
		pthread_mutex_lock(&lock);
		g->busy = 0;
		/* a failed sync covers nobody: the next caller leads again */
		if (rc >= 0 && upto > g->done)
			g->done = upto;
		pthread_cond_broadcast(&synced);
	}
	pthread_mutex_unlock(&lock);
	return rc < 0 ? rc : led;
}
