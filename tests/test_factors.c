/* test_factors: screening factors and designs, from the plan to expand. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cells/select.h"
#include "e2e.h"
#include "helpers.h"
#include "results/manifest.h"

/* A plan of head (up to the factors), the factors of factors and the
 * design, then tail (from phases: on). */
static char *plan_of(const char *entry, const char *tail)
{
	static char buf[8192];

	snprintf(buf, sizeof(buf),
		 "fsplan: 1\n"
		 "seed: %s\n"
		 "filesystems:\n"
		 "%s"
		 "phases:\n"
		 "  - name: w\n"
		 "    exec: 'true'\n"
		 "%s", "1", entry, tail ? tail : "");
	return buf;
}

static const char three[] =
	"  - type: ext4\n"
	"    mkfs: -q\n"
	"    mount: noatime\n"
	"    factors:\n"
	"      - {name: data, mount: [data=ordered, data=writeback]}\n"
	"      - {name: inode, mkfs: ['-I 256', '-I 512']}\n"
	"      - {name: lazy, mount: ['', lazytime]}\n"
	"    design: full\n";

/* ---- the loader's refusals, each at its place ---- */

Test(factors, design_and_factors_go_together)
{
	expect_error(plan_of("  - type: ext4\n"
			     "    factors:\n"
			     "      - {name: a, mount: [noatime, relatime]}\n"
			     "      - {name: b, mount: [commit=5, commit=60]}\n",
			     NULL), 6, 9,
		     "factors need a 'design:' (full, fractional, "
		     "plackett-burman or oat)");
	expect_error(plan_of("  - type: ext4\n"
			     "    design: full\n", NULL), 5, 13,
		     "'design' needs 'factors'");
}

Test(factors, an_unknown_design_is_suggested)
{
	expect_error(plan_of("  - type: ext4\n"
			     "    factors:\n"
			     "      - {name: a, mount: [noatime, relatime]}\n"
			     "      - {name: b, mount: [commit=5, commit=60]}\n"
			     "    design: {type: fractionl}\n", NULL), 8, 20,
		     "unknown design 'fractionl' (did you mean "
		     "'fractional'?)");
	expect_error(plan_of("  - type: ext4\n"
			     "    factors:\n"
			     "      - {name: a, mount: [noatime, relatime]}\n"
			     "      - {name: b, mount: [commit=5, commit=60]}\n"
			     "    design: pb\n", NULL), 8, 13,
		     "unknown design 'pb'");
}

Test(factors, resolution_and_runs)
{
	static const char head[] =
		"  - type: ext4\n"
		"    factors:\n"
		"      - {name: a, mount: [noatime, relatime]}\n"
		"      - {name: b, mount: [commit=5, commit=60]}\n";
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s    design: {type: fractional, "
		 "resolution: .nan}\n", head);
	expect_error(plan_of(buf, NULL), 8, 44, "'resolution' is 3, 4 or 5");
	snprintf(buf, sizeof(buf), "%s    design: {type: fractional, "
		 "resolution: VI}\n", head);
	expect_error(plan_of(buf, NULL), 8, 44, "not 'VI'");
	snprintf(buf, sizeof(buf), "%s    design: {type: plackett-burman, "
		 "runs: 16}\n", head);
	expect_error(plan_of(buf, NULL), 8, 43, "12, 20 or 24, not 16");
	snprintf(buf, sizeof(buf), "%s    design: {type: full, runs: 12}\n",
		 head);
	expect_error(plan_of(buf, NULL), 8, 13, "'runs' applies only");
	snprintf(buf, sizeof(buf), "%s    design: {type: oat, "
		 "resolution: 4}\n", head);
	expect_error(plan_of(buf, NULL), 8, 25, "'resolution' applies only");
	snprintf(buf, sizeof(buf), "%s    design: [full]\n", head);
	expect_error(plan_of(buf, NULL), 8, 13, "'design' is full");
}

