/* SPDX-License-Identifier: MIT */
/*
 * A reference for the engine's choice of probes (sim --strategy infogain).
 * Its posterior over culprits has both levels and the scale integrated
 * out (normal noise; flat priors on the levels, 1/sigma on the scale), and
 * every probe, the two endpoints included, is the one whose value is
 * expected to tell the most about the culprit.  It stops as the engine
 * does: the top commit holds the stop mass and the engine's Bayes factor
 * over all samples confirms the change.  It knows nothing of wild runs,
 * drift or null ranges and runs only on linear ranges where every commit
 * builds: it measures what a better policy could save, it is not one to
 * ship.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/engine.h"
#include "bisect/stats.h"
#include "common/xmalloc.h"
#include "tests/bench/sim.h"
#include "tests/bench/sim_infogain.h"

/* Quantiles of the culprit posterior offered as probes, and y grid points. */
#define IG_QUANTILES	24
#define IG_GRID		32
/* Culprits below this mass are left out of the expectation. */
#define IG_LIVE		1e-9

/* Count, sum and sum of squares of a group's values. */
struct ig_group {
	double	 n, s, q;
};

/* Per culprit h: its good group at 2h, its bad group at 2h + 1. */
struct ig {
	size_t	 n;
	struct ig_group *grp;
	double	*p, *pn;
	size_t	*live, nlive;	/* culprits of IG_LIVE mass or more */
	double	*lm, *ls;	/* per live culprit: predictive centre and
				   scale, good side then bad side */
	double	 ref;		/* values are centred on the first one */
	size_t	 ns;
};

/* Room for n culprits; every group starts empty. */
static void
ig_init(struct ig *g, size_t n)
{
	memset(g, 0, sizeof(*g));
	g->n = n;
	g->grp = xcalloc(2 * n, sizeof(struct ig_group));
	g->p = xcalloc(n, sizeof(double));
	g->pn = xcalloc(n, sizeof(double));
	g->live = xcalloc(n, sizeof(size_t));
	g->lm = xcalloc(2 * n, sizeof(double));
	g->ls = xcalloc(2 * n, sizeof(double));
}

/* Frees what ig_init made. */
static void
ig_release(struct ig *g)
{
	free(g->grp);
	free(g->p);
	free(g->pn);
	free(g->live);
	free(g->lm);
	free(g->ls);
}

/* A value at x is bad for every culprit at or before x (linear range). */
static int
ig_bad(uint32_t x, size_t h)
{
	return x != SIM_NONE && x >= h;
}

/*
 * A value joins one group of every culprit; sums are kept about the first
 * value so that a level of 20 noise sd costs no precision.
 */
static void
ig_add(struct ig *g, uint32_t x, double y)
{
	struct ig_group *a;
	size_t h;

	if (g->ns++ == 0)
		g->ref = y;
	y -= g->ref;
	for (h = 0; h < g->n; h++) {
		a = &g->grp[2 * h + (size_t)ig_bad(x, h)];
		a->n++;
		a->s += y;
		a->q += y * y;
	}
}

/* A group's mean. */
static double
ig_mean(const struct ig_group *a)
{
	return a->s / a->n;
}

/* Within-group sum of squares of culprit h, never below a tiny floor. */
static double
ig_ssw(const struct ig *g, size_t h)
{
	const struct ig_group *a = &g->grp[2 * h], *b = a + 1;
	double ss = a->q - a->s * ig_mean(a) + b->q - b->s * ig_mean(b);

	return fmax(ss, 1e-12 * (double)g->ns);
}

/*
 * The integrated posterior: with flat level priors and 1/sigma on the
 * scale, culprit h has weight (n_g n_b)^-1/2 SSW^-(N-2)/2.  Returns the
 * top culprit.
 */
static size_t
ig_posterior(struct ig *g)
{
	double max = -INFINITY, sum = 0, w;
	size_t h, top = 0;

	for (h = 0; h < g->n; h++) {
		w = -0.5 * log(g->grp[2 * h].n * g->grp[2 * h + 1].n) -
		    0.5 * (double)(g->ns - 2) * log(ig_ssw(g, h));
		g->p[h] = w;
		if (w > max)
			max = w;
	}
	for (h = 0; h < g->n; h++)
		sum += g->p[h] = exp(g->p[h] - max);
	for (h = 0; h < g->n; h++) {
		g->p[h] /= sum;
		if (g->p[h] > g->p[top])
			top = h;
	}
	return top;
}

/* The engine's Bayes factor of a change, culprits equally likely. */
static double
ig_exist_lbf(const struct ig *g)
{
	double *l = xcalloc(g->n, sizeof(double)), r;
	const struct ig_group *a;
	size_t h;

	for (h = 0; h < g->n; h++) {
		a = &g->grp[2 * h];
		l[h] = engine_split_lbf(a->n, a->s, a->q, a[1].n, a[1].s,
		    a[1].q, 1e-12);
	}
	r = stats_log_mean_exp(l, g->n);
	free(l);
	return r;
}

/*
 * The live culprits and their predictives: Student-t with N - 2 degrees
 * of freedom about each group's mean.  The t density's constant is the
 * same for all and cancels.
 */
