/* SPDX-License-Identifier: MIT */
#include <math.h>

#include "bisect/repro.h"
#include "bisect/stats.h"

/*
 * Looks growth apart (25% by default), at least one sample a side more
 * each: the sequential test is built for frequent looks, each costs
 * nothing but a comparison, and a decision can come no earlier than the
 * look after the boundary is crossed.
 */
size_t
repro_schedule(const struct repro_params *rp, unsigned *sizes, size_t max)
{
	unsigned n = rp->min_per_side < 2 ? 2 : rp->min_per_side, next;
	unsigned cap = rp->max_per_side < n ? n : rp->max_per_side;
	double growth = rp->growth > 1 ? rp->growth : REPRO_GROWTH;
	size_t k = 0;

	while (k < max) {
		sizes[k++] = n;
		if (n >= cap)
			break;
		next = (unsigned)ceil(n * growth);
		if (next <= n)
			next = n + 1;
		n = next > cap ? cap : next;
	}
	if (sizes[k - 1] != cap && k == max)
		sizes[k - 1] = cap;
	return k;
}

/* log cosh without overflow for large arguments. */
static double
logcosh(double x)
{
	x = fabs(x);
	return x - M_LN2 + log1p(exp(-2 * x));
}

/* Two-sided likelihood ratio of the score: the effect may have either sign. */
double
repro_llr(double z, double theta)
{
	return logcosh(theta * z) - 0.5 * theta * theta;
}

/* Normal score of a two-sided p value, finite even for p = 0. */
static double
p_to_z(double p)
{
	double lo = 0, hi = 40, mid;
	int i;

	if (p >= 1)
		return 0;
	/* Solve 2 (1 - Phi(z)) = p; erfc keeps precision in the tail. */
	for (i = 0; i < 80; i++) {
		mid = 0.5 * (lo + hi);
		if (erfc(mid / M_SQRT2) > p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/*
 * Reproduced when the mixture over effects of 1, 2, 4 and 8 times the one
 * of interest (at most cap) reaches log((1 - beta) / alpha): a large change
 * is recognised after a few samples instead of being judged against a
 * small alternative, and a mixture of likelihood ratios is still one, so
 * Wald's bound on the false rate holds.  Not reproduced only when every
 * one of those alternatives has fallen to log(beta / (1 - alpha)), so the
 * effect of interest keeps its power.
 */
static enum repro_result
sequential(const struct repro_params *rp, double z, double theta, double cap,
    int last, struct repro_stat *st)
{
	double a = log((1 - rp->beta) / rp->alpha);
	double b = log(rp->beta / (1 - rp->alpha));
	double l[4], max = -INFINITY, m = 1;
	int k;

	for (k = 0; k < 4; k++, m *= 2) {
		l[k] = repro_llr(z, theta * fmin(m, cap));
		max = fmax(max, l[k]);
	}
	st->llr = stats_log_mean_exp(l, 4);
	if (st->llr >= a)
		return REPRO_REPRODUCED;
	if (max <= b || last)
		return REPRO_NOT_REPRODUCED;
	return REPRO_UNDECIDED;
}

/* Fisher's exact test on failure counts, with the failure-rate gap as the effect. */
static enum repro_result
decide_passfail(const struct repro_params *rp, const double *good, size_t ng,
    const double *bad, size_t nb, int last, struct repro_stat *st)
{
	unsigned fg = 0, fb = 0;
	enum repro_result r;
	double pbar, theta;
	size_t i;

	for (i = 0; i < ng; i++)
		fg += good[i] != 0;
	for (i = 0; i < nb; i++)
		fb += bad[i] != 0;
	st->good = (double)fg / (double)ng;
	st->bad = (double)fb / (double)nb;
	st->rel_change = st->bad - st->good;
	st->p = stats_fisher2(fg, (unsigned)ng, fb, (unsigned)nb);
	/* Score of the gap of interest, pooled rate kept off 0 and 1. */
	pbar = (fg + fb + 1.0) / ((double)(ng + nb) + 2);
	theta = rp->gap / sqrt(pbar * (1 - pbar) * (1.0 / ng + 1.0 / nb));
	r = sequential(rp, p_to_z(st->p), theta, 1 / rp->gap, last, st);
	if (fabs(st->rel_change) < rp->min_change && r == REPRO_REPRODUCED)
		return last ? REPRO_NOT_REPRODUCED : REPRO_UNDECIDED;
	return r;
}

/*
 * The robust comparison (Huber locations, pooled scale) is turned into a
 * normal score through its p value, so that the few degrees of freedom of
 * the first looks count against it.  Under the effect of interest (effect * sd) the
 * score would be about effect / sqrt(1/ng + 1/nb).
 */
enum repro_result
repro_decide(const struct repro_params *rp, const double *good, size_t ng,
    const double *bad, size_t nb, int last, struct repro_stat *st)
{
	struct stats_cmp y;
	enum repro_result r;
	double base, upper, theta;

	if (ng < 2 || nb < 2)
		return REPRO_UNDECIDED;
	if (rp->passfail)
		return decide_passfail(rp, good, ng, bad, nb, last, st);
	stats_compare(good, ng, bad, nb, &y);
	st->good = y.loc_a;
	st->bad = y.loc_b;
	st->p = y.p;
	base = fabs(y.loc_a);
	if (base > 0)
		st->rel_change = (y.loc_b - y.loc_a) / base;
	else
		st->rel_change = y.loc_b == y.loc_a ? 0 : INFINITY;
	theta = rp->effect / sqrt(1.0 / ng + 1.0 / nb);
	/*
	 * A change of min_change, when that is larger: its score at this
	 * look is its size over the comparison's own standard error, passed
	 * through the same t to p to normal-score map as the observed one
	 * (a quiet side must not make a noisy one's change look ruled out).
	 */
	if (rp->price_min_change && base > 0 && y.se > 0 && y.df > 0)
		theta = fmax(theta, p_to_z(stats_t_sf2(rp->min_change * base /
		    y.se, y.df)));
	r = sequential(rp, p_to_z(y.p), theta, INFINITY, last, st);
	if (fabs(st->rel_change) >= rp->min_change || r != REPRO_REPRODUCED)
		return r;
	/*
	 * Certain but too small: stop once even a generous upper bound of
	 * the change stays under the minimum.
	 */
	upper = fabs(y.loc_b - y.loc_a) + 4 * y.se;
	if (last || (base > 0 && upper / base < rp->min_change))
		return REPRO_NOT_REPRODUCED;
	return REPRO_UNDECIDED;
}