Test(factors, levels_are_two_scalars)
{
	expect_error(plan_of("  - type: ext4\n"
			     "    factors:\n"
			     "      - {name: a, mount: [noatime, relatime, "
			     "lazytime]}\n"
			     "      - {name: b, mount: [commit=5, commit=60]}\n"
			     "    design: full\n", NULL), 6, 26,
		     "takes two levels");
	expect_error(plan_of("  - type: ext4\n"
			     "    factors:\n"
			     "      - {name: a, mount: [noatime, {x: 1}]}\n"
			     "      - {name: b, mount: [commit=5, commit=60]}\n"
			     "    design: full\n", NULL), 6, 36,
		     "not a mapping");
	expect_error(plan_of("  - type: ext4\n"
			     "    factors:\n"
			     "      - {name: a, mount: noatime}\n"
			     "      - {name: b, mount: [commit=5, commit=60]}\n"
			     "    design: full\n", NULL), 6, 26,
		     "takes two levels");
	expect_error(plan_of("  - type: ext4\n"
			     "    factors:\n"
			     "      - {name: a, mount: [noatime, noatime]}\n"
			     "      - {name: b, mount: [commit=5, commit=60]}\n"
			     "    design: full\n", NULL), 6, 36,
		     "both levels");
	expect_error(plan_of("  - type: ext4\n"
			     "    factors:\n"
			     "      - {name: a}\n"
			     "      - {name: b, mount: [commit=5, commit=60]}\n"
			     "    design: full\n", NULL), 6, 9,
		     "factor 'a' changes nothing");
}

Test(factors, a_level_may_name_no_device)
{
	expect_error(plan_of("  - type: ext4\n"
			     "    factors:\n"
			     "      - {name: a, mount: [noatime, "
			     "'journal_path=/dev/sdb']}\n"
			     "      - {name: b, mount: [commit=5, commit=60]}\n"
			     "    design: full\n", NULL), 6, 37,
		     "may name no device");
	expect_error(plan_of("  - type: ext4\n"
			     "    factors:\n"
			     "      - {name: a, mkfs: ['', '-J device=/dev/sdb']}\n"
			     "      - {name: b, mount: [commit=5, commit=60]}\n"
			     "    design: full\n", NULL), 6, 34,
		     "may name no device");
}

Test(factors, names)
{
	static const char *const bad[] = { "mount", "label", "phase" };
	char buf[1024];

	for (int i = 0; i < 3; i++) {
		snprintf(buf, sizeof(buf), "  - type: ext4\n"
			 "    factors:\n"
			 "      - {name: %s, mount: [noatime, relatime]}\n"
			 "      - {name: b, mount: [commit=5, commit=60]}\n"
			 "    design: full\n", bad[i]);
		expect_error(plan_of(buf, NULL), 6, 16, "cell coordinate");
	}
	expect_error(plan_of("  - type: ext4\n"
			     "    factors:\n"
			     "      - {name: 9a, mount: [noatime, relatime]}\n"
			     "      - {name: b, mount: [commit=5, commit=60]}\n"
			     "    design: full\n", NULL), 6, 16,
		     "not usable as a factor name");
	expect_error(plan_of("  - type: ext4\n"
			     "    factors:\n"
			     "      - {name: b, mount: [noatime, relatime]}\n"
			     "      - {name: b, mount: [commit=5, commit=60]}\n"
			     "    design: full\n", NULL), 7, 16,
		     "factor 'b' is named twice (first at line 6)");
	expect_error(plan_of("  - type: ext4\n"
			     "    factors:\n"
			     "      - {name: a, mount: [noatime, relatime]}\n"
			     "      - {name: threads, mount: [commit=5, "
			     "commit=60]}\n"
			     "    design: full\n",
			     "    matrix: {threads: [1, 2]}\n"), 7, 16,
		     "factor 'threads' has the name of a phase's matrix axis");
	expect_error("fsplan: 1\n"
		     "params: {a: 1}\n"
		     "filesystems:\n"
		     "  - type: ext4\n"
		     "    factors:\n"
		     "      - {name: a, mount: [noatime, relatime]}\n"
		     "      - {name: b, mount: [commit=5, commit=60]}\n"
		     "    design: full\n"
		     "phases: [{name: w, exec: 'true'}]\n", 6, 16,
		     "has the name of a parameter");
}

