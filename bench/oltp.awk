# bench/oltp.awk: bench/oltp.sh's figures from results.csv (after note.awk
# and table.awk): each config's native and MariaDB txn/s, their rates
# relative to the first config, the ratio of the two (target 0.8-1.2),
# both rankings, the pairs MariaDB's rounds separate (Welch's t-test,
# alpha 0.05) and whether the native orders them alike, every round.

# MariaDB's rounds on config c as x[1..n]; n returned.
function rounds_of(c, x,    r, n) {
	n = 0
	for (r = 1; r <= R; r++)
		if (("mariadb", c, r) in v) x[++n] = v["mariadb", c, r]
	return n
}

# 1 when MariaDB's rounds on a and b differ at alpha 0.05 (Welch,
# bench/welch.awk), 0 when not, -1 when it cannot tell.
function differ(a, b,    x, y, nx, ny) {
	nx = rounds_of(a, x); ny = rounds_of(b, y)
	return welch(x, nx, y, ny)
}

# The configs ordered best first by x (insertion sort), as a string.
function ranking(x, names, k,    i, j, t, o) {
	for (i = 1; i <= k; i++) o[i] = names[i]
	for (i = 2; i <= k; i++)
		for (j = i; j > 1 && x[o[j - 1]] < x[o[j]]; j--) {
			t = o[j]; o[j] = o[j - 1]; o[j - 1] = t
		}
	t = o[1]
	for (i = 2; i <= k; i++) t = t " > " o[i]
	return t
}

NF >= 12 && $7 ~ /^(native|mariadb)_r[0-9]+$/ && $10 == "transactions_per_s" {
	split($7, p, "_")
	r = substr(p[2], 2) + 0
	v[p[1], $3, r] = $11
	if (r > R) R = r
}

# the phase run's CPU (its children's, MariaDB's server and sysbench
# with their start and prepare) and transactions, for the CPU a
# transaction
NF >= 12 && $7 ~ /^(native|mariadb)_r[0-9]+$/ &&
    ($10 == "cpu_user_s" || $10 == "cpu_sys_s" || $10 == "transactions") {
	split($7, p, "_")
	r = substr(p[2], 2) + 0
	if ($10 == "transactions") ntx[p[1], $3, r] = $11
	else cpu[p[1], $3, r] += $11
}

# the I/O each tool's rounds did, for the I/O a transaction: InnoDB's
# syncs, log writes and redo bytes (the native's own counts under
# MariaDB's names), and the device's writes and bytes in the run alone
# (MariaDB's run_dev_*: its phase's dev_* take in the server's start and
# sysbench prepare)
NF >= 12 && $7 ~ /^(native|mariadb)_r[0-9]+$/ &&
    $10 ~ /^(data_fsyncs|redo_writes|redo_bytes|page_writes|(run_)?dev_write_(ios|bytes))$/ {
	split($7, p, "_")
	r = substr(p[2], 2) + 0
	m = $10
	if (p[1] == "mariadb" && m ~ /^dev_/) next
	sub(/^run_/, "", m)
	io[p[1], $3, r, m] = $11
}

# x with the digits a figure of its size needs.
function io_fmt(x) {
	return sprintf(x >= 100 ? "%.0f" : x >= 10 ? "%.1f" : "%.3f", x)
}

# The median over the rounds of tool's metric m a transaction on c, and
# each round's in rounds_io (as "a b c").
function per_txn(tool, c, m,    r, n, a) {
	n = 0; rounds_io = ""
	for (r = 1; r <= R; r++)
		if (ntx[tool, c, r] > 0 && (tool, c, r, m) in io) {
			a[++n] = io[tool, c, r, m] / ntx[tool, c, r]
			rounds_io = rounds_io (n > 1 ? " " : "") io_fmt(a[n])
		}
	return n ? median(a, n) : -1
}

# Per config, each figure a transaction natively and on MariaDB and
# their ratio: issue 29's target is 0.75-1.25.
function io_table(k, C,    i, j, c, M, L, x, y, q, nat_r, ok) {
	split("data_fsyncs redo_writes redo_bytes page_writes " \
	      "dev_write_ios dev_write_bytes", M, " ")
	split("syncs|log writes|redo bytes|pages written|device writes|" \
	      "device bytes", L, "|")
	printf "  I/O a transaction, native / mariadb (medians; target " \
	       "0.75-1.25):\n"
	for (i = 1; i <= k; i++) {
		c = C[i]
		for (j = 1; j <= 6; j++) {
			x = per_txn("native", c, M[j]); nat_r = rounds_io
			y = per_txn("mariadb", c, M[j])
			if (x < 0 || y <= 0) continue
			q = x / y
			ok = q >= 0.75 && q <= 1.25 ? "ok" : "MISS"
			printf "    %-13s %-14s %10s / %-10s %5.2f %s\n",
			       j == 1 ? c : "", L[j], io_fmt(x), io_fmt(y), q, ok
			printf "    %-13s %-14s rounds: %s / %s\n", "", "",
			       nat_r, rounds_io
			note(c " " L[j] " a txn native/mariadb", q, "", "",
			     "0.75-1.25", ok, "")
		}
	}
}

