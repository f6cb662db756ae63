# bench/note.awk: what every bench's table rule loads (awk -f note.awk)
# to put its ratios into the one table `make bench` prints at the end
# (bench/summary.awk). note(case, ratio, lo, hi, target, verdict, each)
# appends a line
#   BENCH<TAB>case<TAB>ratio<TAB>lo<TAB>hi<TAB>target<TAB>verdict<TAB>each
# to $BENCH_SUMMARY when it is set (BENCH: $BENCH_NAME, the script's
# name); target is text such as ">= 0.95" or "0.9-1.1", verdict ok or
# MISS, each every round's ratio in round order ("0.97 1.02 ...", or
# empty). Empty lo/hi: one figure, no range; an empty ratio with ok or
# MISS: a yes/no claim (a ranking). And csv(line, f): a line of
# results.csv split into f[1..n] (quotes honoured: a field may hold
# commas), for the benches that read it field by field.
function note(c, r, lo, hi, target, verdict, each,    f) {
	f = ENVIRON["BENCH_SUMMARY"]
	if (f == "") return
	printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", ENVIRON["BENCH_NAME"],
	       c, r == "" ? "-" : sprintf("%.2f", r),
	       lo == "" ? "" : sprintf("%.2f", lo),
	       hi == "" ? "" : sprintf("%.2f", hi), target,
	       r == "" && verdict !~ /^(ok|MISS)$/ ? "n/a" : verdict, each >> f
	close(f)
}

# A[1..n] as "a b c", each with two decimals (note's each).
function joined(A, n,    i, s) {
	for (i = 1; i <= n; i++)
		s = s (i > 1 ? " " : "") sprintf("%.2f", A[i])
	return s
}

function csv(line, f,    n, i, c, q, cur) {
	n = 0; q = 0; cur = ""
	for (i = 1; i <= length(line); i++) {
		c = substr(line, i, 1)
		if (q) {
			if (c == "\"" && substr(line, i + 1, 1) == "\"") { cur = cur c; i++ }
			else if (c == "\"") q = 0
			else cur = cur c
		} else if (c == "\"") q = 1
		else if (c == ",") { f[++n] = cur; cur = "" }
		else cur = cur c
	}
	f[++n] = cur
	return n
}
