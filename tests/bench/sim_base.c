/* SPDX-License-Identifier: MIT */
/*
 * Baseline strategies, on the same worlds as the engine: plain binary
 * bisection on the DAG (git's halving, uniform weights) with three ways of
 * calling a commit good or bad -- 0-day's fixed runs and non-overlap rule,
 * Pinpoint's repeated attempts and rank tests, and one naive run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/graph.h"
#include "bisect/stats.h"
#include "common/xmalloc.h"
#include "tests/bench/sim.h"
#include "tests/bench/sim_stats.h"

/* 1 bad, 0 good, -1 cannot be built. */
typedef int (*classify_fn)(struct sim_world *w, void *ctx, uint32_t x,
    struct sim_result *r, struct sim_steps *st);

/* Marks anc(x) (x included) in mark[]. */
static void
mark_ancestors(const struct graph *g, uint32_t x, uint8_t *mark,
    uint32_t *stack)
{
	size_t sp = 0, j;
	uint32_t y;

	memset(mark, 0, g->n);
	mark[x] = 1;
	stack[sp++] = x;
	while (sp > 0) {
		y = stack[--sp];
		for (j = g->par_off[y]; j < g->par_off[y + 1]; j++)
			if (!mark[g->par[j]]) {
				mark[g->par[j]] = 1;
				stack[sp++] = g->par[j];
			}
	}
}

/*
 * git's halving: test the candidate whose count of candidate ancestors is
 * nearest half; a bad answer keeps its ancestors, a good one drops them.
 */
static void
hard_bisect(struct sim_world *w, classify_fn fn, void *ctx,
    struct sim_result *r, struct sim_steps *st)
{
	const struct graph *g = &w->g;
	size_t n = g->n, ncand = n, x, best;
	uint8_t *cand = xcalloc(n, 1), *skip = xcalloc(n, 1), *anc = xcalloc(n, 1);
	double *ind = xcalloc(n, sizeof(double)), *cnt = xcalloc(n, sizeof(double));
	uint32_t *stack = xcalloc(n, sizeof(uint32_t));
	double v, bestv;
	int res;

	memset(cand, 1, n);
	for (;;) {
		if (ncand == 1) {
			for (x = 0; !cand[x]; x++)
				;
			r->verdict = SIM_DONE;
			r->culprit = (uint32_t)x;
			break;
		}
		for (x = 0; x < n; x++)
			ind[x] = cand[x];
		graph_prob_bad(g, ind, cnt);
		best = n;
		bestv = 0;
		for (x = 0; x < n; x++) {
			if (!cand[x] || skip[x])
				continue;
			v = fmin(cnt[x], (double)ncand - cnt[x]);
			if (v > bestv + 0.5) {
				bestv = v;
				best = x;
			}
		}
		if (best == n) {
			r->verdict = SIM_AMONG;
			r->set_size = ncand;
			r->set_has = w->culprit != SIM_NONE && cand[w->culprit];
			break;
		}
		res = fn(w, ctx, (uint32_t)best, r, st);
		if (res < 0) {
			skip[best] = 1;
			continue;
		}
		mark_ancestors(g, (uint32_t)best, anc, stack);
		for (ncand = 0, x = 0; x < n; x++) {
			cand[x] = cand[x] && (res ? anc[x] : !anc[x]);
			ncand += cand[x];
		}
	}
	free(cand);
	free(skip);
	free(anc);
	free(ind);
	free(cnt);
	free(stack);
}

/* Draws k runs at a commit and counts them. */
static void
take(struct sim_world *w, uint32_t commit, double *out, unsigned k,
    struct sim_result *r)
{
	unsigned i;

	for (i = 0; i < k; i++)
		out[i] = sim_world_sample(w, commit);
	r->samples += k;
	if (commit == SIM_NONE || commit == w->g.n - 1)
		r->endpoint_samples += k;
}

/* Median without disturbing the caller's order. */
static double
median_of(const double *v, size_t n)
{
	double *c = xcalloc(n, sizeof(double)), m;

	memcpy(c, v, n * sizeof(double));
	m = stats_median_inplace(c, n);
	free(c);
	return m;
}

