/* test_phase: a Lua phase module's declarations, and the plan's values typed by
 * them with the plan's positions. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cells/expand.h"
#include "engine.h"
#include "e2e.h"
#include "luacall.h"
#include "phase/libsrc.h"
#include "phase/params.h"
#include "phase/phase.h"
#include "phase/sandbox.h"
#include "plan/plan.h"
#include "run/phasecheck.h"
#include "run/resolve.h"
#include "util/clock.h"
#include "util/strbuf.h"

static const char module_text[] =
	"return {\n"
	"  describe = 'a test module',\n"
	"  params = { size = '64M', runtime = '30s', sync = false, depth = 4,\n"
	"             label = 'x', window = '5m', workers = 2 },\n"
	"  key = { 'io_mbs', 'io_lat_avg_ms' },\n"
	"  setup = function(ctx) end,\n"
	"  worker = function(w, ctx) end,\n"
	"}\n";

static struct sandbox_limits lim;
static lua_State *L;
static struct phase_decl decl;
static struct plan *plan;
static struct expansion *ex;
static struct param_val vals[16];
static int n_vals;

static void setup(void)
{
	lim = (struct sandbox_limits){ 64u << 20, clock_now() + 30, NULL,
				       libsrc_dir(), NULL };
	L = sandbox_new(&lim);
	cr_assert_not_null(L);
}

static void teardown(void)
{
	params_free(vals, n_vals);
	n_vals = 0;
	memset(vals, 0, sizeof(vals));
	phase_decl_free(&decl);
	sandbox_close(L);
	if (ex)
		expansion_free(ex);
	ex = NULL;
	plan_free(plan);
	plan = NULL;
	e2e_cleanup();
}

TestSuite(phase, .init = setup, .fini = teardown, .timeout = 60);

/* phase_load on text; 0 or -1 with the message (and any traceback)
 * in err. */
static int load(const char *text, char *err, size_t len)
{
	struct diag d = { 0 };

	phase_decl_free(&decl);
	lua_settop(L, 0);
	if (phase_load(L, "mod.lua", text, strlen(text), &decl, &d))
		return sandbox_diag_text(&d, err, len);
	return 0;
}

/* Expect the module text refused with msg in the message. */
static void refused(const char *text, const char *msg)
{
	char err[1024] = "";

	cr_expect_eq(load(text, err, sizeof(err)), -1, "accepted: %s", text);
	cr_expect(strstr(err, msg), "'%s' lacks '%s'", err, msg);
	cr_expect(!strncmp(err, "mod.lua", 7), "named by its path: %s", err);
}

static const struct param_decl *param(const char *name)
{
	for (int i = 0; i < decl.n_params; i++)
		if (!strcmp(decl.params[i].name, name))
			return &decl.params[i];
	cr_assert_fail("no parameter %s", name);
	return NULL;
}

static const struct param_val *val(const char *name)
{
	for (int i = 0; i < n_vals; i++)
		if (!strcmp(vals[i].name, name))
			return &vals[i];
	cr_assert_fail("no value %s", name);
	return NULL;
}

/*
 * A plan (its phases: the text after "phases:\n") in a temp dir with
 * mod.lua (module) next to it, loaded and expanded; the module's
 * declarations in decl.
 */
static void plan_with_module(const char *module, const char *phases)
{
	char text[4096], err[1024];
	struct diag d = { 0 };
	const char *dir = e2e_tmpdir(), *path;

	snprintf(text, sizeof(text), "fsplan: 1\n"
		 "filesystems: [{type: ext4}]\n"
		 "phases:\n%s", phases);
	e2e_write(dir, "mod.lua", module);
	path = e2e_write(dir, "plan.yaml", text);
	cr_assert_eq(plan_load(&plan, path, NULL, 0, &d), 0, "%s", d.msg);
	cr_assert_eq(resolve_plan(plan, &d), 0, "%s", d.msg);
	cr_assert_eq(expand_plan(plan, &ex, &d), 0, "%s", d.msg);
	cr_assert_eq(load(module, err, sizeof(err)), 0, "%s", err);
	cr_assert_lt(decl.n_params, 16);
}

static void plan_with(const char *phases)
{
	plan_with_module(module_text, phases);
}

