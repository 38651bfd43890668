/* SPDX-License-Identifier: MIT */
/*
 * Bisection engine: events, levels and the posterior.  The decisions
 * (engine_next, the stopping rules and the probe plan) are in
 * engine_next.c; both share bisect/engine_int.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/engine.h"
#include "bisect/engine_int.h"
#include "bisect/stats.h"
#include "common/agg.h"
#include "common/xmalloc.h"

/* Defaults whose reasons are in docs/statistics.md, "Parameters". */
void
engine_params_default(struct engine_params *p)
{
	memset(p, 0, sizeof(*p));
	p->confidence = 0.99;
	p->stop_margin = 0.5;
	p->max_samples = 500;
	p->repro_min = 2;
	p->repro_max = 100;
	p->repro_growth = 1.05;
	p->repro_alpha = 0.0025;
	p->repro_beta = 0.01;
	p->repro_effect = 0.8;
	p->repro_gap = 0.25;
	p->exist_alpha = 0.0005;
	p->null_min_change = 1;
	p->min_change = 0.01;
	p->build_cost = 1;
	p->run_cost = 1;
	p->metric = ENGINE_NUMERIC;
	p->direction = 0;
	p->t_dof = 4;
	p->contamination = 0.02;
	p->level_samples = 64;
	p->level_p = 0.001;
	p->misfit_scales = 6;
	p->scale_floor_rel = 1e-4;
	p->resolution = 0;
	p->drift_check = 4;
	p->drift_z = 2;
	p->mode = ENGINE_MODE_SHARED;
	p->prior = NULL;
}

/*
 * The engine before issue 15: the reproduction check first (from 3
 * samples a side), then the bisection; kept for comparison (bench-sim
 * runs both on the same seeds) and as a fallback.
 */
void
engine_params_staged(struct engine_params *p)
{
	engine_params_default(p);
	p->mode = ENGINE_MODE_STAGED;
	p->repro_min = 3;
	p->repro_growth = REPRO_GROWTH;
	p->repro_alpha = 0.01;
	p->exist_alpha = 0;
	p->null_min_change = 0;
}

/* Rejects parameters that would make the model meaningless. */
static int
check_params(const struct engine_params *p, size_t n, struct bd_error *err)
{
	double sum = 0;
	size_t i;

	if (!(p->stop_margin > 0 && p->stop_margin <= 1))
		return bd_error_set(err, -EINVAL, "stop_margin must be in (0, 1]");
	if (!(p->confidence > 0.5 && p->confidence < 1))
		return bd_error_set(err, -EINVAL, "confidence must be in (0.5, 1)");
	if (p->repro_min < 2 || p->repro_max < p->repro_min)
		return bd_error_set(err, -EINVAL,
		    "reproduction samples: need 2 <= min <= max");
	if (p->max_samples < 2 * p->repro_min)
		return bd_error_set(err, -EINVAL,
		    "max_samples %u is below the reproduction check's %u",
		    p->max_samples, 2 * p->repro_min);
	if (!(p->repro_alpha > 0 && p->repro_alpha < 0.5) ||
	    !(p->repro_beta > 0 && p->repro_beta < 0.5))
		return bd_error_set(err, -EINVAL,
		    "repro_alpha and repro_beta must be in (0, 0.5)");
	if (!(p->repro_growth > 1 && p->repro_growth <= 4))
		return bd_error_set(err, -EINVAL,
		    "repro_growth must be in (1, 4]");
	if (!(p->repro_effect > 0) || !(p->repro_gap > 0 && p->repro_gap < 1))
		return bd_error_set(err, -EINVAL,
		    "repro_effect must be > 0 and repro_gap in (0, 1)");
	if (!(p->min_change >= 0) || !(p->build_cost >= 0) ||
	    !(p->run_cost > 0) || !(p->t_dof > 0) ||
	    !(p->contamination > 0 && p->contamination < 0.5) ||
	    !(p->level_p >= 0 && p->level_p < 0.5) ||
	    !(p->level_samples >= 0) ||
	    !(p->misfit_scales > 0) || !(p->scale_floor_rel >= 0) ||
	    !(p->resolution >= 0) || !(p->drift_z >= 0) ||
	    !(p->exist_alpha >= 0 && p->exist_alpha < 0.5))
		return bd_error_set(err, -EINVAL, "engine parameter out of range");
	if (p->metric != ENGINE_NUMERIC && p->metric != ENGINE_PASSFAIL)
		return bd_error_set(err, -EINVAL, "unknown metric kind");
	if (p->mode != ENGINE_MODE_SHARED && p->mode != ENGINE_MODE_STAGED)
		return bd_error_set(err, -EINVAL, "unknown engine mode");
	if (p->prior != NULL) {
		for (i = 0; i < n; i++) {
			if (!(p->prior[i] >= 0) || isinf(p->prior[i]))
				return bd_error_set(err, -EINVAL,
				    "prior weight %zu is not a finite number >= 0", i);
			sum += p->prior[i];
		}
		if (!(sum > 0))
			return bd_error_set(err, -EINVAL, "prior weights sum to 0");
	}
	return 0;
}

