/* luacount: a test helper for the parsers' result tables. */
#ifndef FSPLAN_TEST_LUACOUNT_H
#define FSPLAN_TEST_LUACOUNT_H

#include <lua.h>

/* How many keys the table on top of L's stack has. */
static inline int lua_count_keys(lua_State *L)
{
	int n = 0;

	lua_pushnil(L);
	while (lua_next(L, -2)) {
		n++;
		lua_pop(L, 1);
	}
	return n;
}

#endif
