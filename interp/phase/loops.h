/* loops: the C loops under f:putc_stream/getc_stream and w:files. */
#ifndef FSPLAN_LOOPS_H
#define FSPLAN_LOOPS_H

#include <lua.h>

/*
 * f:putc_stream(n [, off]) / f:getc_stream(n [, off]): n bytes a byte at
 * a time through a stdio buffer that drains through the engine (bonnie's
 * per-char columns). Returns 1 (bytes done) or 3 (nil, msg, errno).
 */
int loops_per_char(lua_State *L, int fd, const char *name, int writing);

/*
 * w:files(op, names [, opts]) -> count, or nil, msg, errno: op
 * ("create", "stat", "unlink") on every path of the array names, each
 * file timed under opts.tag (default op), each engine op under its own.
 */
int loops_files(lua_State *L);

#endif