/* Checks everything up front so that later events can only fail on bad input. */
int
engine_init(struct engine *e, const struct graph *g,
    const struct engine_params *p, struct bd_error *err)
{
	struct engine_priv *v;
	size_t n = g->n, i;
	int rc;

	memset(e, 0, sizeof(*e));
	if (n == 0 || n >= UINT32_MAX)
		return bd_error_set(err, -EINVAL, "empty candidate set");
	if ((rc = check_params(p, n, err)) != 0)
		return rc;
	v = xcalloc(1, sizeof(*v));
	v->n = n;
	v->tmp = xcalloc(n, sizeof(double));
	v->q = xcalloc(n, sizeof(double));
	/* The bad revision is the one commit every candidate reaches. */
	for (i = 0; i < n; i++)
		v->tmp[i] = 1;
	graph_prob_bad(g, v->tmp, v->q);
	if (fabs(v->q[n - 1] - (double)n) > 0.5) {
		free(v->tmp);
		free(v->q);
		free(v);
		return bd_error_set(err, -EINVAL,
		    "the last candidate is not a descendant of all others");
	}
	e->g = g;
	e->bad = (uint32_t)(n - 1);
	e->p = *p;
	e->p.prior = NULL;
	e->priv = v;
	stats_gh_init(&v->gh);
	v->nsamp = xcalloc(n, sizeof(uint32_t));
	v->skip = xcalloc(n, sizeof(uint8_t));
	v->inflight = xcalloc(n, sizeof(uint32_t));
	v->slot = xcalloc(n, sizeof(uint32_t));
	v->logprior = xcalloc(n, sizeof(double));
	v->L = xcalloc(n, sizeof(double));
	v->mass = xcalloc(n, sizeof(double));
	v->mark = xcalloc(n, sizeof(uint8_t));
	v->order = xcalloc(n, sizeof(struct engine_cand));
	for (i = 0; i < n; i++)
		v->logprior[i] = p->prior == NULL ? 0 :
		    p->prior[i] > 0 ? log(p->prior[i]) : -INFINITY;
	engine_repro_params(p, &v->rp);
	v->nlooks = repro_schedule(&v->rp, v->looks, REPRO_MAX_LOOKS);
	v->phase = ENGINE_PHASE_REPRO;
	v->llr_cap = log((1 - p->contamination) / p->contamination);
	v->nu = p->t_dof;
	engine_update(e);
	return 0;
}

