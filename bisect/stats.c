/* SPDX-License-Identifier: MIT */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/stats.h"
#include "common/xmalloc.h"

/* Orthonormal Hermite polynomial p_n(x) (weight exp(-x^2)) and p_{n-1}(x). */
static void
gh_eval(int n, double x, double *pn, double *pn1)
{
	double p0 = 0, p1 = pow(M_PI, -0.25), p2;
	int j;

	for (j = 0; j < n; j++) {
		p2 = x * sqrt(2.0 / (j + 1)) * p1 - sqrt((double)j / (j + 1)) * p0;
		p0 = p1;
		p1 = p2;
	}
	*pn = p1;
	*pn1 = p0;
}

/*
 * The roots of p_n are simple and at least ~0.3 apart for n = 32, so a fine
 * scan for sign changes followed by bisection finds every one without the
 * delicate initial guesses Newton's method needs.
 */
void
stats_gh_init(struct stats_gh *gh)
{
	const int n = STATS_GH_N;
	double lim = sqrt(2.0 * n + 1) + 0.5, step = 1e-3, x, fa, fb, pn1;
	double lo, hi, mid, fm, sum = 0;
	int k = 0, it;

	gh_eval(n, -lim, &fa, &pn1);
	for (x = -lim; x < lim && k < n; x += step) {
		gh_eval(n, x + step, &fb, &pn1);
		if ((fa < 0) != (fb < 0)) {
			lo = x;
			hi = x + step;
			for (it = 0; it < 60; it++) {
				mid = 0.5 * (lo + hi);
				gh_eval(n, mid, &fm, &pn1);
				if ((fm < 0) == (fa < 0))
					lo = mid;
				else
					hi = mid;
			}
			mid = 0.5 * (lo + hi);
			gh_eval(n, mid, &fm, &pn1);
			/* p_n' = sqrt(2n) p_{n-1}; w = 2 / p_n'^2 for exp(-x^2). */
			gh->z[k] = mid * M_SQRT2;
			gh->w[k] = 2.0 / (2.0 * n * pn1 * pn1) / sqrt(M_PI);
			sum += gh->w[k];
			k++;
		}
		fa = fb;
	}
	/* Remove the last rounding so that expectations of constants are exact. */
	for (k = 0; k < n; k++)
		gh->w[k] /= sum;
}

