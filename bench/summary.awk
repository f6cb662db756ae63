# bench/summary.awk: the one table of `make bench` — every ratio the
# benches noted (bench/note.awk), one row each, in the order they ran.
BEGIN { FS = "\t" }
NF >= 7 { n++; b[n] = $1; c[n] = $2; r[n] = $3; lo[n] = $4; hi[n] = $5
	  t[n] = $6; v[n] = $7; e[n] = $8; miss += $7 == "MISS" }
END {
	print ""
	print "make bench: every ratio (median over the rounds [lowest-highest]; each"
	print "round's ratio in round order below its row)"
	printf "  %-9s %-44s %6s %-13s %-10s %s\n", "bench", "case", "ratio",
	       "[range]", "target", ""
	for (i = 1; i <= n; i++) {
		printf "  %-9s %-44s %6s %-13s %-10s %s\n", b[i], c[i], r[i],
		       lo[i] == "" ? "" : "[" lo[i] "-" hi[i] "]", t[i], v[i]
		if (e[i] != "")
			printf "  %-9s   rounds: %s\n", "", e[i]
	}
	printf "  %d ratios, %d missed their target\n", n, miss
}
