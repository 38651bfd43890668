/* SPDX-License-Identifier: MIT */
/*
 * Two culprits with half of the change each on a linear range: how often
 * the single-culprit engine names one of them, and how often the daemon's
 * verification (bisect culprit..bad and good..parent again when the
 * culprit explains too little of the change or still differs from bad,
 * within the same budget) finds both, with the samples each spends.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/graph.h"
#include "bisect/stats.h"
#include "common/xmalloc.h"
#include "tests/bench/sim.h"
#include "tests/bench/sim_multi.h"

#define MULTI_N		200	/* candidates */
#define MULTI_SHARE	0.7	/* as VERIFY_MIN_SHARE */
#define MULTI_ALPHA	0.01	/* as the daemon's split test */
#define MULTI_MIN_BUDGET 12

/* One trial: the culprits and every sample taken, by global commit. */
struct multi_world {
	uint32_t	 c1, c2;
	double		 d;		/* each culprit's change, in noise sd */
	struct sim_rng	 rng;
	double		**v;		/* v[commit + 1]: samples, good at 0 */
	size_t		*nv;
	unsigned	 samples;
};

/* A sample at a global commit (-1: the good side). */
static double
multi_sample(struct multi_world *w, long commit)
{
	double y = (commit >= (long)w->c1 ? w->d : 0) +
	    (commit >= (long)w->c2 ? w->d : 0) + sim_rng_norm(&w->rng);
	size_t k = (size_t)(commit + 1);

	w->v[k] = xreallocarray(w->v[k], w->nv[k] + 1, sizeof(double));
	w->v[k][w->nv[k]++] = y;
	w->samples++;
	return y;
}

/*
 * Bisects the linear range (lo, hi] of global commits with at most
 * budget samples; the culprit's global index, or -2 without one.
 */
static long
multi_bisect(struct multi_world *w, const struct engine_params *ep, long lo,
    long hi, unsigned budget)
{
	size_t n = (size_t)(hi - lo), i;
	uint32_t *off = xcalloc(n + 1, sizeof(uint32_t));
	uint32_t *par = xcalloc(n ? n : 1, sizeof(uint32_t));
	struct engine_params p = *ep;
	struct engine_action a;
	struct bd_error err;
	struct engine e;
	struct graph g;
	long culprit = -2;
	uint32_t c;

	for (i = 0; i < n; i++) {
		off[i + 1] = off[i] + (i > 0);
		if (i > 0)
			par[off[i]] = (uint32_t)(i - 1);
	}
	p.max_samples = budget;
	if (graph_init_parents(&g, n, off, par, &err) != 0 ||
	    engine_init(&e, &g, &p, &err) != 0) {
		fprintf(stderr, "sim: %s\n", err.msg);
		exit(1);
	}
	for (;;) {
		engine_next(&e, 1, &a);
		if (a.kind != ENGINE_SAMPLE)
			break;
		c = a.probes[0];
		engine_add_sample(&e, c, multi_sample(w, c == ENGINE_GOOD ? lo :
		    lo + 1 + (long)c), NULL);
	}
	if (a.kind == ENGINE_DONE)
		culprit = lo + 1 + (long)a.culprit;
	engine_release(&e);
	graph_release(&g);
	free(off);
	free(par);
	return culprit;
}

/* Mean of the samples at a global commit, NAN without any. */
static double
multi_mean(const struct multi_world *w, long commit)
{
	size_t k = (size_t)(commit + 1), i;
	double s = 0;

	for (i = 0; i < w->nv[k]; i++)
		s += w->v[k][i];
	return w->nv[k] ? s / (double)w->nv[k] : NAN;
}

/* The daemon's test: two commits' samples differ at MULTI_ALPHA. */
static int
multi_differ(const struct multi_world *w, long a, long b)
{
	size_t ka = (size_t)(a + 1), kb = (size_t)(b + 1);
	struct stats_cmp c;

	if (w->nv[ka] < 2 || w->nv[kb] < 2)
		return 0;
	stats_compare(w->v[ka], w->nv[ka], w->v[kb], w->nv[kb], &c);
	return c.p < MULTI_ALPHA;
}