/* Smallest and largest value. */
static void
range_of(const double *v, size_t n, double *min, double *max)
{
	*min = *max = v[0];
	while (n-- > 1) {
		*min = fmin(*min, v[n]);
		*max = fmax(*max, v[n]);
	}
}

/*
 * lkp-tests' rule: b changed from a iff min(b) > median(a) and median(b)
 * > max(a), or the mirror image.  Returns +1, -1 or 0.
 */
static int
lkp_changed(const double *a, size_t na, const double *b, size_t nb)
{
	double ma = median_of(a, na), mb = median_of(b, nb), amin, amax;
	double bmin, bmax;

	if (na < 3 || nb < 3)
		return 0;
	range_of(a, na, &amin, &amax);
	range_of(b, nb, &bmin, &bmax);
	if (bmin > ma && mb > amax)
		return 1;
	if (bmax < ma && mb < amin)
		return -1;
	return 0;
}

struct zeroday {
	unsigned	 runs;
	double		*good;
	double		*tmp;
	int		 dir;
};

/* 6 runs at the commit, judged against the good runs by lkp's rule. */
static int
zeroday_classify(struct sim_world *w, void *ctx, uint32_t x,
    struct sim_result *r, struct sim_steps *st)
{
	struct zeroday *z = ctx;

	r->builds++;
	if (w->unbuildable[x])
		return -1;
	take(w, x, z->tmp, z->runs, r);
	sim_steps_add(st, z->runs);
	return lkp_changed(z->good, z->runs, z->tmp, z->runs) == z->dir;
}

/* Turns the step list into rounds for 1, 4 and 8 hosts. */
static void
finish(struct sim_result *r, struct sim_steps *st)
{
	r->rounds[0] = sim_steps_rounds(st, 1);
	r->rounds[1] = sim_steps_rounds(st, 4);
	r->rounds[2] = sim_steps_rounds(st, 8);
	sim_steps_release(st);
}

/* 0-day: 6 runs at each endpoint, then plain halving with lkp's rule. */
void
sim_zeroday(struct sim_world *w, unsigned runs, struct sim_result *r)
{
	struct zeroday z = { runs, NULL, NULL, 0 };
	struct sim_steps st = { 0 };
	double *bad;

	memset(r, 0, sizeof(*r));
	z.good = xcalloc(runs, sizeof(double));
	z.tmp = xcalloc(runs, sizeof(double));
	bad = xcalloc(runs, sizeof(double));
	take(w, SIM_NONE, z.good, runs, r);
	take(w, (uint32_t)(w->g.n - 1), bad, runs, r);
	r->builds = 2;
	sim_steps_add(&st, 2 * runs);
	z.dir = lkp_changed(z.good, runs, bad, runs);
	if (z.dir == 0)
		r->verdict = SIM_NOT_REPRODUCED;
	else
		hard_bisect(w, zeroday_classify, &z, r, &st);
	finish(r, &st);
	free(z.good);
	free(z.tmp);
	free(bad);
}

/* Pinpoint's "high" thresholds at 10, 20 and 30 attempts, log-interpolated. */
static double
pinpoint_high(unsigned n)
{
	static const double at[] = { 0.5708, 0.0859, 0.0095 };
	double f;
	unsigned i;

	if (n <= 10)
		return at[0];
	if (n >= 30)
		return at[2] * pow(at[2] / at[1], (n - 30) / 10.0);
	i = (n - 10) / 10;
	f = (n - 10 - 10.0 * i) / 10.0;
	return exp(log(at[i]) + f * (log(at[i + 1]) - log(at[i])));
}

enum { PP_SAME, PP_DIFF, PP_UNKNOWN };

/* p = min(KS, Mann-Whitney); forced once the high threshold is <= low. */
static int
pinpoint_compare(const double *a, size_t na, const double *b, size_t nb)
{
	double p = fmin(sim_stats_ks2(a, na, b, nb),
	    sim_stats_mann_whitney(a, na, b, nb));
	unsigned n = (unsigned)(na < nb ? na : nb);

	if (p <= 0.01)
		return PP_DIFF;
	if (p > pinpoint_high(n) || pinpoint_high(n) <= 0.01)
		return PP_SAME;
	return PP_UNKNOWN;
}