/* qsort order for doubles. */
static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The middle value, or the mean of the two middle ones. */
double
stats_median_inplace(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	if (n % 2 == 1)
		return v[n / 2];
	return 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A scale that one wild value cannot move. */
double
stats_mad_inplace(double *v, size_t n)
{
	double med;
	size_t i;

	if (n < 2)
		return 0;
	med = stats_median_inplace(v, n);
	for (i = 0; i < n; i++)
		v[i] = fabs(v[i] - med);
	return 1.4826 * stats_median_inplace(v, n);
}

/*
 * Huber's M-estimate by iteratively reweighted means from the median: the
 * mean for the bulk of the data, a bounded pull for runs beyond k scales.
 */
void
stats_huber(const double *v, size_t n, double s, double k, double *loc,
    double *se)
{
	double *c = xcalloc(n ? n : 1, sizeof(double)), mu, sw, swy, w, r;
	double m1 = 0, m2 = 0;
	size_t i;
	int it;

	if (n == 0) {
		free(c);
		*loc = 0;
		*se = INFINITY;
		return;
	}
	memcpy(c, v, n * sizeof(double));
	mu = stats_median_inplace(c, n);
	free(c);
	if (!(s > 0)) {
		*loc = mu;
		*se = 0;
		return;
	}
	for (it = 0; it < 100; it++) {
		sw = swy = 0;
		for (i = 0; i < n; i++) {
			r = fabs(v[i] - mu) / s;
			w = r <= k ? 1 : k / r;
			sw += w;
			swy += w * v[i];
		}
		r = swy / sw;
		if (fabs(r - mu) < 1e-12 * s) {
			mu = r;
			break;
		}
		mu = r;
	}
	for (i = 0; i < n; i++) {
		r = (v[i] - mu) / s;
		if (fabs(r) < k)
			m1 += 1;
		r = fmax(-k, fmin(k, r));
		m2 += r * r;
	}
	*loc = mu;
	if (m1 == 0 || n < 2) {
		*se = INFINITY;
		return;
	}
	m1 /= (double)n;
	m2 /= (double)n;
	*se = s * sqrt(m2) / m1 / sqrt((double)n - 1);
}

/*
 * Whether group j, of nj values, counts: a side always, the others from
 * STATS_GROUP_MIN values.
 */
static int
group_counts(size_t j, size_t extra, size_t nj)
{
	return j < extra || nj >= STATS_GROUP_MIN;
}

/*
 * 1.4826 times the median absolute residual of the groups x (sizes n[],
 * values one after another) about each group's own median, scaled up by
 * m / (m - g) for m residuals and g fitted centres (a small-sample
 * correction checked in the simulator).  Groups from index `extra` on
 * count only with STATS_GROUP_MIN values or more.  v is scratch of sum(n)
 * values.
 */
static double
groups_mad(const double *x, const size_t *n, size_t k, size_t extra,
    double *v)
{
	size_t m = 0, off = 0, g = 0, i, j;
	double med;

	for (j = 0; j < k; off += n[j], j++) {
		if (!group_counts(j, extra, n[j]))
			continue;
		g++;
		if (n[j] == 0)
			continue;
		memcpy(v + m, x + off, n[j] * sizeof(double));
		med = stats_median_inplace(v + m, n[j]);
		for (i = 0; i < n[j]; i++)
			v[m + i] = fabs(x[off + i] - med);
		m += n[j];
	}
	if (m <= g || m <= 2)
		return 0;
	return 1.4826 * stats_median_inplace(v, m) * (double)m / (double)(m - g);
}

/* a then b in one new array (never NULL), for stats_levels_groups. */
static double *
pair_join(const double *a, size_t na, const double *b, size_t nb)
{
	double *x = xcalloc(na + nb + 1, sizeof(double));

	if (na > 0)
		memcpy(x, a, na * sizeof(double));
	if (nb > 0)
		memcpy(x + na, b, nb * sizeof(double));
	return x;
}

/* E[min(Z^2, c^2)] for Z standard normal: the winsorized variance. */
static double
winsor_kappa(double c)
{
	double phi = exp(-0.5 * c * c) / sqrt(2 * M_PI), tail = 0.5 * erfc(c / M_SQRT2);

	return (1 - 2 * tail) - 2 * c * phi + 2 * c * c * tail;
}

/*
 * Whether a value is a broken run: STATS_REJECT_C scales from its group's
 * centre once the residual is studentized (a residual about a centre
 * fitted to nj values has sd s sqrt(1 - 1/nj)).  A side of two values
 * has two residuals of half their gap; unstudentized, a wild run in such
 * a pair sat below the bar and, winsorized twice, held the scale at three
 * times the noise (docs/statistics.md, "Likelihoods").
 */
static int
far_run(double x, double loc, double s, size_t nj)
{
	double lev = nj > 1 ? sqrt(1 - 1 / (double)nj) : 1;

	return fabs(x - loc) >= STATS_REJECT_C * s * lev;
}

/*
 * Huber locations of the counting groups from their values not marked
 * out; a group with none kept keeps its old centre.  v is scratch.
 */
static void
groups_huber(const double *x, const size_t *n, size_t k,
    const uint8_t *out, double s, double *loc, double *v)
{
	size_t i, j, m, off;
	double se;

	for (off = 0, j = 0; j < k; off += n[j], j++) {
		if (!group_counts(j, 2, n[j]))
			continue;
		for (m = 0, i = 0; i < n[j]; i++)
			if (!out[off + i])
				v[m++] = x[off + i];
		if (m > 0 || n[j] == 0)
			stats_huber(v, m, s, STATS_HUBER_K, &loc[j], &se);
	}
}

/*
 * Two centres and one scale: the MAD start (37% efficient) refined by
 * winsorized residuals about Huber locations, which keeps most of the
 * efficiency of a standard deviation while a run between STATS_WINSOR_C
 * and STATS_REJECT_C scales counts as the former and one beyond the latter
 * not at all, in the scale and in its group's centre (a broken run would
 * otherwise widen the noise by its 2.5 scales for good, and pull the
 * centre of a side of three by half a Huber step).  A noisy scale is the
 * main source of overconfidence in the posterior, hence the refinement;
 * the groups after the two sides add their spread about their own
 * centres, whatever side they turn out to be on.
 */
void
stats_levels_groups(const double *x, const size_t *n, size_t k,
    struct stats_levels *out)
{
	const double c = STATS_WINSOR_C, kappa = winsor_kappa(c);
	double *v, *loc, s, ss, r;
	size_t i, j, m = 0, g = 0, off, tot = 0, kept, wild, df, all;
	uint8_t *far;
	int it, moved = 0;

	for (j = 0; j < k; j++) {
		tot += n[j];
		if (group_counts(j, 2, n[j])) {
			m += n[j];
			g++;
		}
	}
	v = xcalloc(tot + 1, sizeof(double));
	loc = xcalloc(k + 2, sizeof(double));
	far = xcalloc(tot + 1, 1);
	s = groups_mad(x, n, k, 2, v);
	groups_huber(x, n, k, far, s, loc, v);
	for (it = 0; it < 3; it++) {
		if (!(s > 0) || m <= 2 || m <= g)
			break;
		wild = 0;
		for (off = 0, j = 0; j < k; off += n[j], j++)
			for (i = 0; i < n[j]; i++) {
				far[off + i] = group_counts(j, 2, n[j]) &&
				    far_run(x[off + i], loc[j], s, n[j]);
				wild += far[off + i];
			}
		/* Many far values are the noise itself, not broken runs. */
		if (wild * STATS_REJECT_SHARE > m)
			memset(far, 0, tot);
		groups_huber(x, n, k, far, s, loc, v);
		moved = 0;
		ss = 0;
		df = 0;
		all = 0;
		for (off = 0, j = 0; j < k; off += n[j], j++) {
			if (!group_counts(j, 2, n[j]))
				continue;
			for (kept = 0, i = 0; i < n[j]; i++) {
				if (far[off + i])
					continue;
				r = (x[off + i] - loc[j]) / s;
				ss += fmin(r * r, c * c);
				kept++;
			}
			df += kept > 0 ? kept - 1 : 0;
			all += kept;
		}
		if (df < 1 || all <= 2)
			break;
		s *= sqrt(ss / ((double)df * kappa));
		moved = 1;
	}
	/* The centres follow the scale's last refinement. */
	if (moved)
		groups_huber(x, n, k, far, s, loc, v);
	out->loc_a = k > 0 ? loc[0] : 0;
	out->loc_b = k > 1 ? loc[1] : 0;
	out->scale = s;
	free(far);
	free(loc);
	free(v);
}

/* The two-group case, for callers whose sides are two arrays. */
void
stats_levels(const double *a, size_t na, const double *b, size_t nb,
    struct stats_levels *out)
{
	double *x = pair_join(a, na, b, nb);
	size_t n[2] = { na, nb };

	stats_levels_groups(x, n, 2, out);
	free(x);
}

/* Mean and squared standard error of the mean. */
static void
mean_se2(const double *v, size_t n, double *mean, double *se2)
{
	double m = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		m += v[i];
	m /= (double)n;
	for (i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	*mean = m;
	*se2 = ss / ((double)n - 1) / (double)n;
}

/*
 * Welch's test while a side has too few values for a robust scale: its
 * null distribution is known, and a wild value inflates its variance, so
 * it errs towards "no difference".  From STATS_ROBUST_MIN values a side,
 * Huber locations with a pooled robust scale: nearly the efficiency of
 * the t test under normal or bimodal noise, and a wild run only pulls by
 * its clipped residual.
 */
void
stats_compare(const double *a, size_t na, const double *b, size_t nb,
    struct stats_cmp *out)
{
	struct stats_levels lv;
	double sa, sb, diff;

	stats_levels(a, na, b, nb, &lv);
	out->scale = lv.scale;
	if (na < STATS_ROBUST_MIN || nb < STATS_ROBUST_MIN) {
		mean_se2(a, na, &out->loc_a, &sa);
		mean_se2(b, nb, &out->loc_b, &sb);
		out->se = sqrt(sa + sb);
		out->df = sa + sb > 0 ? (sa + sb) * (sa + sb) /
		    (sa * sa / ((double)na - 1) + sb * sb / ((double)nb - 1)) :
		    (double)(na + nb) - 2;
	} else {
		stats_huber(a, na, lv.scale, STATS_HUBER_K, &out->loc_a, &sa);
		stats_huber(b, nb, lv.scale, STATS_HUBER_K, &out->loc_b, &sb);
		out->se = sqrt(sa * sa + sb * sb);
		out->df = (double)(na + nb) - 2;
	}
	diff = fabs(out->loc_b - out->loc_a);
	if (!(out->se > 0)) {
		out->t = diff > 0 ? INFINITY : 0;
		out->p = diff > 0 ? 0 : 1;
		return;
	}
	out->t = diff / out->se;
	out->p = stats_t_sf2(out->t, out->df);
}

/*
 * The constant of the Student-t density, apart so loops can add it once;
 * nu = INFINITY, the engine's normal likelihood, gives the normal's
 * constant instead of the NaN of infinite lgammas.
 */
double
stats_t_lognorm(double nu)
{
	if (isinf(nu))
		return -0.5 * log(2 * M_PI);
	return lgamma(0.5 * (nu + 1)) - lgamma(0.5 * nu) - 0.5 * log(nu * M_PI);
}

/*
 * The shape part of the Student-t log density (nu = INFINITY: the normal
 * one), written once for the density and for the engine's evidence.
 */
static double
t_logkernel(double z, double nu)
{
	if (isinf(nu))
		return -0.5 * z * z;
	return -0.5 * (nu + 1) * log1p(z * z / nu);
}

/* Log density of Student-t: the engine's heavy-tailed noise model. */
double
stats_t_logpdf(double z, double nu)
{
	return stats_t_lognorm(nu) + t_logkernel(z, nu);
}

/* Continued fraction for the incomplete beta (modified Lentz). */
static double
betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d, h, num;
	int m;

	d = 1 - (a + b) * x / (a + 1);
	d = fabs(d) < tiny ? 1 / tiny : 1 / d;
	h = d;
	for (m = 1; m <= 300; m++) {
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		if (fabs(d * c - 1) < 1e-15)
			break;
	}
	return h;
}

/* Regularized incomplete beta, through the continued fraction on its fast side. */
double
stats_betainc(double a, double b, double x)
{
	double lf;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	lf = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lf) * betacf(a, b, x) / a;
	return 1 - exp(lf) * betacf(b, a, 1 - x) / b;
}

