/* fuzz_plan: libFuzzer target — any bytes through the plan loader and
 * expansion. */
#include <stddef.h>
#include <stdint.h>

#include "cells/expand.h"
#include "plan/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct plan_define defs[] = { { "size", "1M" } };
	struct plan *p = NULL;
	struct expansion *e = NULL;
	struct diag d = { 0 };

	if (plan_load_text(&p, "fuzz.yaml", (const char *)data, size, defs,
			   (int)(size & 1), &d) == 0) {
		if (expand_plan(p, &e, &d) == 0)
			expansion_free(e);
		plan_free(p);
	}
	/* Formatting the error walks the source text: fuzz that too. */
	char buf[1400];
	diag_format(&d, buf, sizeof(buf));
	return 0;
}
