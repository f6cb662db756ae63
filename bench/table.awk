# bench/table.awk: the figures of bench/bonnie.sh and bench/tiobench.sh,
# loaded before each script's own rules (awk -f table.awk -f rules). The
# rules fill v[tool, case, round] and R (the highest round); these give
# the median of a figure over the rounds, the per-round ratios of two
# tools, and the row that prints both against the 0.9-1.1 target.

function sortv(a, m,    i, j, x) {	# a[1..m] ascending, in place
	for (i = 2; i <= m; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			x = a[j]; a[j] = a[j - 1]; a[j - 1] = x
		}
}

function median(a, m) {
	sortv(a, m)
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}

# The median of tool t's figure for case c over the rounds, and the spread
# (max-min)/max, in a field of width w with d decimals.
function fig(t, c, w, d,    r, a, n) {
	n = 0
	for (r = 1; r <= R; r++) if ((t, c, r) in v) a[++n] = v[t, c, r]
	if (!n) return sprintf("%" w "s", "-")
	sortv(a, n)
	return sprintf("%" (w - 6) "." d "f (%2.0f%%)", median(a, n),
	               a[n] > 0 ? 100 * (a[n] - a[1]) / a[n] : 0)
}

# t/u within each round where both ran: the median, lowest and highest
# (rmed, rlo, rhi), each round's in round order (reach: "0.97 1.02 ..."),
# and how many rounds (0: none).
function ratios(t, u, c,    r, a, n) {
	n = 0; reach = ""
	for (r = 1; r <= R; r++)
		if ((t, c, r) in v && (u, c, r) in v && v[u, c, r] > 0) {
			a[++n] = v[t, c, r] / v[u, c, r]
			reach = reach (n > 1 ? " " : "") sprintf("%.2f", a[n])
		}
	if (!n) { rlo = rhi = rmed = ""; return 0 }
	sortv(a, n)
	rmed = median(a, n); rlo = a[1]; rhi = a[n]
	return n
}

function rtxt(t, u, c) {
	if (!ratios(t, u, c)) return sprintf("%19s", "-")
	return sprintf("%4.2f [%4.2f-%4.2f] %2d", rmed, rlo, rhi, ratios(t, u, c))
}

function mark(t, u, c) {
	if (!ratios(t, u, c)) return "n/a"
	return (rmed >= 0.9 && rmed <= 1.1) ? "ok" : "MISS"
}

# The header and one row: the default engine (auto, or -v main=) against
# the reference tool ref, with the mark; another engine (sync, or -v
# alt=) after it for comparison.
function engines() {
	if (main == "") main = "auto"
	if (alt == "") alt = "sync"
}

function header(label, ref, w) {
	engines()
	printf "  %-20s %" w "s %" w "s  %-19s %4s  %" w "s  %-19s\n", label,
	       "fsplan", ref, "ratio [range] n", "", "fsplan " alt,
	       alt " ratio"
}

function row(label, ref, c, w, d) {
	engines()
	if (ratios(main, ref, c))
		note(label " " main "/" ref, rmed, rlo, rhi, "0.9-1.1",
		     mark(main, ref, c), reach)
	printf "  %-20s %s %s  %s %4s  %s  %s\n", label,
	       fig(main, c, w, d), fig(ref, c, w, d),
	       rtxt(main, ref, c), mark(main, ref, c),
	       fig(alt, c, w, d), rtxt(alt, ref, c)
}
