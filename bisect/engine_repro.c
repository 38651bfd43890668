/* SPDX-License-Identifier: MIT */
/*
 * Bisection engine: "is there a change at all".  In the staged mode the
 * endpoints answer it before any bisection (the reproduction check of
 * bisect/repro.c on the good and the bad endpoint).  In the shared mode
 * (the default) the bisection starts after the check's first look and the
 * check goes on beside it, on endpoint samples that also serve the levels
 * and the drift re-checks; the candidates' samples serve the levels and
 * the Bayes factor of bisect/engine_exist.c, which can confirm the change
 * before the endpoints do.
 * Also here: the endpoint samples each mode asks for.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/engine.h"
#include "bisect/engine_int.h"
#include "common/xmalloc.h"

/* Records a probe in the action and counts it as in flight. */
void
engine_push_probe(struct engine *e, uint32_t c)
{
	struct engine_priv *v = e->priv;

	if (v->nprobes == v->probecap) {
		v->probecap = v->probecap ? 2 * v->probecap : 16;
		v->probes = xreallocarray(v->probes, v->probecap,
		    sizeof(uint32_t));
	}
	v->probes[v->nprobes++] = c;
	if (c == ENGINE_GOOD)
		v->inflight_good++;
	else
		v->inflight[c]++;
}

/*
 * Runs the test at the look the endpoint samples have reached, on their
 * raw values.  Candidates do not count here, even those whose side the
 * posterior knows: which candidates look like a side depends on the
 * levels, which they move, and in the simulator that self-confirmation
 * took null ranges to p values of 1e-5 within 60 samples
 * (docs/statistics-history.md).
 */
static enum repro_result
run_look(struct engine *e, size_t have)
{
	struct engine_priv *v = e->priv;
	size_t look = v->look, k, ng = 0, nb = 0;
	double *good, *bad;
	enum repro_result r;

	while (look + 1 < v->nlooks && v->looks[look + 1] <= have)
		look++;
	good = xcalloc(v->ng + 1, sizeof(double));
	bad = xcalloc(v->nb + 1, sizeof(double));
	for (k = 0; k < v->ns; k++) {
		if (v->sc[k] == ENGINE_GOOD)
			good[ng++] = v->sv[k];
		else if (v->sc[k] == e->bad)
			bad[nb++] = v->sv[k];
	}
	r = repro_decide(&v->rp, good, ng, bad, nb, look + 1 == v->nlooks,
	    &v->rstat);
	free(good);
	free(bad);
	v->look = look + 1;
	return r;
}

/*
 * The endpoint check while the engine is in its reproduction phase.  In
 * the shared mode an undecided first look starts the bisection at once;
 * engine_repro_shared goes on with the test.
 */
void
engine_repro_step(struct engine *e)
{
	struct engine_priv *v = e->priv;
	size_t have = v->ng < v->nb ? v->ng : v->nb;
	enum repro_result r;

	if (v->phase != ENGINE_PHASE_REPRO || v->look >= v->nlooks ||
	    have < v->looks[v->look])
		return;
	r = run_look(e, have);
	if (r == REPRO_REPRODUCED) {
		v->phase = ENGINE_PHASE_BISECT;
		v->reproduced = 1;
	} else if (r == REPRO_NOT_REPRODUCED)
		v->phase = ENGINE_PHASE_NOT_REPRODUCED;
	else if (e->p.mode == ENGINE_MODE_SHARED)
		v->phase = ENGINE_PHASE_BISECT;
}

/*
 * Shared mode, during bisection and before the change is confirmed: the
 * next look once both endpoints have reached its size.  The bisection
 * decides when endpoint samples are taken, never what they are, so the
 * staged check's calibration holds.
 */
void
engine_repro_shared(struct engine *e)
{
	struct engine_priv *v = e->priv;
	size_t have = v->ng < v->nb ? v->ng : v->nb;
	enum repro_result r;

	if (e->p.mode != ENGINE_MODE_SHARED || v->phase != ENGINE_PHASE_BISECT ||
	    v->reproduced || v->look >= v->nlooks || have < v->looks[v->look])
		return;
	r = run_look(e, have);
	if (r == REPRO_REPRODUCED)
		v->reproduced = 1;
	else if (r == REPRO_NOT_REPRODUCED)
		v->phase = ENGINE_PHASE_NOT_REPRODUCED;
}