static void
ig_predictives(struct ig *g)
{
	const struct ig_group *a;
	double nu = (double)g->ns - 2, s2;
	size_t h, i, bad;

	for (g->nlive = 0, h = 0; h < g->n; h++) {
		if (g->p[h] < IG_LIVE)
			continue;
		i = g->nlive++;
		g->live[i] = h;
		s2 = ig_ssw(g, h) / nu;
		for (bad = 0; bad < 2; bad++) {
			a = &g->grp[2 * h + bad];
			g->lm[2 * i + bad] = ig_mean(a);
			g->ls[2 * i + bad] = sqrt(s2 * (1 + 1 / a->n));
		}
	}
}

/* Expected posterior entropy after one value at x, on a grid of values. */
static double
ig_expected_entropy(struct ig *g, uint32_t x, double lo, double hi)
{
	double nu = (double)g->ns - 2, y, z, sc, e = 0, wsum = 0, s, ent, q;
	size_t i, j, k;

	for (j = 0; j < IG_GRID; j++) {
		y = lo + (hi - lo) * ((double)j + 0.5) / IG_GRID;
		for (s = 0, i = 0; i < g->nlive; i++) {
			k = 2 * i + (size_t)ig_bad(x, g->live[i]);
			sc = g->ls[k];
			z = (y - g->lm[k]) / sc;
			g->pn[i] = g->p[g->live[i]] *
			    exp(-0.5 * (nu + 1) * log1p(z * z / nu)) / sc;
			s += g->pn[i];
		}
		if (!(s > 0))
			continue;
		for (ent = 0, i = 0; i < g->nlive; i++)
			if (g->pn[i] > 0) {
				q = g->pn[i] / s;
				ent -= q * log(q);
			}
		e += s * ent;
		wsum += s;
	}
	return wsum > 0 ? e / wsum : INFINITY;
}

/*
 * The probe with the least expected entropy among the endpoints, the
 * posterior's quantiles, the top culprit and its parent.
 */
static uint32_t
ig_choose(struct ig *g, size_t top)
{
	uint32_t cand[IG_QUANTILES + 4], best;
	size_t nc = 0, h, q = 1, i;
	double cum = 0, lo, hi, sd, e, beste = INFINITY, mg, mb;

	ig_predictives(g);
	cand[nc++] = SIM_NONE;
	cand[nc++] = (uint32_t)(g->n - 1);
	for (h = 0; h + 1 < g->n && q < IG_QUANTILES; h++) {
		cum += g->p[h];
		for (; q < IG_QUANTILES && cum >= (double)q / IG_QUANTILES; q++)
			if (cand[nc - 1] != h)
				cand[nc++] = (uint32_t)h;
	}
	cand[nc++] = (uint32_t)top;
	if (top > 0)
		cand[nc++] = (uint32_t)(top - 1);
	mg = ig_mean(&g->grp[2 * top]);
	mb = ig_mean(&g->grp[2 * top + 1]);
	sd = sqrt(ig_ssw(g, top) / (double)(g->ns - 2));
	lo = fmin(mg, mb) - 5 * sd;
	hi = fmax(mg, mb) + 5 * sd;
	best = cand[0];
	for (i = 0; i < nc; i++) {
		e = ig_expected_entropy(g, cand[i], lo, hi);
		if (e < beste) {
			beste = e;
			best = cand[i];
		}
	}
	return best;
}

/* One run at x, counted as the other strategies count theirs. */
static void
ig_take(struct sim_world *w, struct ig *g, uint32_t x, uint8_t *built,
    struct sim_result *r)
{
	ig_add(g, x, sim_world_sample(w, x));
	r->samples++;
	if (x == SIM_NONE || x == w->g.n - 1)
		r->endpoint_samples++;
	if (x != SIM_NONE && !built[x]) {
		built[x] = 1;
		r->builds++;
	}
}

/* Two runs a side, then the best probe until the engine's stop rule holds. */
void
sim_infogain(struct sim_world *w, double stop_mass, double exist_alpha,
    unsigned max_samples, struct sim_result *r)
{
	struct ig g;
	uint8_t *built;
	size_t top;
	int i;

	memset(r, 0, sizeof(*r));
	r->verdict = SIM_FAILED;
	if (strcmp(w->cs->dag, "linear") != 0 || w->cs->skip > 0 ||
	    w->cs->null || strcmp(w->cs->noise, "passfail") == 0)
		return;
	ig_init(&g, w->g.n);
	built = xcalloc(w->g.n, 1);
	for (i = 0; i < 2; i++) {
		ig_take(w, &g, (uint32_t)(w->g.n - 1), built, r);
		ig_take(w, &g, SIM_NONE, built, r);
	}
	r->verdict = SIM_INCONCLUSIVE;
	for (;;) {
		top = ig_posterior(&g);
		if (g.p[top] >= stop_mass && g.ns >= ENGINE_EXIST_MIN_SAMPLES &&
		    ig_exist_lbf(&g) >= -log(exist_alpha)) {
			r->verdict = SIM_DONE;
			r->culprit = (uint32_t)top;
			r->confidence = g.p[top];
			break;
		}
		if (r->samples >= max_samples)
			break;
		ig_take(w, &g, ig_choose(&g, top), built, r);
	}
	for (i = 0; i < 3; i++)
		r->rounds[i] = r->samples;	/* one probe at a time */
	free(built);
	ig_release(&g);
}
