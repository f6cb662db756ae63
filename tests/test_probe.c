/* test_probe: the probe of a plan's mkfs and mount words, at check and
 * before a run, and what the report shows of it. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"
#include "util/mountopts.h"

/* probe_compare on real mountinfo lines of this kernel (6.18). */
static const char *change(const char *want, const char *applied,
			  const char *base)
{
	static char out[512];
	struct strbuf b = { 0 };

	out[0] = '\0';
	if (mountopts_compare(want, applied, base, &b))
		snprintf(out, sizeof(out), "%s", b.p);
	free(b.p);
	return out;
}

Test(probe, compare_keeps_aliases_and_defaults)
{
	/* commit=5 is hidden as the default; lazytime and rw shown */
	cr_assert_str_empty(change("commit=5,lazytime,rw",
				   "rw,relatime rw,lazytime", "rw,relatime rw"));
	cr_assert_str_empty(change("noatime,commit=60",
				   "rw,noatime rw,commit=60", NULL));
	/* the same size in other units */
	cr_assert_str_empty(change("logbsize=262144",
				   "rw,relatime rw,inode64,logbsize=256k",
				   NULL));
	cr_assert_str_empty(change("defaults", "rw,relatime rw", NULL));
}

Test(probe, compare_names_what_the_kernel_changed)
{
	cr_assert_str_eq(change("data=journal,dioread_nolock",
				"rw,relatime rw,nodioread_nolock,nodelalloc,"
				"data=journal", "rw,relatime rw"),
			 "dioread_nolock dropped, nodelalloc added");
	cr_assert_str_eq(change("commit=60", "rw,relatime rw,commit=30",
				NULL), "commit=60 became commit=30");
	cr_assert_str_eq(change("noatime", "rw,relatime rw", NULL),
			 "noatime became relatime");
	cr_assert_str_eq(change("ro", "rw,relatime rw", NULL),
			 "ro became rw");
}

/* A plan of filesystems (YAML) and one exec phase, in the tmpdir. */
static const char *plan(const char *filesystems)
{
	char text[4096];

	snprintf(text, sizeof(text), "fsplan: 1\nname: probe\ntarget:\n"
		 "  image: 1G\nfilesystems:\n%sphases:\n  - exec: \"true\"\n",
		 filesystems);
	return e2e_write(e2e_tmpdir(), "plan.yaml", text);
}

static int check_probe(const char *filesystems)
{
	return e2e_fsplan((const char *[]){ "check", "--probe",
					    plan(filesystems), NULL });
}

/* The lines of losetup -a that name the tmpdir: what of ours is
 * attached now (the machine's other loops come and go). */