struct multi_agg {
	unsigned	both, one, samples;
};

/* One trial of both strategies on the same culprits and noise. */
static void
multi_trial(const struct engine_params *ep, double d, uint64_t seed,
    unsigned t, struct multi_agg *single, struct multi_agg *split)
{
	struct multi_world w;
	long c, bad = MULTI_N - 1, par, found[3];
	unsigned budget, k, nf = 0, i, has1 = 0, has2 = 0;
	double share;
	int upper, lower;

	memset(&w, 0, sizeof(w));
	w.d = d;
	sim_rng_seed(&w.rng, seed, t);
	w.c1 = 10 + (uint32_t)(sim_rng_unif(&w.rng) * (MULTI_N / 2 - 20));
	w.c2 = MULTI_N / 2 + (uint32_t)(sim_rng_unif(&w.rng) *
	    (MULTI_N / 2 - 20));
	w.v = xcalloc(MULTI_N + 1, sizeof(double *));
	w.nv = xcalloc(MULTI_N + 1, sizeof(size_t));
	c = multi_bisect(&w, ep, -1, bad, ep->max_samples);
	single->samples += w.samples;
	if (c == (long)w.c1 || c == (long)w.c2)
		single->one++;
	if (c >= 0) {
		found[nf++] = c;
		par = c - 1;
		share = (multi_mean(&w, c) - multi_mean(&w, par)) /
		    (multi_mean(&w, bad) - multi_mean(&w, -1));
		upper = c != bad && (multi_differ(&w, c, bad) ||
		    !(share >= MULTI_SHARE));
		lower = par > -1 && multi_differ(&w, -1, par);
		k = (unsigned)(upper + lower);
		budget = k && ep->max_samples > w.samples ?
		    (ep->max_samples - w.samples) / k : 0;
		if (upper && budget >= MULTI_MIN_BUDGET &&
		    (c = multi_bisect(&w, ep, found[0], bad, budget)) >= 0)
			found[nf++] = c;
		if (lower && budget >= MULTI_MIN_BUDGET &&
		    (c = multi_bisect(&w, ep, -1, par, budget)) >= 0)
			found[nf++] = c;
	}
	for (i = 0; i < nf; i++) {
		has1 |= found[i] == (long)w.c1;
		has2 |= found[i] == (long)w.c2;
	}
	split->both += has1 && has2;
	split->one += has1 != has2;
	split->samples += w.samples;
	for (i = 0; i <= MULTI_N; i++)
		free(w.v[i]);
	free(w.v);
	free(w.nv);
}

/* One effect size: both strategies on the same trials. */
static void
multi_row(const struct engine_params *ep, double d, unsigned trials,
    uint64_t seed)
{
	struct multi_agg single = { 0, 0, 0 }, split = { 0, 0, 0 };
	unsigned t;

	for (t = 0; t < trials; t++)
		multi_trial(ep, d, seed, t, &single, &split);
	printf("\ntwo culprits, linear %d, d %.1f + %.1f (normal), %u trials, "
	    "budget %u samples\n", MULTI_N, d, d, trials, ep->max_samples);
	printf("  %-22s both found %5.1f%%  one found %5.1f%%  mean samples "
	    "%6.1f\n", "engine, one culprit", 0.0, 100.0 * single.one / trials,
	    (double)single.samples / trials);
	printf("  %-22s both found %5.1f%%  one found %5.1f%%  mean samples "
	    "%6.1f (%.2fx the single run)\n", "engine + verification",
	    100.0 * split.both / trials, 100.0 * split.one / trials,
	    (double)split.samples / trials, single.samples ?
	    (double)split.samples / single.samples : 0);
}

void
sim_multi_row(const struct engine_params *ep, unsigned trials, uint64_t seed)
{
	if (trials == 0)
		return;
	multi_row(ep, 1.0, trials, seed);
	multi_row(ep, 2.0, trials, seed);
}
