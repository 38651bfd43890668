/* SPDX-License-Identifier: MIT */
/*
 * Change points over the series of swept tags: per metric, a robust pooled
 * noise scale, the best of SWEEP_SPLITS two-segment splits of the recent
 * tags (the last tag before and the first tag after the change), Holm's
 * procedure over the metrics of one tag, and a small group-sequential plan
 * (alpha split over the looks, the splits and the revisits) that samples
 * a borderline tag more and revisits a tag that would place the change
 * point better.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/stats.h"
#include "bisect/sweep_stats.h"
#include "common/xmalloc.h"

/* Defaults documented in docs/statistics.md and the example config. */
void
sweep_params_default(struct sweep_params *p)
{
	p->alpha = 0.01;
	p->min_change = 0.01;
	p->first = 5;
	p->step = 5;
	p->own = 10;
	p->cap = 15;
	p->base = 5;
	p->borderline = 0.2;
}

/* Every look spends an equal share of alpha, so count them once here. */
unsigned
sweep_params_looks(const struct sweep_params *p)
{
	unsigned step = p->step > 0 ? p->step : 1;

	if (p->own <= p->first)
		return 1 + SWEEP_REVISITS_MAX;
	return 1 + (p->own - p->first + step - 1) / step + SWEEP_REVISITS_MAX;
}

struct holm_row {
	double	p;
	size_t	i;
};

