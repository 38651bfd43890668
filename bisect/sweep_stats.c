/*
 * Change detection between swept tags: two robust comparisons per metric
 * (against the previous tag and against the rolling baseline), joined as an
 * intersection-union test, Holm's procedure over the metrics of one tag,
 * and a small group-sequential plan (alpha split over the looks) that
 * samples a borderline tag more up to its cap.
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
	p->cap = 15;
	p->borderline = 0.2;
}

/* Every look spends an equal share of alpha, so count them once here. */
unsigned
sweep_params_looks(const struct sweep_params *p)
{
	unsigned step = p->step > 0 ? p->step : 1;

	if (p->cap <= p->first)
		return 1;
	return 1 + (p->cap - p->first + step - 1) / step;
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

/* Runs of one metric over all its tags, scratch for the pooled scale. */
struct pool {
	const struct sweep_series *tag[SWEEP_TAGS_MAX + 1];
	double	 loc[SWEEP_TAGS_MAX + 1];
	size_t	 ntags, m;
	double	 scale, inflate;	/* se of a tag of n runs: scale * inflate / sqrt(n) */
	double	 df;
};

/* Standard normal density. */
static double
npdf(double z)
{
	return exp(-z * z / 2) / sqrt(2 * M_PI);
}

/* Huber level of every tag at the pool's current scale. */
static void
pool_levels(struct pool *pl)
{
	double se;
	size_t t;

	for (t = 0; t < pl->ntags; t++)
		stats_huber(pl->tag[t]->v, pl->tag[t]->n, pl->scale,
		    STATS_HUBER_K, &pl->loc[t], &se);
}

/*
 * Normal-consistent MAD of every run about its own tag's median, corrected
 * for the levels estimated (m / (m - tags), as stats_levels_groups does
 * for its groups), refined by winsorized residuals about each tag's level as
 * stats_levels does; then Huber levels per tag and the pooled sandwich factor
 * sqrt(E psi^2) / E psi', which keeps heavy tails from making the
 * standard errors too small.  0 when the runs cannot tell a scale.
 */
static int
pool_fit(struct pool *pl)
{
	const double c = STATS_WINSOR_C;
	double kappa = 2 * stats_norm_cdf(c) - 1 - 2 * c * npdf(c) +
	    2 * c * c * (1 - stats_norm_cdf(c));
	double *r, med, u, m1 = 0, m2 = 0, ss;
	size_t t, i, j = 0;
	int it;

	pl->m = 0;
	for (t = 0; t < pl->ntags; t++)
		pl->m += pl->tag[t]->n;
	if (pl->m < pl->ntags + 2)
		return 0;
	r = xreallocarray(NULL, pl->m, sizeof(*r));
	for (t = 0; t < pl->ntags; t++) {
		memcpy(r + j, pl->tag[t]->v, pl->tag[t]->n * sizeof(*r));
		med = stats_median_inplace(r + j, pl->tag[t]->n);
		for (i = 0; i < pl->tag[t]->n; i++)
			r[j + i] = fabs(pl->tag[t]->v[i] - med);
		j += pl->tag[t]->n;
	}
	pl->df = (double)(pl->m - pl->ntags);
	pl->scale = 1.4826 * stats_median_inplace(r, pl->m) *
	    (double)pl->m / pl->df;
	free(r);
	if (!(pl->scale > 0))
		return 0;
	for (it = 0; it < 3; it++) {
		pool_levels(pl);
		ss = 0;
		for (t = 0; t < pl->ntags; t++)
			for (i = 0; i < pl->tag[t]->n; i++) {
				u = (pl->tag[t]->v[i] - pl->loc[t]) / pl->scale;
				ss += fmin(u * u, STATS_WINSOR_C * STATS_WINSOR_C);
			}
		pl->scale *= sqrt(ss / (pl->df * kappa));
	}
	pool_levels(pl);
	for (t = 0; t < pl->ntags; t++) {
		for (i = 0; i < pl->tag[t]->n; i++) {
			u = (pl->tag[t]->v[i] - pl->loc[t]) / pl->scale;
			m1 += fabs(u) < STATS_HUBER_K;
			u = fmax(-STATS_HUBER_K, fmin(STATS_HUBER_K, u));
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

/* Two-sided p of a difference d with standard error se on df. */
static double
t_p(double d, double se, double df)
{
	if (!(se > 0))
		return d != 0 ? 0 : 1;
	return stats_t_sf2(fabs(d) / se, df);
}

/* Both comparisons of one metric, before the metrics are adjusted. */
static void
judge_one(const struct sweep_metric_in *in, struct sweep_metric_out *o)
{
	struct pool pl;
	double se_c, se_p, se_b = 0, se, p1, p2, diff, lv[SWEEP_TAGS_MAX];
	size_t t, nt = in->ntags < SWEEP_TAGS_MAX ? in->ntags : SWEEP_TAGS_MAX;
	const struct sweep_series *tags = in->tags + (in->ntags - nt);

	memset(o, 0, sizeof(*o));
	o->verdict = SWEEP_UNTESTED;
	o->p = 1;
	if (in->cur.n < 1 || nt < 1 || tags[nt - 1].n < 1)
		return;
	pl.ntags = nt + 1;
	for (t = 0; t < nt; t++)
		pl.tag[t] = &tags[t];
	pl.tag[nt] = &in->cur;
	if (!pool_fit(&pl))
		return;
	o->loc_cur = pl.loc[nt];
	o->loc_prev = pl.loc[nt - 1];
	/* The baseline is the median tag, so one odd tag cannot move it;
	 * its standard error is the mean's times the median's 1.2533. */
	for (t = 0; t < nt; t++) {
		se = pl.scale * pl.inflate / sqrt((double)tags[t].n);
		se_b += se * se;
		lv[t] = pl.loc[t];
	}
	o->loc_base = stats_median_inplace(lv, nt);
	se_b = sqrt(se_b) / (double)nt * (nt >= 3 ? 1.2533 : 1);
	se_c = pl.scale * pl.inflate / sqrt((double)in->cur.n);
	se_p = pl.scale * pl.inflate / sqrt((double)tags[nt - 1].n);
	o->scale = pl.scale;
	o->rel_prev = rel_change(o->loc_cur, o->loc_prev);
	o->rel_base = rel_change(o->loc_cur, o->loc_base);
	diff = fabs(o->loc_cur - o->loc_prev);
	o->effect = diff / pl.scale;
	p1 = t_p(o->loc_cur - o->loc_prev, hypot(se_c, se_p), pl.df);
	p2 = t_p(o->loc_cur - o->loc_base, hypot(se_c, se_b), pl.df);
	/* A change against one reference only is a noisy neighbour. */
	o->p = (o->rel_prev > 0) == (o->rel_base > 0) ? fmax(p1, p2) : 1;
	o->verdict = SWEEP_SAME;
}

/* Both relative changes reach the floor. */
static int
over_floor(const struct sweep_metric_out *o, double min_change)
{
	return fabs(o->rel_prev) >= min_change &&
	    fabs(o->rel_base) >= min_change;
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
		judge_one(&in[i], &out[i]);
		pv[i] = out[i].p;
		if (in[i].cur.n > ncur)
			ncur = in[i].cur.n;
	}
	sweep_stats_holm(pv, n, pv);
	for (i = 0; i < n; i++) {
		out[i].p_adj = pv[i];
		if (out[i].verdict == SWEEP_UNTESTED ||
		    !over_floor(&out[i], p->min_change))
			continue;
		if (pv[i] <= level)
			out[i].verdict = SWEEP_CHANGED;
		else if (pv[i] <= p->borderline && ncur < p->cap) {
			out[i].verdict = SWEEP_BORDERLINE;
			more = 1;
		}
	}
	free(pv);
	if (!more)
		return 0;
	i = p->cap - ncur;
	return p->step > 0 && p->step < i ? p->step : (unsigned)i;
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