Test(factors, one_factor_alternatives_and_nodev)
{
	expect_error(plan_of("  - type: ext4\n"
			     "    factors:\n"
			     "      - {name: a, mount: [noatime, relatime]}\n"
			     "    design: full\n", NULL), 6, 7,
		     "at least two factors");
	expect_error(plan_of("  - type: ext4\n"
			     "    mount: [noatime, relatime]\n"
			     "    factors:\n"
			     "      - {name: a, mount: [nodiscard, discard]}\n"
			     "      - {name: b, mount: [commit=5, commit=60]}\n"
			     "    design: full\n", NULL), 5, 22,
		     "one value each, not alternatives");
	expect_error(plan_of("  - type: tmpfs\n"
			     "    factors:\n"
			     "      - {name: a, mount: [size=64M, size=128M]}\n"
			     "      - {name: b, mkfs: ['', '-b 1024']}\n"
			     "    design: full\n", NULL), 7, 25,
		     "tmpfs has no device to make");
}

Test(factors, a_huge_list_is_refused)
{
	static char buf[1 << 16];
	size_t n;

	n = (size_t)snprintf(buf, sizeof(buf), "  - type: ext4\n"
			     "    design: oat\n    factors:\n");
	for (int i = 0; i < 100; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n,
				      "      - {name: f%d, mount: "
				      "['', commit=%d]}\n", i, i + 1);
	expect_error(plan_of(buf, NULL), 7, 7, "'factors' lists 100");
}

/* ---- expansion ---- */

static int find_label(const struct expansion *e, const char *label)
{
	for (int i = 0; i < e->n_confs; i++)
		if (!strcmp(e->confs[i].label, label))
			return i;
	return -1;
}

Test(factors, full_design_one_config_per_row)
{
	struct expansion *e = expand_text(plan_of(three, NULL), NULL, 0);
	int i;

	cr_assert_eq(e->n_confs, 8);
	cr_expect_eq(e->n_cells, 8);
	i = find_label(e, "ext4/data=+,inode=-,lazy=+");
	cr_assert_geq(i, 0);
	cr_expect_str_eq(e->confs[i].mkfs, "-q -I 256");
	cr_expect_str_eq(e->confs[i].mount, "noatime,data=writeback,lazytime");
	cr_expect_str_eq(e->confs[i].levels, "+-+");
	cr_expect_str_eq(cell_coord(e, &e->cells[e->confs[i].first_cell],
				    "data"), "+");
	cr_expect_str_eq(cell_coord(e, &e->cells[e->confs[i].first_cell],
				    "inode"), "-");
	/* the empty level leaves no stray comma */
	i = find_label(e, "ext4/data=-,inode=+,lazy=-");
	cr_assert_geq(i, 0);
	cr_expect_str_eq(e->confs[i].mkfs, "-q -I 512");
	cr_expect_str_eq(e->confs[i].mount, "noatime,data=ordered");
	/* every combination once, rows numbered 1..8 */
	for (int r = 0; r < 8; r++) {
		int seen = 0;

		for (int c = 0; c < e->n_confs; c++)
			seen += e->confs[c].design_row == r + 1;
		cr_expect_eq(seen, 1, "row %d", r + 1);
		for (int c = r + 1; c < e->n_confs; c++)
			cr_expect_str_neq(e->confs[r].levels,
					  e->confs[c].levels);
	}
	free_expanded(e);
}

Test(factors, no_words_at_all_is_empty)
{
	struct expansion *e = expand_text(plan_of(
		"  - type: ext4\n"
		"    label: bare\n"
		"    factors:\n"
		"      - {name: a, mount: ['', noatime]}\n"
		"      - {name: b, mkfs: ['', '-b 4096']}\n"
		"    design: full\n", NULL), NULL, 0);
	int i = find_label(e, "bare/a=-,b=-");

	cr_assert_geq(i, 0);
	cr_expect_str_eq(e->confs[i].mkfs, "");
	cr_expect_str_eq(e->confs[i].mount, "");
	i = find_label(e, "bare/a=+,b=+");
	cr_assert_geq(i, 0);
	cr_expect_str_eq(e->confs[i].mkfs, "-b 4096");
	cr_expect_str_eq(e->confs[i].mount, "noatime");
	free_expanded(e);
}