/* Frees all the engine owns; the graph stays with the caller. */
void
engine_release(struct engine *e)
{
	struct engine_priv *v = e->priv;

	if (v != NULL) {
		free(v->sc);
		free(v->sv);
		free(v->adj);
		free(v->odd);
		free(v->infl);
		free(v->nsamp);
		free(v->skip);
		free(v->inflight);
		free(v->slot);
		free(v->slot_commit);
		free(v->slot_llr);
		free(v->slot_class);
		free(v->desc);
		free(v->logprior);
		free(v->L);
		free(v->mass);
		free(v->q);
		free(v->tmp);
		free(v->mark);
		free(v->order);
		free(v->buf);
		free(v->probes);
		free(v);
	}
	memset(e, 0, sizeof(*e));
}

/* A new sampled candidate gets a slot: a bit in the descendant sets. */
static void
add_slot(struct engine *e, uint32_t c)
{
	struct engine_priv *v = e->priv;

	if (v->nslots == v->slotcap) {
		v->slotcap = v->slotcap ? 2 * v->slotcap : 16;
		v->slot_commit = xreallocarray(v->slot_commit, v->slotcap,
		    sizeof(uint32_t));
		v->slot_llr = xreallocarray(v->slot_llr, v->slotcap,
		    sizeof(double));
		v->slot_class = xreallocarray(v->slot_class, v->slotcap,
		    sizeof(int8_t));
	}
	v->slot_commit[v->nslots] = c;
	v->slot_llr[v->nslots] = 0;
	v->slot_class[v->nslots] = 0;
	v->slot[c] = (uint32_t)++v->nslots;
	v->desc_dirty = 1;
}

/* Stores the value and recomputes the state, so the next action sees it. */
int
engine_add_sample(struct engine *e, uint32_t commit, double value,
    struct bd_error *err)
{
	struct engine_priv *v = e->priv;

	if (commit != ENGINE_GOOD && commit >= v->n)
		return bd_error_set(err, -EINVAL, "commit %u is not a candidate",
		    commit);
	if (!isfinite(value))
		return bd_error_set(err, -EINVAL, "sample value is not finite");
	if (!agg_value_valid(value))
		return bd_error_set(err, -ERANGE, "sample value %g is beyond %g "
		    "in magnitude", value, BD_VALUE_MAX);
	if (e->p.metric == ENGINE_PASSFAIL && value != 0 && value != 1)
		return bd_error_set(err, -EINVAL,
		    "pass/fail sample must be 0 (pass) or 1 (fail)");
	if (v->ns == v->scap) {
		v->scap = v->scap ? 2 * v->scap : 64;
		v->sc = xreallocarray(v->sc, v->scap, sizeof(uint32_t));
		v->sv = xreallocarray(v->sv, v->scap, sizeof(double));
		v->adj = xreallocarray(v->adj, v->scap, sizeof(double));
		v->odd = xreallocarray(v->odd, v->scap, 1);
		v->infl = xreallocarray(v->infl, v->scap, sizeof(double));
	}
	v->infl[v->ns] = 1;
	v->sc[v->ns] = commit;
	v->sv[v->ns] = value;
	v->adj[v->ns] = value;
	v->odd[v->ns] = 0;
	v->ns++;
	if (commit == ENGINE_GOOD) {
		v->ng++;
		if (v->inflight_good > 0)
			v->inflight_good--;
	} else {
		if (commit == e->bad)
			v->nb++;
		else if (v->slot[commit] == 0)
			add_slot(e, commit);
		v->nsamp[commit]++;
		v->skip[commit] = 0;
		if (v->inflight[commit] > 0)
			v->inflight[commit]--;
	}
	engine_update(e);
	return 0;
}

/* A skip changes only where probes may go, not the posterior, so nothing is recomputed. */
int
engine_add_skip(struct engine *e, uint32_t commit, struct bd_error *err)
{
	struct engine_priv *v = e->priv;

	if (commit == ENGINE_GOOD || commit == e->bad)
		return bd_error_set(err, -EINVAL,
		    "an endpoint cannot be skipped: nothing to compare without it");
	if (commit >= v->n)
		return bd_error_set(err, -EINVAL, "commit %u is not a candidate",
		    commit);
	v->skip[commit] = 1;
	v->inflight[commit] = 0;
	return 0;
}

