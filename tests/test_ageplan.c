/* test_ageplan: age: in the plan, its expansion, --only age=, manifest. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cells/select.h"
#include "e2e.h"
#include "helpers.h"
#include "results/manifest.h"
#include "results/mfage.h"

/* A plan: fsplan: 1, seed 42, top (top-level keys, may be ""), one
 * filesystems entry per line of entries, one phase p. */
static char *plan_of(const char *top, const char *entries)
{
	static char buf[8192];

	snprintf(buf, sizeof(buf), "fsplan: 1\nseed: 42\n%sfilesystems:\n"
		 "%sphases: [{name: p, exec: 'true'}]\n", top, entries);
	return buf;
}

static const char two[] =
	"  - type: ext4\n"
	"    age: [none, {fill: 80%, churn: 4}]\n";

/* ---- parsing ---- */

Test(ageplan, defaults_and_made_name)
{
	struct expansion *e = expand_text(plan_of("",
		"  - type: ext4\n    age: {fill: 80%}\n"), NULL, 0);
	const struct plan_fs *fs = &e->plan->fs[0];

	cr_assert_eq(fs->n_age, 1);
	cr_expect_float_eq(fs->age[0].fill, 0.8, 1e-12);
	cr_expect_eq(fs->age[0].churn, 0);
	cr_expect_eq(fs->age[0].seed, 42, "the plan's seed");
	cr_expect_eq(fs->age[0].seed_given, 0);
	cr_expect_null(fs->age[0].sizes);
	cr_expect_eq(fs->age[0].dirs, 0);
	cr_expect_eq(fs->age[0].reuse, 1);
	cr_expect_str_eq(fs->age[0].name, "80%x0");
	free_expanded(e);
}

Test(ageplan, every_key)
{
	struct expansion *e = expand_text(plan_of("",
		"  - type: ext4\n"
		"    age:\n"
		"      - {fill: 0.25, churn: 2.5, seed: 7, dirs: 100,\n"
		"         sizes: {4K: 30, 64K: 40, 1M: 20, 64M: 10.5},\n"
		"         reuse: false}\n"
		"      - {fill: 50%, name: half_full.1}\n"), NULL, 0);
	const struct plan_age *a = e->plan->fs[0].age;

	cr_assert_eq(e->plan->fs[0].n_age, 2);
	cr_expect_float_eq(a[0].fill, 0.25, 1e-12);
	cr_expect_float_eq(a[0].churn, 2.5, 1e-12);
	cr_expect_eq(a[0].seed, 7);
	cr_expect_eq(a[0].seed_given, 1);
	cr_expect_eq(a[0].dirs, 100);
	cr_expect_eq(a[0].reuse, 0);
	cr_expect_str_eq(a[0].name, "25%x2.5s7");
	cr_assert_eq(a[0].n_sizes, 4);
	cr_expect_eq(a[0].sizes[0].upto, 4096);
	cr_expect_eq(a[0].sizes[1].upto, 65536);
	cr_expect_eq(a[0].sizes[2].upto, 1 << 20);
	cr_expect_eq(a[0].sizes[3].upto, 64 << 20);
	cr_expect_float_eq(a[0].sizes[3].weight, 10.5, 1e-12);
	cr_expect_str_eq(a[1].name, "half_full.1");
	cr_expect_float_eq(a[1].fill, 0.5, 1e-12);
	free_expanded(e);
}

Test(ageplan, params_in_values)
{
	static const struct plan_define defs[] = { { "churn", "3" } };
	struct expansion *e = expand_text(plan_of(
		"params: {fill: 60%, churn: 1, big: 1G}\n",
		"  - type: ext4\n"
		"    age: {fill: '${fill}', churn: '${churn}',\n"
		"          sizes: {64K: 1, '${big}': 2}}\n"), defs, 1);
	const struct plan_age *a = e->plan->fs[0].age;

	cr_expect_float_eq(a->fill, 0.6, 1e-12);
	cr_expect_float_eq(a->churn, 3, 1e-12, "-D reaches age:");
	cr_expect_eq(a->sizes[1].upto, UINT64_C(1) << 30);
	cr_expect_str_eq(a->name, "60%x3");
	free_expanded(e);
}

/* ---- refusals, each at its place with what is wanted ---- */

