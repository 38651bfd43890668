/* SPDX-License-Identifier: MIT */
/*
 * Bisection engine: decisions.  What to sample next (reproduction looks,
 * then probes chosen by expected information per unit cost, k at a time at
 * posterior quantiles), when to stop, and the status summary.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/engine.h"
#include "bisect/engine_int.h"
#include "common/xmalloc.h"

/* I(q) by linear interpolation in the table. */
static double
info_at(const struct engine_priv *v, double q)
{
	double x;
	size_t i;

	if (q <= 0 || q >= 1)
		return 0;
	x = q * ENGINE_ITAB;
	i = (size_t)x;
	if (i >= ENGINE_ITAB)
		return v->itab[ENGINE_ITAB];
	return v->itab[i] + (x - (double)i) * (v->itab[i + 1] - v->itab[i]);
}

/*
 * A commit already built (sampled or in flight) costs one run.  A new one
 * also costs a build, spread over the runs it is expected to get: about
 * 1 / I(1/2) at low effect sizes, one at high ones.
 */
static double
probe_cost(const struct engine *e, uint32_t x)
{
	const struct engine_priv *v = e->priv;
	double amort = v->i_half < 1 ? v->i_half : 1;

	if (v->nsamp[x] > 0 || v->inflight[x] > 0)
		return e->p.run_cost;
	return e->p.run_cost + e->p.build_cost * amort;
}

/* Heaviest first, then lowest index, so ties break the same way on every rebuild. */
static int
cmp_cand(const void *a, const void *b)
{
	const struct engine_cand *x = a, *y = b;

	if (x->mass != y->mass)
		return x->mass > y->mass ? -1 : 1;
	return (x->commit > y->commit) - (x->commit < y->commit);
}

/*
 * Sorts candidates by mass into order[] and returns the size of the
 * smallest leading set that holds the confidence.
 */
static size_t
conf_set(const struct engine *e, struct engine_cand *order, double conf)
{
	const struct engine_priv *v = e->priv;
	double cum = 0;
	size_t c;

	for (c = 0; c < v->n; c++) {
		order[c].commit = (uint32_t)c;
		order[c].mass = v->mass[c];
	}
	qsort(order, v->n, sizeof(*order), cmp_cand);
	for (c = 0; c < v->n; c++) {
		cum += order[c].mass;
		if (cum >= conf - 1e-12)
			return c + 1;
	}
	return v->n;
}

/*
 * Whether some buildable commit has part, but not all, of the set among
 * its ancestors: only then can a sample tell set members apart.
 */
static int
splittable(struct engine *e, size_t ns)
{
	struct engine_priv *v = e->priv;
	double *cnt = v->buf;
	size_t k, x;

	if (ns <= 1)
		return 0;
	if (v->bufcap < v->n) {
		v->bufcap = v->n;
		v->buf = cnt = xreallocarray(v->buf, v->bufcap, sizeof(double));
	}
	memset(v->tmp, 0, v->n * sizeof(double));
	for (k = 0; k < ns; k++)
		v->tmp[v->order[k].commit] = 1;
	graph_prob_bad(e->g, v->tmp, cnt);
	for (x = 0; x < v->n; x++)
		if (!v->skip[x] && cnt[x] > 0.5 && cnt[x] < (double)ns - 0.5)
			return 1;
	return 0;
}

/*
 * The direct samples a verdict needs, as in git's "first bad commit": each
 * buildable member of the set, and each buildable parent of a member that
 * is outside the set.  Parents outside the candidates are good revisions,
 * sampled by the reproduction check.  Writes them to list, returns count.
 */