/* params_read of cell i: 0 or -1, the diag in *d. */
static int values(size_t i, int *workers, char *engine, struct diag *d)
{
	cr_assert_lt(i, ex->n_cells);
	params_free(vals, n_vals);
	n_vals = decl.n_params;
	memset(d, 0, sizeof(*d));
	return params_read(ex, &ex->cells[i], &decl, vals, workers, engine,
			   16, d);
}

/* Expect a cell's values refused at line:col with msg; the message. */
static const char *bad_values(const char *phases, int line, int col,
			      const char *msg)
{
	static struct diag d;
	char engine[16];
	int workers, rc = 0;

	plan_with(phases);
	for (size_t i = 0; i < ex->n_cells && !rc; i++)
		rc = values(i, &workers, engine, &d);
	cr_expect_eq(rc, -1, "accepted: %s", phases);
	cr_expect(strstr(d.msg, msg), "'%s' lacks '%s'", d.msg, msg);
	cr_expect(strstr(d.file, "plan.yaml"), "%s", d.file);
	cr_expect_eq(d.pos.line, line, "line %d, expected %d (%s)", d.pos.line,
		     line, d.msg);
	cr_expect_eq(d.pos.col, col, "col %d, expected %d (%s)", d.pos.col,
		     col, d.msg);
	return d.msg;
}

/* ---- what a module declares --------------------------------------------- */

