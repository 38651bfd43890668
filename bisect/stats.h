/* SPDX-License-Identifier: MIT */
/*
 * Small statistics toolbox for the bisection engine: robust location and
 * scale, Student-t densities and tail probabilities, the two-sample tests
 * the reproduction check uses, Gauss-Hermite quadrature, binary entropy and
 * the information of one sample.  Statistics only the simulator needs
 * (rank tests, the capacity bound) are in tests/bench/sim_stats.h.
 *
 * Everything here is pure: no I/O, no global state.  Functions that need
 * scratch space take a caller-owned buffer or allocate and free it before
 * returning; none keeps a pointer to its arguments.
 */
#ifndef BISECT_STATS_H
#define BISECT_STATS_H

#include <stddef.h>

/* Number of Gauss-Hermite nodes used for expectations over a normal. */
#define STATS_GH_N 32

/*
 * Gauss-Hermite nodes and weights for E[f(Z)], Z standard normal:
 * E[f(Z)] ~= sum_i w[i] * f(z[i]).  Computed once by stats_gh_init (the
 * weights already include the normal density, so they sum to 1).
 */
struct stats_gh {
	double	z[STATS_GH_N];
	double	w[STATS_GH_N];
};

void	stats_gh_init(struct stats_gh *gh);

/*
 * Median of v[0..n-1] (n > 0).  Sorts v in place: pass a copy when the
 * order matters to the caller.
 */
double	stats_median_inplace(double *v, size_t n);

/*
 * Normal-consistent median absolute deviation (1.4826 * MAD) of v around
 * its median; sorts v in place.  0 for n < 2.
 */
double	stats_mad_inplace(double *v, size_t n);

/* Huber's tuning constant: 95% efficiency under normal noise. */
#define STATS_HUBER_K 1.345

/*
 * Huber M-estimate of location of v with fixed scale s and tuning k (in
 * scales), and its standard error.  se is INFINITY when it cannot be told.
 */
void	stats_huber(const double *v, size_t n, double s, double k,
	    double *loc, double *se);

/* Residuals beyond this many scales count as this many in the scale. */
#define STATS_WINSOR_C 2.5

/*
 * Residuals beyond this many scales are left out of the scale's
 * refinement: under normal noise one in 500 million; in the simulator's
 * outlier model (5% of runs anywhere within 30 sd) leaving them out
 * instead of counting them at 2.5 saved 2-5 samples a bisection.
 */
#define STATS_REJECT_C 6.0

/*
 * ... but only while they are at most one in this many: beyond that they
 * are the noise (a quiet start and a noisy rest), not broken runs, and
 * leaving them out would keep a scale drawn small from the quiet part.
 */
#define STATS_REJECT_SHARE 4

/*
 * Values a group other than the two sides needs before its spread counts
 * in the scale: a pair with one wild value has two large residuals about
 * its midpoint, and counting pairs cost the outlier rows 1-4 samples.
 */
#define STATS_GROUP_MIN 3

/* Robust levels of two samples that share one noise scale. */
struct stats_levels {
	double	loc_a;		/* Huber location of a */
	double	loc_b;
	double	scale;		/* pooled, normal-consistent */
};

/*
 * Huber locations of a and b and their common scale: the pooled MAD,
 * refined by winsorized residuals about the locations (about 90% of the
 * efficiency of a standard deviation; a wild run counts as at most
 * STATS_WINSOR_C scales).  Empty samples get location 0.
 */
void	stats_levels(const double *a, size_t na, const double *b, size_t nb,
	    struct stats_levels *out);

/*
 * The same over k groups whose n[j] values follow one another in x: the
 * locations of groups 0 and 1, and a scale to which every later group of
 * STATS_GROUP_MIN values or more adds its residuals about its own centre
 * (commits sampled more than once whose side is not known yet).  x is
 * only read.
 */
void	stats_levels_groups(const double *x, const size_t *n, size_t k,
	    struct stats_levels *out);

