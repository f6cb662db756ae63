/* test_fixtures: each plan in fixtures/bad fails where its header says. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cells/expand.h"
#include "plan/plan.h"
#include "run/resolve.h"

#define FIXTURE_DIR	"fixtures/bad"
#define MIN_FIXTURES	30
#define MAX_DEFINES	8

/* What a fixture's leading comment lines ask for. */
struct expect {
	int have;		/* an `# expect:` line was found */
	int line, col;
	char substr[512];
	struct plan_define defs[MAX_DEFINES];
	char def_text[MAX_DEFINES][256];
	int n_defs;
};

static int is_fixture(const struct dirent *de)
{
	size_t n = strlen(de->d_name);

	return n > 5 && !strcmp(de->d_name + n - 5, ".yaml");
}

static void chomp(char *s)
{
	s[strcspn(s, "\r\n")] = '\0';
}

/*
 * Read the header: `# expect: LINE:COL: SUBSTRING` and any number of
 * `# define: name=value`, up to the first line that is not a comment.
 * Returns -1 with a reason in why when the header is malformed.
 */
static int read_expect(const char *path, struct expect *ex, char *why,
		       size_t len)
{
	char buf[1024];
	FILE *f = fopen(path, "re");
	int rc = 0;

	memset(ex, 0, sizeof(*ex));
	if (!f) {
		snprintf(why, len, "cannot open it");
		return -1;
	}
	while (!rc && fgets(buf, sizeof(buf), f) && buf[0] == '#') {
		int off = 0;
		char *eq;

		chomp(buf);
		if (!strncmp(buf, "# expect:", 9)) {
			if (ex->have ||
			    sscanf(buf + 9, " %d:%d: %n", &ex->line, &ex->col,
				   &off) != 2 || off == 0 || !buf[9 + off]) {
				snprintf(why, len, "bad or second expect line");
				rc = -1;
				break;
			}
			snprintf(ex->substr, sizeof(ex->substr), "%s",
				 buf + 9 + off);
			ex->have = 1;
		} else if (!strncmp(buf, "# define:", 9)) {
			char *t;

			if (ex->n_defs == MAX_DEFINES) {
				snprintf(why, len, "more than %d defines",
					 MAX_DEFINES);
				rc = -1;
				break;
			}
			t = ex->def_text[ex->n_defs];
			snprintf(t, sizeof(ex->def_text[0]), "%s",
				 buf + 9 + strspn(buf + 9, " "));
			eq = strchr(t, '=');
			if (!eq || eq == t) {
				snprintf(why, len, "define is not name=value");
				rc = -1;
				break;
			}
			*eq = '\0';
			ex->defs[ex->n_defs].name = t;
			ex->defs[ex->n_defs].value = eq + 1;
			ex->n_defs++;
		}
	}
	fclose(f);
	if (!rc && !ex->have) {
		snprintf(why, len, "no '# expect: LINE:COL: TEXT' line");
		rc = -1;
	}
	return rc;
}

static void check_fixture(const char *name)
{
	char path[512], why[128];
	struct expect ex;
	struct plan *p = NULL;
	struct expansion *e = NULL;
	struct diag d = { 0 };
	int rc;

	snprintf(path, sizeof(path), "%s/%s", FIXTURE_DIR, name);
	if (read_expect(path, &ex, why, sizeof(why))) {
		cr_expect_fail("%s: header: %s", name, why);
		return;
	}
	rc = plan_load(&p, path, ex.defs, ex.n_defs, &d);
	if (!rc)
		rc = resolve_plan(p, &d);
	if (!rc)
		rc = expand_plan(p, &e, &d);
	cr_expect(rc != 0, "%s: loaded and expanded without an error; "
		  "expected %d:%d: %s", name, ex.line, ex.col, ex.substr);
	if (rc) {
		cr_expect(d.pos.line == ex.line && d.pos.col == ex.col,
			  "%s: error at %d:%d, expected %d:%d (message: %s)",
			  name, d.pos.line, d.pos.col, ex.line, ex.col, d.msg);
		cr_expect(strstr(d.msg, ex.substr) != NULL,
			  "%s: message \"%s\" lacks \"%s\"", name, d.msg,
			  ex.substr);
	}
	expansion_free(e);
	plan_free(p);
}

Test(fixtures, bad_plans_fail_at_the_expected_place)
{
	struct dirent **list;
	int n = scandir(FIXTURE_DIR, &list, is_fixture, alphasort);

	cr_assert(n >= 0, "cannot read %s (tests run from tests/)",
		  FIXTURE_DIR);
	for (int i = 0; i < n; i++) {
		check_fixture(list[i]->d_name);
		free(list[i]);
	}
	free(list);
	cr_expect(n >= MIN_FIXTURES, "only %d fixtures in %s, expected at "
		  "least %d", n, FIXTURE_DIR, MIN_FIXTURES);
}
