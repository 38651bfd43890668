/* SPDX-License-Identifier: MIT */
/*
 * The per-group verdict of a confirmed culprit; see confirm.h.
 */
#include <math.h>

#include <jansson.h>

#include "bisect/confirm.h"
#include "bisect/stats.h"

static const char *const confirm_names[CONFIRM_NVERDICTS] = {
	[CONFIRM_PENDING] = "pending",
	[CONFIRM_CHANGED] = "changed",
	[CONFIRM_UNCHANGED] = "unchanged",
	[CONFIRM_UNCLEAR] = "unclear",
};

const char *
confirm_verdict_name(enum confirm_verdict v)
{
	return (unsigned)v < CONFIRM_NVERDICTS ? confirm_names[v] : "pending";
}

/* The t value whose two-sided tail is 0.05, found by halving. */
static double
confirm_t975(double df)
{
	double lo = 0, hi = 1000, mid;
	int i;

	for (i = 0; i < 100; i++) {
		mid = 0.5 * (lo + hi);
		if (stats_t_sf2(mid, df) > 0.05)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/*
 * Failure rates and the Agresti-Caffo interval of their difference: one
 * pass and one failure added to each side before the normal interval, so
 * that all-or-nothing rates (the usual clear result: the parent passes
 * every run, the culprit fails every run) still get an interval as wide
 * as their few runs deserve, not a point.  Clipped to [-1, 1].
 */
static void
confirm_rates(const double *parent, size_t np, const double *culprit,
    size_t nc, struct confirm_effect *out)
{
	double fp = 0, fc = 0, ap, ac, se, d;
	size_t i;

	for (i = 0; i < np; i++)
		fp += parent[i] != 0;
	for (i = 0; i < nc; i++)
		fc += culprit[i] != 0;
	out->parent = fp / (double)np;
	out->culprit = fc / (double)nc;
	out->change = out->culprit - out->parent;
	ap = (fp + 1) / ((double)np + 2);
	ac = (fc + 1) / ((double)nc + 2);
	d = ac - ap;
	se = sqrt(ap * (1 - ap) / ((double)np + 2) +
	    ac * (1 - ac) / ((double)nc + 2));
	out->lo = fmax(-1, d - 1.96 * se);
	out->hi = fmin(1, d + 1.96 * se);
}

/* Robust locations (the check's comparison) and a t interval. */
static void
confirm_levels(const double *parent, size_t np, const double *culprit,
    size_t nc, struct confirm_effect *out)
{
	struct stats_cmp c;
	double d, half, base;

	stats_compare(parent, np, culprit, nc, &c);
	out->parent = c.loc_a;
	out->culprit = c.loc_b;
	base = fabs(c.loc_a);
	if (base == 0)
		return;
	d = c.loc_b - c.loc_a;
	half = c.se > 0 && c.df > 0 ? confirm_t975(c.df) * c.se : 0;
	out->change = d / base;
	out->lo = (d - half) / base;
	out->hi = (d + half) / base;
}

void
confirm_judge(const struct repro_params *rp, const double *parent,
    size_t np, const double *culprit, size_t nc, int finished,
    struct confirm_effect *out)
{
	struct repro_stat st;
	enum repro_result r;

	out->verdict = finished ? CONFIRM_UNCLEAR : CONFIRM_PENDING;
	out->parent = out->culprit = NAN;
	out->change = out->lo = out->hi = NAN;
	out->n_parent = np;
	out->n_culprit = nc;
	if (np < 2 || nc < 2)
		return;
	if (rp->passfail)
		confirm_rates(parent, np, culprit, nc, out);
	else
		confirm_levels(parent, np, culprit, nc, out);
	r = repro_decide(rp, parent, np, culprit, nc, 0, &st);
	if (r == REPRO_REPRODUCED)
		out->verdict = CONFIRM_CHANGED;
	else if (r == REPRO_NOT_REPRODUCED)
		out->verdict = CONFIRM_UNCHANGED;
}

/* A number, or null when it is not one (JSON has no NaN). */
static json_t *
confirm_num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

json_t *
confirm_row_json(const struct report_confirm *row)
{
	const struct confirm_effect *e = &row->effect;

	return json_pack("{s:s, s:o, s:b, s:s, s:o, s:o, s:o, s:o, s:o, s:I, "
	    "s:I, s:I, s:I}", "group", row->group, "machine",
	    row->machine ? json_string(row->machine) : json_null(), "own",
	    row->own, "verdict", row->own ? "bisected" :
	    confirm_verdict_name(e->verdict), "parent", confirm_num(e->parent),
	    "culprit", confirm_num(e->culprit), "change",
	    confirm_num(e->change), "change_low", confirm_num(e->lo),
	    "change_high", confirm_num(e->hi), "runs", (json_int_t)row->runs,
	    "n_parent", (json_int_t)e->n_parent, "n_culprit",
	    (json_int_t)e->n_culprit, "bisection", (json_int_t)row->bisection);
}

size_t
confirm_reproduced(const struct report_confirm *rows, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += rows[i].own || rows[i].effect.verdict == CONFIRM_CHANGED;
	return k;
}