/* The order of rows as a string of row numbers. */
static void row_order(const char *seed, char *out, size_t len)
{
	char text[4096], *s;
	struct expansion *e;
	size_t n = 0;

	snprintf(text, sizeof(text), "%s", plan_of(three, NULL));
	s = strstr(text, "seed: 1");
	cr_assert_not_null(s);
	memmove(s + 6 + strlen(seed), s + 7, strlen(s + 7) + 1);
	memcpy(s + 6, seed, strlen(seed));
	e = expand_text(text, NULL, 0);
	for (int c = 0; c < e->n_confs && n + 4 < len; c++)
		n += (size_t)snprintf(out + n, len - n, "%d ",
				      e->confs[c].design_row);
	free_expanded(e);
}

Test(factors, rows_shuffled_by_the_seed)
{
	char a[64], b[64], c[64];
	int sorted;

	row_order("1", a, sizeof(a));
	row_order("1", b, sizeof(b));
	row_order("99", c, sizeof(c));
	cr_expect_str_eq(a, b, "same seed, same order");
	cr_expect_str_neq(a, c, "another seed, another order");
	sorted = !strcmp(a, "1 2 3 4 5 6 7 8 ") &&
		 !strcmp(c, "1 2 3 4 5 6 7 8 ");
	cr_expect_not(sorted, "%s / %s: not shuffled", a, c);
}

Test(factors, times_the_top_level_matrix_and_rounds)
{
	char entry[2048];
	struct expansion *e;

	snprintf(entry, sizeof(entry), "%s", three);
	e = expand_text(plan_of(entry, "    repeat: 2\n"
				"matrix: {n: [1, 2]}\n"
				"order: rounds\n"), NULL, 0);
	cr_expect_eq(e->n_confs, 16);
	cr_expect_eq(e->n_cells, 32);
	/* each row's two axis values run together, rows in design order */
	for (int c = 0; c + 1 < e->n_confs; c += 2) {
		cr_expect_eq(e->confs[c].design_row, e->confs[c + 1].design_row);
		cr_expect_neq(e->confs[c].axis[0], e->confs[c + 1].axis[0]);
	}
	cr_expect_eq(expansion_rounds(e), 2);
	cr_expect_eq(expansion_round_conf(e, 2, 0), &e->confs[1]);
	free_expanded(e);
}

Test(factors, only_and_exclude_on_a_factor)
{
	struct expansion *e = expand_text(plan_of(three, NULL), NULL, 0);
	const char *only[] = { "data=+" };
	const char *both[] = { "data=+,lazy=-", "inode=+,data=-" };
	const char *typo[] = { "dta=+" };
	struct diag d = { 0 };

	cr_assert_eq(select_cells(e, only, 1, 0, 0, &d), 0, "%s", d.msg);
	cr_expect_eq(e->n_selected, 4);
	for (size_t i = 0; i < e->n_cells; i++)
		cr_expect_eq(e->cells[i].selected,
			     strstr(e->cells[i].id, "data=+") != NULL, "%s",
			     e->cells[i].id);
	cr_assert_eq(select_cells(e, both, 2, 0, 0, &d), 0, "%s", d.msg);
	cr_expect_eq(e->n_selected, 4);
	cr_expect_eq(select_cells(e, typo, 1, 0, 0, &d), -1);
	cr_expect(strstr(d.msg, "did you mean 'data'"), "%s", d.msg);
	free_expanded(e);

	e = expand_text(plan_of(three, "exclude:\n  - {data: +, lazy: +}\n"),
			NULL, 0);
	cr_expect_eq(e->n_confs, 6);
	cr_expect_lt(find_label(e, "ext4/data=+,inode=-,lazy=+"), 0);
	free_expanded(e);
	expect_error(plan_of(three, "exclude:\n  - {data: on}\n"), 16, 12,
		     "exclude: no data has the value 'on'");
}

Test(factors, mount_words_with_a_space_point_at_the_level)
{
	expect_error(plan_of("  - type: ext4\n"
			     "    factors:\n"
			     "      - {name: a, mount: [noatime, 'ro, sync']}\n"
			     "      - {name: b, mount: [commit=5, commit=60]}\n"
			     "    design: full\n", NULL), 6, 36,
		     "separated by ','");
}

/* ---- the designs themselves ---- */

