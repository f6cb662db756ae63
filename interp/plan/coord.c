/* coord: the names that pick out a cell: fixed coordinates, plan axes. */
#include <string.h>

#include "plan/coord.h"

int coord_reserved(const char *name)
{
	static const char *const reserved[] = {
		"type", "label", "mkfs", "mount", "age", "phase", "rep",
		NULL
	};

	for (int i = 0; reserved[i]; i++)
		if (!strcmp(name, reserved[i]))
			return 1;
	return 0;
}

int coord_names(const struct plan *p, const char **names, int max)
{
	static const char *const fixed[] = { "type", "label", "mkfs",
					     "mount", "age", "phase", NULL };
	int n = 0;

	for (int i = 0; fixed[i] && n < max; i++)
		names[n++] = fixed[i];
	for (int i = 0; i < p->n_matrix && n < max; i++)
		names[n++] = p->matrix[i].name;
	for (int i = 0; i < p->n_phases; i++)
		for (int j = 0; j < p->phases[i].n_matrix && n < max; j++)
			names[n++] = p->phases[i].matrix[j].name;
	for (int i = 0; i < p->n_fs; i++)
		for (int j = 0; j < p->fs[i].n_factors && n < max; j++)
			if (!coord_factor(p, p->fs[i].factors[j].name, i))
				names[n++] = p->fs[i].factors[j].name;
	return n;
}

int coord_factor(const struct plan *p, const char *name, int before)
{
	for (int i = 0; i < p->n_fs && i < before; i++)
		for (int j = 0; j < p->fs[i].n_factors; j++)
			if (!strcmp(p->fs[i].factors[j].name, name))
				return 1;
	return 0;
}