/* Two-sided Student-t tail through the incomplete beta. */
double
stats_t_sf2(double t, double nu)
{
	if (isinf(t))
		return 0;
	return stats_betainc(0.5 * nu, 0.5, nu / (nu + t * t));
}

/* erfc keeps precision in the lower tail. */
double
stats_norm_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/* Binomial coefficients in logs, so large tables do not overflow. */
static double
log_choose(unsigned n, unsigned k)
{
	return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0);
}

/* Sums the hypergeometric tables no more likely than the observed one. */
double
stats_fisher2(unsigned fa, unsigned na, unsigned fb, unsigned nb)
{
	unsigned f = fa + fb, n = na + nb, k, lo, hi;
	double lp_obs, lp, p = 0, denom = log_choose(n, na);

	lo = f > nb ? f - nb : 0;
	hi = f < na ? f : na;
	lp_obs = log_choose(f, fa) + log_choose(n - f, na - fa) - denom;
	for (k = lo; k <= hi; k++) {
		lp = log_choose(f, k) + log_choose(n - f, na - k) - denom;
		if (lp <= lp_obs + 1e-7)
			p += exp(lp);
	}
	return p > 1 ? 1 : p;
}

/* Mixtures of likelihood ratios are averaged in logs: each may be huge. */
double
stats_log_mean_exp(const double *x, size_t n)
{
	double max = -INFINITY, sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (x[i] > max)
			max = x[i];
	if (max == -INFINITY)
		return max;
	for (i = 0; i < n; i++)
		sum += exp(x[i] - max);
	return max + log(sum / (double)n);
}

