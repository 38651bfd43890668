# SPDX-License-Identifier: MIT
# Reads `sim --trace` lines of one row and prints what the outlier
# model's wild runs cost: the trials by their number of wild runs, the
# mean samples of each group and the cost per wild run against the
# trials without one; then the trials with exactly one wild run by where
# it fell (an endpoint or a candidate; within 2.5 sd of the other side's
# level, between the levels, or beyond both).  The bad endpoint is the
# highest commit index the row sampled: every bisection samples it.
$1 == "trace" {
	t = $3; k = ++n[t]
	val[t, k] = $11; side[t, k] = ($9 == "good") ? "g" : "b"
	commit[t, k] = $7; wild[t, k] = $30
	if ($7 != "good" && $7 + 0 > badc) badc = $7 + 0
	if ($5 > last[t]) last[t] = $5
}
# The middle of a[1..m], sorted in place (plain awk has no sort).
function median(a, m,    i, j, x) {
	for (i = 2; i <= m; i++) {
		x = a[i]
		for (j = i - 1; j >= 1 && a[j] > x; j--)
			a[j + 1] = a[j]
		a[j + 1] = x
	}
	return m == 0 ? 0 : (m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2)
}
END {
	for (t in n) {
		delete g; delete b; ng = nb = 0
		for (i = 1; i <= n[t]; i++)
			if (!wild[t, i]) {
				if (side[t, i] == "g") g[++ng] = val[t, i]
				else b[++nb] = val[t, i]
			}
		lg = median(g, ng); lb = median(b, nb)
		lo = lg < lb ? lg : lb; hi = lg < lb ? lb : lg
		w = 0
		for (i = 1; i <= n[t]; i++) {
			if (!wild[t, i]) continue
			w++
			other = side[t, i] == "g" ? lb : lg
			d = val[t, i] - other; if (d < 0) d = -d
			where = d < 2.5 ? "near the other level" : \
			    (val[t, i] > lo && val[t, i] < hi) ? "between the levels" : \
			    "beyond both"
			at = (commit[t, i] == "good" || commit[t, i] + 0 == badc) ? \
			    "endpoint" : "candidate"
			kind = at ", " where
		}
		trials[w]++; sum[w] += last[t]; all++; tot += last[t]; wsum += w
		if (w > wmax) wmax = w
		if (w == 1) { one[kind]++; onesum[kind] += last[t] }
	}
	if (all == 0) {
		print "no trace lines (run sim with --trace, 2>&1)"
		exit 1
	}
	printf "trials %d, samples %.2f, wild runs per trial %.2f\n", all, tot / all, wsum / all
	if (!(0 in trials)) {
		print "every trial had a wild run: no trials without one to price them against"
		exit 0
	}
	base = sum[0] / trials[0]
	printf "%-6s %7s %8s %10s\n", "wild", "trials", "samples", "per wild"
	for (w = 0; w <= wmax; w++)
		if (w in trials)
			printf "%-6d %7d %8.2f %10s\n", w, trials[w], \
			    sum[w] / trials[w], \
			    w ? sprintf("%.2f", (sum[w] / trials[w] - base) / w) : "-"
	printf "one wild run, by where it fell:\n"
	for (k in one)
		printf "  %-36s %5d trials %8.2f samples (%+.2f)\n", k, one[k], \
		    onesum[k] / one[k], onesum[k] / one[k] - base
}
