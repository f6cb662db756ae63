/* optcheck: the loader's check of mkfs and mount words for devices. */
#include "plan/devword.h"
#include "plan/optcheck.h"

/* A word of the options that names a device is refused where it is
 * written; what ${...} makes of them, resolve_devices refuses after
 * expansion, and a path that leads to a device (a symlink, ../). */
int optcheck_devices(struct loader *L, const char *key,
		     const struct pstr *v, int n)
{
	struct devword w;
	int rc = 0;

	for (int i = 0; !rc && i < n; i++) {
		rc = devword_find(v[i].s, !strcmp(key, "mount"), devword_text,
				  NULL, &w);
		if (rc < 0)
			return field_error(L, v[i].pos, "out of memory");
		if (rc)
			field_error(L, field_offset_pos(&v[i], w.off),
				    DEVWORD_REFUSED, key, w.word, "",
				    w.why.msg);
		devword_free(&w);
	}
	return rc ? -1 : 0;
}