Test(factors, oat_has_k_plus_one_rows)
{
	struct expansion *e = expand_text(plan_of(
		"  - type: ext4\n"
		"    factors:\n"
		"      - {name: a, mount: ['', noatime]}\n"
		"      - {name: b, mount: ['', lazytime]}\n"
		"      - {name: c, mount: ['', commit=60]}\n"
		"      - {name: d, mkfs: ['', '-I 512']}\n"
		"    design: oat\n", NULL), NULL, 0);

	cr_expect_eq(e->n_confs, 5);
	cr_expect_geq(find_label(e, "ext4/a=-,b=-,c=-,d=-"), 0);
	cr_expect_geq(find_label(e, "ext4/a=-,b=-,c=+,d=-"), 0);
	free_expanded(e);
}

/* Needs the real cells/design.c: fractional and Plackett-Burman. */
static char *with_k(int k, const char *design)
{
	static char buf[4096];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "  - type: ext4\n"
				    "    design: %s\n    factors:\n", design);

	for (int i = 0; i < k; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n,
				      "      - {name: f%d, mount: "
				      "['', commit=%d]}\n", i, i + 1);
	return plan_of(buf, NULL);
}

Test(factors, fractional_2_6_2_resolution_iv)
{
	struct expansion *e = expand_text(with_k(6, "{type: fractional, "
						  "resolution: IV}"), NULL, 0);

	cr_expect_eq(e->n_confs, 16);
	cr_expect_eq(e->designs[0].d.resolution, 4);
	cr_assert_eq(e->designs[0].d.n_gen, 2);
	cr_expect_str_eq(e->designs[0].d.gen[0], "E = ABC");
	cr_expect_str_eq(e->designs[0].d.gen[1], "F = BCD");
	free_expanded(e);
}

Test(factors, fractional_2_7_4_and_pb12)
{
	struct expansion *e = expand_text(with_k(7, "{type: fractional, "
						  "resolution: 3}"), NULL, 0);

	cr_expect_eq(e->n_confs, 8);
	free_expanded(e);
	e = expand_text(with_k(11, "plackett-burman"), NULL, 0);
	cr_expect_eq(e->n_confs, 12);
	free_expanded(e);
}

Test(factors, too_many_factors_for_the_design)
{
	expect_error(with_k(12, "{type: plackett-burman, runs: 12}"), 5, 13,
		     "at most 11 factors");
}

/* ---- the manifest ---- */

Test(factors, manifest_design_keys)
{
	struct expansion *e = expand_text(plan_of(three, NULL), NULL, 0);
	char *argv[] = { (char *)"fsplan", (char *)"run", NULL };
	struct manifest *m = manifest_new(e, "20260101-000000", 2, argv,
					  NULL, NULL);
	json_t *ds, *d0, *f0, *confs;

	cr_assert_not_null(m);
	ds = json_object_get(m->root, "designs");
	cr_assert_eq(json_array_size(ds), 1);
	d0 = json_array_get(ds, 0);
	cr_expect_eq(json_integer_value(json_object_get(d0, "entry")), 1);
	cr_expect_str_eq(json_string_value(json_object_get(d0, "label")),
			 "ext4");
	cr_expect_str_eq(json_string_value(json_object_get(d0, "type")),
			 "full");
	cr_expect_eq(json_integer_value(json_object_get(d0, "runs")), 8);
	cr_expect_null(json_object_get(d0, "resolution"));
	cr_expect(json_is_array(json_object_get(d0, "generators")));
	cr_expect(json_is_array(json_object_get(d0, "aliases")));
	cr_assert_eq(json_array_size(json_object_get(d0, "factors")), 3);
	f0 = json_array_get(json_object_get(d0, "factors"), 1);
	cr_expect_str_eq(json_string_value(json_object_get(f0, "name")),
			 "inode");
	cr_expect_str_eq(json_string_value(json_object_get(f0, "letter")),
			 "B");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(
		f0, "plus"), "mkfs")), "-I 512");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(
		f0, "minus"), "mount")), "");
	confs = json_object_get(m->root, "configs");
	cr_assert_eq(json_array_size(confs), 8);
	for (int i = 0; i < 8; i++) {
		json_t *c = json_array_get(confs, i);
		json_t *dd = json_object_get(c, "design");
		const char *lv = json_string_value(json_object_get(dd,
								   "levels"));
		char label[64];

		cr_assert_not_null(lv);
		snprintf(label, sizeof(label), "ext4/data=%c,inode=%c,lazy=%c",
			 lv[0], lv[1], lv[2]);
		cr_expect_str_eq(json_string_value(json_object_get(c,
			"label")), label);
		cr_expect_eq(json_integer_value(json_object_get(dd, "row")),
			     e->confs[i].design_row);
		cr_expect_eq(json_integer_value(json_object_get(dd, "entry")),
			     1);
	}
	manifest_free(m);
	free_expanded(e);
}

