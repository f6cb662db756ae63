/* stream: the loops in C under f:stream and f:putc_stream/getc_stream. */
#ifndef FSPLAN_STREAM_H
#define FSPLAN_STREAM_H

#include <lua.h>

/*
 * f:stream{...} (the options at index 2) on fd, named name in messages:
 * up to depth requests in flight, every one timed under the tag.
 * Returns 2 (bytes, ops) or 3 (nil, msg, errno); misuse raises.
 */
int stream_run(lua_State *L, int fd, const char *name);

/*
 * f:putc_stream(n [, off]) / f:getc_stream(n [, off]): n bytes a byte at
 * a time through a stdio buffer that drains through the engine (bonnie's
 * per-char columns). Returns 1 (bytes done) or 3 (nil, msg, errno).
 */
int stream_per_char(lua_State *L, int fd, const char *name, int writing);

#endif