/* Result of a robust two-sample comparison. */
struct stats_cmp {
	double	loc_a;
	double	loc_b;
	double	scale;		/* pooled robust noise scale */
	double	se;		/* standard error of loc_b - loc_a */
	double	t;		/* |loc_b - loc_a| / se */
	double	df;
	double	p;		/* two-sided */
};

/* Values a side needs before the comparison switches to robust locations. */
#define STATS_ROBUST_MIN 10

/*
 * Compares a with b (each n >= 2): Welch's t test while a side has fewer
 * than STATS_ROBUST_MIN values, then Huber locations with a pooled robust
 * scale.  A zero standard error with different locations gives
 * t = inf and p = 0; with equal ones p = 1.
 */
void	stats_compare(const double *a, size_t na, const double *b, size_t nb,
	    struct stats_cmp *out);

/*
 * Log density of Student-t with nu degrees of freedom at z (unit scale);
 * nu = INFINITY is the normal density, as for stats_t_logratio.
 */
double	stats_t_logpdf(double z, double nu);

/* Constant part of stats_t_logpdf, so hot loops can add it once. */
double	stats_t_lognorm(double nu);

/* Two-sided tail P(|T| >= t) for Student-t with nu degrees of freedom. */
double	stats_t_sf2(double t, double nu);

/* Regularized incomplete beta function I_x(a, b). */
double	stats_betainc(double a, double b, double x);

/* Standard normal CDF. */
double	stats_norm_cdf(double z);

/*
 * Two-sided Fisher exact p value for the 2x2 table
 *   fa failures of na trials  vs  fb failures of nb trials.
 */
double	stats_fisher2(unsigned fa, unsigned na, unsigned fb, unsigned nb);

/* log of the mean of exp(x[i]) over n > 0 values, without overflow. */
double	stats_log_mean_exp(const double *x, size_t n);

/* Binary entropy in bits; 0 at 0 and 1. */
double	stats_h2(double p);

/*
 * A two-hypothesis observation channel in quadrature form: outcome i has
 * log-likelihood ratio llr[i] = log P(y|bad) - log P(y|good), and weight
 * wb[i] under "bad", wg[i] under "good" (each set of weights sums to 1).
 * Numeric channels put Gauss-Hermite nodes around each level; pass/fail
 * channels have the two outcomes.
 */
struct stats_channel {
	size_t	n;
	double	llr[2 * STATS_GH_N];
	double	wb[2 * STATS_GH_N];
	double	wg[2 * STATS_GH_N];
};

/*
 * log f(za) - log f(zb) for the Student-t(nu) density f at standardized
 * residuals za and zb; nu = INFINITY is the normal density.
 */
double	stats_t_logratio(double za, double zb, double nu);

/*
 * Numeric channel: levels 0 and delta (in units of the noise scale), noise
 * normal for the expectation, Student-t(nu) for the likelihood as the
 * engine uses it (nu = INFINITY: normal).
 */
void	stats_channel_numeric(struct stats_channel *c,
	    const struct stats_gh *gh, double delta, double nu);

/* Pass/fail channel with failure rates pg (good) and pb (bad). */
void	stats_channel_binary(struct stats_channel *c, double pg, double pb);

/*
 * Expected information in bits from one observation about a binary side
 * whose prior probability of "bad" is q: h(q) - E[h(q')].
 */
double	stats_channel_info(const struct stats_channel *c, double q);

/*
 * Mutual information (bits) of one round of probes on a chain: the culprit
 * lies in one of m + 1 equiprobable intervals cut by m probe points; point
 * j is sampled reps[j] times through a binary symmetric channel with
 * crossover eps.  Returns -1 when the outcome space is too large to
 * enumerate (more than 2^18 count vectors).
 */
double	stats_nested_mi(double eps, const unsigned *reps, size_t m);

/* The crossover eps in [0, 1/2] whose channel carries bits = 1 - h(eps). */
double	stats_bsc_eps(double bits);

#endif
