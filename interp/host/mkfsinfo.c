/* mkfsinfo: what mkfs made, read back by the filesystem's own tools. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "host/mkfsinfo.h"
#include "host/proc.h"

#define MKFSINFO_TIMEOUT_S 10.0
#define MKFSINFO_KEEP (64 * 1024)

/* The integer s begins with (after blanks), or -1 when it has none. */
static long long num(const char *s)
{
	char *end;
	long long v;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtoll(s, &end, 10);
	return end == s ? -1 : v;
}

static void set_num(json_t *o, const char *key, long long v)
{
	if (v >= 0)
		json_object_set_new(o, key, json_integer(v));
}

/* The words of s (up to the line's end) as a list, split at any of sep. */
static json_t *words(const char *s, const char *sep)
{
	json_t *a = json_array();

	while (a && *s && *s != '\n') {
		size_t n;

		s += strspn(s, sep);
		n = strcspn(s, sep);
		if (memchr(s, '\n', n))
			n = (size_t)((const char *)memchr(s, '\n', n) - s);
		if (n)
			json_array_append_new(a, json_stringn(s, n));
		s += n;
	}
	return a;
}

/* The value of "Key:   value" at the start of a line of text, or NULL. */
static const char *field(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *s = text; s; s = strchr(s, '\n')) {
		if (*s == '\n')
			s++;
		if (!strncmp(s, key, n) && s[n] == ':')
			return s + n + 1 + strspn(s + n + 1, " \t");
	}
	return NULL;
}

/* "8M", "1024k": bytes, or -1. */
static long long size_suffixed(const char *s)
{
	long long v = num(s);
	char *end;

	if (v < 0)
		return -1;
	strtoll(s, &end, 10);
	switch (*end) {
	case 'k': case 'K': return v << 10;
	case 'M': return v << 20;
	case 'G': return v << 30;
	default: return -1;
	}
}

json_t *mkfsinfo_ext(const char *text)
{
	const char *feat = field(text, "Filesystem features");
	const char *jb = field(text, "Total journal blocks");
	const char *js = field(text, "Total journal size");
	long long bs = num(field(text, "Block size") ? : "");
	long long is = num(field(text, "Inode size") ? : "");
	json_t *o;

	if (!feat || bs <= 0 || is <= 0 || !(o = json_object()))
		return NULL;
	json_object_set_new(o, "features", words(feat, " \t"));
	set_num(o, "block_size", bs);
	set_num(o, "inode_size", is);
	set_num(o, "inode_count", num(field(text, "Inode count") ? : ""));
	set_num(o, "flex_bg_size",
		num(field(text, "Flex block group size") ? : ""));
	if (!js)
		js = field(text, "Journal size");
	if (jb && num(jb) >= 0)
		set_num(o, "journal_bytes", num(jb) * bs);
	else if (js)
		set_num(o, "journal_bytes", size_suffixed(js));
	return o;
}

/* What xfs_info says, kept: its section, its name, and ours. */
static const char *const xfs_keys[][3] = {
	{ "meta-data", "isize", "isize" },
	{ "meta-data", "agcount", "agcount" },
	{ "meta-data", "agsize", "agsize" },
	{ "meta-data", "sectsz", "sectsz" },
	{ "meta-data", "crc", "crc" },
	{ "meta-data", "finobt", "finobt" },
	{ "meta-data", "sparse", "sparse" },
	{ "meta-data", "rmapbt", "rmapbt" },
	{ "meta-data", "reflink", "reflink" },
	{ "meta-data", "bigtime", "bigtime" },
	{ "meta-data", "inobtcount", "inobtcount" },
	{ "meta-data", "nrext64", "nrext64" },
	{ "data", "bsize", "bsize" },
	{ "data", "blocks", "blocks" },
	{ "data", "imaxpct", "imaxpct" },
	{ "data", "sunit", "sunit" },
	{ "data", "swidth", "swidth" },
	{ "naming", "ftype", "ftype" },
	{ "log", "bsize", "log_bsize" },
	{ "log", "blocks", "log_blocks" },
};

/* One line of xfs_info's: its section (a new one when the line names it,
 * "internal"/"external" of the log too) and the names we keep. */
static void xfs_line(json_t *o, const char *s, char sect[16])
{
	size_t n = strcspn(s, " =\n");

	if (n && n < 16) {
		memcpy(sect, s, n);
		sect[n] = '\0';
	}
	s += n + strspn(s + n, " ");
	if (*s == '=')
		s++;
	if (!strcmp(sect, "log") && (!strncmp(s, "internal", 8) ||
				     !strncmp(s, "external", 8)))
		json_object_set_new(o, "log", json_stringn(s, 8));
	while (*s && *s != '\n') {
		size_t w = strcspn(s, " ,\n");
		const char *eq = memchr(s, '=', w);

		for (size_t k = 0; eq && k < sizeof(xfs_keys) /
		     sizeof(*xfs_keys); k++)
			if (!strcmp(xfs_keys[k][0], sect) &&
			    strlen(xfs_keys[k][1]) == (size_t)(eq - s) &&
			    !strncmp(s, xfs_keys[k][1], (size_t)(eq - s)))
				set_num(o, xfs_keys[k][2], num(eq + 1));
		s += w + strspn(s + w, " ,");
	}
}

