# bench/welch.awk: Welch's t-test at alpha 0.05, shared by the benches that
# ask whether the real tool's rounds separate two configs (oltp, dbench).

# Student's t, two-sided 0.05, for df degrees of freedom (rounded down:
# the stricter); past 30 an approximation within 0.5%.
function tcrit(df,    q) {
	split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 " \
	      "2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 " \
	      "2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", q, " ")
	df = int(df)
	if (df < 1) df = 1
	return df <= 30 ? q[df] : 1.96 + 2.4 / df
}

# Mean and sample variance of x[1..n] into wmu, wvar.
function wstats(x, n,    i, s, ss) {
	s = 0; ss = 0
	for (i = 1; i <= n; i++) s += x[i]
	wmu = n ? s / n : 0
	for (i = 1; i <= n; i++) ss += (x[i] - wmu) ^ 2
	wvar = n > 1 ? ss / (n - 1) : 0
}

# 1 when a[1..na] and b[1..nb] differ at alpha 0.05 (Welch), 0 when not,
# -1 when it cannot tell (fewer than 2 of either).
function welch(a, na, b, nb,    m1, v1, se, t, df) {
	if (na < 2 || nb < 2) return -1
	wstats(a, na); m1 = wmu; v1 = wvar
	wstats(b, nb)
	se = v1 / na + wvar / nb
	if (se <= 0) return m1 != wmu ? 1 : 0
	t = (m1 - wmu) / sqrt(se)
	df = se ^ 2 / ((v1 / na) ^ 2 / (na - 1) + (wvar / nb) ^ 2 / (nb - 1))
	return (t < 0 ? -t : t) > tcrit(df)
}