/* Forgets one in-flight probe so that its work can be asked for again. */
void
engine_probe_dropped(struct engine *e, uint32_t commit)
{
	struct engine_priv *v = e->priv;

	if (commit == ENGINE_GOOD) {
		if (v->inflight_good > 0)
			v->inflight_good--;
	} else if (commit < v->n && v->inflight[commit] > 0)
		v->inflight[commit]--;
}

/* Counts a probe as in flight again after a restart, as engine_next did before. */
void
engine_probe_restore(struct engine *e, uint32_t commit)
{
	struct engine_priv *v = e->priv;

	if (commit == ENGINE_GOOD)
		v->inflight_good++;
	else if (commit < v->n)
		v->inflight[commit]++;
}

/* The posterior for reports and status; valid until the next event. */
const double *
engine_mass(const struct engine *e)
{
	return e->priv->mass;
}

/* P(bad) per candidate for reports and plots; valid until the next event. */
const double *
engine_prob_bad(const struct engine *e)
{
	return e->priv->q;
}

/* Which side's levels a sample informs: -1 good, +1 bad, 0 neither. */
int
engine_sample_side(const struct engine *e, size_t i)
{
	const struct engine_priv *v = e->priv;
	uint32_t c = v->sc[i];

	if (c == ENGINE_GOOD)
		return -1;
	if (c == e->bad)
		return 1;
	return v->slot_class[v->slot[c] - 1];
}

/* Collects the values of one side into v->buf; returns how many. */
static size_t
side_values(struct engine *e, int side)
{
	struct engine_priv *v = e->priv;
	size_t i, k = 0;

	if (v->bufcap < v->ns) {
		v->bufcap = v->ns;
		v->buf = xreallocarray(v->buf, v->bufcap, sizeof(double));
	}
	for (i = 0; i < v->ns; i++)
		if (engine_sample_side(e, i) == side)
			v->buf[k++] = v->adj[i];
	return k;
}

/*
 * The smallest noise scale the model believes: relative to the levels (a
 * constant metric must not make one sample infinitely sure), the metric's
 * resolution, and a tiny absolute floor for levels at zero.
 */
double
engine_scale_floor(const struct engine *e)
{
	const struct engine_priv *v = e->priv;
	double big = fmax(fabs(v->mu_g), fabs(v->mu_b));

	return fmax(fmax(e->p.scale_floor_rel * big, e->p.resolution),
	    1e-9 * (1 + big));
}

/*
 * One pooled robust scale for both sides (noise is usually the same on
 * both; pooling halves the estimate's variance when samples are few) and
 * each side's Huber location: the mean of the bulk, a bounded pull from a
 * wild run, and steadier than a median when the noise is bimodal.  The
 * candidates not yet on a side add their spread about their own centres
 * to the scale, which needs no side: with the scale from the endpoints
 * alone, a scale drawn small made 2-3% of the d = 1 verdicts wrong.
 */
static void
levels_numeric(struct engine *e)
{
	struct engine_priv *v = e->priv;
	struct stats_levels lv;
	size_t ng, nb, i, k, *n, *at;
	double *x, floor_s;

	x = xcalloc(v->ns + 1, sizeof(double));
	n = xcalloc(v->nslots + 2, sizeof(size_t));
	at = xcalloc(v->nslots + 2, sizeof(size_t));
	ng = side_values(e, -1);
	if (ng > 0)
		memcpy(x, v->buf, ng * sizeof(double));
	nb = side_values(e, 1);
	if (nb > 0)
		memcpy(x + ng, v->buf, nb * sizeof(double));
	n[0] = ng;
	n[1] = nb;
	/* The candidates not on a side yet, a group each, after the sides. */
	for (i = 0; i < v->ns; i++)
		if (engine_sample_side(e, i) == 0)
			n[2 + v->slot[v->sc[i]] - 1]++;
	for (k = 0, i = ng + nb; k < v->nslots; k++) {
		at[2 + k] = i;
		i += n[2 + k];
	}
	for (i = 0; i < v->ns; i++)
		if (engine_sample_side(e, i) == 0) {
			k = 2 + v->slot[v->sc[i]] - 1;
			x[at[k]++] = v->adj[i];
		}
	stats_levels_groups(x, n, v->nslots + 2, &lv);
	free(x);
	free(n);
	free(at);
	v->mu_g = lv.loc_a;
	v->mu_b = lv.loc_b;
	v->scale = lv.scale;
	floor_s = engine_scale_floor(e);
	if (v->scale < floor_s)
		v->scale = floor_s;
	v->nlev_g = ng;
	v->nlev_b = nb;
}

