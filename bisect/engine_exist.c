/* SPDX-License-Identifier: MIT */
/*
 * Bisection engine: "is there a change", asked of every sample.  Under
 * "no change" every value, wherever it was taken, comes from one
 * distribution, so where the bisection chose to sample says nothing and
 * the candidates' values may count.  What must not be done is to judge
 * them by levels fitted to themselves (docs/statistics-history.md); here the
 * levels are integrated out instead.  For each culprit c the samples fall
 * into two groups (descendants of c and the bad endpoint; the rest and
 * the good endpoint), and the Bayes factor of "two levels, effect
 * delta ~ N(0, tau^2) in noise units" against "one level", with the
 * location and scale integrated over their invariant prior, has a closed
 * form in the groups' sizes and the two-sample t statistic.  Averaged over
 * the culprits' prior and a few tau, it is a likelihood ratio whose
 * expectation under "no change" is at most one whatever the sampling
 * plan, so stopping when it reaches 1/alpha is wrong at most alpha of
 * the time (Ville's inequality), for normal noise; the simulator measures
 * the rest.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/engine.h"
#include "bisect/engine_int.h"
#include "bisect/stats.h"
#include "common/xmalloc.h"

/* Effect sizes (noise sds) the alternative mixes, equally weighted. */
static const double exist_tau[] = { 0.5, 1, 2, 4, 8 };
#define EXIST_NTAU (sizeof(exist_tau) / sizeof(exist_tau[0]))

/*
 * Values beyond this many scales outside both levels are left out: a wild
 * run must not make every split look like noise (5% of them did so in the
 * simulator's outlier model), nor one split look sure.  Counting them as
 * if at the bound still cost the outlier rows a fifth more samples.
 */
#define EXIST_CLIP 4.0

/* Sufficient statistics of a group, values centred on a reference. */
struct exist_group {
	double	n, s, ss;
};

static void
group_add(struct exist_group *a, const struct exist_group *b)
{
	a->n += b->n;
	a->s += b->s;
	a->ss += b->ss;
}

/*
 * The split's log Bayes factor (Gönen et al.'s two-sample form): with
 * r = t^2 / nu and g = 1 + n_delta tau^2,
 *     BF = g^-1/2 ((1 + r) / (1 + r / g))^((nu + 1) / 2).
 * floor2 bounds the within-group variance from below, so values that
 * repeat exactly (a coarse metric) do not make any split infinitely
 * likely.
 */
double
engine_split_lbf(double na, double sa, double ssa, double nb, double sb,
    double ssb, double floor2)
{
	double n = na + nb, nd, ma, mb, ssw, r, nu, g, l[EXIST_NTAU];
	size_t k;

	if (na < 1 || nb < 1 || n < 3)
		return 0;
	ma = sa / na;
	mb = sb / nb;
	nu = n - 2;
	ssw = (ssa - sa * ma) + (ssb - sb * mb);
	ssw = fmax(ssw, nu * floor2);
	nd = na * nb / n;
	r = nd * (mb - ma) * (mb - ma) / ssw;
	for (k = 0; k < EXIST_NTAU; k++) {
		g = 1 + nd * exist_tau[k] * exist_tau[k];
		l[k] = -0.5 * log(g) + 0.5 * (nu + 1) *
		    (log1p(r) - log1p(r / g));
	}
	return stats_log_mean_exp(l, EXIST_NTAU);
}

/* engine_split_lbf on two groups' sums. */
static double
split_lbf(const struct exist_group *a, const struct exist_group *b,
    double floor2)
{
	return engine_split_lbf(a->n, a->s, a->ss, b->n, b->s, b->ss, floor2);
}

/* log B(1 + f, 1 + n - f): a group's failures under a uniform rate prior. */
static double
lbeta_count(const struct exist_group *a)
{
	return lgamma(1 + a->s) + lgamma(1 + a->n - a->s) - lgamma(2 + a->n);
}

