/* fileapi: the files w:open returns: their f:... methods, each op measured. */
#ifndef FSPLAN_FILEAPI_H
#define FSPLAN_FILEAPI_H

#include <lua.h>

/* w:open(path, mode [, opts]) -> file, or nil, msg, errno. */
int fileapi_open(lua_State *L);
/* Make the file metatables of this state (once; later calls do nothing). */
void fileapi_register(lua_State *L);

#endif
