/* optable: ctx.share's rows, built once by setup, read in place by workers. */
#include <stdint.h>
#include <string.h>

#include <lauxlib.h>

#include "phase/optable.h"

/*
 * Values cross Lua states only by copy; a 26 MB dbench loadfile parsed
 * into Lua tables in every worker's state would not fit. So setup adds
 * its rows here (numbers and strings), and workers read them through a
 * userdata of their own that points at the one copy. Nothing changes
 * the table once the workers start (slot->frozen), so the threads read
 * it without locks.
 */

enum { CELL_INT, CELL_NUM, CELL_STR };

struct optable_cell {
	union {
		int64_t i;
		double d;
		uint64_t off;	/* CELL_STR: into pool */
	} v;
	uint32_t len;		/* CELL_STR: bytes */
	uint32_t type;
};

struct optable {
	lua_Alloc alloc;	/* the main state's: its cap counts these */
	void *ud;
	struct optable_cell *cells;
	size_t n_cells, cap_cells;
	uint32_t *rows;		/* row i's cells: rows[i] .. rows[i+1] */
	size_t n_rows, cap_rows;
	char *pool;
	size_t pool_len, pool_cap;
};

/* The registry names of the two metatables: setup's table, which adds
 * rows, and a worker's, which reads them. Errors and tostring call them
 * by their __name. */
#define BUILDER	"fsplan.optable"
#define READER	"fsplan.optable.reader"
#define OWNER	"fsplan.optable.owner"	/* the registry key of the one table */
#define BUILDER_NAME	"shared table"
#define READER_NAME	"read-only shared table"

/* Grow *p (of *cap elements of size) to hold need; 0 or -1. */
static int grow(struct optable *t, void **p, size_t *cap, size_t need,
		size_t size)
{
	size_t n = *cap ? *cap : 1024;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if (n > SIZE_MAX / size)
		return -1;
	q = t->alloc(t->ud, *p, *p ? *cap * size : 0, n * size);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

/* Setup's table at index 1, by its metatable (luaL_checkudata, named
 * as the phase knows it). */
static struct optable *check_builder(lua_State *L)
{
	struct optable *t = luaL_testudata(L, 1, BUILDER);

	if (!t)
		luaL_typeerror(L, 1, BUILDER_NAME);
	return t;
}

static int t_gc(lua_State *L)
{
	struct optable *t = check_builder(L);

	if (t->cells)
		t->alloc(t->ud, t->cells, t->cap_cells * sizeof(*t->cells), 0);
	if (t->rows)
		t->alloc(t->ud, t->rows, t->cap_rows * sizeof(*t->rows), 0);
	if (t->pool)
		t->alloc(t->ud, t->pool, t->pool_cap, 0);
	memset(t, 0, sizeof(*t));
	return 0;
}

static struct optable_slot *slot_of(lua_State *L)
{
	return lua_touserdata(L, lua_upvalueindex(1));
}

/* t:add(...): one row of integers, numbers and strings. */
static int t_add(lua_State *L)
{
	struct optable *t = check_builder(L);
	struct optable_slot *slot = lua_touserdata(L, lua_upvalueindex(1));
	int n = lua_gettop(L) - 1;

	if (slot->frozen)
		return luaL_error(L, "share: the table is read-only once the "
				  "workers have started");
	for (int i = 2; i <= n + 1; i++)
		if (lua_type(L, i) != LUA_TNUMBER &&
		    lua_type(L, i) != LUA_TSTRING)
			luaL_typeerror(L, i, "number or string");
	if (t->n_cells + (size_t)n > UINT32_MAX ||
	    grow(t, (void **)&t->cells, &t->cap_cells, t->n_cells + n,
		 sizeof(*t->cells)) ||
	    grow(t, (void **)&t->rows, &t->cap_rows, t->n_rows + 2,
		 sizeof(*t->rows)))
		return luaL_error(L, "share: out of memory");
	if (!t->n_rows)
		t->rows[0] = 0;
	for (int i = 2; i <= n + 1; i++) {
		struct optable_cell *c = &t->cells[t->n_cells];

		if (lua_type(L, i) == LUA_TSTRING) {
			size_t len;
			const char *s = lua_tolstring(L, i, &len);

			if (len > UINT32_MAX ||
			    grow(t, (void **)&t->pool, &t->pool_cap,
				 t->pool_len + len, 1))
				return luaL_error(L, "share: out of memory");
			memcpy(t->pool + t->pool_len, s, len);
			c->type = CELL_STR;
			c->v.off = t->pool_len;
			c->len = (uint32_t)len;
			t->pool_len += len;
		} else if (lua_isinteger(L, i)) {
			c->type = CELL_INT;
			c->v.i = lua_tointeger(L, i);
		} else {
			c->type = CELL_NUM;
			c->v.d = lua_tonumber(L, i);
		}
		t->n_cells++;
	}
	t->rows[++t->n_rows] = (uint32_t)t->n_cells;
	lua_pushinteger(L, (lua_Integer)t->n_rows);
	return 1;
}

/* The table at index 1, setup's or a worker's reader of it. */
static const struct optable *table_of(lua_State *L)
{
	void *p = luaL_testudata(L, 1, READER);

	if (p)
		return *(const struct optable **)p;
	p = luaL_testudata(L, 1, BUILDER);
	if (!p)
		luaL_typeerror(L, 1, BUILDER_NAME);
	return p;
}

/* t:row(i): row i's values. */
static int t_row(lua_State *L)
{
	const struct optable *t = table_of(L);
	lua_Integer i = luaL_checkinteger(L, 2);
	uint32_t a, b;

	if (i < 1 || (size_t)i > t->n_rows)
		return luaL_error(L, "row %I of %I", i,
				  (lua_Integer)t->n_rows);
	a = t->rows[i - 1];
	b = t->rows[i];
	luaL_checkstack(L, (int)(b - a), "row too long");
	for (uint32_t k = a; k < b; k++) {
		const struct optable_cell *c = &t->cells[k];

		if (c->type == CELL_STR)
			lua_pushlstring(L, t->pool + c->v.off, c->len);
		else if (c->type == CELL_INT)
			lua_pushinteger(L, c->v.i);
		else
			lua_pushnumber(L, c->v.d);
	}
	return (int)(b - a);
}

static int t_len(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)table_of(L)->n_rows);
	return 1;
}