/* Binary entropy in bits, the measure of what a probe can teach. */
double
stats_h2(double p)
{
	if (p <= 0 || p >= 1)
		return 0;
	return -(p * log2(p) + (1 - p) * log2(1 - p));
}

/*
 * The likelihood ratio the engine counts and plans with, in one place so
 * the evidence and the information table cannot part.
 */
double
stats_t_logratio(double za, double zb, double nu)
{
	return t_logkernel(za, nu) - t_logkernel(zb, nu);
}

/* Nodes under each side, with the capped evidence the engine computes. */
void
stats_channel_numeric(struct stats_channel *c, const struct stats_gh *gh,
    double delta, double nu)
{
	int i;

	c->n = 2 * STATS_GH_N;
	for (i = 0; i < STATS_GH_N; i++) {
		/* Node i under "bad": y = delta + z around delta. */
		c->llr[i] = stats_t_logratio(gh->z[i], delta + gh->z[i], nu);
		c->wb[i] = gh->w[i];
		c->wg[i] = 0;
		/* Node i under "good": y = z around 0. */
		c->llr[STATS_GH_N + i] = stats_t_logratio(gh->z[i] - delta,
		    gh->z[i], nu);
		c->wb[STATS_GH_N + i] = 0;
		c->wg[STATS_GH_N + i] = gh->w[i];
	}
}

