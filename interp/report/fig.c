/* fig: one number format for report and compare tables, 3 significant figures. */
#include <math.h>
#include <stdio.h>

#include "report/fig.h"

/* a rounded to 3 significant figures, and the decimals that shows them */
static double round3(double a, int *decimals)
{
	int e = (int)floor(log10(a));
	double r, step;

	for (int k = 0; k < 2; k++) {
		step = pow(10, e - 2);
		r = round(a / step) * step;
		if (r < pow(10, e + 1))	/* 999.6 is 1000: one figure more */
			break;
		e++;
	}
	*decimals = e >= 2 ? 0 : 2 - e;
	return r;
}

const char *fig_text(char *buf, size_t len, double v, int plus,
		     const char *pre, const char *post)
{
	const char *sign = v < 0 ? "-" : plus && v > 0 ? "+" : "";
	double a = fabs(v);
	int d;

	pre = pre ? pre : "";
	post = post ? post : "";
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (isinf(v))
		snprintf(buf, len, "%s%s%s%s", pre, sign, "inf", post);
	else if (a == 0)
		snprintf(buf, len, "%s0%s", pre, post);
	else if (a < 0.001 || a >= 1e9)
		snprintf(buf, len, "%s%s%.3g%s", pre, sign, a, post);
	else {
		a = round3(a, &d);
		snprintf(buf, len, "%s%s%.*f%s", pre, sign, d, a, post);
	}
	return buf;
}
