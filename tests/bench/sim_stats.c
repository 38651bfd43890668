/* SPDX-License-Identifier: MIT */
/*
 * Statistics only the simulator uses: the rank tests of the Pinpoint
 * baseline and the information bound of one sample.  The engine itself
 * needs none of them, so they live beside the simulator rather than in
 * bisect/stats.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/stats.h"
#include "common/xmalloc.h"
#include "tests/bench/sim_stats.h"

/* qsort order for doubles. */
static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct rank_item {
	double	v;
	int	side;
};

/* qsort order for ranking values with their sample. */
static int
cmp_rank(const void *a, const void *b)
{
	double x = ((const struct rank_item *)a)->v;
	double y = ((const struct rank_item *)b)->v;

	return (x > y) - (x < y);
}

/* Exact two-sided p of U = u for small untied samples, by counting. */
static double
mw_exact(size_t na, size_t nb, double u)
{
	size_t max = na * nb, i, j, k;
	double *prev, *cur, *tab, lo = 0, hi = 0, tot = 0, p;

	/* tab[i][j][k]: arrangements of i a's and j b's with U = k. */
	tab = xcalloc((na + 1) * (nb + 1) * (max + 1), sizeof(double));
#define T(i, j, k) tab[((i) * (nb + 1) + (j)) * (max + 1) + (k)]
	for (i = 0; i <= na; i++)
		for (j = 0; j <= nb; j++) {
			if (i == 0 || j == 0) {
				T(i, j, 0) = 1;
				continue;
			}
			/* Last element an 'a': it beats all j b's. */
			prev = &T(i - 1, j, 0);
			cur = &T(i, j - 1, 0);
			for (k = 0; k <= i * j; k++)
				T(i, j, k) = (k >= j ? prev[k - j] : 0) + cur[k];
		}
	for (k = 0; k <= max; k++) {
		tot += T(na, nb, k);
		if ((double)k <= u + 1e-9)
			lo += T(na, nb, k);
		if ((double)k >= u - 1e-9)
			hi += T(na, nb, k);
	}
#undef T
	free(tab);
	p = 2 * (lo < hi ? lo : hi) / tot;
	return p > 1 ? 1 : p;
}

/* Ranks with average ties; exact counts when small and untied, as scipy does. */
double
sim_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb, i, j;
	struct rank_item *it = xcalloc(n, sizeof(*it));
	double ra = 0, tie = 0, u, mu, var, z, t;
	int ties = 0;

	for (i = 0; i < na; i++)
		it[i] = (struct rank_item){ a[i], 0 };
	for (i = 0; i < nb; i++)
		it[na + i] = (struct rank_item){ b[i], 1 };
	qsort(it, n, sizeof(*it), cmp_rank);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && it[j].v == it[i].v; j++)
			;
		t = (double)(j - i);
		if (t > 1) {
			ties = 1;
			tie += t * t * t - t;
		}
		for (size_t k = i; k < j; k++)
			if (it[k].side == 0)
				ra += 0.5 * (double)(i + j + 1);
	}
	free(it);
	u = ra - (double)na * (double)(na + 1) / 2;
	if (!ties && na <= 20 && nb <= 20)
		return mw_exact(na, nb, u);
	mu = (double)na * (double)nb / 2;
	var = (double)na * (double)nb / 12 *
	    ((double)(n + 1) - tie / ((double)n * (double)(n - 1)));
	if (var <= 0)
		return 1;
	z = (fabs(u - mu) - 0.5) / sqrt(var);
	if (z < 0)
		z = 0;
	return 2 * (1 - stats_norm_cdf(z));
}

/* The largest gap between the two empirical distributions, ties stepped together. */
double
sim_stats_ks2(const double *a, size_t na, const double *b, size_t nb)
{
	double *sa = xcalloc(na, sizeof(double)), *sb = xcalloc(nb, sizeof(double));
	double dmax = 0, v, en, lam, q = 0, term, sign = 1;
	size_t i = 0, j = 0;
	int k;

	memcpy(sa, a, na * sizeof(double));
	memcpy(sb, b, nb * sizeof(double));
	qsort(sa, na, sizeof(double), cmp_double);
	qsort(sb, nb, sizeof(double), cmp_double);
	while (i < na && j < nb) {
		v = sa[i] < sb[j] ? sa[i] : sb[j];
		while (i < na && sa[i] == v)
			i++;
		while (j < nb && sb[j] == v)
			j++;
		if (fabs((double)i / na - (double)j / nb) > dmax)
			dmax = fabs((double)i / na - (double)j / nb);
	}
	free(sa);
	free(sb);
	en = sqrt((double)na * (double)nb / (double)(na + nb));
	lam = (en + 0.12 + 0.11 / en) * dmax;
	if (lam < 0.2)
		return 1;
	for (k = 1; k <= 100; k++) {
		term = sign * 2 * exp(-2.0 * k * k * lam * lam);
		q += term;
		if (fabs(term) < 1e-12)
			break;
		sign = -sign;
	}
	return q < 0 ? 0 : q > 1 ? 1 : q;
}


/* log(1 + exp(x)) without overflow. */
static double
softplus(double x)
{
	return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

/* The information bound of one sample, by Gauss-Hermite quadrature. */
double
sim_stats_capacity(const struct stats_gh *gh, double d)
{
	double e = 0;
	int i;

	for (i = 0; i < STATS_GH_N; i++)
		e += gh->w[i] * softplus(-d * (d / 2 + gh->z[i]));
	return 1 - e / M_LN2;
}

/* Mutual information of a pass/fail run at equiprobable sides. */
double
sim_stats_capacity_binary(double pg, double pb)
{
	return stats_h2(0.5 * (pg + pb)) - 0.5 * (stats_h2(pg) + stats_h2(pb));
}

/*
 * One minus the terms below k.  For a tail far below the table's three
 * decimals the subtraction loses its digits, which the table never shows.
 */
double
sim_stats_poisson_tail(unsigned k, double lambda)
{
	double term = exp(-lambda), below = 0;
	unsigned i;

	for (i = 0; i < k; i++) {
		below += term;
		term *= lambda / (i + 1);
	}
	return fmax(0, 1 - below);
}