/* The two outcomes of a pass/fail run. */
void
stats_channel_binary(struct stats_channel *c, double pg, double pb)
{
	c->n = 2;
	c->llr[0] = log(pb / pg);
	c->wb[0] = pb;
	c->wg[0] = pg;
	c->llr[1] = log((1 - pb) / (1 - pg));
	c->wb[1] = 1 - pb;
	c->wg[1] = 1 - pg;
}

/* Expected entropy drop of the side after one observation. */
double
stats_channel_info(const struct stats_channel *c, double q)
{
	double e = 0, lo, qq;
	size_t i;

	if (q <= 0 || q >= 1)
		return 0;
	lo = log(q / (1 - q));
	for (i = 0; i < c->n; i++) {
		qq = 1 / (1 + exp(-(lo + c->llr[i])));
		e += (q * c->wb[i] + (1 - q) * c->wg[i]) * stats_h2(qq);
	}
	qq = stats_h2(q) - e;
	return qq > 0 ? qq : 0;
}

/* Entropy in bits of Binomial(r, p). */
static double
binom_entropy(unsigned r, double p)
{
	double h = 0, pk;
	unsigned k;

	for (k = 0; k <= r; k++) {
		pk = exp(log_choose(r, k) + (k ? k * log(p) : 0) +
		    (r - k ? (r - k) * log1p(-p) : 0));
		if (pk > 0)
			h -= pk * log2(pk);
	}
	return h;
}

/*
 * Enumerates the vectors of "bad" counts; for each, the probability sums
 * over the m + 1 intervals with prefix products (points at or before the
 * interval are good) and suffix products (points after it are bad).
 */
double
stats_nested_mi(double eps, const unsigned *reps, size_t m)
{
	double total = 1, hcond = 0, hy = 0, pt, *pre, *suf, *pg, *pb;
	unsigned *t;
	size_t j, i;

	if (eps < 1e-12)
		eps = 1e-12;
	for (j = 0; j < m; j++) {
		total *= reps[j] + 1;
		hcond += binom_entropy(reps[j], eps);
	}
	if (total > (double)(1 << 18))
		return -1;
	t = xcalloc(m, sizeof(*t));
	pre = xcalloc(m + 1, sizeof(double));
	suf = xcalloc(m + 1, sizeof(double));
	pg = xcalloc(m, sizeof(double));
	pb = xcalloc(m, sizeof(double));
	for (;;) {
		for (j = 0; j < m; j++) {
			double lc = log_choose(reps[j], t[j]);
			unsigned k = t[j], r = reps[j];

			/* A good point votes "bad" with probability eps. */
			pg[j] = exp(lc + k * log(eps) + (r - k) * log1p(-eps));
			pb[j] = exp(lc + k * log1p(-eps) + (r - k) * log(eps));
		}
		pre[0] = 1;
		for (j = 0; j < m; j++)
			pre[j + 1] = pre[j] * pg[j];
		suf[m] = 1;
		for (j = m; j > 0; j--)
			suf[j - 1] = suf[j] * pb[j - 1];
		pt = 0;
		for (i = 0; i <= m; i++)
			pt += pre[i] * suf[i];
		pt /= (double)(m + 1);
		if (pt > 0)
			hy -= pt * log2(pt);
		for (j = 0; j < m; j++) {
			if (++t[j] <= reps[j])
				break;
			t[j] = 0;
		}
		if (j == m)
			break;
	}
	free(t);
	free(pre);
	free(suf);
	free(pg);
	free(pb);
	return hy - hcond;
}

/* Inverts 1 - h(eps) by bisection: the noise of an equivalent binary channel. */
double
stats_bsc_eps(double bits)
{
	double lo = 0, hi = 0.5, mid;
	int i;

	if (bits >= 1)
		return 0;
	if (bits <= 0)
		return 0.5;
	for (i = 0; i < 60; i++) {
		mid = 0.5 * (lo + hi);
		if (1 - stats_h2(mid) > bits)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}
