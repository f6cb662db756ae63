/* test_table: one table model, its wrapped words in text, html and csv. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/table.h"

/* What render wrote of t, as a string to free. */
static char *rendered(void (*render)(FILE *, const struct table *),
		      const struct table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	render(f, t);
	fclose(f);
	return buf;
}

static void csv_of(FILE *f, const struct table *t)
{
	cr_expect_eq(table_csv(f, t), 0);
}

static void words_table(struct table *t)
{
	static const char *const name[] = { "config", "made", "time" };

	cr_assert_eq(table_init(t, 3, 2, name, NULL), 0);
	cr_assert_eq(table_wrap(t, 1, 12), 0);
	cr_assert_eq(table_row(t, (const char *[]){ "ext4",
		"a=1 features=x,yy,zzz b=0123456789abcdef", "1.5" }, 0), 0);
	cr_assert_eq(table_row(t, (const char *[]){ "xfs", "-", "2.25" }, 0),
		     0);
}

Test(table, wrapped_words_break_at_spaces_and_commas)
{
	struct table t = { 0 };
	char *text;

	words_table(&t);
	text = rendered(table_text, &t);
	cr_expect_str_eq(text,
		"config  made          time\n"
		"------  ------------  ----\n"
		"ext4    a=1            1.5\n"
		"        features=x,\n"
		"        yy,zzz\n"
		"        b=0123456789\n"
		"        abcdef\n"
		"xfs     -             2.25\n");
	free(text);
	table_free(&t);
}

Test(table, wrapped_words_stay_whole_in_html_and_csv)
{
	struct table t = { 0 };
	char *html, *csv;

	words_table(&t);
	html = rendered(table_html, &t);
	csv = rendered(csv_of, &t);
	cr_expect(strstr(html, "<td class=\"words\">a=1 features=x,yy,zzz "
			 "b=0123456789abcdef</td>"), "%s", html);
	cr_expect(strstr(html, "<td>ext4</td>"), "%s", html);
	cr_expect(strstr(csv, "ext4,\"a=1 features=x,yy,zzz "
			 "b=0123456789abcdef\",1.5\n"), "%s", csv);
	cr_expect_eq(table_wrap(&t, 3, 10), -1, "no column 3");
	free(html);
	free(csv);
	table_free(&t);
}