static size_t
required_missing(struct engine *e, size_t ns, uint32_t *list)
{
	struct engine_priv *v = e->priv;
	const struct graph *g = e->g;
	size_t k, nm = 0, j;
	uint32_t c, p;

	for (k = 0; k < ns; k++)
		v->mark[v->order[k].commit] = 1;
	for (k = 0; k < ns; k++) {
		c = v->order[k].commit;
		if (!v->skip[c] && v->nsamp[c] == 0 && v->mark[c] != 2) {
			list[nm++] = c;
			v->mark[c] = 2;
		}
		for (j = g->par_off[c]; j < g->par_off[c + 1]; j++) {
			p = g->par[j];
			if (v->mark[p] == 0 && !v->skip[p] && v->nsamp[p] == 0) {
				list[nm++] = p;
				v->mark[p] = 3;
			}
		}
	}
	for (k = 0; k < ns; k++) {
		c = v->order[k].commit;
		v->mark[c] = 0;
		for (j = g->par_off[c]; j < g->par_off[c + 1]; j++)
			v->mark[g->par[j]] = 0;
	}
	return nm;
}

/* Lists the leading candidates of the set in the action, with the set's whole mass. */
static void
set_cands(struct engine *e, size_t ns, struct engine_action *out)
{
	struct engine_priv *v = e->priv;
	size_t k;

	out->nset = ns;
	out->ncands = ns < ENGINE_MAX_CANDS ? ns : ENGINE_MAX_CANDS;
	out->confidence = 0;
	for (k = 0; k < ns; k++) {
		if (k < out->ncands)
			v->cands[k] = v->order[k];
		out->confidence += v->order[k].mass;
	}
	out->cands = v->cands;
}

/*
 * A set that cannot be split is the answer: one buildable commit, or git's
 * "culprit among".  The confidence stated is the lesser of the set's mass
 * and claim_cap, the mass a second model of the same samples gives it.
 */
static void
verdict(struct engine *e, size_t ns, double claim_cap,
    struct engine_action *out)
{
	struct engine_priv *v = e->priv;

	if (ns == 1 && !v->skip[v->order[0].commit]) {
		out->kind = ENGINE_DONE;
		out->culprit = v->order[0].commit;
		out->confidence = fmin(v->order[0].mass, claim_cap);
		return;
	}
	out->kind = ENGINE_AMONG;
	set_cands(e, ns, out);
	out->confidence = fmin(out->confidence, claim_cap);
}

/*
 * How many distinct points a round of k probes should use: the count that
 * maximises the round's mutual information on a chain, each sample seen as
 * a binary symmetric channel carrying I(1/2) bits.  Many points win at
 * large effects, repeats at a few points at small ones.
 */
static unsigned
batch_points(struct engine *e, unsigned k, size_t useful)
{
	struct engine_priv *v = e->priv;
	unsigned m, j, best_m = 1, reps[64];
	int cq = (int)(v->i_half * 200);
	double eps, mi, best = -1;

	if (k <= 1)
		return k;
	if (k == v->cache_k && cq == v->cache_q && v->cache_m <= useful)
		return v->cache_m;
	eps = stats_bsc_eps(v->i_half);
	for (m = 1; m <= k && m <= useful && m <= 64; m++) {
		for (j = 0; j < m; j++)
			reps[j] = k / m + (j < k % m);
		mi = stats_nested_mi(eps, reps, m);
		if (mi > best + 1e-9) {
			best = mi;
			best_m = m;
		}
	}
	v->cache_k = k;
	v->cache_q = cq;
	v->cache_m = best_m;
	return best_m;
}

/*
 * Best commit for quantile point j of m: the information of a sample
 * inside the interval between the neighbouring points, per unit cost.
 */
static uint32_t
best_for_point(struct engine *e, unsigned j, unsigned m)
{
	struct engine_priv *v = e->priv;
	double lo = (double)(j - 1) / (m + 1), hi = (double)(j + 1) / (m + 1);
	double best = 1e-9, s;
	uint32_t x, arg = ENGINE_GOOD;

	for (x = 0; x < v->n; x++) {
		if (v->skip[x] || v->mark[x])
			continue;
		s = info_at(v, (v->q[x] - lo) / (hi - lo));
		if (s <= 0)
			continue;
		s /= probe_cost(e, x);
		if (s > best) {
			best = s;
			arg = x;
		}
	}
	return arg;
}

