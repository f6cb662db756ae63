/* stream: f:stream, a loop in C with up to depth requests in flight. */
#ifndef FSPLAN_STREAM_H
#define FSPLAN_STREAM_H

#include <lua.h>

/*
 * f:stream{...} (the options at index 2) on fd, named name in messages:
 * up to depth requests in flight, every one timed under the tag.
 * Returns 2 (bytes, ops) or 3 (nil, msg, errno); misuse raises.
 */
int stream_run(lua_State *L, int fd, const char *name);

#endif