Test(ageplan, refused_values)
{
	static const struct {
		const char *age;
		int col;
		const char *msg;
	} bad[] = {
		{ "{churn: 4}", 10, "missing the required key 'fill'" },
		{ "{fill: 96%}", 17, "'fill' is the share of the filesystem "
				     "to fill, 1% to 95% (e.g. 80% or 0.8), "
				     "not '96%'" },
		{ "{fill: 80}", 17, "not '80'" },
		{ "{fill: 0.5%}", 17, "not '0.5%'" },
		{ "{fill: 8O%}", 17, "not '8O%'" },
		{ "{fill: 50%, churn: -1}", 29, "'churn' is how many times "
						"the filled bytes are "
						"rewritten, a number from 0 "
						"to 100" },
		{ "{fill: 50%, churn: 101}", 29, "not '101'" },
		{ "{fill: 50%, seed: 1.5}", 28, "'seed' must be a whole "
						"number >= 0, not '1.5'" },
		{ "{fill: 50%, dirs: 0}", 28, "'dirs' must be a whole number "
					      "from 1 to 1000000, not '0'" },
		{ "{fill: 50%, reuse: maybe}", 29, "'reuse' is true" },
		{ "{fill: 50%, sizes: [4K]}", 29, "'sizes' is a mapping of "
						  "file size: weight" },
		{ "{fill: 50%, sizes: {64K: 1, 4K: 1}}", 38,
		  "'sizes' must increase in the order written: 4K is not "
		  "above the size before it" },
		{ "{fill: 50%, sizes: {0: 1}}", 30, "a file size in 'sizes' "
						    "is above 0, not '0'" },
		{ "{fill: 50%, sizes: {4Q: 1}}", 30, "'4Q' in 'sizes' is not "
						     "a file size" },
		{ "{fill: 50%, sizes: {4K: 0}}", 34, "the weight of 4K in "
						     "'sizes' is a number "
						     "above 0" },
		{ "{fill: 50%, name: none}", 28, "'none' names the fresh "
						 "filesystem" },
		{ "{fill: 50%, name: 'a b'}", 30, "'name' is part of config "
						  "labels and cell ids: use "
						  "letters, digits" },
		{ "{fil: 80%}", 11, "unknown key 'fil' in an age alternative "
				    "({fill, churn, seed, sizes, dirs, reuse, "
				    "name}) (did you mean 'fill'?)" },
		{ "old", 10, "an age alternative is none or a mapping such "
			     "as {fill: 80%, churn: 4}, not 'old'" },
		{ "[none, [none]]", 17, "an age alternative is none or a "
					"mapping such as {fill: 80%, churn: "
					"4}, not a list" },
		{ "[]", 10, "'age' is an empty list" },
		{ "[{fill: 80%}, {fill: 0.8}]", 24,
		  "age alternative '80%x0' is given twice (first at line 5): "
		  "give each a name:" },
		{ "[none, none]", 17, "age alternative 'none' is given twice" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char entry[256];

		snprintf(entry, sizeof(entry),
			 "  - type: ext4\n    age: %s\n", bad[i].age);
		expect_error(plan_of("", entry), 5, bad[i].col, bad[i].msg);
	}
}

Test(ageplan, too_many_size_buckets)
{
	char entry[2048];
	int n = snprintf(entry, sizeof(entry),
			 "  - type: ext4\n    age: {fill: 50%%, sizes: {");

	for (int i = 1; i <= 33; i++)
		n += snprintf(entry + n, sizeof(entry) - n, "%s%dK: 1",
			      i > 1 ? ", " : "", i);
	snprintf(entry + n, sizeof(entry) - n, "}}\n");
	expect_error(plan_of("", entry), 5, 29,
		     "'sizes' has 33 buckets: give 1 to 32");
}

Test(ageplan, nothing_to_age)
{
	/* a directory: nothing fsplan makes */
	expect_error("fsplan: 1\ntarget: {dir: /tmp}\n"
		     "age: [none, {fill: 50%}]\n"
		     "phases: [{exec: 'true'}]\n", 3, 6,
		     "age: needs a filesystem fsplan makes (target image or "
		     "device)");
	/* a nodev type: no device to age */
	expect_error(plan_of("", "  - type: tmpfs\n    age: {fill: 50%}\n"),
		     5, 10, "tmpfs has no device: nothing to age");
	expect_error(plan_of("age: {fill: 50%}\n",
			     "  - type: ext4\n  - type: tmpfs\n"), 6, 11,
		     "tmpfs has no device: nothing to age, and the plan's "
		     "age: (line 3) applies to every entry without its own: "
		     "give this entry 'age: none'");
	/* an axis may not take the coordinate's name */
	expect_error(plan_of("matrix: {age: [a, b]}\n", "  - type: ext4\n"),
		     3, 10, "'age' is a cell coordinate already");
}

Test(ageplan, none_is_fine_anywhere)
{
	struct expansion *e = expand_text(plan_of("age: {fill: 50%}\n",
		"  - type: tmpfs\n    age: none\n"), NULL, 0);

	cr_expect_eq(e->n_confs, 1);
	cr_expect_null(e->confs[0].age);
	cr_expect_str_eq(e->confs[0].label, "tmpfs");
	free_expanded(e);
	e = expand_text("fsplan: 1\ntarget: {dir: /tmp}\nage: none\n"
			"phases: [{exec: 'true'}]\n", NULL, 0);
	cr_expect_eq(e->plan->fs[0].n_age, 1);
	cr_expect_str_eq(e->plan->fs[0].age[0].name, "none");
	free_expanded(e);
}

/* ---- expansion ---- */

Test(ageplan, none_and_aged_labels_and_ids)
{
	struct expansion *e = expand_text(plan_of("", two), NULL, 0);

	cr_assert_eq(e->n_confs, 2);
	cr_assert_eq(e->n_cells, 2);
	cr_expect_null(e->confs[0].age);
	cr_expect_eq(e->confs[0].age_alt, 0);
	cr_expect_str_eq(e->confs[0].label, "ext4", "none adds nothing");
	cr_assert_not_null(e->confs[1].age);
	cr_expect_eq(e->confs[1].age_alt, 1);
	cr_expect_float_eq(e->confs[1].age->fill, 0.8, 1e-12);
	cr_expect_str_eq(e->confs[1].label, "ext4@age=80%x4");
	cr_expect_str_eq(e->cells[0].id, "ext4/p#1");
	cr_expect_str_eq(e->cells[1].id, "ext4@age=80%x4/p#1");
	cr_expect_str_eq(cell_coord(e, &e->cells[0], "age"), "none");
	cr_expect_str_eq(cell_coord(e, &e->cells[1], "age"), "80%x4");
	free_expanded(e);
}

/* mkfs x mount, then the age alternative varying slowest, times the
 * top-level matrix (fastest). */
Test(ageplan, age_varies_slowest_within_an_entry)
{
	struct expansion *e = expand_text(plan_of(
		"matrix: {x: [1, 2]}\n",
		"  - type: ext4\n"
		"    mount: [noatime, relatime]\n"
		"    age: [{fill: 30%, name: light}, {fill: 90%, name: full}]\n"
		"  - type: xfs\n"), NULL, 0);
	static const char *const want[] = {
		"ext4::noatime@age=light", "ext4::noatime@age=light",
		"ext4::relatime@age=light", "ext4::relatime@age=light",
		"ext4::noatime@age=full", "ext4::noatime@age=full",
		"ext4::relatime@age=full", "ext4::relatime@age=full",
		"xfs", "xfs",
	};

	cr_assert_eq(e->n_confs, 10);
	for (int i = 0; i < 10; i++) {
		cr_expect_str_eq(e->confs[i].label, want[i], "config %d", i);
		cr_expect_eq(e->confs[i].axis[0], i % 2);
	}
	cr_expect_str_eq(e->cells[4].id, "ext4::noatime@age=full/p/x=1#1");
	free_expanded(e);
}

Test(ageplan, labels_given)
{
	struct expansion *e = expand_text(plan_of("",
		"  - {type: ext4, label: old, age: {fill: 80%, churn: 4}}\n"
		"  - {type: ext4, label: two, age: [none, {fill: 50%}]}\n"),
		NULL, 0);

	cr_assert_eq(e->n_confs, 3);
	cr_expect_str_eq(e->confs[0].label, "old", "one alternative: as given");
	cr_expect_not_null(e->confs[0].age);
	cr_expect_str_eq(e->confs[1].label, "two");
	cr_expect_str_eq(e->confs[2].label, "two@age=50%x0");
	free_expanded(e);
}

Test(ageplan, top_level_age_taken_by_entries)
{
	struct expansion *e = expand_text(plan_of(
		"age: [none, {fill: 70%, churn: 1, seed: 9}]\n",
		"  - type: ext4\n"
		"  - type: xfs\n"
		"    age: {fill: 40%}\n"
		"  - type: btrfs\n    age: none\n"), NULL, 0);
	const struct plan *p = e->plan;

	cr_assert_eq(p->fs[0].n_age, 2);
	cr_expect_neq(p->fs[0].age, p->age, "a copy, freed with the entry");
	cr_expect_str_eq(p->fs[0].age[1].name, "70%x1s9");
	cr_expect_eq(p->fs[0].age[1].seed, 9);
	cr_expect_eq(p->fs[1].n_age, 1);
	cr_assert_eq(e->n_confs, 4);
	cr_expect_str_eq(e->confs[0].label, "ext4");
	cr_expect_str_eq(e->confs[1].label, "ext4@age=70%x1s9");
	cr_expect_str_eq(e->confs[2].label, "xfs@age=40%x0");
	cr_expect_eq(e->confs[2].age->seed, 42);
	cr_expect_str_eq(e->confs[3].label, "btrfs");
	free_expanded(e);
}

Test(ageplan, design_rows_times_ages)
{
	struct expansion *e = expand_text(plan_of("",
		"  - type: ext4\n"
		"    factors:\n"
		"      - {name: lazy, mount: ['', lazytime]}\n"
		"      - {name: inode, mkfs: ['-I 256', '-I 512']}\n"
		"    design: full\n"
		"    age: [none, {fill: 60%}]\n"), NULL, 0);
	int aged = 0;

	cr_assert_eq(e->n_confs, 8, "4 rows x 2 ages");
	for (int i = 0; i < 8; i++) {
		const char *l = e->confs[i].label;
		const char *at = strstr(l, "@age=60%x0");

		cr_expect(e->confs[i].design_row >= 1);
		cr_expect_eq(!!at, !!e->confs[i].age, "%s", l);
		cr_expect(!at || !at[10], "%s", l);
		aged += !!e->confs[i].age;
		cr_expect_eq(!!e->confs[i].age, i >= 4, "slowest: %s", l);
	}
	cr_expect_eq(aged, 4);
	free_expanded(e);
}

/* ---- --only age=, exclude ---- */

Test(ageplan, only_and_exclude_by_age)
{
	struct expansion *e = expand_text(plan_of("", two), NULL, 0);
	const char *only[] = { "age=80%x4" }, *none[] = { "age=none" };
	const char *bad[] = { "age=80%" };
	struct diag d = { 0 };

	cr_assert_eq(select_cells(e, only, 1, 0, 0, &d), 0, "%s", d.msg);
	cr_expect_eq(e->n_selected, 1);
	cr_expect(!e->cells[0].selected && e->cells[1].selected);
	cr_assert_eq(select_cells(e, none, 1, 0, 0, &d), 0, "%s", d.msg);
	cr_expect(e->cells[0].selected && !e->cells[1].selected);
	cr_expect_neq(select_cells(e, bad, 1, 0, 0, &d), 0);
	cr_expect(strstr(d.msg, "no cell has age '80%'; age is one of "
			 "'none', '80%x4'"), "%s", d.msg);
	free_expanded(e);
	e = expand_text(plan_of("exclude: [{age: none}]\n", two), NULL, 0);
	cr_expect_eq(e->n_confs, 1);
	cr_expect_str_eq(e->confs[0].label, "ext4@age=80%x4");
	free_expanded(e);
	expect_error(plan_of("exclude: [{age: 80%x5}]\n", two), 3, 17,
		     "exclude: no age has the value '80%x5' (did you mean "
		     "'80%x4'?)");
}

/* ---- fsplan expand, the manifest ---- */

Test(ageplan, expand_shows_the_age)
{
	const char *dir = e2e_tmpdir();
	char *plan = e2e_write(dir, "plan.yaml", plan_of("",
		"  - type: ext4\n"
		"    age: [none, {fill: 80%, churn: 4, dirs: 8,\n"
		"                 sizes: {4K: 3, 1M: 1}, reuse: no}]\n"));
	int rc = e2e_fsplan((const char *[]){ "expand", plan, NULL });

	cr_assert_eq(rc, 0, "%s", e2e_err);
	cr_expect_str_eq(e2e_out,
		"1\text4/p#1\tmkfs.ext4 LOOPDEV\t"
		"mount -t ext4 LOOPDEV MOUNTPOINT\n"
		"2\text4@age=80%x4/p#1\tmkfs.ext4 LOOPDEV\t"
		"mount -t ext4 LOOPDEV MOUNTPOINT\t"
		"age: 80%x4 (fill 80%, churn 4, seed 42, sizes {4K: 3, "
		"1M: 1}, dirs 8, reuse false)\n");
	rc = e2e_fsplan((const char *[]){ "expand", plan, "--only",
					  "age=80%x4", NULL });
	cr_expect_eq(rc, 0, "%s", e2e_err);
	cr_expect(!strstr(e2e_out, "ext4/p#1") &&
		  strstr(e2e_out, "ext4@age=80%x4/p#1"), "%s", e2e_out);
	rc = e2e_fsplan((const char *[]){ "expand", plan, "--only",
					  "age=old", NULL });
	cr_expect_neq(rc, 0);
	cr_expect(strstr(e2e_err, "age is one of 'none', '80%x4'"), "%s",
		  e2e_err);
	e2e_cleanup();
}

Test(ageplan, manifest_age_object)
{
	struct expansion *e = expand_text(plan_of("",
		"  - type: ext4\n"
		"    age: [none, {fill: 80%, churn: 4},\n"
		"          {fill: 30%, seed: 5, dirs: 9, reuse: false,\n"
		"           sizes: {4K: 3, 1M: 1.5}}]\n"), NULL, 0);
	char *argv_[] = { (char *)"fsplan", (char *)"run", (char *)"t.yaml",
			  NULL };
	struct manifest *m = manifest_new(e, "20260101-000000", 3, argv_,
					  json_object(), json_object());
	json_t *a, *b, *s;

	cr_assert_not_null(m);
	cr_assert_eq(json_array_size(m->configs), 3);
	cr_expect_null(json_object_get(json_array_get(m->configs, 0), "age"));
	a = json_object_get(json_array_get(m->configs, 1), "age");
	b = json_object_get(json_array_get(m->configs, 2), "age");
	cr_assert(json_is_object(a) && json_is_object(b));
	cr_expect_str_eq(json_string_value(json_object_get(a, "name")),
			 "80%x4");
	cr_expect_float_eq(json_real_value(json_object_get(a, "fill")), 0.8,
			   1e-12);
	cr_expect_float_eq(json_real_value(json_object_get(a, "churn")), 4,
			   1e-12);
	cr_expect_eq(json_integer_value(json_object_get(a, "seed")), 42);
	cr_expect_eq(json_integer_value(json_object_get(a, "dirs")), 0);
	cr_expect(json_is_true(json_object_get(a, "reuse")));
	cr_expect_null(json_object_get(a, "sizes"), "the default: absent");
	cr_expect_str_eq(json_string_value(json_object_get(b, "name")),
			 "30%x0s5");
	cr_expect_eq(json_integer_value(json_object_get(b, "seed")), 5);
	cr_expect_eq(json_integer_value(json_object_get(b, "dirs")), 9);
	cr_expect(json_is_false(json_object_get(b, "reuse")));
	s = json_object_get(b, "sizes");
	cr_assert_eq(json_array_size(s), 2);
	cr_expect_eq(json_integer_value(json_array_get(
		json_array_get(s, 0), 0)), 4096);
	cr_expect_float_eq(json_real_value(json_array_get(
		json_array_get(s, 1), 1)), 1.5, 1e-12);
	cr_expect_eq(json_integer_value(json_array_get(
		json_array_get(s, 1), 0)), 1 << 20);
	cr_expect_null(mfage_conf(&e->confs[0]));
	manifest_free(m);
	free_expanded(e);
}

/* The cell limit counts the age alternatives: 50 mkfs x 50 mount x 40
 * axis values are 100000 configs, times 101 ages over 10000000. */
Test(ageplan, cell_limit_counts_ages)
{
	static char text[16384];
	int n = snprintf(text, sizeof(text), "fsplan: 1\nmatrix: {x: [");

	for (int i = 0; i < 40; i++)
		n += snprintf(text + n, sizeof(text) - n, "%s%d", i ? "," : "",
			      i);
	n += snprintf(text + n, sizeof(text) - n, "]}\nfilesystems:\n"
		      "  - type: ext4\n    mkfs: [");
	for (int i = 0; i < 50; i++)
		n += snprintf(text + n, sizeof(text) - n, "%s-N %d",
			      i ? "," : "", 1000 + i);
	n += snprintf(text + n, sizeof(text) - n, "]\n    mount: [");
	for (int i = 0; i < 50; i++)
		n += snprintf(text + n, sizeof(text) - n, "%scommit=%d",
			      i ? "," : "", i + 1);
	n += snprintf(text + n, sizeof(text) - n, "]\n    age: [");
	for (int i = 0; i <= 100; i++)
		n += snprintf(text + n, sizeof(text) - n, "%s{fill: 50%%, "
			      "churn: %d}", i ? "," : "", i);
	snprintf(text + n, sizeof(text) - n,
		 "]\nphases: [{name: p, exec: 'true'}]\n");
	cr_assert_lt(strlen(text), sizeof(text) - 1);
	expect_error(text, 0, 0, "the plan expands to more than 10000000 "
		     "cells");
}
