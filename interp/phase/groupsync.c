/* groupsync: group commit: one fdatasync serves every worker waiting on it. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>

#include "phase/groupsync.h"

/*
 * The workers of a phase run are threads of one child with nothing
 * shared in Lua, so the queue lives here. A group counts positions: for
 * a sync, tickets (a caller takes one after its write has completed);
 * for a commit, bytes of the shared log (a caller appends its record).
 * A leader's turn, begun when positions up to P were taken, covers all
 * of them. Files are few (a redo log or two): a small table, searched
 * under the lock, a file's syncs and commits kept apart.
 */
#define GSYNC_FILES 16

enum kind { TICKETS, BYTES };

struct group {
	dev_t dev;
	ino_t ino;
	enum kind kind;
	uint64_t asked;		/* positions handed out */
	uint64_t done;		/* positions a finished turn covered */
	int busy;		/* a leader's turn is in flight */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t synced = PTHREAD_COND_INITIALIZER;
static struct group groups[GSYNC_FILES];
static int n_groups;

static struct group *group_of(const struct stat *st, enum kind kind)
{
	for (int i = 0; i < n_groups; i++)
		if (groups[i].dev == st->st_dev &&
		    groups[i].ino == st->st_ino && groups[i].kind == kind)
			return &groups[i];
	if (n_groups == GSYNC_FILES)
		return NULL;
	groups[n_groups] = (struct group){ st->st_dev, st->st_ino, kind,
					   0, 0, 0 };
	return &groups[n_groups++];
}

/* Take len positions of g and wait until a turn covers them, leading
 * one when none is in flight. Called and returns with the lock held. */
static int take(struct group *g, uint64_t len, int (*lead)(void *ctx,
		uint64_t from, uint64_t upto), void *ctx, int *led)
{
	uint64_t mine = g->asked += len;
	int rc = 0;

	while (g->done < mine && !rc) {
		uint64_t from, upto;

		if (g->busy) {
			pthread_cond_wait(&synced, &lock);
			continue;
		}
		g->busy = 1;
		from = g->done;
		upto = g->asked;
		pthread_mutex_unlock(&lock);
		rc = lead(ctx, from, upto);
		*led = 1;
		pthread_mutex_lock(&lock);
		g->busy = 0;
		/* a failed turn covers nobody: the next caller leads again */
		if (rc >= 0 && upto > g->done)
			g->done = upto;
		pthread_cond_broadcast(&synced);
	}
	return rc;
}

/* groupsync_wait's turn: the caller's sync alone. */
struct just_sync {
	int (*sync)(void *ctx);
	void *ctx;
};

static int lead_sync(void *ctx, uint64_t from, uint64_t upto)
{
	struct just_sync *j = ctx;

	(void)from;
	(void)upto;
	return j->sync(j->ctx);
}

/* Take len positions of fd's group of kind and wait for a turn that
 * covers them; past the table, a sync lead alone (still correct), a
 * commit nothing (no shared head to write at). */
static int enter(int fd, enum kind kind, uint64_t len,
		 int (*lead)(void *ctx, uint64_t from, uint64_t upto),
		 void *ctx)
{
	struct stat st;
	struct group *g;
	int led = 0, rc;

	if (fstat(fd, &st))
		return -errno;
	pthread_mutex_lock(&lock);
	g = group_of(&st, kind);
	if (!g) {
		pthread_mutex_unlock(&lock);
		if (kind == BYTES)
			return -EMFILE;
		rc = lead(ctx, 0, len);
		return rc < 0 ? rc : 1;
	}
	rc = take(g, len, lead, ctx, &led);
	pthread_mutex_unlock(&lock);
	return rc < 0 ? rc : led;
}

int groupsync_wait(int fd, int (*sync)(void *ctx), void *ctx)
{
	struct just_sync j = { sync, ctx };

	return enter(fd, TICKETS, 1, lead_sync, &j);
}

int groupsync_commit(int fd, uint64_t len, int (*lead)(void *ctx,
		     uint64_t from, uint64_t upto), void *ctx)
{
	return enter(fd, BYTES, len, lead, ctx);
}