Test(factors, manifest_without_designs_has_none)
{
	struct expansion *e = expand_text(plan_of("  - type: ext4\n", NULL),
					  NULL, 0);
	char *argv[] = { (char *)"fsplan", NULL };
	struct manifest *m = manifest_new(e, "20260101-000000", 1, argv,
					  NULL, NULL);

	cr_assert_not_null(m);
	cr_expect_null(json_object_get(m->root, "designs"));
	cr_expect_null(json_object_get(json_array_get(json_object_get(
		m->root, "configs"), 0), "design"));
	manifest_free(m);
	free_expanded(e);
}

/* ---- fsplan expand ---- */

Test(factors, expand_prints_the_design)
{
	const char *bin = getenv("FSPLAN_BIN");
	char cmd[4096], out[16384], *path;
	size_t n;
	FILE *f;

	cr_assert_not_null(bin, "FSPLAN_BIN is not set (run through make)");
	path = e2e_write(e2e_tmpdir(), "plan.yaml", plan_of(three, NULL));
	snprintf(cmd, sizeof(cmd), "'%s' expand '%s' --only inode=+ 2>&1",
		 bin, path);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	cr_expect_eq(pclose(f), 0, "%s", out);
	cr_expect(!strncmp(out, "ext4: full 2^3, 8 runs\n", 23), "%s", out);
	cr_expect(strstr(out, "  B  inode  -: mkfs '-I 256'  +: mkfs "
			 "'-I 512'\n"), "%s", out);
	cr_expect(strstr(out, "  C  lazy   -: (none)  +: mount 'lazytime'\n"),
		  "%s", out);
	cr_expect(strstr(out, "  run  row  A B C  config\n"), "%s", out);
	/* full factorial, Yates order: row 6 is A+ B- C+ */
	cr_expect(strstr(out, "    6  + - +  ext4/data=+,inode=-,lazy=+\n"),
		  "%s", out);
	/* the cells after it: --only inode=+ keeps four */
	cr_expect(strstr(out, "\text4/data=+,inode=+,lazy=+/w#1\tmkfs.ext4 "
			 "-q -I 512 LOOPDEV\tmount -t ext4 -o noatime,"
			 "data=writeback,lazytime LOOPDEV MOUNTPOINT\n"),
		  "%s", out);
	cr_expect_null(strstr(out, "inode=-/w#1"), "%s", out);
	e2e_cleanup();
}

Test(factors, a_level_takes_top_level_axes_only)
{
	struct expansion *e = expand_text(plan_of(
		"  - type: ext4\n"
		"    factors:\n"
		"      - {name: a, mount: ['', 'commit=${c}']}\n"
		"      - {name: b, mount: ['', noatime]}\n"
		"    design: full\n", "matrix: {c: [5, 60]}\n"), NULL, 0);
	int seen = 0;

	cr_assert_eq(e->n_confs, 8);
	for (int i = 0; i < e->n_confs; i++) {
		const struct fsconf *fc = &e->confs[i];

		if (strcmp(fc->label, "ext4/a=+,b=+"))
			continue;
		seen++;
		cr_expect_str_eq(fc->mount, fc->axis[0] ? "commit=60,noatime"
							: "commit=5,noatime");
	}
	cr_expect_eq(seen, 2);
	free_expanded(e);
	expect_error(plan_of("  - type: ext4\n"
			     "    factors:\n"
			     "      - {name: a, mount: ['', 'commit=${t}']}\n"
			     "      - {name: b, mount: ['', noatime]}\n"
			     "    design: full\n", "    matrix: {t: [5, 60]}\n"),
		     6, 39, "undefined parameter '${t}'");
}