/* Points 1..m, the most central (nearest the posterior median) first. */
static void
central_order(unsigned m, unsigned *js)
{
	unsigned i, k, j;

	for (i = 0; i < m; i++) {
		j = i + 1;
		for (k = i; k > 0 && abs(2 * (int)js[k - 1] - (int)m - 1) >
		    abs(2 * (int)j - (int)m - 1); k--)
			js[k] = js[k - 1];
		js[k] = j;
	}
}

/*
 * The ideal round for k hosts, in priority order (central points first,
 * then repeats): k entries or fewer when few commits are worth sampling.
 */
static size_t
plan(struct engine *e, unsigned k, uint32_t *out)
{
	struct engine_priv *v = e->priv;
	unsigned m, j, idx, reps[64], pts[64], order[64], npts = 0, pass, extra;
	size_t useful = 0, no = 0, x;
	uint32_t c;

	for (x = 0; x < v->n; x++)
		if (!v->skip[x] && info_at(v, v->q[x]) > 1e-7)
			useful++;
	if (useful == 0 || k == 0)
		return 0;
	m = batch_points(e, k > 64 ? 64 : k, useful);
	central_order(m, order);
	for (idx = 0; idx < m; idx++) {
		j = order[idx];
		c = best_for_point(e, j, m);
		if (c == ENGINE_GOOD)
			continue;
		v->mark[c] = 1;
		reps[npts] = k / m + (j - 1 < k % m);
		pts[npts++] = c;
	}
	for (idx = 0; idx < npts; idx++)
		v->mark[pts[idx]] = 0;
	if (npts == 0)
		return 0;
	/* Points that found no commit give their repeats to the others. */
	for (extra = k, idx = 0; idx < npts; idx++)
		extra -= reps[idx];
	for (idx = 0; extra > 0; idx = (idx + 1) % npts, extra--)
		reps[idx]++;
	for (pass = 0; no < k; pass++)
		for (idx = 0; idx < npts && no < k; idx++)
			if (pass < reps[idx])
				out[no++] = pts[idx];
	return no;
}

/* Probes in flight, all and at candidates other than the bad endpoint. */
static size_t
inflight_total(const struct engine *e, size_t *cand)
{
	const struct engine_priv *v = e->priv;
	size_t x, t = 0;

	for (x = 0; x < v->n; x++)
		if (x != e->bad)
			t += v->inflight[x];
	*cand = t;
	return t + v->inflight[e->bad] + v->inflight_good;
}

/*
 * Adds plan entries that are not already covered by probes in flight,
 * until nfree probes are out.
 */
static void
fill_from_plan(struct engine *e, unsigned nfree, size_t cand_inflight)
{
	struct engine_priv *v = e->priv;
	unsigned k = (unsigned)(nfree - v->nprobes + cand_inflight);
	uint32_t *pl = xcalloc(k ? k : 1, sizeof(uint32_t));
	size_t np = plan(e, k, pl), i;

	/* tmp[c] counts in-flight probes not yet matched to the plan. */
	for (i = 0; i < np; i++)
		v->tmp[pl[i]] = v->inflight[pl[i]];
	for (i = 0; i < np && v->nprobes < nfree; i++) {
		if (v->tmp[pl[i]] > 0.5) {
			v->tmp[pl[i]] -= 1;
			continue;
		}
		engine_push_probe(e, pl[i]);
	}
	for (i = 0; i < np; i++)
		v->tmp[pl[i]] = 0;
	free(pl);
}

/* Effect (noise sds) above which the shared mode spaces its re-checks. */
#define DRIFT_SPACED_EFFECT 2.5

/*
 * A commit's centre this many standard errors from both levels says the
 * levels are wrong (a wild run among a side's first two values), not that
 * the commit is unlucky.
 */
#define MISFIT_Z 4.0

