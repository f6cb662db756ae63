/* optable: ctx.share's rows, built once by setup, read in place by workers. */
#ifndef FSPLAN_OPTABLE_H
#define FSPLAN_OPTABLE_H

#include <lua.h>

struct optable;

/* A phase run's slot: the table setup made (NULL: none) and whether the
 * workers have started (then it is read-only: ctx.share raises). */
struct optable_slot {
	struct optable *t;
	int frozen;
};

/*
 * Push ctx.share and ctx.shared, closures over slot (which outlives
 * every state of the phase run). ctx.share() makes the table in the main
 * state, its memory from that state's allocator (so under its memory
 * cap), owned by that state: it lives until the state is closed, after
 * the workers have been joined. Leaves two functions on the stack.
 */
void optable_push_ctx(lua_State *L, struct optable_slot *slot);

#endif