/*
 * Failure rates as posterior means under a uniform Beta(1, 1) prior:
 * symmetric, so direction-agnostic, and less sure of 0 and 1 than
 * Jeffreys' prior, which made rates such as 5 of 5 look like 0.92 and
 * gave 4-6% wrong culprits at a true 0.8 in the simulator.
 */
static void
levels_passfail(struct engine *e)
{
	struct engine_priv *v = e->priv;
	size_t k, i;
	double f;
	int side;

	for (side = -1; side <= 1; side += 2) {
		k = side_values(e, side);
		for (f = 0, i = 0; i < k; i++)
			f += v->buf[i] != 0;
		f = (f + 1) / ((double)k + 2);
		f = fmin(fmax(f, 1e-3), 1 - 1e-3);
		if (side < 0) {
			v->pg = f;
			v->nlev_g = k;
		} else {
			v->pb = f;
			v->nlev_b = k;
		}
	}
}

/* Soft cap: one sample can never be worth more than the cap in log odds. */
static double
cap_llr(const struct engine_priv *v, double llr)
{
	return v->llr_cap * tanh(llr / v->llr_cap);
}

/*
 * Evidence of one value for "bad" over "good", capped; infl widens the
 * scale by the drift fit's own error at the value's time.
 */
static double
sample_llr(const struct engine *e, double y, double infl)
{
	const struct engine_priv *v = e->priv;
	double l;

	if (e->p.metric == ENGINE_PASSFAIL)
		l = y != 0 ? log(v->pb / v->pg) : log((1 - v->pb) / (1 - v->pg));
	else
		l = stats_t_logratio((y - v->mu_b) / (v->scale * infl),
		    (y - v->mu_g) / (v->scale * infl), v->nu);
	return cap_llr(v, l);
}

/* Whether a value lies more than k scales from both levels. */
static int
far_from_levels(const struct engine_priv *v, double y, double k)
{
	double lim = k * v->scale;

	return fabs(y - v->mu_g) > lim && fabs(y - v->mu_b) > lim;
}

/*
 * Whether a (drift-adjusted) value lies more than misfit_scales from both
 * levels: a broken run, or levels that are wrong.
 */
int
engine_misfit(const struct engine *e, double y)
{
	return far_from_levels(e->priv, y, e->p.misfit_scales);
}

/*
 * A value this many scales from both levels ends the normal likelihood
 * (below).  Under normal noise one value in 370 lies so far from its own
 * level; under the simulator's outliers one in 22.  2.5 and 3.5 measured
 * the same as 3 (docs/statistics-history.md).
 */
#define TAIL_SCALES 3.0

/*
 * Values the tail test needs before it may choose the normal likelihood:
 * with fewer, a quarter of the outlier model's runs (0.955^32) or more
 * show no tail yet, and a bimodal d = 1 bisection that stopped on a wrong
 * culprit after 18 samples claimed 0.9995 instead of 0.9987, breaking the
 * calibration's top bin.  The d = 2 bisections, where the normal
 * likelihood saves samples, run longer than this.
 */
#define TAIL_MIN_VALUES 32

