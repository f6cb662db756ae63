/* test_dbench: the dbench phase and its parser — the real dbench's report parsed, a hand-written loadfile's every op checked on the filesystem, client.txt replayed on ext4 and xfs. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "e2e.h"
#include "phase/libsrc.h"
#include "phase/lparse.h"
#include "phase/sandbox.h"

/* ---- the parser: lua/parse/dbench.lua on the real dbench 4.0's output -- */

static lua_State *L;

static void parse_sample(const char *text, size_t len, int want_ok,
			 char *err, size_t errlen)
{
	struct timespec ts;
	struct sandbox_limits lim;
	char path[4096];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	lim = (struct sandbox_limits){ 64u << 20, ts.tv_sec + 30.0, NULL,
				       libsrc_dir() };
	L = sandbox_new(&lim);
	cr_assert(L);
	snprintf(path, sizeof(path), "%s/parse/dbench.lua", libsrc_dir());
	cr_assert(!lparse_load(L, path, NULL, err, errlen), "%s", err);
	lua_pushlstring(L, text, len);
	lua_pushliteral(L, "");
	if (want_ok) {
		cr_assert(!sandbox_call(L, 2, 1, err, errlen), "%s", err);
		cr_assert(lua_istable(L, -1));
	} else {
		cr_assert(sandbox_call(L, 2, 1, err, errlen),
			  "parse succeeded");
	}
}

static void parse_fini(void)
{
	if (L)
		sandbox_close(L);
	L = NULL;
}

static void expect(const char *name, double want, const char *unit)
{
	lua_getfield(L, -1, name);
	if (!lua_istable(L, -1)) {
		cr_expect_fail("metric %s is missing", name);
		lua_pop(L, 1);
		return;
	}
	lua_getfield(L, -1, "value");
	lua_getfield(L, -2, "unit");
	cr_expect(lua_type(L, -2) == LUA_TNUMBER &&
		  fabs(lua_tonumber(L, -2) - want) <= 1e-9 * fabs(want),
		  "%s = %s, expected %.17g", name, lua_tostring(L, -2), want);
	cr_expect_str_eq(lua_tostring(L, -1), unit, "%s: unit", name);
	lua_pop(L, 3);
}

static int n_metrics(void)
{
	int n = 0;

	lua_pushnil(L);
	while (lua_next(L, -2)) {
		n++;
		lua_pop(L, 1);
	}
	return n;
}

Test(dbench, parser_on_the_sample, .fini = parse_fini)
{
	/* dbench_ext4_t10_4.txt: its table, every row */
	static const struct { const char *op; double n, avg, max; } rows[] = {
		{ "ntcreatex", 155346, 0.018, 7.969 },
		{ "close", 114051, 0.003, 4.014 },
		{ "rename", 6577, 0.038, 4.977 },
		{ "unlink", 31442, 0.028, 10.557 },
		{ "qpathinfo", 140957, 0.009, 12.192 },
		{ "qfileinfo", 24551, 0.002, 2.407 },
		{ "qfsinfo", 25833, 0.003, 3.490 },
		{ "sfileinfo", 12632, 0.022, 3.881 },
		{ "find", 54437, 0.029, 4.174 },
		{ "writex", 76715, 0.014, 6.614 },
		{ "readx", 243681, 0.005, 11.291 },
		{ "lockx", 506, 0.005, 0.100 },
		{ "unlockx", 506, 0.003, 0.089 },
		{ "flush", 10869, 2.582, 93.888 },
	};
	char err[4096], name[64];
	size_t len;
	char *text = e2e_slurp("fixtures/parse/dbench_ext4_t10_4.txt", &len);

	parse_sample(text, len, 1, err, sizeof(err));
	free(text);
	/* Throughput 482.745 MB/sec  4 clients  4 procs  max_latency=93.999 ms */
	expect("throughput_mbs", 482.745, "MB/s");
	expect("clients", 4, "");
	expect("procs", 4, "");
	expect("max_latency_ms", 93.999, "ms");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		snprintf(name, sizeof(name), "%s_ops", rows[i].op);
		expect(name, rows[i].n, "ops");
		snprintf(name, sizeof(name), "%s_lat_avg_ms", rows[i].op);
		expect(name, rows[i].avg, "ms");
		snprintf(name, sizeof(name), "%s_lat_max_ms", rows[i].op);
		expect(name, rows[i].max, "ms");
	}
	/* nothing else: not the progress lines, no op dbench did not run */
	cr_expect_eq(n_metrics(), 4 + 14 * 3, "%d metrics", n_metrics());
}

Test(dbench, parser_without_the_throughput_line, .fini = parse_fini)
{
	static const char out[] =
		"dbench version 4.00 - Copyright Andrew Tridgell 1999-2004\n"
		"   4     24899   603.08 MB/sec  warmup   1 sec  latency 13.5 ms\n";
	char err[4096];

	parse_sample(out, sizeof(out) - 1, 0, err, sizeof(err));
	cr_expect(strstr(err, "no 'Throughput X MB/sec"), "%s", err);
}