/*
 * A pass/fail split's log Bayes factor: each side's failure rate
 * integrated over a uniform prior, against one rate for all.  Plugged-in
 * rates drawn from a few samples make a pass at a commit that fails 80%
 * of the time look like proof that it is good; integrated, they cannot.
 */
static double
split_lbf_passfail(const struct exist_group *a, const struct exist_group *b)
{
	struct exist_group all = *a;

	group_add(&all, b);
	return lbeta_count(a) + lbeta_count(b) - lbeta_count(&all);
}

/*
 * Fills lbf[c] with log BF_c, "the change is at c" against "no change",
 * over the values vals (one per sample): the split of the samples that
 * c makes, with levels and scale (pass/fail: the two failure rates)
 * integrated out.  Values far outside both levels are left out, and with
 * skip_odd the odd runs of a commit (engine.c: mark_odd_runs), which the
 * factor confirming the change must keep: its guarantee on null ranges is
 * for values chosen without a look at the commits.  Culprits of zero
 * prior get -INFINITY.  Returns 0, or -1 when there is nothing to split
 * yet.
 */
static int
exist_split_walk(const struct engine *e, const double *vals, int skip_odd,
    double *lbf)
{
	const struct engine_priv *v = e->priv;
	struct exist_group *slot, good = { 0, 0, 0 }, bad = { 0, 0, 0 };
	struct exist_group all, gb, gg;
	size_t i, c, k, w = v->words;
	double ref, x, floor_s, l = 0, lo, hi;
	const uint64_t *d;
	const uint64_t *held = NULL;
	int have = 0, passfail = e->p.metric == ENGINE_PASSFAIL;
	uint64_t bits;

	if (v->ns < 3 || v->desc_dirty)
		return -1;
	slot = xcalloc(v->nslots + 1, sizeof(*slot));
	lo = -INFINITY;
	hi = INFINITY;
	if (v->levels_ok && !passfail) {
		lo = fmin(v->mu_g, v->mu_b) - EXIST_CLIP * v->scale;
		hi = fmax(v->mu_g, v->mu_b) + EXIST_CLIP * v->scale;
	}
	ref = passfail ? 0 : v->levels_ok ? v->mu_g : vals[0];
	for (i = 0; i < v->ns; i++) {
		struct exist_group *gr;

		if (vals[i] < lo || vals[i] > hi || (skip_odd && v->odd[i]))
			continue;
		x = vals[i] - ref;	/* pass/fail: the failure, 0 or 1 */
		if (v->sc[i] == ENGINE_GOOD)
			gr = &good;
		else if (v->sc[i] == e->bad)
			gr = &bad;
		else
			gr = &slot[v->slot[v->sc[i]] - 1];
		gr->n++;
		gr->s += x;
		gr->ss += x * x;
	}
	all = good;
	group_add(&all, &bad);
	for (k = 0; k < v->nslots; k++)
		group_add(&all, &slot[k]);
	floor_s = passfail ? 0 : engine_scale_floor(e);
	for (c = 0; c < v->n; c++) {
		if (v->logprior[c] == -INFINITY) {
			lbf[c] = -INFINITY;
			continue;
		}
		/*
		 * Neighbours usually share a descendant set, and so the split;
		 * without slots every culprit splits the samples alike.
		 */
		d = w > 0 && v->nslots > 0 ? &v->desc[c * w] : NULL;
		if (!have || (d != NULL &&
		    memcmp(d, held, w * sizeof(uint64_t)) != 0)) {
			have = 1;
			held = d;
			gb = bad;
			if (d != NULL)
				for (k = 0; k < w; k++)
					for (bits = d[k]; bits != 0;
					    bits &= bits - 1)
						group_add(&gb, &slot[k * 64 +
						    (size_t)__builtin_ctzll(bits)]);
			gg.n = all.n - gb.n;
			gg.s = all.s - gb.s;
			gg.ss = all.ss - gb.ss;
			l = passfail ? split_lbf_passfail(&gg, &gb) :
			    split_lbf(&gg, &gb, floor_s * floor_s);
		}
		lbf[c] = l;
	}
	free(slot);
	return 0;
}