/*
 * The likelihood's shape, learned from the tails: once the change is
 * confirmed and TAIL_MIN_VALUES values are in, normal while no value lies
 * TAIL_SCALES from both levels, Student-t(t_dof) from the first one that
 * does.  A normal likelihood keeps the evidence of values two or three
 * scales out, which t_dof discounts, so a bisection on noise without wild
 * runs (bimodal noise too, whose tails are light) needs fewer samples; a
 * wild run weighed as normal would count as sure evidence, so the first
 * sign of one brings the heavy tails back for every value.  Before the
 * change is confirmed the levels may be noise apart, and t_dof stays:
 * normal from the start named a culprit on 0.6% of 1000 bimodal null
 * ranges, against 0.1%.
 */
static double
likelihood_dof(const struct engine *e)
{
	const struct engine_priv *v = e->priv;
	size_t i;

	if (e->p.metric != ENGINE_NUMERIC || !v->levels_ok || !v->reproduced ||
	    v->ns < TAIL_MIN_VALUES)
		return e->p.t_dof;
	for (i = 0; i < v->ns; i++)
		if (far_from_levels(v, v->adj[i], TAIL_SCALES))
			return e->p.t_dof;
	return INFINITY;
}

/*
 * A run this many scales from the median of its commit's runs is the odd
 * one out.  2.5 cost bimodal noise its exactness at d = 2 (98.6% of 1000
 * bisections in the simulator); 4 and 5 kept less of the gain.
 */
#define ODD_SCALES 3.0

/* Runs a commit needs before one of them can be the odd one out. */
#define ODD_MIN_RUNS 3

/* The commit of sample i as a group: 0 good, 1 bad, 1 + slot. */
static size_t
run_group(const struct engine *e, size_t i)
{
	const struct engine_priv *v = e->priv;
	uint32_t c = v->sc[i];

	if (c == ENGINE_GOOD)
		return 0;
	if (c == e->bad)
		return 1;
	return 1 + v->slot[c];
}

/*
 * Flags the runs far from the median of their own commit's runs.  A wild
 * run that lands near the other level looks like evidence to the levels,
 * and in the simulator's outlier noise one such run cost a d = 8
 * bisection a dozen samples: the commit was repeated at once, and the
 * run still argued against the culprit in both posteriors.  The median of
 * three or more runs of one commit names it without asking any
 * hypothesis, so every split leaves it out alike.  The Bayes factor that
 * confirms the change keeps it: leaving it out there named culprits on
 * bimodal null ranges (engine_exist.c).
 */
static void
mark_odd_runs(struct engine *e)
{
	struct engine_priv *v = e->priv;
	size_t ngroups = v->nslots + 2, *n, *end, i, k;
	double *x, *med;

	if (v->ns > 0)
		memset(v->odd, 0, v->ns);
	if (e->p.metric != ENGINE_NUMERIC || !v->levels_ok)
		return;
	n = xcalloc(ngroups, sizeof(size_t));
	end = xcalloc(ngroups, sizeof(size_t));
	med = xcalloc(ngroups, sizeof(double));
	x = xcalloc(v->ns, sizeof(double));
	for (i = 0; i < v->ns; i++)
		n[run_group(e, i)]++;
	for (k = 1; k < ngroups; k++)
		end[k] = end[k - 1] + n[k - 1];
	for (i = 0; i < v->ns; i++)
		x[end[run_group(e, i)]++] = v->adj[i];
	for (k = 0; k < ngroups; k++)
		if (n[k] >= ODD_MIN_RUNS)
			med[k] = stats_median_inplace(x + end[k] - n[k], n[k]);
	for (i = 0; i < v->ns; i++) {
		k = run_group(e, i);
		v->odd[i] = n[k] >= ODD_MIN_RUNS &&
		    fabs(v->adj[i] - med[k]) > ODD_SCALES * v->scale;
	}
	free(n);
	free(end);
	free(med);
	free(x);
}

/*
 * Sums the evidence per sampled candidate, odd runs left out, and counts
 * misfits.
 */