struct pinpoint {
	unsigned	 attempts, cap;
	double		*good, *x;
	size_t		 ng, ngcap;
};

/* Adds attempts to the good side, which Pinpoint grows with each comparison. */
static void
pp_more_good(struct sim_world *w, struct pinpoint *pp, unsigned k,
    struct sim_result *r)
{
	if (pp->ng + k > pp->ngcap) {
		pp->ngcap = 2 * (pp->ng + k);
		pp->good = xreallocarray(pp->good, pp->ngcap, sizeof(double));
	}
	take(w, SIM_NONE, pp->good + pp->ng, k, r);
	pp->ng += k;
}

/* 10 attempts, 10 more on both sides while the comparison is unknown. */
static int
pinpoint_classify(struct sim_world *w, void *ctx, uint32_t x,
    struct sim_result *r, struct sim_steps *st)
{
	struct pinpoint *pp = ctx;
	unsigned nx = pp->attempts;
	int c;

	r->builds++;
	if (w->unbuildable[x])
		return -1;
	take(w, x, pp->x, nx, r);
	sim_steps_add(st, nx);
	while ((c = pinpoint_compare(pp->good, pp->ng, pp->x, nx)) ==
	    PP_UNKNOWN && nx + pp->attempts <= pp->cap) {
		take(w, x, pp->x + nx, pp->attempts, r);
		nx += pp->attempts;
		if (pp->ng < nx)
			pp_more_good(w, pp, nx - (unsigned)pp->ng, r);
		sim_steps_add(st, 2 * pp->attempts);
	}
	return c == PP_DIFF;
}

/* Pinpoint: the endpoints must differ, then plain halving with its comparison. */
void
sim_pinpoint(struct sim_world *w, unsigned attempts, unsigned cap,
    struct sim_result *r)
{
	struct pinpoint pp = { attempts, cap, NULL, NULL, 0, 0 };
	struct sim_steps st = { 0 };
	double *bad = xcalloc(cap, sizeof(double));
	unsigned nb = attempts;
	int c;

	memset(r, 0, sizeof(*r));
	pp.x = xcalloc(cap, sizeof(double));
	pp_more_good(w, &pp, attempts, r);
	take(w, (uint32_t)(w->g.n - 1), bad, nb, r);
	r->builds = 2;
	sim_steps_add(&st, 2 * attempts);
	while ((c = pinpoint_compare(pp.good, pp.ng, bad, nb)) == PP_UNKNOWN &&
	    nb + attempts <= cap) {
		take(w, (uint32_t)(w->g.n - 1), bad + nb, attempts, r);
		nb += attempts;
		pp_more_good(w, &pp, attempts, r);
		sim_steps_add(&st, 2 * attempts);
	}
	if (c != PP_DIFF)
		r->verdict = SIM_NOT_REPRODUCED;
	else
		hard_bisect(w, pinpoint_classify, &pp, r, &st);
	finish(r, &st);
	free(pp.good);
	free(pp.x);
	free(bad);
}

struct naive {
	double	mid;
	int	dir;
};

/* One run, bad if past the midpoint of the endpoint runs. */
static int
naive_classify(struct sim_world *w, void *ctx, uint32_t x,
    struct sim_result *r, struct sim_steps *st)
{
	struct naive *nv = ctx;
	double v;

	r->builds++;
	if (w->unbuildable[x])
		return -1;
	take(w, x, &v, 1, r);
	sim_steps_add(st, 1);
	return nv->dir != 0 && (v - nv->mid) * nv->dir > 0;
}

/* git bisect run with one run per commit and a midpoint threshold. */
void
sim_naive(struct sim_world *w, struct sim_result *r)
{
	struct sim_steps st = { 0 };
	struct naive nv;
	double g, b;

	memset(r, 0, sizeof(*r));
	take(w, SIM_NONE, &g, 1, r);
	take(w, (uint32_t)(w->g.n - 1), &b, 1, r);
	r->builds = 2;
	sim_steps_add(&st, 2);
	nv.mid = 0.5 * (g + b);
	nv.dir = (b > g) - (b < g);
	hard_bisect(w, naive_classify, &nv, r, &st);
	finish(r, &st);
}
