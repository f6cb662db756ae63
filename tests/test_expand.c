/* test_expand: matrix expansion — counts, order, ids, exclude, --only, --shard.
 */
#include <stdio.h>

#include "helpers.h"
#include "cells/select.h"

static const char matrix_plan[] =
	"fsplan: 1\n"
	"params: {size: 1G}\n"
	"repeat: 2\n"
	"filesystems:\n"
	"  - type: ext4\n"
	"    mkfs: ['-J size=${journal_mb}', '-I 128 -J size=${journal_mb}']\n"
	"    mount: [data=ordered, 'data=writeback,nobarrier']\n"
	"  - type: xfs\n"
	"    label: xfs-biglog\n"
	"    mkfs: -f -l size=32768b\n"
	"    mount: noatime\n"
	"matrix:\n"
	"  journal_mb: [16, 128]\n"
	"exclude:\n"
	"  - {type: xfs, threads: 32}\n"
	"phases:\n"
	"  - name: tio\n"
	"    exec: tiotest -t ${threads} -f ${size} -m ${mode}\n"
	"    matrix: {threads: [1, 8, 32], mode: [seq_write, rand_read]}\n"
	"  - name: copy\n"
	"    exec: cp -r src dst\n"
	"    repeat: 1\n";

Test(expand, counts_order_and_ids)
{
	struct expansion *e = expand_text(matrix_plan, NULL, 0);
	/* ext4: 2 mkfs x 2 mount x 2 journal = 8 configs, each
	 * 3x2 tio combos x 2 reps + 1 copy = 13 cells; xfs: 2 configs,
	 * (2x2 tio combos after exclude) x 2 reps + 1 = 9. */
	cr_expect_eq(e->n_confs, 10);
	cr_expect_eq(e->n_cells, 8 * 13 + 2 * 9);
	cr_expect_str_eq(e->cells[0].id,
			 "ext4:-J size=16:data=ordered/tio/journal_mb=16,"
			 "threads=1,mode=seq_write#1");
	cr_expect_str_eq(e->cells[1].id,
			 "ext4:-J size=16:data=ordered/tio/journal_mb=16,"
			 "threads=1,mode=seq_write#2");
	/* the last phase axis varies fastest */
	cr_expect_str_eq(e->cells[2].id,
			 "ext4:-J size=16:data=ordered/tio/journal_mb=16,"
			 "threads=1,mode=rand_read#1");
	cr_expect_str_eq(e->cells[12].id,
			 "ext4:-J size=16:data=ordered/copy/journal_mb=16#1");
	/* then the top-level matrix, then mount, then mkfs */
	cr_expect_str_eq(e->confs[1].label, "ext4:-J size=128:data=ordered");
	cr_expect_str_eq(e->confs[2].label,
			 "ext4:-J size=16:data=writeback,nobarrier");
	cr_expect_str_eq(e->confs[4].label, "ext4:-I 128 -J size=16:data=ordered");
	cr_expect_str_eq(e->confs[8].label, "xfs-biglog");
	cr_expect_str_eq(e->cells[e->n_cells - 1].id,
			 "xfs-biglog/copy/journal_mb=128#1");
	for (size_t i = 0; i < e->n_cells; i++) {
		cr_expect_eq(e->cells[i].index, i + 1);
		cr_expect(strcmp(cell_coord(e, &e->cells[i], "type"), "xfs") ||
			  !cell_coord(e, &e->cells[i], "threads") ||
			  strcmp(cell_coord(e, &e->cells[i], "threads"), "32"),
			  "%s was not excluded", e->cells[i].id);
	}
	free_expanded(e);
}

Test(expand, ids_are_unique_and_stable)
{
	struct expansion *a = expand_text(matrix_plan, NULL, 0);
	struct expansion *b = expand_text(matrix_plan, NULL, 0);

	cr_assert_eq(a->n_cells, b->n_cells);
	for (size_t i = 0; i < a->n_cells; i++) {
		cr_expect_str_eq(a->cells[i].id, b->cells[i].id);
		for (size_t j = i + 1; j < a->n_cells; j++)
			cr_expect_str_neq(a->cells[i].id, a->cells[j].id);
	}
	free_expanded(a);
	free_expanded(b);
}