Test(phase, declarations_and_their_types)
{
	char err[1024] = "";

	cr_assert_eq(load(module_text, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(decl.describe, "a test module");
	cr_expect(decl.has_setup);
	cr_expect_not(decl.has_teardown);
	cr_expect_not(decl.has_report);
	cr_assert_eq(decl.key.n, 2);
	cr_expect_str_eq(decl.key.name[0], "io_mbs");
	cr_expect_str_eq(decl.key.name[1], "io_lat_avg_ms");
	cr_assert_eq(decl.n_params, 7);
	/* in name order */
	for (int i = 1; i < decl.n_params; i++)
		cr_expect_lt(strcmp(decl.params[i - 1].name,
				    decl.params[i].name), 0);
	/* the type a default implies */
	cr_expect_eq(param("size")->type, PARAM_SIZE);
	cr_expect_eq(param("runtime")->type, PARAM_DURATION);
	cr_expect_eq(param("sync")->type, PARAM_BOOL);
	cr_expect_eq(param("depth")->type, PARAM_NUMBER);
	cr_expect_eq(param("label")->type, PARAM_STRING);
	/* "5m" reads as 5 MiB: five minutes is "300s" */
	cr_expect_eq(param("window")->type, PARAM_SIZE);
	cr_expect_str_eq(param("size")->dflt, "64M");
	cr_expect_str_eq(param("sync")->dflt, "false");
	cr_expect_str_eq(param("depth")->dflt, "4");
	cr_expect_str_eq(phase_type_name(PARAM_DURATION), "duration");
	cr_expect_str_eq(phase_type_name(PARAM_BOOL), "boolean");
}

Test(phase, module_key_validation)
{
	static const char head[] = "return { worker = function() end, ";
	char text[2048];

#define MOD(rest) (snprintf(text, sizeof(text), "%s%s }\n", head, rest), text)
	refused(MOD("key = 'rate_mbs'"), "'key' is a list of metric names, "
		"e.g. key = { \"rate_mbs\", \"avg_lat_ms\" }, not a string");
	refused(MOD("key = {}"), "'key' names 1 to 16 metrics, not 0");
	refused(MOD("key = { 'a', 'b', 'a' }"),
		"key[3]: 'a' is already key[1]");
	refused(MOD("key = { 'ok', 'no spaces' }"),
		"key[2]: 'no spaces' is not a metric name");
	refused(MOD("key = { 42 }"), "key[1]: a number is not a metric name");
	refused(MOD("key = { 'a', x = 'b' }"), "without other keys");
	refused(MOD("key = { 'a', nil, 'c' }"), "without other keys");
	refused(MOD("key = { string.rep('x', 64) }"), "is not a metric name");
	refused(MOD("key = { 'k1','k2','k3','k4','k5','k6','k7','k8','k9',"
		    "'k10','k11','k12','k13','k14','k15','k16','k17' }"),
		"'key' names 1 to 16 metrics, not 17");
	/* sixteen is the most */
	{
		char err[1024] = "";

		cr_expect_eq(load(MOD("key = { 'k1','k2','k3','k4','k5','k6',"
				      "'k7','k8','k9','k10','k11','k12','k13',"
				      "'k14','k15','k16' }"), err,
				  sizeof(err)), 0, "%s", err);
		cr_expect_eq(decl.key.n, 16);
		cr_expect_eq(load(MOD("key = { 'a.b-c_1' }"), err,
				  sizeof(err)), 0, "%s", err);
		cr_expect_eq(load(MOD(""), err, sizeof(err)), 0, "%s", err);
		cr_expect_eq(decl.key.n, 0, "no key: none");
	}
	/* and the other keys a module may have */
	refused(MOD("params = 5"), "'params' must be a table of defaults");
	refused(MOD("params = { t = {} }"), "params.t: a parameter is a name "
		"with a number, boolean or string default");
	refused(MOD("params = { [1] = 'x' }"), "params.?: a parameter");
	refused(MOD("setup = 5"), "'setup' must be a function");
	refused(MOD("teardown = 'x'"), "'teardown' must be a function");
	refused(MOD("report = {}"), "'report' must be a function");
#undef MOD
	refused("return { }\n", "the module has no worker function");
	refused("return 5\n", "a phase module returns a table (with a worker "
		"function), not a number");
	refused("return {\n  worker = function( end }\n", "mod.lua:2:");
	refused("error('boom')\n", "boom");
	/* a typo'd global is caught while loading, where it is */
	refused("local t = { worker = function() end }\nreturn undefined_x\n",
		"mod.lua:2: undefined global 'undefined_x'");
}

/* ---- the plan's values, typed ------------------------------------------- */

Test(phase, values_typed_from_with_and_defaults)
{
	struct diag d;
	char engine[16];
	int workers;

	plan_with("  - use: mod.lua\n"
		  "    with: {size: 1G, runtime: 1.5h, sync: yes, depth: 16,\n"
		  "           window: 4k}\n");
	cr_assert_eq(values(0, &workers, engine, &d), 0, "%s", d.msg);
	cr_expect_eq(val("size")->type, PARAM_SIZE);
	cr_expect_eq(val("size")->num, 1u << 30);
	cr_expect_str_eq(val("size")->str, "1G");
	cr_expect_eq(val("runtime")->num, 5400);
	cr_expect_eq(val("sync")->num, 1);
	cr_expect_eq(val("depth")->num, 16);
	cr_expect_eq(val("window")->num, 4096);
	/* the defaults where the plan says nothing */
	cr_expect_str_eq(val("label")->str, "x");
	cr_expect_eq(val("label")->num, 0);
	/* workers: the module's default (2); engine: auto */
	cr_expect_eq(workers, 2);
	cr_expect_str_eq(engine, "auto");
}

Test(phase, defaults_alone)
{
	struct diag d;
	char engine[16];
	int workers;

	plan_with("  - use: mod.lua\n");
	cr_assert_eq(values(0, &workers, engine, &d), 0, "%s", d.msg);
	cr_expect_eq(val("size")->num, 64u << 20);
	cr_expect_eq(val("runtime")->num, 30);
	cr_expect_eq(val("sync")->num, 0);
	cr_expect_eq(val("window")->num, 5u << 20);
	cr_expect_eq(workers, 2);
}

Test(phase, workers_and_engine_from_the_plan)
{
	struct diag d;
	char engine[16];
	int workers;

	plan_with("  - use: mod.lua\n"
		  "    with: {workers: 8, engine: sync}\n");
	cr_assert_eq(values(0, &workers, engine, &d), 0, "%s", d.msg);
	cr_expect_eq(workers, 8);
	cr_expect_str_eq(engine, "sync");
}

Test(phase, engine_and_workers_from_the_modules_defaults)
{
	static const char sync_module[] =
		"return { params = { engine = 'sync', workers = 3 },\n"
		"         worker = function() end }\n";
	static const char no_workers[] =
		"return { params = { workers = 0 },\n"
		"         worker = function() end }\n";
	struct diag d;
	char engine[16];
	int workers;

	plan_with_module(sync_module, "  - use: mod.lua\n");
	cr_assert_eq(values(0, &workers, engine, &d), 0, "%s", d.msg);
	cr_expect_str_eq(engine, "sync");
	cr_expect_eq(workers, 3);
	teardown();
	setup();
	/* a module's default is checked like the plan's value, at the phase */
	plan_with_module(no_workers, "  - name: p\n"
			 "    use: mod.lua\n");
	cr_expect_eq(values(0, &workers, engine, &d), -1);
	cr_expect(strstr(d.msg, "phase 'p': workers must be 1 to 65536"),
		  "%s", d.msg);
	cr_expect_eq(d.pos.line, 4);
}

/* The phase checks the engine against the registry: a module's default
 * naming an engine registered at run time is taken, and an unknown one's
 * message lists the registered one. */
Test(phase, a_registered_engine_is_taken)
{
	static const char example_module[] =
		"return { params = { engine = 'example' },\n"
		"         worker = function() end }\n";
	struct diag d;
	char engine[16];
	int workers;

	plan_with_module(example_module, "  - name: p\n"
			 "    use: mod.lua\n");
	cr_expect_eq(values(0, &workers, engine, &d), -1);
	cr_expect(strstr(d.msg, "phase 'p': engine is auto, uring or sync, "
			 "not 'example'"), "%s", d.msg);
	cr_assert_eq(engine_register(&engine_example, &d), 0, "%s", d.msg);
	cr_assert_eq(values(0, &workers, engine, &d), 0, "%s", d.msg);
	cr_expect_str_eq(engine, "example");
	teardown();
	setup();
	plan_with_module("return { params = { engine = 'libaio' },\n"
			 "         worker = function() end }\n",
			 "  - use: mod.lua\n");
	cr_expect_eq(values(0, &workers, engine, &d), -1);
	cr_expect(strstr(d.msg, "auto, uring, sync or example, not "
			 "'libaio'"), "%s", d.msg);
}

Test(phase, matrix_values_per_cell)
{
	struct diag d;
	char engine[16];
	int workers;

	plan_with("  - use: mod.lua\n"
		  "    matrix: {size: [4k, 2M], sync: [off, on]}\n");
	cr_assert_eq(ex->n_cells, 4);
	cr_assert_eq(values(0, &workers, engine, &d), 0, "%s", d.msg);
	cr_expect_eq(val("size")->num, 4096);
	cr_expect_eq(val("sync")->num, 0);
	cr_assert_eq(values(3, &workers, engine, &d), 0, "%s", d.msg);
	cr_expect_eq(val("size")->num, 2u << 20);
	cr_expect_eq(val("sync")->num, 1);
}

Test(phase, bad_values_at_the_plans_position)
{
	bad_values("  - name: p\n"
		   "    use: mod.lua\n"
		   "    with: {size: lots}\n", 6, 18,
		   "phase 'p': 'size' is a size, not 'lots'");
}

Test(phase, bad_duration)
{
	bad_values("  - name: p\n"
		   "    use: mod.lua\n"
		   "    with:\n"
		   "      runtime: soon\n", 7, 16,
		   "phase 'p': 'runtime' is a duration, not 'soon'");
}

Test(phase, bad_boolean)
{
	bad_values("  - name: p\n"
		   "    use: mod.lua\n"
		   "    with: {sync: maybe}\n", 6, 18,
		   "phase 'p': 'sync' is a boolean, not 'maybe'");
}

Test(phase, bad_number)
{
	bad_values("  - name: p\n"
		   "    use: mod.lua\n"
		   "    with: {depth: four}\n", 6, 19,
		   "phase 'p': 'depth' is a number, not 'four'");
}

Test(phase, bad_value_in_a_matrix)
{
	bad_values("  - name: p\n"
		   "    use: mod.lua\n"
		   "    matrix: {size: [huge, 1M]}\n", 6, 21,
		   "phase 'p': 'size' is a size, not 'huge'");
}

/* The caret under the bad value, not under the axis's first one. */
Test(phase, bad_value_later_in_a_matrix)
{
	bad_values("  - name: p\n"
		   "    use: mod.lua\n"
		   "    matrix: {size: [1M, huge]}\n", 6, 25,
		   "phase 'p': 'size' is a size, not 'huge'");
}

/* ---- unknown keys and the workers hint ---------------------------------- */

Test(phase, threads_clients_procs_mean_workers)
{
	static const char *const words[] = { "threads", "clients", "procs",
					     "numjobs", NULL };

	for (int i = 0; words[i]; i++) {
		char phases[256], msg[256];

		snprintf(phases, sizeof(phases), "  - name: p\n"
			 "    use: mod.lua\n"
			 "    with: {%s: 4}\n", words[i]);
		snprintf(msg, sizeof(msg), "phase 'p' has no parameter '%s' "
			 "(did you mean 'workers'? fsplan has one word for "
			 "threads, clients and processes)", words[i]);
		bad_values(phases, 6, 12, msg);
		teardown();
		setup();
	}
}

Test(phase, unknown_keys_with_a_suggestion_or_none)
{
	bad_values("  - name: p\n"
		   "    use: mod.lua\n"
		   "    with: {size: 1M, szie: 2M}\n", 6, 22,
		   "phase 'p' has no parameter 'szie' (did you mean 'size'?)");
	teardown();
	setup();
	/* an axis is a key too */
	cr_expect_null(strstr(bad_values("  - name: p\n"
					 "    use: mod.lua\n"
					 "    matrix: {colour: [red, blue]}\n",
					 6, 14, "phase 'p' has no parameter "
					 "'colour'"), "did you mean"),
		       "nothing near it to suggest");
}

/* A module may declare any number of parameters: the last of 200 (p99,
 * by name) is as known as the first. */
Test(phase, every_parameter_of_a_large_module_is_known)
{
	struct strbuf mod = { 0 };
	struct param_val *v;
	struct diag d = { 0 };
	const char *dir = e2e_tmpdir(), *path;
	char err[1024], engine[16];
	int workers;

	strbuf_str(&mod, "return { worker = function() end, params = {");
	for (int i = 1; i <= 200; i++)
		strbuf_printf(&mod, " p%d = 1,", i);
	strbuf_str(&mod, " } }\n");
	cr_assert(!mod.oom);
	e2e_write(dir, "mod.lua", mod.p);
	path = e2e_write(dir, "plan.yaml", "fsplan: 1\n"
			 "filesystems: [{type: ext4}]\n"
			 "phases:\n"
			 "  - name: p\n"
			 "    use: mod.lua\n"
			 "    with: {p99: 2}\n");
	cr_assert_eq(plan_load(&plan, path, NULL, 0, &d), 0, "%s", d.msg);
	cr_assert_eq(resolve_plan(plan, &d), 0, "%s", d.msg);
	cr_assert_eq(expand_plan(plan, &ex, &d), 0, "%s", d.msg);
	cr_assert_eq(load(mod.p, err, sizeof(err)), 0, "%s", err);
	free(mod.p);
	cr_assert_eq(decl.n_params, 200);
	v = calloc(decl.n_params, sizeof(*v));
	cr_assert_not_null(v);
	cr_expect_eq(params_read(ex, &ex->cells[0], &decl, v, &workers,
				 engine, sizeof(engine), &d), 0, "%s", d.msg);
	params_free(v, decl.n_params);
	free(v);
}

/* ---- the whole plan, checked before it runs ----------------------------- */

Test(phase, check_all_finds_the_key_and_keeps_the_position)
{
	struct diag d = { 0 };

	plan_with("  - name: p\n"
		  "    use: mod.lua\n"
		  "  - name: sb\n"
		  "    exec: 'true'\n"
		  "    parse: sysbench\n");
	/* as root this runs in a child dropped to nobody */
	cr_assert_eq(phasecheck_all(ex, "nobody", NULL, &d), 0, "%s", d.msg);
	cr_assert_eq(ex->checked[0].key.n, 2);
	cr_expect_str_eq(ex->checked[0].key.name[0], "io_mbs");
	cr_expect_str_eq(ex->checked[0].key.name[1], "io_lat_avg_ms");
	/* an exec phase: its parser's key, then seconds */
	cr_assert_geq(ex->checked[1].key.n, 1);
	cr_expect_str_eq(ex->checked[1].key.name[ex->checked[1].key.n - 1],
			 "seconds");
	teardown();
	setup();

	plan_with("  - name: p\n"
		  "    use: mod.lua\n"
		  "    with: {size: lots}\n");
	cr_expect_eq(phasecheck_all(ex, "nobody", NULL, &d), -1);
	cr_expect(strstr(d.msg, "'size' is a size, not 'lots'"), "%s", d.msg);
	cr_expect_eq(d.pos.line, 6, "the position crossed back: %d:%d",
		     d.pos.line, d.pos.col);
	cr_expect_eq(d.pos.col, 18);
	cr_expect(strstr(d.file, "plan.yaml"), "%s", d.file);
}