/* Ascending p, ties in input order so the adjustment is deterministic. */
static int
holm_cmp(const void *a, const void *b)
{
	const struct holm_row *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Holm's step-down procedure, as adjusted p values. */
void
sweep_stats_holm(const double *p, size_t n, double *adj)
{
	struct holm_row *r;
	double run = 0, v;
	size_t j;

	if (n == 0)
		return;
	r = xreallocarray(NULL, n, sizeof(*r));
	for (j = 0; j < n; j++) {
		r[j].p = p[j];
		r[j].i = j;
	}
	qsort(r, n, sizeof(*r), holm_cmp);
	for (j = 0; j < n; j++) {
		v = (double)(n - j) * r[j].p;
		if (v > 1)
			v = 1;
		if (v > run)
			run = v;
		adj[r[j].i] = run;
	}
	free(r);
}

/* Relative change of cur against ref; infinite when ref is 0 and cur not. */
static double
rel_change(double cur, double ref)
{
	if (ref != 0)
		return (cur - ref) / fabs(ref);
	return cur == 0 ? 0 : copysign(INFINITY, cur);
}

/* Runs of one metric over the tags of its window, scratch for the scale. */
struct pool {
	struct sweep_series tag[SWEEP_TAGS_MAX];	/* the runs kept */
	size_t	 nrun[SWEEP_TAGS_MAX];	/* the runs the tag has */
	size_t	 orig[SWEEP_TAGS_MAX];	/* index in the caller's tags */
	double	*kept;			/* storage of tag[].v */
	double	 loc[SWEEP_TAGS_MAX];
	size_t	 ntags, m;
	double	 scale, inflate;	/* se of a tag of n runs: scale * inflate / sqrt(n) */
	double	 df;
};

/* Huber constant of the levels and clip of the scale (see pool_fit). */
#define SWEEP_LOC_K	2.0
#define SWEEP_SCALE_C	2.0
/* A run this many scales from its tag's median is broken (pool_reject). */
#define SWEEP_REJECT	6.0

/* Standard normal density. */
static double
npdf(double z)
{
	return exp(-z * z / 2) / sqrt(2 * M_PI);
}

/* E min(Z^2, c^2) for a standard normal Z: Huber's proposal 2 constant. */
static double
clipped_var(double c)
{
	return 2 * stats_norm_cdf(c) - 1 - 2 * c * npdf(c) +
	    2 * c * c * (1 - stats_norm_cdf(c));
}

/*
 * Asymptotic efficiency of the clipped scale against the standard
 * deviation at the normal: (E 2Z^2 1{|Z|<c})^2 / (2 Var min(Z^2, c^2)),
 * 0.885 at c = 2.  The t tests count the scale's degrees of freedom at
 * this rate, as a chi-square of fewer runs.
 */
static double
scale_eff(double c)
{
	double in = 2 * stats_norm_cdf(c) - 1, ph = npdf(c), k = clipped_var(c);
	double m4 = 3 * in - 2 * ph * (c * c * c + 3 * c) +
	    c * c * c * c * (1 - in);
	double d = 2 * (in - 2 * c * ph);

	return d * d / (2 * (m4 - k * k));
}

/* Huber level of every tag at the pool's current scale. */
static void
pool_levels(struct pool *pl)
{
	double se;
	size_t t;

	for (t = 0; t < pl->ntags; t++)
		stats_huber(pl->tag[t].v, pl->tag[t].n, pl->scale,
		    SWEEP_LOC_K, &pl->loc[t], &se);
}

/*
 * Runs further than SWEEP_REJECT scales from their tag's median are left
 * out of the scale and the levels: no benchmark's noise reaches 6 sds, so
 * such a run is broken (a wild boot, a disturbed host), and a bounded
 * influence would still let it widen the scale and move a 5-run level.
 * The median of a tag is always kept.  Starts from the MAD scale.
 */
static void
pool_reject(struct pool *pl)
{
	double *c, med;
	size_t t, i, j = 0, n;

	c = xreallocarray(NULL, SWEEP_TAGS_MAX + pl->m, sizeof(*c));
	pl->kept = xreallocarray(NULL, pl->m, sizeof(*pl->kept));
	pl->m = 0;
	for (t = 0; t < pl->ntags; t++) {
		memcpy(c, pl->tag[t].v, pl->tag[t].n * sizeof(*c));
		med = stats_median_inplace(c, pl->tag[t].n);
		for (i = 0, n = 0; i < pl->tag[t].n; i++)
			if (fabs(pl->tag[t].v[i] - med) <=
			    SWEEP_REJECT * pl->scale)
				pl->kept[j + n++] = pl->tag[t].v[i];
		pl->tag[t] = (struct sweep_series){ pl->kept + j, n };
		j += n;
		pl->m += n;
	}
	free(c);
	pl->df = (double)(pl->m - pl->ntags);
}

/*
 * Normal-consistent MAD of every run about its own tag's median, corrected
 * for the levels estimated (m / (m - tags), as stats_levels_groups does
 * for its groups), refined by Huber's proposal 2 (residuals clipped at
 * SWEEP_SCALE_C about each tag's Huber level); then the pooled sandwich
 * factor sqrt(E psi^2) / E psi', which keeps heavy tails from making the
 * standard errors too small.  The clip is 2, not the winsorizing 2.5:
 * with c = 2.5 one wild run among ten carries 6.25 of a sum whose
 * expectation is about 1 a run, and the fixed point doubles the scale;
 * at 2 it carries 4, and runs past 6 scales are left out before the fit.  0 when the runs cannot tell a scale.
 */
static int
pool_fit(struct pool *pl)
{
	const double c = SWEEP_SCALE_C;
	double kappa = clipped_var(c), *r, med, u, m1 = 0, m2 = 0, ss;
	size_t t, i, j = 0;
	int it;

	pl->m = 0;
	for (t = 0; t < pl->ntags; t++)
		pl->m += pl->tag[t].n;
	if (pl->m < pl->ntags + 2)
		return 0;
	r = xreallocarray(NULL, pl->m, sizeof(*r));
	for (t = 0; t < pl->ntags; t++) {
		memcpy(r + j, pl->tag[t].v, pl->tag[t].n * sizeof(*r));
		med = stats_median_inplace(r + j, pl->tag[t].n);
		for (i = 0; i < pl->tag[t].n; i++)
			r[j + i] = fabs(pl->tag[t].v[i] - med);
		j += pl->tag[t].n;
	}
	pl->df = (double)(pl->m - pl->ntags);
	pl->scale = 1.4826 * stats_median_inplace(r, pl->m) *
	    (double)pl->m / pl->df;
	free(r);
	if (!(pl->scale > 0))
		return 0;
	pool_reject(pl);
	if (pl->m < pl->ntags + 2)
		return 0;
	for (it = 0; it < 5; it++) {
		pool_levels(pl);
		ss = 0;
		for (t = 0; t < pl->ntags; t++)
			for (i = 0; i < pl->tag[t].n; i++) {
				u = (pl->tag[t].v[i] - pl->loc[t]) / pl->scale;
				ss += fmin(u * u, c * c);
			}
		pl->scale *= sqrt(ss / (pl->df * kappa));
	}
	pool_levels(pl);
	for (t = 0; t < pl->ntags; t++) {
		for (i = 0; i < pl->tag[t].n; i++) {
			u = (pl->tag[t].v[i] - pl->loc[t]) / pl->scale;
			m1 += fabs(u) < SWEEP_LOC_K;
			u = fmax(-SWEEP_LOC_K, fmin(SWEEP_LOC_K, u));
			m2 += u * u;
		}
	}
	if (m1 == 0)
		return 0;
	m1 /= (double)pl->m;
	m2 /= pl->df;
	pl->inflate = sqrt(m2) / m1;
	return 1;
}

/* Level of tags [lo, hi) of the pool, each weighted by its runs. */
static double
pool_segment(const struct pool *pl, size_t lo, size_t hi, double *runs)
{
	double s = 0, n = 0;
	size_t t;

	for (t = lo; t < hi; t++) {
		s += pl->loc[t] * (double)pl->tag[t].n;
		n += (double)pl->tag[t].n;
	}
	*runs = n;
	return n > 0 ? s / n : 0;
}

/* One split of the window: the levels either side and their t. */
struct split {
	double	before, after, t, diff;
};

/* Tags [0, s) against tags [s, ntags) of the pool. */
static struct split
pool_split(const struct pool *pl, size_t s)
{
	struct split r;
	double nb, na, se;

	r.before = pool_segment(pl, 0, s, &nb);
	r.after = pool_segment(pl, s, pl->ntags, &na);
	r.diff = r.after - r.before;
	se = pl->scale * pl->inflate * sqrt(1 / nb + 1 / na);
	r.t = se > 0 ? r.diff / se : (r.diff != 0 ? copysign(INFINITY,
	    r.diff) : 0);
	return r;
}

/*
 * The split next to the best one that the data tell apart worst from it,
 * when they do so by a likelihood ratio under e^(SWEEP_PAIR_MARGIN / 2):
 * the tag between the two (the best's first tag after, or the tag before
 * it) is the one whose runs would settle the pair.  SWEEP_NONE otherwise.
 * t[s] is split s's t, for s from lo.
 */
#define SWEEP_PAIR_MARGIN	6.0
static size_t
pool_ambiguous(const struct pool *pl, const double *t, size_t lo,
    size_t best, unsigned cap)
{
	double m, margin = SWEEP_PAIR_MARGIN, t2 = t[best] * t[best];
	size_t tag = SWEEP_NONE;

	if (best > lo && (m = t2 - t[best - 1] * t[best - 1]) < margin) {
		margin = m;
		tag = best - 1;
	}
	if (best + 1 < pl->ntags && t2 - t[best + 1] * t[best + 1] < margin)
		tag = best;
	if (tag == SWEEP_NONE || pl->nrun[tag] >= cap)
		return SWEEP_NONE;
	return pl->orig[tag];
}

/* Split s is as likely as the best one, within the margin, same sign. */
static int
pool_close(const double *t, size_t s, size_t best)
{
	return t[s] * t[best] > 0 &&
	    t[best] * t[best] - t[s] * t[s] < SWEEP_PAIR_MARGIN;
}

/*
 * The splits next to the best one, on either side and without a gap, that
 * the data tell apart from it by a likelihood ratio under
 * e^(SWEEP_PAIR_MARGIN / 2) in the same direction: the change may lie
 * after any of them.  A bisection from the tag before the first to the
 * last holds the change then, where the best pair alone would miss it
 * when a small change is placed a tag off.
 */
static void
pool_plausible(const struct pool *pl, const double *t, size_t lo,
    size_t best, size_t *first, size_t *last)
{
	size_t a = best, z = best;

	while (a > lo && pool_close(t, a - 1, best))
		a--;
	while (z + 1 < pl->ntags && pool_close(t, z + 1, best))
		z++;
	*first = pl->orig[a];
	*last = pl->orig[z];
}

/*
 * The best change point of one metric, before the metrics are adjusted.
 * Every split's two segments use the same tags, so the largest |t| is the
 * largest between-segment sum of squares: the maximum-likelihood change
 * point of a two-level model, E-divisive's choice for one point.
 */
static void
judge_one(const struct sweep_params *p, const struct sweep_metric_in *in,
    struct sweep_metric_out *o)
{
	struct pool pl;
	struct split sp, best = { 0, 0, 0, 0 };
	double tv[SWEEP_TAGS_MAX];
	size_t t, s, lo, bs = 0, win = p->base + SWEEP_SPLITS;
	double near_after;
	int fit;

	memset(o, 0, sizeof(*o));
	o->verdict = SWEEP_UNTESTED;
	o->p = 1;
	o->at = o->revisit = o->at_first = o->at_last = SWEEP_NONE;
	if (win > SWEEP_TAGS_MAX)
		win = SWEEP_TAGS_MAX;
	if (in->ntags < 2 || in->tags[in->ntags - 1].n < 1)
		return;
	pl.ntags = 0;
	for (t = in->ntags; t-- > 0 && pl.ntags < win;)
		if (in->tags[t].n > 0) {
			pl.tag[pl.ntags] = in->tags[t];
			pl.nrun[pl.ntags] = in->tags[t].n;
			pl.orig[pl.ntags++] = t;
		}
	if (pl.ntags < 2)
		return;
	for (t = 0; t < pl.ntags / 2; t++) {	/* oldest first */
		struct sweep_series x = pl.tag[t];
		size_t y = pl.orig[t], z = pl.nrun[t], u = pl.ntags - 1 - t;

		pl.tag[t] = pl.tag[u];
		pl.orig[t] = pl.orig[u];
		pl.nrun[t] = pl.nrun[u];
		pl.tag[u] = x;
		pl.orig[u] = y;
		pl.nrun[u] = z;
	}
	pl.kept = NULL;
	fit = pool_fit(&pl);
	if (!fit) {
		free(pl.kept);
		return;
	}
	o->loc_cur = pl.loc[pl.ntags - 1];
	o->loc_prev = pl.loc[pl.ntags - 2];
	o->rel_prev = rel_change(o->loc_cur, o->loc_prev);
	o->scale = pl.scale;
	lo = pl.ntags > SWEEP_SPLITS ? pl.ntags - SWEEP_SPLITS : 1;
	for (s = lo; s < pl.ntags; s++) {
		sp = pool_split(&pl, s);
		tv[s] = sp.t;
		if (s == lo || fabs(sp.t) > fabs(best.t)) {
			best = sp;
			bs = s;
		}
	}
	o->loc_before = best.before;
	o->loc_after = best.after;
	o->rel = rel_change(best.after, best.before);
	o->effect = fabs(best.diff) / pl.scale;
	o->at = pl.orig[bs];
	if (isinf(best.t))
		o->at_first = o->at_last = o->at;
	else
		pool_plausible(&pl, tv, lo, bs, &o->at_first, &o->at_last);
	o->late = (unsigned)(pl.ntags - 1 - bs);
	o->verdict = SWEEP_SAME;
	/* A change that the new tag does not share is a passing excursion. */
	near_after = fabs(o->loc_cur - best.after) <
	    fabs(o->loc_cur - best.before);
	if (bs == pl.ntags - 1 || near_after) {
		if (isinf(best.t))
			o->p = 0;
		else if (best.t != 0)
			o->p = fmin(1, stats_t_sf2(fabs(best.t), pl.df * scale_eff(SWEEP_SCALE_C)) *
			    (double)(pl.ntags - lo));
		o->revisit = pool_ambiguous(&pl, tv, lo, bs, p->cap);
	}
	free(pl.kept);
}

/* The change reaches the floor. */
static int
over_floor(const struct sweep_metric_out *o, double min_change)
{
	return fabs(o->rel) >= min_change;
}

/* See sweep_stats.h: per-metric verdicts and the runs still wanted. */
unsigned
sweep_stats_judge(const struct sweep_params *p,
    const struct sweep_metric_in *in, size_t n, struct sweep_metric_out *out)
{
	double level = p->alpha / sweep_params_looks(p), *pv;
	size_t i, ncur = 0;
	int more = 0;

	pv = xreallocarray(NULL, n > 0 ? n : 1, sizeof(*pv));
	for (i = 0; i < n; i++) {
		judge_one(p, &in[i], &out[i]);
		pv[i] = out[i].p;
		if (in[i].ntags > 0 && in[i].tags[in[i].ntags - 1].n > ncur)
			ncur = in[i].tags[in[i].ntags - 1].n;
	}
	sweep_stats_holm(pv, n, pv);
	for (i = 0; i < n; i++) {
		out[i].p_adj = pv[i];
		if (out[i].verdict == SWEEP_UNTESTED ||
		    !over_floor(&out[i], p->min_change) || out[i].p >= 1)
			out[i].revisit = SWEEP_NONE;
		else if (pv[i] <= level)
			out[i].verdict = SWEEP_CHANGED;
		else if (pv[i] <= p->borderline) {
			out[i].verdict = SWEEP_BORDERLINE;
			more |= ncur < p->own;
		} else
			out[i].revisit = SWEEP_NONE;
	}
	free(pv);
	if (!more)
		return 0;
	i = p->own - ncur;
	return p->step > 0 && p->step < i ? p->step : (unsigned)i;
}

/* The headline's revisit first: its change point starts the bisection. */
size_t
sweep_stats_revisit(const struct sweep_metric_out *out, size_t n)
{
	size_t i, h = sweep_stats_headline(out, n);

	if (h < n && out[h].revisit != SWEEP_NONE)
		return h;
	for (i = 0; i < n; i++)
		if (out[i].verdict == SWEEP_BORDERLINE &&
		    out[i].revisit != SWEEP_NONE)
			return i;
	return n;
}

/* The changed metric that moved most in noise units leads the report. */
size_t
sweep_stats_headline(const struct sweep_metric_out *out, size_t n)
{
	size_t i, best = n;

	for (i = 0; i < n; i++)
		if (out[i].verdict == SWEEP_CHANGED &&
		    (best == n || out[i].effect > out[best].effect))
			best = i;
	return best;
}
