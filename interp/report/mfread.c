/* mfread: dotted-path strings and phase keys out of manifest.json, read one way everywhere. */
#include <stdio.h>
#include <string.h>

#include "report/mfread.h"

json_t *mfread_get(json_t *o, const char *path)
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

const char *mfread_str(json_t *o, const char *path, const char *dflt)
{
	const char *s = json_string_value(mfread_get(o, path));

	return s ? s : dflt;
}

int mfread_key(json_t *phases, const char *phase, const char **names,
	       int max)
{
	size_t i, k;
	json_t *o, *v;
	int n = 0;

	json_array_foreach(phases, i, o) {
		const char *name = json_string_value(json_object_get(o,
								     "name"));

		if (!name || strcmp(name, phase))
			continue;
		json_array_foreach(json_object_get(o, "key"), k, v)
			if (json_is_string(v) && n < max)
				names[n++] = json_string_value(v);
		break;
	}
	names[n] = NULL;
	return n;
}

static json_t *params_of(json_t *m)
{
	return json_object_get(json_object_get(m, "plan"), "params");
}

void mfread_params(json_t *m, char *buf, size_t len)
{
	const char *k;
	json_t *v;
	size_t n = 0;

	buf[0] = '\0';
	json_object_foreach(params_of(m), k, v)
		if (n < len)
			n += snprintf(buf + n, len - n, "%s%s=%s", n ? " " : "",
				      k, json_is_string(v) ?
				      json_string_value(v) : "?");
	if (!buf[0])
		snprintf(buf, len, "(none)");
}

int mfread_same_params(json_t *a, json_t *b)
{
	return json_equal(params_of(a), params_of(b));
}