/*
 * Endpoint values a side needs before its robust location can reject one
 * wild run by itself; below it a commit off both levels re-checks it.
 */
#define MISFIT_SIDE_MIN 3

/*
 * Whether a candidate sampled after sample `from` has its centre (the
 * median of its values within misfit_scales of a level, two at least; or
 * two values and all beyond) off both levels.
 */
static int
levels_misfit(const struct engine *e, size_t from)
{
	const struct engine_priv *v = e->priv;
	double *x, m, se, z;
	uint8_t *seen;
	size_t i, j, n, wild;
	uint32_t c;
	int doubt = 0;

	if (!v->levels_ok || !(v->scale > 0) || v->nlev_g == 0 ||
	    v->nlev_b == 0)
		return 0;
	x = xcalloc(v->ns + 1, sizeof(double));
	seen = xcalloc(v->nslots + 1, 1);
	for (i = from; i < v->ns && !doubt; i++) {
		c = v->sc[i];
		if (c == ENGINE_GOOD || c == e->bad || seen[v->slot[c] - 1])
			continue;
		seen[v->slot[c] - 1] = 1;
		for (n = 0, wild = 0, j = 0; j < v->ns; j++) {
			if (v->sc[j] != c)
				continue;
			if (engine_misfit(e, v->adj[j]))
				wild++;
			else
				x[n++] = v->adj[j];
		}
		if (n == 0 && wild >= 2) {
			doubt = 1;
			break;
		}
		if (n < 2)
			continue;
		m = stats_median_inplace(x, n);
		se = v->scale * sqrt(1 / (double)n + 1 / (double)v->nlev_g);
		z = fabs(m - v->mu_g) / se;
		se = v->scale * sqrt(1 / (double)n + 1 / (double)v->nlev_b);
		z = fmin(z, fabs(m - v->mu_b) / se);
		doubt = z > MISFIT_Z;
	}
	free(x);
	free(seen);
	return doubt;
}

/*
 * Whether an endpoint must be re-checked at once, and which (*side): the
 * side with fewer endpoint values (the older on a tie) while it has fewer
 * than MISFIT_SIDE_MIN, when a commit sampled since its last value sits
 * off both levels.  With two values a side no location is robust, and in
 * the simulator a good side of {-0.01, 22.2} (a wild run and a true level
 * of 20) put the good level at 11; the scale then came from a commit's
 * repeats, the effect looked like 30 scales, and the spaced re-checks
 * left the engine sampling a good commit at 19.5 ten times.  From three
 * values a side the rule stays quiet: a commit between two culprits sits
 * off both levels for good, and re-checking with its every sample would
 * buy nothing.
 */
static int
misfit_recheck(const struct engine *e, int last_good, uint32_t *side)
{
	const struct engine_priv *v = e->priv;
	size_t i, from = 0;

	if (v->ng != v->nb)
		*side = v->ng < v->nb ? ENGINE_GOOD : e->bad;
	else
		*side = last_good == 1 ? e->bad : ENGINE_GOOD;
	if ((*side == ENGINE_GOOD ? v->ng : v->nb) >= MISFIT_SIDE_MIN)
		return 0;
	for (i = v->ns; i-- > 0;)
		if (v->sc[i] == *side) {
			from = i + 1;
			break;
		}
	return levels_misfit(e, from);
}

/*
 * Re-checks an endpoint when drift_check candidate samples (in flight
 * included) have come since the last endpoint sample, half as many while
 * the drift model adjusts the values: the drift test and model need values of known side
 * spread over time.  The side whose last sample is older goes first.  The
 * shared mode spaces them by (effect / DRIFT_SPACED_EFFECT)^2 more above
 * that effect: a drift of 2 sd then moves no value far towards the other
 * level.  Without the Bayes factor over all samples (exist_alpha = 0) the
 * spacing waits for the confirmed change, since before it the re-checks
 * feed the endpoint test, which must not starve while the bisection runs.
 * A commit off both levels can call one at once (misfit_recheck).
 */
