/* test_diag: the failure record — kinds, errno, a message too long for it cut
 * with a mark, a detail that grows. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/strbuf.h"

Test(diag, a_zeroed_record_is_an_input_error_with_no_place)
{
	struct diag d = { 0 };

	cr_assert_eq(d.kind, DIAG_INPUT);
	cr_assert_str_eq(diag_kind_name(d.kind), "input");
	cr_assert_eq(d.pos.line, 0);
}

Test(diag, fail_names_its_kind_and_errno)
{
	struct diag d = { 0 };

	cr_assert_eq(diag_fail(&d, DIAG_SYSTEM, ENOSPC, "writing %s", "x.csv"),
		     -1);
	cr_assert_eq(d.kind, DIAG_SYSTEM);
	cr_assert_eq(d.err, ENOSPC);
	cr_assert_str_eq(d.msg, "writing x.csv: No space left on device");
	cr_assert_str_eq(diag_kind_name(DIAG_LIMIT), "limit");
}

Test(diag, a_message_longer_than_the_record_keeps_head_tail_and_a_mark)
{
	struct diag d = { 0 };
	static char cell[4096 + 1];
	char want[64];

	memset(cell, 'c', 4096);
	cell[0] = 'H';
	cell[4095] = 'T';
	diag_set(&d, "plan.yaml", NULL, (struct pos){ 3, 1 }, "cell %s: bad",
		 cell);
	cr_assert_lt(strlen(d.msg), sizeof(d.msg));
	cr_assert(strncmp(d.msg, "cell H", 6) == 0, "%s", d.msg);
	cr_assert(strstr(d.msg, "T: bad"), "the tail is kept: %s", d.msg);
	/* the mark says exactly how much is missing */
	size_t whole = strlen("cell ") + 4096 + strlen(": bad");
	size_t mark_at = strstr(d.msg, " [... ") - d.msg;
	const char *after = strstr(d.msg, " ...] ") + strlen(" ...] ");
	size_t kept = mark_at + strlen(after);
	snprintf(want, sizeof(want), " [... %zu bytes left out ...] ",
		 whole - kept);
	cr_assert(strstr(d.msg, want), "%s not in %s", want, d.msg);
}

Test(diag, detail_grows_past_the_message_and_release_frees_it)
{
	struct diag d = { 0 };
	static char big[65536 + 1];

	memset(big, 'r', 65536);
	diag_fail(&d, DIAG_PHASE, 0, "the phase raised");
	diag_detail(&d, big);
	diag_detail(&d, "!");
	cr_assert_eq(d.detail.len, 65537);
	cr_assert_eq(d.detail.p[65536], '!');
	diag_release(&d);
	cr_assert_null(d.detail.p);
	cr_assert_eq(d.kind, DIAG_INPUT);
}

Test(diag, strbuf_printf_appends_text_of_any_length)
{
	struct strbuf b = { 0 };
	static char big[10000 + 1];

	memset(big, 'x', 10000);
	cr_assert_eq(strbuf_printf(&b, "%d:", 42), 0);
	cr_assert_eq(strbuf_printf(&b, "%s", big), 0);
	cr_assert_eq(b.len, 10003);
	cr_assert_eq(strncmp(b.p, "42:xx", 5), 0);
	free(b.p);
}