static void
compute_llr(struct engine *e)
{
	struct engine_priv *v = e->priv;
	size_t i;
	uint32_t c;

	for (i = 0; i < v->nslots; i++)
		v->slot_llr[i] = 0;
	v->misfits = 0;
	v->nu = likelihood_dof(e);
	mark_odd_runs(e);
	for (i = 0; i < v->ns; i++) {
		c = v->sc[i];
		if (e->p.metric == ENGINE_NUMERIC && v->levels_ok &&
		    engine_misfit(e, v->adj[i]))
			v->misfits++;
		if (c == ENGINE_GOOD || c == e->bad || !v->levels_ok ||
		    v->odd[i])
			continue;
		v->slot_llr[v->slot[c] - 1] += sample_llr(e, v->adj[i],
		    v->infl[i]);
	}
}

/*
 * desc[c] holds, as a bit per slot, the sampled candidates that have c as
 * an ancestor-or-self; children come after parents, so one backward pass
 * ORs every child's set into its parents.
 */
static void
build_desc(struct engine *e)
{
	struct engine_priv *v = e->priv;
	const struct graph *g = e->g;
	size_t w = (v->nslots + 63) / 64, x, k, j;
	uint64_t *dx, *dp;

	v->words = w ? w : 1;
	free(v->desc);
	v->desc = xcalloc(v->n * v->words, sizeof(uint64_t));
	for (k = 0; k < v->nslots; k++)
		v->desc[(size_t)v->slot_commit[k] * v->words + k / 64] |=
		    (uint64_t)1 << (k % 64);
	for (x = v->n; x-- > 0;) {
		dx = &v->desc[x * v->words];
		for (j = g->par_off[x]; j < g->par_off[x + 1]; j++) {
			dp = &v->desc[(size_t)g->par[j] * v->words];
			for (k = 0; k < v->words; k++)
				dp[k] |= dx[k];
		}
	}
	v->desc_dirty = 0;
}

/*
 * log pi(c) = log pi0(c) + sum of the evidence at sampled descendants of
 * c.  Neighbouring indices usually share the descendant set, so the sum is
 * reused when the set repeats.
 */
static void
posterior(struct engine *e)
{
	struct engine_priv *v = e->priv;
	size_t c, k, w;
	double max = -INFINITY, sum = 0, l;
	uint64_t bits;

	/* The stride is read after the rebuild: a new slot can widen it. */
	if (v->desc_dirty)
		build_desc(e);
	w = v->words;
	for (c = 0; c < v->n; c++) {
		/* Before the first sample there are no slots and no desc array:
		 * no pointer arithmetic on NULL (clang's pointer-overflow). */
		const uint64_t *d = w > 0 ? &v->desc[c * w] : NULL;

		if (c > 0 && w > 0 && memcmp(d, d - w, w * sizeof(uint64_t)) == 0) {
			v->L[c] = v->L[c - 1];
		} else {
			l = 0;
			for (k = 0; k < w; k++)
				for (bits = d[k]; bits != 0; bits &= bits - 1)
					l += v->slot_llr[k * 64 +
					    (size_t)__builtin_ctzll(bits)];
			v->L[c] = l;
		}
		l = v->logprior[c] + v->L[c];
		if (l > max)
			max = l;
	}
	for (c = 0; c < v->n; c++) {
		v->mass[c] = exp(v->logprior[c] + v->L[c] - max);
		sum += v->mass[c];
	}
	for (c = 0; c < v->n; c++)
		v->mass[c] /= sum;
	graph_prob_bad(e->g, v->mass, v->q);
}

/*
 * Re-sorts the sampled candidates into good/bad/undecided; 1 if changed.
 * A commit is judged without its own samples (its evidence D removed from
 * the odds: q' = q e^-D / (q e^-D + 1 - q)): values that merely look like
 * a level must not be counted into that level, or chance would confirm
 * itself.
 */