/* The metatable name with __index (row, add for the builder), __len. */
static void metatable(lua_State *L, const char *name, int builder,
		      struct optable_slot *slot)
{
	if (!luaL_newmetatable(L, name))
		return;
	lua_pushstring(L, builder ? BUILDER_NAME : READER_NAME);
	lua_setfield(L, -2, "__name");
	lua_createtable(L, 0, 2);
	lua_pushcfunction(L, t_row);
	lua_setfield(L, -2, "row");
	if (builder) {
		lua_pushlightuserdata(L, slot);
		lua_pushcclosure(L, t_add, 1);
		lua_setfield(L, -2, "add");
	}
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, t_len);
	lua_setfield(L, -2, "__len");
	if (builder) {
		lua_pushcfunction(L, t_gc);
		lua_setfield(L, -2, "__gc");
	}
	lua_pushstring(L, name);
	lua_setfield(L, -2, "__metatable");
}

/* ctx.share(): the phase run's table, made empty, to add rows to. */
static int ctx_share(lua_State *L)
{
	struct optable_slot *slot = slot_of(L);
	struct optable *t;

	if (slot->frozen)
		return luaL_error(L, "share: only setup can make the shared "
				  "table");
	if (slot->t)
		return luaL_error(L, "share: setup made the table already");
	t = lua_newuserdatauv(L, sizeof(*t), 0);
	memset(t, 0, sizeof(*t));
	t->alloc = lua_getallocf(L, &t->ud);
	metatable(L, BUILDER, 1, slot);
	lua_setmetatable(L, -2);
	/* the main state owns it until it closes, whatever setup keeps */
	lua_pushvalue(L, -1);
	lua_setfield(L, LUA_REGISTRYINDEX, OWNER);
	slot->t = t;
	return 1;
}

/* ctx.shared(): the table setup made, read-only, or nil. */
static int ctx_shared(lua_State *L)
{
	struct optable_slot *slot = slot_of(L);

	if (!slot->t) {
		lua_pushnil(L);
		return 1;
	}
	if (!slot->frozen) {	/* setup's own state: the builder itself */
		lua_getfield(L, LUA_REGISTRYINDEX, OWNER);
		if (!lua_isnil(L, -1))
			return 1;
		lua_pop(L, 1);
	}
	*(struct optable **)lua_newuserdatauv(L, sizeof(slot->t), 0) =
		slot->t;
	metatable(L, READER, 0, slot);
	lua_setmetatable(L, -2);
	return 1;
}

void optable_push_ctx(lua_State *L, struct optable_slot *slot)
{
	lua_pushlightuserdata(L, slot);
	lua_pushcclosure(L, ctx_share, 1);
	lua_pushlightuserdata(L, slot);
	lua_pushcclosure(L, ctx_shared, 1);
}