/*
 * Returns log BF of "a change at some candidate" against "no change" over
 * all samples (raw values: the drift model is fitted assuming a change):
 * the culprits' factors averaged over their prior.
 */
static double
exist_lbf(const struct engine *e)
{
	const struct engine_priv *v = e->priv;
	double *lbf = xcalloc(v->n, sizeof(double)), wmax = -INFINITY;
	double max = -INFINITY, sum = 0, wsum = 0, l;
	size_t c;

	if (exist_split_walk(e, v->sv, 0, lbf) != 0) {
		free(lbf);
		return 0;
	}
	for (c = 0; c < v->n; c++)
		if (v->logprior[c] > wmax)
			wmax = v->logprior[c];
	for (c = 0; c < v->n; c++) {
		if (v->logprior[c] == -INFINITY)
			continue;
		l = v->logprior[c] - wmax + lbf[c];
		if (l > max) {
			sum = sum * exp(max - l) + 1;
			max = l;
		} else
			sum += exp(l - max);
		wsum += exp(v->logprior[c] - wmax);
	}
	free(lbf);
	if (max == -INFINITY)
		return 0;
	return max + log(sum) - log(wsum);
}

/*
 * The mass of set[0..ns) in the posterior over "no change" and the
 * culprits, with the levels and the scale (pass/fail: the failure rates)
 * integrated out: prior times BF_c for a culprit, on the drift-adjusted
 * values (pass/fail values are never adjusted), and half the prior for
 * "no change" (factor 1).  The engine's
 * own posterior plugs the levels in, and when they are still rough (a
 * scale drawn small, a failure rate drawn high from few samples) it
 * overstates itself; a verdict must hold here too.
 */
double
engine_integrated_mass(const struct engine *e, const struct engine_cand *set,
    size_t ns)
{
	const struct engine_priv *v = e->priv;
	double *lbf, max = -INFINITY, sum = 0, in = 0;
	size_t c, k;

	lbf = xcalloc(v->n, sizeof(double));
	if (exist_split_walk(e, v->adj, 1, lbf) != 0) {
		free(lbf);
		return 0;
	}
	for (c = 0; c < v->n; c++) {
		lbf[c] += v->logprior[c];
		max = fmax(max, fmax(lbf[c], v->logprior[c]));
	}
	/* "No change" holds half the prior, with factor 1 by definition. */
	for (c = 0; c < v->n; c++)
		sum += exp(lbf[c] - max) + exp(v->logprior[c] - max);
	for (k = 0; k < ns; k++)
		in += exp(lbf[set[k].commit] - max);
	free(lbf);
	return in / sum;
}

/*
 * Shared mode: confirms the change once the Bayes factor over all samples
 * reaches 1 / exist_alpha, at least ENGINE_EXIST_MIN_SAMPLES samples are in and
 * the levels differ by at least min_change.  "Not reproduced" stays with
 * the endpoint check, whose power at the effect of interest is what a
 * null verdict promises.
 */
void
engine_exist_step(struct engine *e)
{
	struct engine_priv *v = e->priv;
	double rel;

	if (e->p.mode != ENGINE_MODE_SHARED || e->p.exist_alpha <= 0 ||
	    v->reproduced || e->p.metric != ENGINE_NUMERIC ||
	    v->phase != ENGINE_PHASE_BISECT || !v->levels_ok)
		return;
	v->exist_lbf = exist_lbf(e);
	if (v->ns < ENGINE_EXIST_MIN_SAMPLES)
		return;
	rel = fabs(v->mu_b - v->mu_g) / fmax(fabs(v->mu_g), 1e-300);
	if (v->exist_lbf >= -log(e->p.exist_alpha) && rel >= e->p.min_change)
		v->reproduced = 1;
}
