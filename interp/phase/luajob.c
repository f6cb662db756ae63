/* luajob: a Lua phase run's job — its source and the files root pre-reads — and
 * its ctx: params, share, cell, fs, input(). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>

#include "cells/expand.h"
#include "phase/luajob.h"
#include "phase/params.h"
#include "phase/workerlua.h"
#include "plan/plan.h"
#include "util/file.h"

/* Where ctx.input looks for a parameter's value: relative to the plan. */
static int input_path(const char *plandir, const char *val, char *path,
		      size_t len)
{
	int n = val[0] == '/' ? snprintf(path, len, "%s", val)
			      : snprintf(path, len, "%s/%s", plandir, val);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static void preread(struct luajob *j, const char *val)
{
	char path[4200];
	struct luajob_input *in;
	struct stat st;
	int fd, more;

	if (!val || !*val || strchr(val, '\n') ||
	    input_path(j->e->plan->dir, val, path, sizeof(path)) ||
	    stat(path, &st) || !S_ISREG(st.st_mode) ||
	    j->n_inputs == LUAJOB_MAX_INPUTS)
		return;
	for (int i = 0; i < j->n_inputs; i++)
		if (!strcmp(j->inputs[i].path, path))
			return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;		/* then the phase tries as runas */
	in = &j->inputs[j->n_inputs];
	in->text = file_read_all(fd, LUAJOB_MAX_INPUT, &in->len, &more);
	close(fd);
	in->path = strdup(path);
	if (!in->text || !in->path || more) {
		free(in->text);
		free(in->path);
		return;
	}
	j->n_inputs++;
}

void luajob_preread(struct luajob *j)
{
	const struct plan_phase *ph = &j->e->plan->phases[j->c->phase];

	for (int i = 0; i < ph->n_with; i++) {
		char *v = cell_with(j->e, j->c, ph->with[i].key);

		preread(j, v);
		free(v);
	}
	for (int i = 0; i < ph->n_matrix; i++)
		preread(j, cell_coord(j->e, j->c, ph->matrix[i].name));
}

void luajob_free(struct luajob *j)
{
	for (int i = 0; i < j->n_inputs; i++) {
		free(j->inputs[i].path);
		free(j->inputs[i].text);
	}
	j->n_inputs = 0;
	free((char *)j->text);
	j->text = NULL;
}

/*
 * ctx.input(name): the contents of the file a string parameter names (a
 * dbench loadfile, say); a relative path is taken from the plan's
 * directory. What the plan itself names was read by root before the
 * fork (luajob_preread: the plan's directory may be a 0700 home); a
 * module's own default is read here, as runas. Returns the text, or
 * nil, message, errno.
 */
static int ctx_input(lua_State *L)
{
	const struct luajob *j = lua_touserdata(L, lua_upvalueindex(2));
	const char *name = luaL_checkstring(L, 1);
	char path[4200], *buf;
	const char *val;
	struct stat st;
	ssize_t n;
	int err, fd;

	lua_getfield(L, lua_upvalueindex(1), name);
	val = lua_tostring(L, -1);
	if (!val)
		return luaL_error(L, "input: '%s' is not a string parameter",
				  name);
	if (input_path(j->e->plan->dir, val, path, sizeof(path)))
		return workerlua_fail(L, val, ENAMETOOLONG);
	for (int i = 0; i < j->n_inputs; i++)
		if (!strcmp(j->inputs[i].path, path)) {
			lua_pushlstring(L, j->inputs[i].text,
					j->inputs[i].len);
			return 1;
		}
	if (stat(path, &st))
		return workerlua_fail(L, path, errno);
	if (!S_ISREG(st.st_mode) || st.st_size > LUAJOB_MAX_INPUT)
		return workerlua_fail(L, path, S_ISREG(st.st_mode) ? EFBIG : EINVAL);
	/* the buffer first: nothing can raise while the file is open */
	buf = lua_newuserdatauv(L, (size_t)st.st_size + 1, 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return workerlua_fail(L, path, errno);
	n = file_read_into(fd, buf, (size_t)st.st_size);
	err = errno;
	close(fd);
	if (n < 0)
		return workerlua_fail(L, path, err);
	lua_pushlstring(L, buf, (size_t)n);
	return 1;
}

int luajob_push_ctx(lua_State *L)
{
	const struct luajob_ctx *x = lua_touserdata(L, 1);
	const struct luajob *j = x->job;

	lua_createtable(L, 0, 6);
	params_push(L, x->vals, x->n_params, x->workers);
	lua_pushvalue(L, -1);
	lua_pushlightuserdata(L, (void *)j);
	lua_pushcclosure(L, ctx_input, 2);
	lua_setfield(L, -3, "input");
	lua_setfield(L, -2, "params");
	optable_push_ctx(L, x->tab);
	lua_setfield(L, -3, "shared");
	lua_setfield(L, -2, "share");
	params_set_cell(L, j->e, j->c, j->ram_bytes);
	lua_getfield(L, -1, "fs");
	lua_pushinteger(L, (lua_Integer)j->fs_size_bytes);
	lua_setfield(L, -2, "size_bytes");
	lua_pushinteger(L, (lua_Integer)j->fs_block_size);
	lua_setfield(L, -2, "block_size");
	lua_pop(L, 1);
	return 1;
}