json_t *mkfsinfo_xfs(const char *text)
{
	json_t *o = json_object(), *lb, *lk;
	char sect[16] = "";

	for (const char *s = text; o && s && *s; s = strchr(s, '\n')) {
		if (*s == '\n' && !*++s)
			break;
		xfs_line(o, s, sect);
	}
	if (!o || !json_object_get(o, "isize") ||
	    !json_object_get(o, "bsize")) {
		json_decref(o);
		return NULL;
	}
	lb = json_object_get(o, "log_bsize");
	lk = json_object_get(o, "log_blocks");
	if (lb && lk)
		set_num(o, "log_bytes",
			json_integer_value(lb) * json_integer_value(lk));
	json_object_del(o, "log_bsize");
	json_object_del(o, "log_blocks");
	return o;
}

/* dump-super's flags after key, "0x341\n\t\t\t( A |\n\t\t\t  B )", as a
 * list (empty without them). */
static json_t *btrfs_flags(const char *text, const char *key)
{
	const char *s = NULL, *end;
	size_t n = strlen(key);
	json_t *a;

	for (const char *l = text; l; l = strchr(l, '\n')) {
		if (*l == '\n')
			l++;
		if (!strncmp(l, key, n) && (l[n] == '\t' || l[n] == ' ')) {
			s = strchr(l, '\n');
			break;
		}
	}
	if (!s || strncmp(s + 1 + strspn(s + 1, " \t"), "(", 1))
		return json_array();
	s += 1 + strspn(s + 1, " \t");
	end = strchr(s, ')');
	a = json_array();
	while (a && end && s < end) {
		s += strspn(s, " \t\n(|");
		n = strcspn(s, " \t\n|)");
		if (n && s + n <= end)
			json_array_append_new(a, json_stringn(s, n));
		s += n;
		if (*s == ')')
			break;
	}
	return a;
}

/* The value of "key\t\tvalue" in dump-super's text, or NULL. */
static const char *btrfs_field(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *s = text; s; s = strchr(s, '\n')) {
		if (*s == '\n')
			s++;
		if (!strncmp(s, key, n) && (s[n] == '\t' || s[n] == ' '))
			return s + n + strspn(s + n, " \t");
	}
	return NULL;
}

json_t *mkfsinfo_btrfs(const char *text)
{
	const char *csum = btrfs_field(text, "csum_type");
	long long ns = num(btrfs_field(text, "nodesize") ? : "");
	long long ss = num(btrfs_field(text, "sectorsize") ? : "");
	const char *p = csum ? strchr(csum, '(') : NULL;
	json_t *o;

	if (ns <= 0 || ss <= 0 || !(o = json_object()))
		return NULL;
	if (p && p < strchr(csum, '\n') && strchr(p, ')'))
		json_object_set_new(o, "csum_type", json_stringn(p + 1,
				    (size_t)(strchr(p, ')') - p - 1)));
	set_num(o, "nodesize", ns);
	set_num(o, "sectorsize", ss);
	set_num(o, "stripesize", num(btrfs_field(text, "stripesize") ? : ""));
	set_num(o, "num_devices",
		num(btrfs_field(text, "num_devices") ? : ""));
	json_object_set_new(o, "incompat", btrfs_flags(text,
						       "incompat_flags"));
	json_object_set_new(o, "compat_ro", btrfs_flags(text,
							"compat_ro_flags"));
	return o;
}

char *mkfsinfo_tool(const char *const argv[], const char *dev,
		    struct diag *d)
{
	char last[256] = "";
	struct proc_job job = {
		.argv = argv, .out_fd = PROC_PIPE, .err_fd = PROC_PIPE,
		.pipe_at = -1, .timeout_s = MKFSINFO_TIMEOUT_S, .log_fd = -1,
		.last = last, .last_len = sizeof(last),
		.keep = MKFSINFO_KEEP, .drain = 1, .kill_leftovers = 1,
	};
	struct proc_result res;
	char **env = proc_env_c_locale();
	int st;

	job.env = env;
	if (!env || proc_run(&job, &res)) {
		free(env);
		diag_fail(d, DIAG_SYSTEM, 0, "cannot start %s", argv[0]);
		return NULL;
	}
	free(env);
	st = proc_status(&res);
	if (!st && res.out)
		return res.out;
	if (res.timed_out)
		diag_fail(d, DIAG_LIMIT, 0, "%s took more than %.0f s",
			  argv[0], MKFSINFO_TIMEOUT_S);
	else
		diag_fail(d, DIAG_SYSTEM, res.exec_errno, "%s on %s exited "
			  "%d: %s", argv[0], dev, st, last);
	proc_result_free(&res);
	return NULL;
}

int mkfsinfo_read(const char *type, const char *dev, json_t **out,
		  struct diag *d)
{
	const char *ext[] = { "dumpe2fs", "-h", dev, NULL };
	const char *xfs[] = { "xfs_db", "-r", "-c", "info", dev, NULL };
	const char *btrfs[] = { "btrfs", "inspect-internal", "dump-super",
				dev, NULL };
	const char *const *argv;
	json_t *(*parse)(const char *);
	char *text;

	*out = NULL;
	if (!strcmp(type, "ext2") || !strcmp(type, "ext3") ||
	    !strcmp(type, "ext4"))
		argv = ext, parse = mkfsinfo_ext;
	else if (!strcmp(type, "xfs"))
		argv = xfs, parse = mkfsinfo_xfs;
	else if (!strcmp(type, "btrfs"))
		argv = btrfs, parse = mkfsinfo_btrfs;
	else
		return 1;
	if (!(text = mkfsinfo_tool(argv, dev, d)))
		return -1;
	*out = parse(text);
	free(text);
	if (!*out)
		return diag_fail(d, DIAG_SYSTEM, 0, "%s printed no %s facts "
				 "fsplan knows", argv[0], type);
	return 0;
}
