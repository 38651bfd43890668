/* SPDX-License-Identifier: MIT */
/*
 * Bisection engine: drift of the test machine.  A slow change of the
 * machine (thermal, a background job, a firmware update) moves every value
 * by the same amount at a given time, and a model that assumes two fixed
 * levels then reads the move as evidence about commits sampled late.  The
 * engine re-samples the endpoints between probes (engine_next.c), tests
 * the residuals of the samples whose side is known for a linear trend
 * and for a level step, and models the terms it finds, subtracting them
 * from the values before levels and evidence are computed
 * (docs/statistics.md, "Drift of the test machine").
 *
 * Time is the position of a sample in the event sequence, so the model is
 * a function of the stored samples in order, like the rest of the state.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/engine.h"
#include "bisect/engine_int.h"
#include "bisect/stats.h"
#include "common/xmalloc.h"

/* Endpoint samples a side before the drift model may start. */
#define DRIFT_MIN_ENDS 4

/* Residuals beyond this many scales count as this many. */
#define DRIFT_CLIP 2.5

/* Samples that share one error of the drift fit, for the noise widening. */
#define DRIFT_SHARE 12.0

/* Normal score of a kept term that sets the "drift found" flag. */
#define DRIFT_REPORT_Z 4.5

/* Normal score at which a split of the residuals is modelled as a step. */
#define DRIFT_STEP_Z 3.5

/*
 * The residual of sample i about its side's level, in scales, clipped;
 * 0 with *ok = 0 when the side is unknown.
 */
static double
residual(const struct engine *e, size_t i, int *ok)
{
	const struct engine_priv *v = e->priv;
	int side = engine_sample_side(e, i);
	double r;

	*ok = side != 0;
	if (side == 0)
		return 0;
	r = (v->sv[i] - (side < 0 ? v->mu_g : v->mu_b)) / v->scale;
	return fmax(-DRIFT_CLIP, fmin(DRIFT_CLIP, r));
}

/*
 * Least squares of the residuals on up to three centred regressors (time,
 * a step at cut): coefficients in beta, their normal scores in z and
 * their covariance in cov (squared scales).  Returns 0 when the system is
 * singular.
 */
static int
fit_terms(const struct engine *e, size_t cut, int use_slope, int use_step,
    double *beta, double *z, double cov[2][2])
{
	const struct engine_priv *v = e->priv;
	double a[2][3] = { { 0 } }, x[2], mean[2] = { 0, 0 }, n = 0, r, rss;
	double m[2][2], det, inv[2][2], ry = 0, yy = 0, s2;
	size_t i, k, j, p = 0;
	int ok, idx[2];

	if (use_slope)
		idx[p++] = 0;
	if (use_step)
		idx[p++] = 1;
	for (i = 0; i < v->ns; i++) {
		residual(e, i, &ok);
		if (!ok)
			continue;
		n++;
		mean[0] += (double)i;
		mean[1] += i >= cut;
	}
	if (p == 0 || n < (double)p + 3)
		return 0;
	mean[0] /= n;
	mean[1] /= n;
	for (i = 0; i < v->ns; i++) {
		r = residual(e, i, &ok);
		if (!ok)
			continue;
		x[0] = (double)i - mean[0];
		x[1] = (i >= cut) - mean[1];
		for (k = 0; k < p; k++) {
			for (j = 0; j < p; j++)
				a[k][j] += x[idx[k]] * x[idx[j]];
			a[k][2] += x[idx[k]] * r;
		}
		ry += r;
		yy += r * r;
	}
	yy -= ry * ry / n;
	if (p == 1) {
		if (!(a[0][0] > 0))
			return 0;
		inv[0][0] = 1 / a[0][0];
	} else {
		m[0][0] = a[0][0];
		m[0][1] = a[0][1];
		m[1][0] = a[1][0];
		m[1][1] = a[1][1];
		det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
		if (!(det > 1e-12 * m[0][0] * m[1][1]))
			return 0;
		inv[0][0] = m[1][1] / det;
		inv[1][1] = m[0][0] / det;
		inv[0][1] = inv[1][0] = -m[0][1] / det;
	}
	rss = yy;
	for (k = 0; k < p; k++) {
		beta[idx[k]] = 0;
		for (j = 0; j < p; j++)
			beta[idx[k]] += inv[k][j] * a[j][2];
		rss -= beta[idx[k]] * a[k][2];
	}
	s2 = fmax(rss / (n - (double)p - 1), 1e-9);
	memset(cov, 0, 4 * sizeof(double));
	for (k = 0; k < p; k++) {
		z[idx[k]] = fabs(beta[idx[k]]) / sqrt(s2 * inv[k][k]);
		for (j = 0; j < p; j++)
			cov[idx[k]][idx[j]] = s2 * inv[k][j];
	}
	return 1;
}

/*
 * The most likely time of a level step in the residuals less a linear
 * trend (the largest two-sample t between before and after, both sides
 * with a few residuals); 0 when there are too few.
 */