static void
recheck_probes(struct engine *e, unsigned nfree)
{
	struct engine_priv *v = e->priv;
	size_t since = 0, i, cand_if, every = e->p.drift_check;
	int last_good = -1;
	uint32_t side;
	double d;

	if (e->p.drift_check == 0 || e->p.metric != ENGINE_NUMERIC ||
	    v->nprobes >= nfree || v->inflight_good + v->inflight[e->bad] > 0)
		return;
	for (i = v->ns; i-- > 0;) {
		if (v->sc[i] == ENGINE_GOOD || v->sc[i] == e->bad) {
			if (last_good < 0)
				last_good = v->sc[i] == ENGINE_GOOD;
			break;
		}
		since++;
	}
	inflight_total(e, &cand_if);
	/* Once drift is found the model needs more values of known side. */
	if (v->drift_on)
		every = every / 2 > 2 ? every / 2 : 2;
	else if (e->p.mode == ENGINE_MODE_SHARED &&
	    (v->reproduced || e->p.exist_alpha > 0)) {
		/* A drift of 2 sd cannot pass for a side at a large effect. */
		d = fabs(v->mu_b - v->mu_g) / v->scale / DRIFT_SPACED_EFFECT;
		if (d > 1)
			every = (size_t)((double)every * fmin(d * d, 1e6));
	}
	if (since + cand_if >= every)
		engine_push_probe(e, last_good == 1 ? e->bad : ENGINE_GOOD);
	else if (misfit_recheck(e, last_good, &side))
		engine_push_probe(e, side);
}

/*
 * Stricter than the reported target, because with few samples per commit
 * and noise the model does not capture (bimodal, drifting) the posterior
 * overstates itself; the margin makes the reported confidence hold in the
 * simulator (docs/statistics.md).
 */
double
engine_stop_mass(const struct engine_params *p)
{
	return 1 - (1 - p->confidence) * p->stop_margin;
}

static double
stop_mass(const struct engine *e)
{
	return engine_stop_mass(&e->p);
}

/*
 * Effect lower bound (noise units) above which the shared mode bisects
 * before the change is confirmed; below it (first looks of a small
 * change, null ranges) the endpoints come first.  0.75 rather than 1:
 * 1.1-1.9 fewer samples at d = 2 over 1000 simulated bisections a noise
 * model, for 2-3% more on null ranges; lower still costs null ranges more
 * (docs/statistics-history.md).
 */
#define SHARED_CLEAR_EFFECT 0.75

/*
 * Effect lower bound above which the shared mode counts classified
 * candidates towards the level-precision rule, which it keeps for pass/fail
 * only (a numeric verdict asks the integrated posterior, verdict_holds).
 * Below it the levels decide the verdict and candidates counted in a level
 * can confirm themselves: counting them at every effect left 1-4% wrong
 * culprits at d = 1 and for flaky pass/fail, and the calibration failed
 * (docs/statistics-history.md).
 */
#define SHARED_SIDES_EFFECT 1.5

/*
 * Whether each side holds the samples the level-precision rule asks for:
 * endpoint samples, or in the shared mode (pass/fail) above
 * SHARED_SIDES_EFFECT every sample of known side.
 */
static int
levels_known(const struct engine *e)
{
	const struct engine_priv *v = e->priv;
	double lower;
	size_t need = engine_level_need(e, &lower);

	if (lower >= SHARED_SIDES_EFFECT)
		return v->nlev_g >= need && v->nlev_b >= need;
	return v->ng >= need && v->nb >= need;
}

/*
 * What the shared mode asks of the endpoints before more bisection
 * probes.  While the effect's lower bound is below SHARED_CLEAR_EFFECT (at the
 * first looks and on null ranges) the endpoints come first: the check's
 * next look, as the staged mode would.  Otherwise endpoint samples wait
 * (but for the drift re-checks) until the posterior is ready for a
 * verdict (ready): then the check must have confirmed the change.  A
 * pass/fail metric also tops each side up to what the levels need
 * (levels_known); a numeric one has no such rule and reaches this only
 * before the change is confirmed (verdict_holds).
 */
