/* dirapi: w:readdir, w:scandir and w:lookup: a directory's names, timed. */
#ifndef FSPLAN_DIRAPI_H
#define FSPLAN_DIRAPI_H

#include <lua.h>

/* w:readdir([path]) -> { names } (not "." and ".."), or nil, msg,
 * errno; timed as "readdir". */
int dirapi_readdir(lua_State *L);
/* w:scandir(path [, name]) -> n, the entry equal to name ignoring ASCII
 * case or nil: a search of the directory, no table made. */
int dirapi_scandir(lua_State *L);
/* w:lookup(path) -> true, the name that matches ignoring ASCII case,
 * or nil: an SMB server's resolve of a client's name. */
int dirapi_lookup(lua_State *L);

#endif