# The median over the rounds of tool's CPU ms a transaction on c.
function cpu_ms(tool, c,    r, m, a) {
	m = 0
	for (r = 1; r <= R; r++)
		if (ntx[tool, c, r] > 0)
			a[++m] = 1000 * cpu[tool, c, r] / ntx[tool, c, r]
	return m ? median(a, m) : 0
}

END {
	k = split(configs, C, " ")
	ref = C[1]
	for (i = 1; i <= k; i++)
		for (t = 1; t <= 2; t++) {
			tool = t == 1 ? "native" : "mariadb"
			m = 0
			for (r = 1; r <= R; r++)
				if ((tool, C[i], r) in v) a[++m] = v[tool, C[i], r]
			med[tool, C[i]] = m ? median(a, m) : 0
		}
	printf "  %-13s %9s %9s %8s %8s  %-24s\n", "config", "native",
	       "mariadb", "native", "mariadb", "ratio of the relative"
	printf "  %-13s %9s %9s %8s %8s  %-24s\n", "", "txn/s", "txn/s",
	       "/" ref, "/" ref, "rates [rounds' range]"
	for (i = 1; i <= k; i++) {
		c = C[i]
		nat[c] = med["native", c]; mdb[c] = med["mariadb", c]
		rn = med["native", ref] > 0 ? nat[c] / med["native", ref] : 0
		rm = med["mariadb", ref] > 0 ? mdb[c] / med["mariadb", ref] : 0
		q = rm > 0 ? rn / rm : 0
		m = 0; each = ""
		for (r = 1; r <= R; r++)
			if (v["native", ref, r] > 0 && v["mariadb", c, r] > 0 &&
			    v["mariadb", ref, r] > 0) {
				b[++m] = v["native", c, r] / v["native", ref, r] \
					 * v["mariadb", ref, r] / v["mariadb", c, r]
				each = each (m > 1 ? " " : "") sprintf("%.2f", b[m])
			}
		sortv(b, m)
		ok = q >= 0.8 && q <= 1.2 ? "ok" : "MISS"
		if (c == ref)
			printf "  %-13s %9.1f %9.1f %8.2f %8.2f  (the reference)\n",
			       c, nat[c], mdb[c], rn, rm
		else {
			printf "  %-13s %9.1f %9.1f %8.2f %8.2f  %4.2f [%4.2f-%4.2f] %s\n",
			       c, nat[c], mdb[c], rn, rm, q, m ? b[1] : 0,
			       m ? b[m] : 0, ok
			note(c "/" ref " txn/s native/mariadb", q,
			     m ? b[1] : "", m ? b[m] : "", "0.8-1.2", ok, each)
		}
	}
	printf "  ranking, native:  %s\n", ranking(nat, C, k)
	printf "  ranking, mariadb: %s\n", ranking(mdb, C, k)
	# every pair MariaDB separates: the native must order it alike
	np = 0; bad = 0; s = ""; u = ""
	for (i = 1; i < k; i++)
		for (j = i + 1; j <= k; j++) {
			d = differ(C[i], C[j])
			if (d < 0) { u = "cannot tell (fewer than 2 rounds)"; continue }
			if (!d) continue
			hi = mdb[C[i]] > mdb[C[j]] ? C[i] : C[j]
			lo = hi == C[i] ? C[j] : C[i]
			np++
			agree = nat[hi] > nat[lo]
			bad += !agree
			s = s sprintf("\n    %s > %s: native %s", hi, lo,
				      agree ? "agrees" : "DISAGREES")
		}
	if (u != "")
		printf "  pairs MariaDB separates (Welch, alpha 0.05): %s\n", u
	else if (!np)
		printf "  pairs MariaDB separates (Welch, alpha 0.05): none\n"
	else
		printf "  pairs MariaDB separates (Welch, alpha 0.05):%s\n", s
	if (u == "")
		note("order where MariaDB differs significantly",
		     np ? (np - bad) / np : "", "", "", "all pairs",
		     bad ? "MISS" : "ok")
	printf "  every round, txn/s native / mariadb:\n"
	for (r = 1; r <= R; r++) {
		line = sprintf("    r%-2d", r)
		for (i = 1; i <= k; i++)
			line = line sprintf("  %s %.1f / %.1f", C[i],
					    v["native", C[i], r], v["mariadb", C[i], r])
		print line
	}
	io_table(k, C)
	line = "  CPU ms a transaction, native / mariadb:"
	for (i = 1; i <= k; i++)
		line = line sprintf("  %s %.2f / %.2f", C[i],
				    cpu_ms("native", C[i]), cpu_ms("mariadb", C[i]))
	print line
	printf "  (medians; MariaDB's includes its start and sysbench " \
	       "prepare: the native's cpu_work\n  is right when its " \
	       "figure is a little under MariaDB's)\n"
	printf "  txn/s: medians of the rounds; ratio = (native/%s) / " \
	       "(mariadb/%s),\n  the medians' and each round's\n", ref, ref
}
