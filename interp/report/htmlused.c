/* htmlused: what a run used, as its html page tells it — tools, options. */
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/htmlused.h"
#include "report/manifestread.h"
#include "util/mountopts.h"
#include "util/strbuf.h"

/* The tools a phase's module runs, by the module's name. */
static const char *const module_tools[][2] = {
	{ "bonnie", "bonnie++" }, { "dbench", "dbench" }, { "fio", "fio" },
	{ "mariadb", "mariadbd" }, { "mariadb", "sysbench" },
};

/* Whether s has word as a whole word (a command's name or path end). */
static int has_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = s; p && (p = strstr(p, word)); p++) {
		int before = p == s || p[-1] == ' ' || p[-1] == '/' ||
			     p[-1] == '\t' || p[-1] == ';' || p[-1] == '|';
		int after = !p[n] || strchr(" \t;|&", p[n]);

		if (before && after)
			return 1;
	}
	return 0;
}

/* The module a phase's use: names, "dir/fio.lua" as "fio". */
static int module_is(const char *use, const char *name)
{
	const char *base = strrchr(use, '/');
	size_t n = strlen(name);

	base = base ? base + 1 : use;
	return !strncmp(base, name, n) &&
	       (!base[n] || !strcmp(base + n, ".lua"));
}

static int phase_uses(json_t *ph, const char *tool)
{
	const char *use = json_string_value(json_object_get(ph, "use"));
	const char *exec = json_string_value(json_object_get(ph, "exec"));

	if (exec && has_word(exec, tool))
		return 1;
	for (size_t i = 0; use && i < sizeof(module_tools) /
	     sizeof(module_tools[0]); i++)
		if (!strcmp(module_tools[i][1], tool) &&
		    module_is(use, module_tools[i][0]))
			return 1;
	return 0;
}

/* Whether mkfs.<type>, tool, makes type. */
static int makes(const char *tool, const char *type)
{
	return !strcmp(type, tool + 5) ||
	       (!strcmp(tool, "mkfs.ext4") && !strncmp(type, "ext", 3));
}

int htmlused_tool(json_t *m, const struct results *r, const char *tool)
{
	json_t *o;
	size_t i;

	if (!strcmp(tool, "mount"))
		return 1;
	if (!strncmp(tool, "mkfs.", 5)) {
		json_array_foreach(json_object_get(m, "configs"), i, o)
			if (makes(tool, manifestread_str(o, "type", "")))
				return 1;
		for (i = 0; r && i < r->n_runs; i++)
			if (makes(tool, r->runs[i].fs_type))
				return 1;
		return 0;
	}
	json_array_foreach(json_object_get(m, "phases"), i, o)
		if (phase_uses(o, tool))
			return 1;
	return 0;
}

int htmlused_mount_change(FILE *f, json_t *o)
{
	const char *req = manifestread_str(o, "mount_requested", "");
	const char *applied = json_string_value(json_object_get(o,
							"mount_applied"));
	struct strbuf ch = { 0 };
	int changed;

	if (!applied) {
		fputs("-", f);
		return 0;
	}
	changed = mountopts_compare(req, applied, NULL, &ch);
	if (ch.oom) {
		free(ch.p);
		return -1;
	}
	fputs("<span title=\"applied: ", f);
	html_text(f, applied);
	fputs("\">", f);
	html_text(f, changed ? ch.p : "as requested");
	fputs("</span>", f);
	free(ch.p);
	return 0;
}

int htmlused_configs(json_t *m, const struct results *r)
{
	json_t *o;
	size_t i;

	html_configs_reset();
	json_array_foreach(json_object_get(m, "configs"), i, o) {
		const char *label = json_string_value(json_object_get(o,
								"label"));

		if (label && html_config_index(label) < 0)
			return -1;
	}
	for (i = 0; i < r->n_runs; i++)
		if (*r->runs[i].fs_label &&
		    html_config_index(r->runs[i].fs_label) < 0)
			return -1;
	return 0;
}