static size_t
step_point(const struct engine *e, double slope)
{
	const struct engine_priv *v = e->priv;
	double n = 0, sy = 0, syy = 0, n1 = 0, s1 = 0, t, best = 0, m1, m2;
	double s2, r, sh;
	size_t i, arg = 0;
	int ok;

	for (i = 0; i < v->ns; i++) {
		r = residual(e, i, &ok) - slope * (double)i;
		if (ok) {
			n++;
			sy += r;
			syy += r * r;
		}
	}
	if (n < 2 * 4 + 2)
		return 0;
	s2 = (syy - sy * sy / n) / (n - 2);
	for (i = 0; i < v->ns; i++) {
		r = residual(e, i, &ok) - slope * (double)i;
		if (n1 >= 4 && n - n1 >= 4 && ok) {
			m1 = s1 / n1;
			m2 = (sy - s1) / (n - n1);
			/* Within-segment variance: total less the split's share. */
			sh = (m1 - m2) * (m1 - m2) / (1 / n1 + 1 / (n - n1));
			t = fabs(m1 - m2) / sqrt(fmax(s2 - sh / (n - 2), 1e-9) *
			    (1 / n1 + 1 / (n - n1)));
			if (t > best) {
				best = t;
				arg = i;
			}
		}
		if (ok) {
			n1++;
			s1 += r;
		}
	}
	return arg;
}

/*
 * Fits the drift as a linear trend (thermal creep, a slowly growing
 * background load) plus one level step where the residuals split most
 * clearly (a firmware update, a job that starts), each term kept only
 * when its normal score passes: drift_z for the trend, DRIFT_STEP_Z for
 * the step, whose time was searched for.  Few parameters keep the
 * adjustment itself from adding noise.  Returns the largest normal score
 * of the terms kept, 0 when none was.
 */
static double
drift_fit(struct engine *e)
{
	struct engine_priv *v = e->priv;
	double beta[2] = { 0, 0 }, z[2] = { 0, 0 }, tm = 0, sm = 0, n = 0, f;
	double lo = 0, hi = 0, cov[2][2], x0, x1, var;
	int slope = 0, step = 0, ok;
	size_t cut = 0, i;

	if (fit_terms(e, 0, 1, 0, beta, z, cov) && z[0] > e->p.drift_z)
		slope = 1;
	cut = step_point(e, slope ? beta[0] : 0);
	if (cut > 0 && fit_terms(e, cut, slope, 1, beta, z, cov) &&
	    z[1] > DRIFT_STEP_Z) {
		step = 1;
		if (slope && !(z[0] > e->p.drift_z)) {
			slope = 0;
			fit_terms(e, cut, 0, 1, beta, z, cov);
		}
	} else if (slope)
		fit_terms(e, 0, 1, 0, beta, z, cov);
	if (!slope && !step) {
		memcpy(v->adj, v->sv, v->ns * sizeof(double));
		for (i = 0; i < v->ns; i++)
			v->infl[i] = 1;
		v->drift_size = 0;
		return 0;
	}
	for (i = 0; i < v->ns; i++) {
		residual(e, i, &ok);
		if (!ok)
			continue;
		n++;
		tm += (double)i;
		sm += i >= cut;
	}
	tm /= n;
	sm /= n;
	for (i = 0; i < v->ns; i++) {
		x0 = slope ? (double)i - tm : 0;
		x1 = step ? (i >= cut) - sm : 0;
		f = beta[0] * x0 + (step ? beta[1] * x1 : 0);
		if (!slope)
			f = beta[1] * x1;
		var = cov[0][0] * x0 * x0 + 2 * cov[0][1] * x0 * x1 +
		    cov[1][1] * x1 * x1 + 1 / n;
		v->adj[i] = v->sv[i] - f * v->scale;
		/*
		 * The error of the fit is shared by every sample near time i,
		 * so repeats do not average it away: count it DRIFT_SHARE times.
		 */
		v->infl[i] = sqrt(1 + DRIFT_SHARE * var);
		lo = i == 0 ? f : fmin(lo, f);
		hi = i == 0 ? f : fmax(hi, f);
	}
	v->drift_size = hi - lo;
	return fmax(slope ? z[0] : 0, step ? z[1] : 0);
}

/*
 * Refits the drift model after the levels or the classes changed.  The
 * model keeps terms at a lenient score (an unneeded trend costs little);
 * the "drift found" flag for status and reports needs DRIFT_REPORT_Z and
 * then stays set (the latch is itself a function of the event sequence).
 * Returns 1 when values were adjusted.
 */
int
engine_drift(struct engine *e)
{
	struct engine_priv *v = e->priv;
	double zmax;
	int on;

	/*
	 * Levels of a change not yet confirmed are too rough for residuals,
	 * and so are levels whose endpoints have fewer than DRIFT_MIN_ENDS
	 * samples (the shared mode can confirm a large change before).
	 */
	if (e->p.metric != ENGINE_NUMERIC || e->p.drift_z <= 0 ||
	    v->phase != ENGINE_PHASE_BISECT || !v->reproduced ||
	    !v->levels_ok || v->ng < DRIFT_MIN_ENDS || v->nb < DRIFT_MIN_ENDS)
		return 0;
	zmax = drift_fit(e);
	on = zmax > 0;
	v->drift |= zmax > DRIFT_REPORT_Z;
	v->drift_on = on;
	return on;
}