static const char *loops(char *buf, size_t len)
{
	char cmd[512];
	FILE *f;
	size_t n;

	snprintf(cmd, sizeof(cmd), "losetup -a | grep -F '%s' | sort",
		 e2e_tmpdir());
	f = popen(cmd, "r");
	n = f ? fread(buf, 1, len - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		pclose(f);
	return buf;
}

/* Whether loops under prefix are still attached after 3 s. */
static int loops_left(const char *prefix)
{
	for (int i = 0; i < 30 && e2e_loops_under(prefix); i++)
		usleep(100000);
	return e2e_loops_under(prefix);
}

/* losetup -a's lines of ours once they equal before, or after 3 s:
 * autoclear detaches a loop device a moment after its last close. */
static const char *loops_settled(const char *before, char *buf,
				 size_t len)
{
	for (int i = 0; i < 30 && strcmp(loops(buf, len), before); i++)
		usleep(100000);
	return buf;
}

Test(probe, check_refuses_xfs_nobarrier_at_its_place, .timeout = 60)
{
	char want[512];

	e2e_require_root();
	cr_assert_eq(check_probe("  - type: xfs\n"
				 "    mount: [noquota, nobarrier]\n"), 2,
		     "%s", e2e_err);
	/* line 7, the column of nobarrier, and the kernel's own words */
	snprintf(want, sizeof(want), "%s/plan.yaml:7:22: xfs refuses the "
		 "mount options 'nobarrier'", e2e_tmpdir());
	cr_assert(strstr(e2e_err, want), "%s", e2e_err);
	cr_assert(strstr(e2e_err, "xfs: Unknown parameter 'nobarrier'"),
		  "%s", e2e_err);
	cr_assert_null(strstr(e2e_err, "'noquota'"), "%s", e2e_err);
	cr_assert_not(loops_left("/tmp/fsplan-probe-"));
	e2e_cleanup();
}

Test(probe, check_warns_of_data_journal_dioread_nolock, .timeout = 60)
{
	e2e_require_root();
	cr_assert_eq(check_probe("  - type: ext4\n"
				 "    mount: [\"data=journal,dioread_nolock\"]"
				 "\n"), 0, "%s", e2e_err);
	cr_assert(strstr(e2e_err, "plan.yaml:7:13: warning: ext4 mounted "
			 "data=journal,dioread_nolock as "), "%s", e2e_err);
	cr_assert(strstr(e2e_err, ": dioread_nolock dropped, nodelalloc "
			 "added"), "%s", e2e_err);
	e2e_cleanup();
}

Test(probe, check_of_clean_options_says_nothing, .timeout = 60)
{
	e2e_require_root();
	cr_assert_eq(check_probe("  - type: ext4\n"
				 "    mount: [noatime, \"noatime,commit=60\"]\n"
				 "    mkfs: [\"-I 256\"]\n"), 0, "%s", e2e_err);
	cr_assert_str_empty(e2e_err);
	/* a refused mkfs word is an error at the mkfs words */
	cr_assert_eq(check_probe("  - type: ext4\n"
				 "    mkfs: [\"-I 100\"]\n"), 2);
	cr_assert(strstr(e2e_err, "plan.yaml:7:12: mkfs.ext4 failed (exit "
			 "status 1): "), "%s", e2e_err);
	cr_assert(strstr(e2e_err, "invalid inode size 100"), "%s", e2e_err);
	/* the probe's error, not the dry run's warning besides */
	cr_assert_null(strstr(e2e_err, "warning"), "%s", e2e_err);
	e2e_cleanup();
}

Test(probe, run_with_a_refused_option_makes_nothing, .timeout = 120)
{
	char before[4096], after[4096], rd[512], path[600];
	const char *csv;

	e2e_require_root();
	loops(before, sizeof(before));
	cr_assert_eq(e2e_run_plan(e2e_tmpdir(), "refused",
				  "target: {image: 1G}\n"
				  "filesystems:\n"
				  "  - type: ext4\n"
				  "    mount: [noatime, data=writebak]\n"
				  "phases:\n  - exec: \"true\"\n", rd,
				  sizeof(rd)), 2, "%s", e2e_err);
	cr_assert(strstr(e2e_err, "plan.yaml:6:22: ext4 refuses the mount "
			 "options 'data=writebak'"), "%s", e2e_err);
	cr_assert(strstr(e2e_err, "no config was run"), "%s", e2e_err);
	/* not even the good config ran: results.csv is its head alone */
	snprintf(path, sizeof(path), "%s/results.csv", rd);
	csv = e2e_read(path);
	cr_assert_eq(strchr(csv, '\n') - csv + 1, (long)strlen(csv), "%s",
		     csv);
	cr_assert_not(e2e_mounted_under(e2e_tmpdir()));
	cr_assert_not(loops_left(e2e_tmpdir()));
	cr_assert_str_eq(loops_settled(before, after, sizeof(after)), before);
	snprintf(path, sizeof(path), "%s/log.txt", rd);
	cr_assert(strstr(e2e_read(path), "probe: ext4 mkfs '' mount "
			 "'data=writebak': refused, mount "));
	e2e_cleanup();
}

/* The manifest's probe warning of config i ("" none; NULL no probe). */
static const char *warning_of(const char *manifest, int i)
{
	static char out[512];
	json_t *m = json_load_file(manifest, 0, NULL);
	json_t *pr = json_object_get(json_array_get(json_object_get(m,
				     "configs"), (size_t)i), "probe");
	const char *w = json_string_value(json_array_get(json_object_get(pr,
					  "warnings"), 0));

	snprintf(out, sizeof(out), "%s", w ? w : "");
	w = pr ? out : NULL;
	json_decref(m);
	return w;
}

Test(probe, report_shows_the_applied_options, .timeout = 120)
{
	char rd[512], path[600];

	e2e_require_root();
	cr_assert_eq(e2e_run_plan(e2e_tmpdir(), "applied",
				  "target: {image: 1G}\n"
				  "filesystems:\n"
				  "  - type: ext4\n"
				  "    mount: [noatime, \"data=journal,"
				  "dioread_nolock\"]\n"
				  "phases:\n  - exec: \"true\"\n", rd,
				  sizeof(rd)), 0, "%s", e2e_err);
	snprintf(path, sizeof(path), "%s/manifest.json", rd);
	cr_assert_str_eq(warning_of(path, 0), "");
	cr_assert(!strncmp(warning_of(path, 1), "ext4 mounted data=journal,"
			   "dioread_nolock as ", 44), "%s",
		  warning_of(path, 1));
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", rd, NULL }), 0);
	cr_assert(strstr(e2e_out, "mount applied"), "%s", e2e_out);
	cr_assert(strstr(e2e_out, "dioread_nolock dropped"), "%s", e2e_out);
	cr_assert_not(e2e_mounted_under(e2e_tmpdir()));
	e2e_cleanup();
}

Test(probe, refusals_of_a_design_are_at_the_factor_levels, .timeout = 60)
{
	const char *fs = "  - type: xfs\n"
			 "    mount: noatime\n"
			 "    factors:\n"
			 "      - {name: log, mount: [logbsize=32k, "
			 "logbsize=300k]}\n"
			 "      - {name: bar, mount: [inode64, nobarrier]}\n"
			 "    design: {type: full}\n";
	char want[512];

	e2e_require_root();
	if (e2e_fsplan((const char *[]){ "check", plan(fs), NULL }) &&
	    strstr(e2e_err, "factors"))
		cr_skip("this fsplan's plans have no factors yet: %s",
			e2e_err);
	cr_assert_eq(check_probe(fs), 2, "%s", e2e_err);
	/* the kernel names nobarrier: at its level, once for two rows */
	snprintf(want, sizeof(want), "%s/plan.yaml:10:38: xfs refuses",
		 e2e_tmpdir());
	cr_assert(strstr(e2e_err, want), "%s", e2e_err);
	cr_assert_null(strstr(strstr(e2e_err, want) + 1, want), "%s",
		       e2e_err);
	/* it does not name logbsize=300k: the level refused alone */
	snprintf(want, sizeof(want), "%s/plan.yaml:9:43: xfs refuses the "
		 "mount options 'noatime,logbsize=300k,inode64'",
		 e2e_tmpdir());
	cr_assert(strstr(e2e_err, want), "%s", e2e_err);
	cr_assert(strstr(e2e_err, "invalid logbufsize: 307200"), "%s",
		  e2e_err);
	e2e_cleanup();
}