static int
classify(struct engine *e)
{
	struct engine_priv *v = e->priv;
	double lp = e->p.level_p, q, lo;
	int changed = 0, cl;
	size_t k;

	for (k = 0; k < v->nslots; k++) {
		q = v->q[v->slot_commit[k]];
		if (q <= 0 || q >= 1)
			lo = q <= 0 ? -INFINITY : INFINITY;
		else
			lo = log(q / (1 - q)) - v->slot_llr[k];
		q = 1 / (1 + exp(-lo));
		cl = q < lp ? -1 : q > 1 - lp ? 1 : 0;
		if (v->phase != ENGINE_PHASE_BISECT)
			cl = 0;
		if (cl != v->slot_class[k]) {
			v->slot_class[k] = (int8_t)cl;
			changed = 1;
		}
	}
	return changed;
}

/* The per-sample channel at the current levels, capped like the evidence. */
static void
channel(const struct engine *e, struct stats_channel *ch)
{
	const struct engine_priv *v = e->priv;
	size_t i;

	if (e->p.metric == ENGINE_PASSFAIL)
		stats_channel_binary(ch, v->pg, v->pb);
	else
		stats_channel_numeric(ch, &v->gh,
		    fabs(v->mu_b - v->mu_g) / v->scale, v->nu);
	for (i = 0; i < ch->n; i++)
		ch->llr[i] = cap_llr(v, ch->llr[i]);
}

/* The bits of one sample at the median, for estimates of samples left. */
double
engine_info_half(const struct engine *e)
{
	struct stats_channel ch;

	channel(e, &ch);
	return stats_channel_info(&ch, 0.5);
}

/*
 * Tabulates I(q) for the current levels so probe scoring is a lookup; done
 * on demand, since only probe choice needs it.
 */
void
engine_info_table(struct engine *e)
{
	struct engine_priv *v = e->priv;
	struct stats_channel ch;
	size_t i;

	if (!v->itab_dirty)
		return;
	v->itab_dirty = 0;
	channel(e, &ch);
	for (i = 0; i <= ENGINE_ITAB; i++)
		v->itab[i] = stats_channel_info(&ch, (double)i / ENGINE_ITAB);
	v->i_half = v->itab[ENGINE_ITAB / 2];
}

/*
 * Recomputes everything derived from the samples.  Levels depend on which
 * commits are classified, and the classes on the posterior, and under
 * drift the adjusted values on both, so they are iterated a few times;
 * the fixed count keeps the result a deterministic function of the sample
 * sequence.
 */
void
engine_update(struct engine *e)
{
	struct engine_priv *v = e->priv;
	int it, changed, refit;

	engine_repro_step(e);
	if (!v->drift_on && v->ns > 0)
		memcpy(v->adj, v->sv, v->ns * sizeof(double));
	for (it = 0; it < 4; it++) {
		if (e->p.metric == ENGINE_PASSFAIL)
			levels_passfail(e);
		else
			levels_numeric(e);
		v->levels_ok = v->nlev_g >= 2 && v->nlev_b >= 2;
		compute_llr(e);
		posterior(e);
		if (it == 3)
			break;
		changed = classify(e);
		refit = engine_drift(e);
		if (!changed && !refit)
			break;
	}
	engine_repro_shared(e);
	engine_exist_step(e);
	v->itab_dirty = 1;
}

/* The reproduction check's parameters, also for confirmation elsewhere. */
void
engine_repro_params(const struct engine_params *p, struct repro_params *rp)
{
	memset(rp, 0, sizeof(*rp));
	rp->min_per_side = p->repro_min;
	rp->max_per_side = p->repro_max;
	rp->growth = p->repro_growth;
	rp->alpha = p->repro_alpha;
	rp->beta = p->repro_beta;
	rp->effect = p->repro_effect;
	rp->gap = p->repro_gap;
	rp->min_change = p->min_change;
	rp->price_min_change = p->null_min_change;
	rp->passfail = p->metric == ENGINE_PASSFAIL;
}
