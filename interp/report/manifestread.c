/* manifestread: dotted-path strings and phase keys out of manifest.json, read
 * one way everywhere. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/manifestread.h"

json_t *manifestread_get(json_t *o, const char *path)
{
	const char *dot;
	char key[64];

	while (o && (dot = strchr(path, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		o = json_object_get(o, key);
		path = dot + 1;
	}
	return json_object_get(o, path);
}

const char *manifestread_str(json_t *o, const char *path, const char *dflt)
{
	const char *s = json_string_value(manifestread_get(o, path));

	return s ? s : dflt;
}

/* The manifest's record of phase, or NULL. */
static json_t *phase_of(json_t *phases, const char *phase)
{
	size_t i;
	json_t *o;

	json_array_foreach(phases, i, o) {
		const char *name = json_string_value(json_object_get(o,
								     "name"));

		if (name && !strcmp(name, phase))
			return o;
	}
	return NULL;
}

int manifestread_key(json_t *phases, const char *phase, const char **names,
	       int max)
{
	size_t k;
	json_t *v;
	int n = 0;

	json_array_foreach(json_object_get(phase_of(phases, phase), "key"), k,
			   v)
		if (json_is_string(v) && n < max)
			names[n++] = json_string_value(v);
	names[n] = NULL;
	return n;
}

int manifestread_uses(json_t *o, const char *name)
{
	const char *use = json_string_value(json_object_get(o, "use"));
	size_t n = use ? strlen(use) : 0, k = strlen(name);

	return use && (!strcmp(use, name) ||
		       (n >= k + 5 && use[n - k - 5] == '/' &&
			!strncmp(use + n - k - 4, name, k) &&
			!strcmp(use + n - 4, ".lua")));
}

int manifestread_phase_uses(json_t *phases, const char *phase, const char *name)
{
	return manifestread_uses(phase_of(phases, phase), name);
}

int manifestread_gives(json_t *phases, const char *phase, const char *key)
{
	return json_object_get(json_object_get(phase_of(phases, phase),
					       "with"), key) != NULL;
}

const char *manifestread_with(json_t *phases, const char *phase, const char *key)
{
	const char *v = json_string_value(json_object_get(json_object_get(
				phase_of(phases, phase), "with"), key));

	return v && !strstr(v, "${") ? v : NULL;
}

static json_t *params_of(json_t *m)
{
	return json_object_get(json_object_get(m, "plan"), "params");
}

void manifestread_params(json_t *m, struct strbuf *out)
{
	size_t at = out->len;
	const char *k;
	json_t *v;

	json_object_foreach(params_of(m), k, v)
		strbuf_printf(out, "%s%s=%s", out->len > at ? " " : "", k,
			      json_is_string(v) ? json_string_value(v) : "?");
	if (out->len == at)
		strbuf_str(out, "(none)");
}

int manifestread_same_params(json_t *a, json_t *b)
{
	return json_equal(params_of(a), params_of(b));
}

/* The configs whose loop image was read through the host's page cache,
 * ", "-separated into out; whether any config says how. */
static int buffered_configs(json_t *m, struct strbuf *out)
{
	size_t i;
	json_t *o;
	int any = 0;

	json_array_foreach(json_object_get(m, "configs"), i, o) {
		const char *io = manifestread_str(o, "loop_io", "");

		any |= *io != '\0';
		if (!strcmp(io, "buffered"))
			strbuf_printf(out, "%s%s", out->len ? ", " : "",
				      manifestread_str(o, "label", "?"));
	}
	return any;
}

void manifestread_target(json_t *m, struct strbuf *out)
{
	const char *kind = manifestread_str(m, "target.kind", "");
	json_t *bytes = manifestread_get(m, "target.image_bytes");
	struct strbuf buffered = { 0 };
	int any;

	if (!strcmp(kind, "device")) {
		strbuf_printf(out, "device %s", manifestread_str(m,
			      "target.path", "?"));
		return;
	}
	if (!strcmp(kind, "dir")) {
		strbuf_printf(out, "directory %s (the host's filesystem: no "
			      "mkfs)", manifestread_str(m, "target.dir", "?"));
		return;
	}
	if (strcmp(kind, "image"))
		return;
	any = buffered_configs(m, &buffered);
	strbuf_printf(out, "loop images of %.0f MiB",
		      (double)json_integer_value(bytes) / 1048576);
	/* fsplan recorded loop_io since it attaches them direct */
	if (!any && json_array_size(json_object_get(m, "configs")))
		strbuf_str(out, " (how they were read is not recorded: an "
			   "fsplan that attached them buffered)");
	else if (any && buffered.len)
		strbuf_printf(out, "; through the host's page cache for %s "
			      "(it may have served their reads)", buffered.p);
	else if (any)
		strbuf_str(out, ", read and written by direct I/O (the "
			   "host's page cache holds none of them)");
	free(buffered.p);
}

/* What mkfs_applied's short form shows, in this order, when there. */
static const char *const made_keys[] = {
	"features", "inode_size", "block_size", "journal_bytes",
	"flex_bg_size", "isize", "bsize", "agcount", "log_bytes",
	"crc", "finobt", "sparse", "rmapbt", "reflink", "bigtime",
	"nodesize", "sectorsize", "csum_type", "incompat",
};

/* One fact of mkfs_applied as "key=value": a list's words joined by
 * commas, a byte count (key_bytes) as key=N MiB when whole. */
static void made_fact(const char *key, json_t *v, struct strbuf *out)
{
	size_t n = strlen(key), i;
	json_t *w;

	if (n > 6 && !strcmp(key + n - 6, "_bytes") && json_is_integer(v)) {
		json_int_t b = json_integer_value(v);

		if (b && !(b % (1 << 20)))
			strbuf_printf(out, "%.*s=%lldMiB", (int)(n - 6), key,
				      (long long)(b >> 20));
		else
			strbuf_printf(out, "%.*s=%lldB", (int)(n - 6), key,
				      (long long)b);
		return;
	}
	strbuf_printf(out, "%s=", key);
	if (json_is_integer(v))
		strbuf_printf(out, "%lld", (long long)json_integer_value(v));
	else if (json_is_string(v))
		strbuf_str(out, json_string_value(v));
	json_array_foreach(v, i, w)
		strbuf_printf(out, "%s%s", i ? "," : "",
			      json_is_string(w) ? json_string_value(w) : "?");
}

void manifestread_mkfs_applied(json_t *conf, struct strbuf *out)
{
	json_t *o = json_object_get(conf, "mkfs_applied"), *v;
	int first = 1;

	for (size_t k = 0; json_is_object(o) &&
	     k < sizeof(made_keys) / sizeof(*made_keys); k++) {
		if (!(v = json_object_get(o, made_keys[k])))
			continue;
		if (!first)
			strbuf_str(out, " ");
		first = 0;
		made_fact(made_keys[k], v, out);
	}
}