static void
shared_endpoints(struct engine *e, unsigned nfree, int ready)
{
	struct engine_priv *v = e->priv;
	size_t need;
	double lower;

	need = engine_level_need(e, &lower);
	if (!v->reproduced && (ready || !(lower >= SHARED_CLEAR_EFFECT)))
		engine_repro_fill(e, nfree);
	else if (ready)
		engine_endpoint_fill(e, nfree, need,
		    lower >= SHARED_SIDES_EFFECT);
}

/*
 * Whether the set, whose direct samples are all in, may be the verdict.
 * The staged mode has confirmed the change and topped the levels up
 * before it bisects.  The shared mode needs the change confirmed and the
 * levels settled: the posterior with the levels and the scale (pass/fail:
 * the failure rates) integrated out must also give the set the stop mass
 * (its mass goes to *claim_cap).  For a numeric metric it replaces the
 * level-precision rule, which asked for about 64/d^2 samples a side
 * whatever the samples showed and still let a scale drawn small from few
 * samples through.  Pass/fail keeps the rule as well: its rates decide
 * how much one pass or failure says.
 */
static int
verdict_holds(struct engine *e, size_t ns, double *claim_cap)
{
	struct engine_priv *v = e->priv;

	*claim_cap = 1;
	if (e->p.mode != ENGINE_MODE_SHARED)
		return 1;
	if (!v->reproduced)
		return 0;
	if (e->p.metric != ENGINE_NUMERIC && !levels_known(e))
		return 0;
	*claim_cap = engine_integrated_mass(e, v->order, ns);
	return *claim_cap >= stop_mass(e);
}

/*
 * Verdict first, then budget, endpoint top-ups, required direct samples,
 * an endpoint re-check when one is due, and the plan for the rest.
 */
static void
bisect_next(struct engine *e, unsigned nfree, struct engine_action *out)
{
	struct engine_priv *v = e->priv;
	size_t ns, nmiss = 0, cand_if, all_if, i, budget;
	int shared = e->p.mode == ENGINE_MODE_SHARED, ready = 0, doubt = 0;
	uint32_t *miss = NULL;
	double lower, claim_cap = 1;

	engine_info_table(e);
	ns = conf_set(e, v->order, stop_mass(e));
	if (!splittable(e, ns)) {
		miss = xcalloc(2 * ns + 2 * e->g->par_off[v->n] + 1,
		    sizeof(uint32_t));
		nmiss = required_missing(e, ns, miss);
		ready = nmiss == 0;
		if (ready && verdict_holds(e, ns, &claim_cap)) {
			free(miss);
			verdict(e, ns, claim_cap, out);
			return;
		}
		/* Where the two models disagree, the bisection goes on. */
		doubt = ready && claim_cap < stop_mass(e);
		if (doubt)
			ready = 0;
	}
	all_if = inflight_total(e, &cand_if);
	if (v->ns >= e->p.max_samples) {
		free(miss);
		if (all_if > 0) {
			out->kind = ENGINE_WAIT;
			return;
		}
		out->kind = ENGINE_INCONCLUSIVE;
		set_cands(e, ns, out);
		return;
	}
	budget = e->p.max_samples - v->ns;
	budget = budget > all_if ? budget - all_if : 0;
	if (nfree > budget)
		nfree = (unsigned)budget;
	if (shared)
		shared_endpoints(e, nfree, ready);
	else
		engine_endpoint_fill(e, nfree, engine_level_need(e, &lower), 0);
	for (i = 0; i < nmiss && v->nprobes < nfree; i++)
		if (v->inflight[miss[i]] == 0) {
			engine_push_probe(e, miss[i]);
			cand_if++;
		}
	free(miss);
	recheck_probes(e, nfree);
	if (v->nprobes < nfree && !ready)
		fill_from_plan(e, nfree, cand_if);
	/* Nothing the plan would split: the levels are what is in doubt. */
	if (doubt && v->nprobes == 0 && all_if == 0)
		engine_endpoint_fill(e, nfree, (v->ng < v->nb ? v->ng : v->nb) + 1,
		    0);
	if (v->nprobes > 0)
		out->kind = ENGINE_SAMPLE;
	else if (all_if > 0 || nfree == 0)
		out->kind = ENGINE_WAIT;
	else
		verdict(e, ns, 1, out);	/* nothing left that could split it */
}