Test(expand, defines_reach_cells)
{
	static const struct plan_define defs[] = { { "size", "4M" } };
	struct expansion *e = expand_text(matrix_plan, defs, 1);
	char *cmd = cell_exec(e, &e->cells[0]);
	char *threads = cell_with(e, &e->cells[2], "threads");

	cr_expect_str_eq(cmd, "tiotest -t 1 -f 4M -m seq_write");
	cr_expect_str_eq(threads, "1");
	free(cmd);
	free(threads);
	free_expanded(e);
}

Test(expand, a_fully_excluded_config_is_dropped)
{
	struct expansion *e = expand_text(
		"fsplan: 1\n"
		"filesystems:\n"
		"  - {type: ext4, mount: [defaults, noatime]}\n"
		"exclude: [{mount: noatime}]\n"
		"phases: [{exec: 'true'}]\n", NULL, 0);

	cr_expect_eq(e->n_confs, 1);
	cr_expect_eq(e->n_cells, 1);
	cr_expect_str_eq(e->cells[0].id, "ext4::defaults/true#1");
	free_expanded(e);
}

Test(expand, exclude_lists_mean_any_of)
{
	struct expansion *e = expand_text(
		"fsplan: 1\n"
		"filesystems: [{type: ext4}, {type: xfs}]\n"
		"exclude: [{type: xfs, n: [1, 3]}]\n"
		"phases: [{exec: 'x ${n}', matrix: {n: [1, 2, 3]}}]\n",
		NULL, 0);

	cr_expect_eq(e->n_cells, 4);
	cr_expect_str_eq(e->cells[3].id, "xfs/x/n=2#1");
	free_expanded(e);
}

static size_t select_count(struct expansion *e, const char *const *only, int n,
			   int k, int shards)
{
	struct diag d = { 0 };

	cr_assert_eq(select_cells(e, only, n, k, shards, &d), 0, "%s", d.msg);
	return e->n_selected;
}

Test(expand, only_filters_and_or)
{
	struct expansion *e = expand_text(matrix_plan, NULL, 0);
	const char *xfs[] = { "type=xfs" };
	const char *and[] = { "type=ext4,threads=8,mode=rand_read" };
	const char *or[] = { "type=xfs,phase=copy", "threads=32" };
	const char *bad[] = { "thread=8" };
	struct diag d = { 0 };

	cr_expect_eq(select_count(e, xfs, 1, 0, 0), 18);
	cr_expect_eq(select_count(e, and, 1, 0, 0), 8 * 2);
	cr_expect_eq(select_count(e, or, 2, 0, 0), 2 + 8 * 2 * 2);
	cr_expect_eq(select_cells(e, bad, 1, 0, 0, &d), -1);
	cr_expect(strstr(d.msg, "did you mean 'threads'"), "%s", d.msg);
	free_expanded(e);
}

Test(expand, shards_partition_by_config)
{
	struct expansion *e = expand_text(matrix_plan, NULL, 0);
	int *owner = calloc(e->n_cells, sizeof(int));
	size_t total = 0;

	for (int k = 1; k <= 3; k++) {
		total += select_count(e, NULL, 0, k, 3);
		for (size_t i = 0; i < e->n_cells; i++) {
			if (!e->cells[i].selected)
				continue;
			cr_expect_eq(owner[i], 0, "cell %zu in two shards", i);
			owner[i] = k;
		}
	}
	cr_expect_eq(total, e->n_cells);
	/* every cell of a config is in the same shard */
	for (size_t i = 1; i < e->n_cells; i++)
		if (e->cells[i].conf == e->cells[i - 1].conf)
			cr_expect_eq(owner[i], owner[i - 1]);
	free(owner);
	free_expanded(e);
}

Test(expand, shard_syntax)
{
	int k, n;

	cr_expect_eq(select_parse_shard("2/5", &k, &n), 0);
	cr_expect_eq(k, 2);
	cr_expect_eq(n, 5);
	cr_expect_eq(select_parse_shard("0/5", &k, &n), -1);
	cr_expect_eq(select_parse_shard("6/5", &k, &n), -1);
	cr_expect_eq(select_parse_shard("2", &k, &n), -1);
	cr_expect_eq(select_parse_shard("a/b", &k, &n), -1);
}

Test(expand, expanded_values_are_checked)
{
	expect_error("fsplan: 1\n"
		     "filesystems: [{type: ext4}]\n"
		     "phases:\n"
		     "  - use: fixtures/noop.lua\n"
		     "    matrix: {n: [1, zero]}\n"
		     "    with: {workers: '${n}'}\n",
		     6, 21, "'workers' is 'zero'");
}