/*
 * Fills the current look of the reproduction check, bad side first on a
 * tie; hosts left over go to the next looks, whose samples will be needed
 * anyway unless the check ends early (with looks a sample apart, filling
 * only the current one would leave most hosts idle).
 */
void
engine_repro_fill(struct engine *e, unsigned nfree)
{
	struct engine_priv *v = e->priv;
	size_t look = v->look < v->nlooks ? v->look : v->nlooks - 1;
	size_t target = v->looks[look], hg, hb;

	while (v->nprobes < nfree) {
		hg = v->ng + v->inflight_good;
		hb = v->nb + v->inflight[e->bad];
		if (hb < target && hb <= hg)
			engine_push_probe(e, e->bad);
		else if (hg < target)
			engine_push_probe(e, ENGINE_GOOD);
		else if (hb < target)
			engine_push_probe(e, e->bad);
		else if (look + 1 < v->nlooks)
			target = v->looks[++look];
		else
			break;
	}
}

/* The reproduction phase: nothing but the check's looks. */
void
engine_repro_next(struct engine *e, unsigned nfree, struct engine_action *out)
{
	engine_repro_fill(e, nfree);
	out->kind = e->priv->nprobes > 0 ? ENGINE_SAMPLE : ENGINE_WAIT;
}

/*
 * The effect in scales (numeric) or the failure-rate gap over its
 * standard deviation (pass/fail), one standard error below its estimate,
 * and the samples per side that know it to about 1/sqrt(level_samples /
 * 2) of itself (18% by default): the posterior treats the levels as
 * known, and an effect overestimated by a third makes a 0.99 claim worth
 * much less.  The lower bound keeps an overestimate from asking for too
 * few samples exactly when they are needed.  Returns the samples per side
 * (repro_max when the effect is not clear) and stores the lower bound.
 */
size_t
engine_level_need(const struct engine *e, double *lower)
{
	const struct engine_priv *v = e->priv;
	double gap, var, n, ng = (double)v->nlev_g, nb = (double)v->nlev_b;

	*lower = 0;
	if (ng < 1 || nb < 1)
		return e->p.repro_max;
	if (e->p.metric == ENGINE_PASSFAIL) {
		var = v->pg * (1 - v->pg) + v->pb * (1 - v->pb);
		gap = fabs(v->pb - v->pg) - sqrt(v->pg * (1 - v->pg) / ng +
		    v->pb * (1 - v->pb) / nb);
		n = e->p.level_samples / 2 * var / (gap * gap);
		*lower = gap / sqrt(var / 2);
	} else {
		gap = fabs(v->mu_b - v->mu_g) / v->scale -
		    sqrt(1 / ng + 1 / nb);
		n = e->p.level_samples / (gap * gap);
		*lower = gap;
	}
	if (!(gap > 0) || !(n < e->p.repro_max))
		return e->p.repro_max;
	return (size_t)ceil(n);
}

/*
 * Endpoint samples until each side holds need samples: endpoint samples
 * (sides = 0) or every sample of known side (sides = 1), in flight
 * counted as endpoint samples.  The side with fewer goes first, the bad
 * one on a tie.
 */
void
engine_endpoint_fill(struct engine *e, unsigned nfree, size_t need,
    int sides)
{
	struct engine_priv *v = e->priv;
	size_t hg, hb;

	while (v->nprobes < nfree) {
		hg = (sides ? v->nlev_g : v->ng) + v->inflight_good;
		hb = (sides ? v->nlev_b : v->nb) + v->inflight[e->bad];
		if (hb < need && hb <= hg)
			engine_push_probe(e, e->bad);
		else if (hg < need)
			engine_push_probe(e, ENGINE_GOOD);
		else if (hb < need)
			engine_push_probe(e, e->bad);
		else
			break;
	}
}