/* Dispatches on the phase; the probes array is the engine's and valid until the next call. */
void
engine_next(struct engine *e, unsigned free_hosts, struct engine_action *out)
{
	struct engine_priv *v = e->priv;

	memset(out, 0, sizeof(*out));
	v->nprobes = 0;
	switch (v->phase) {
	case ENGINE_PHASE_NOT_REPRODUCED:
		out->kind = ENGINE_NOT_REPRODUCED;
		break;
	case ENGINE_PHASE_REPRO:
		engine_repro_next(e, free_hosts, out);
		break;
	case ENGINE_PHASE_BISECT:
		bisect_next(e, free_hosts, out);
		break;
	}
	out->probes = v->probes;
	out->nprobes = out->kind == ENGINE_SAMPLE ? v->nprobes : 0;
}

/* Summarises the state for status displays; reads only, so a daemon may call it at any time. */
void
engine_status(const struct engine *e, struct engine_status *st)
{
	const struct engine_priv *v = e->priv;
	struct engine_cand *order = xcalloc(v->n, sizeof(*order));
	size_t x, cand_if;
	double h = 0;

	memset(st, 0, sizeof(*st));
	st->phase = v->phase;
	st->reproduced = v->reproduced;
	st->change_lbf = e->p.mode == ENGINE_MODE_SHARED &&
	    e->p.exist_alpha > 0 && e->p.metric == ENGINE_NUMERIC ?
	    v->exist_lbf : NAN;
	st->samples = v->ns;
	st->good_samples = v->ng;
	st->bad_samples = v->nb;
	st->commits_sampled = v->nslots;
	st->inflight = inflight_total(e, &cand_if);
	st->misfits = v->misfits;
	st->drift = v->drift;
	st->drift_size = v->drift ? v->drift_size : 0;
	st->repro = v->rstat;
	if (e->p.metric == ENGINE_PASSFAIL) {
		st->good_level = v->pg;
		st->bad_level = v->pb;
		st->effect = fabs(v->pb - v->pg);
	} else {
		st->good_level = v->mu_g;
		st->bad_level = v->mu_b;
		st->scale = v->scale;
		st->effect = fabs(v->mu_b - v->mu_g) / v->scale;
	}
	st->candidates_left = conf_set(e, order, stop_mass(e));
	for (x = 0; x < v->n; x++) {
		st->skipped += v->skip[x];
		st->nonnegligible += v->mass[x] >= 1e-4;
		if (v->mass[x] > 0)
			h -= v->mass[x] * log2(v->mass[x]);
	}
	st->ntop = v->n < 3 ? v->n : 3;
	memcpy(st->top, order, st->ntop * sizeof(*order));
	free(order);
	/*
	 * Bits still missing (entropy plus the confidence margin) over the
	 * bits one sample brings; the reproduction check adds its looks.
	 */
	st->est_samples_left = (h + 2) / fmax(engine_info_half(e), 0.02);
	if (v->phase == ENGINE_PHASE_REPRO) {
		size_t have = v->ng < v->nb ? v->ng : v->nb;
		size_t look = v->look < v->nlooks ? v->look : v->nlooks - 1;

		st->est_samples_left = log2((double)v->n) + 2;
		if (v->looks[look] > have)
			st->est_samples_left += 2.0 * (v->looks[look] - have);
	} else if (v->phase == ENGINE_PHASE_NOT_REPRODUCED)
		st->est_samples_left = 0;
}
