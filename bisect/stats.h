/*
 * Small statistics toolbox for the bisection engine and its simulator:
 * robust location and scale, Student-t densities and tail probabilities,
 * the two-sample tests the engine and the baselines use, Gauss-Hermite
 * quadrature, binary entropy and the capacity C(d) of one sample.
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
 * Mean of v after dropping floor(frac * n) values, but at least min_trim
 * (and never all), from each end; sorts v in place.  With min_trim = 1 the
 * first few samples give their median, larger samples a trimmed mean.
 */
double	stats_tmean_inplace(double *v, size_t n, double frac, size_t min_trim);

/*
 * Normal-consistent median absolute deviation (1.4826 * MAD) of v around
 * its median; sorts v in place.  0 for n < 2.
 */
double	stats_mad_inplace(double *v, size_t n);

/*
 * Result of Yuen's two-sample test on trimmed means (Welch degrees of
 * freedom): the trimmed means, their difference's standard error, the
 * statistic and the two-sided p value.
 */
struct stats_yuen {
	double	tmean_a;
	double	tmean_b;
	double	se;
	double	t;
	double	df;
	double	p;
};

/*
 * Yuen's trimmed-mean test of a against b (each n >= 2), trimming
 * floor(trim * n) values from each end.  Copies and sorts internally.  A zero standard error with different trimmed means gives
 * t = inf and p = 0; with equal means p = 1.
 */
void	stats_yuen(const double *a, size_t na, const double *b, size_t nb,
	    double trim, struct stats_yuen *out);

/* Log density of Student-t with nu degrees of freedom at z (unit scale). */
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

/*
 * Two-sided Mann-Whitney U p value for a vs b: exact when both samples are
 * small and have no ties, otherwise the normal approximation with tie and
 * continuity corrections.
 */
double	stats_mann_whitney(const double *a, size_t na, const double *b,
	    size_t nb);

/* Two-sided two-sample Kolmogorov-Smirnov p value (asymptotic, Stephens). */
double	stats_ks2(const double *a, size_t na, const double *b, size_t nb);

/* Binary entropy in bits; 0 at 0 and 1. */
double	stats_h2(double p);

/*
 * Capacity in bits of one sample at effect size d: the mutual information
 * of a binary-input Gaussian channel with equiprobable inputs at +-d/2 and
 * unit noise, C(d) = 1 - E_Z[log2(1 + exp(-d (d/2 + Z)))].
 */
double	stats_capacity(const struct stats_gh *gh, double d);

/*
 * The same for a binary channel with failure rates pg (good) and pb (bad)
 * and equiprobable inputs: the pass/fail counterpart of C(d).
 */
double	stats_capacity_binary(double pg, double pb);

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
 * Numeric channel: levels 0 and delta (in units of the noise scale), noise
 * normal for the expectation, Student-t(nu) for the likelihood as the
 * engine uses it.
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
