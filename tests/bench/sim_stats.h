/* SPDX-License-Identifier: MIT */
/*
 * Statistics used only by the simulator (tests/bench/): the two-sample
 * rank tests of the Pinpoint baseline, the capacity C(d) of one sample
 * behind the lower bound log2(N) / C(d), and the tail that judges the
 * calibration table.  Pure functions; scratch space is
 * allocated and freed inside.
 */
#ifndef TESTS_BENCH_SIM_STATS_H
#define TESTS_BENCH_SIM_STATS_H

#include <stddef.h>

#include "bisect/stats.h"

/*
 * Two-sided Mann-Whitney U p value for a vs b: exact when both samples are
 * small and have no ties, otherwise the normal approximation with tie and
 * continuity corrections.
 */
double	sim_stats_mann_whitney(const double *a, size_t na,
	    const double *b, size_t nb);

/* Two-sided two-sample Kolmogorov-Smirnov p value (asymptotic, Stephens). */
double	sim_stats_ks2(const double *a, size_t na, const double *b, size_t nb);

/*
 * Capacity in bits of one sample at effect size d: the mutual information
 * of a binary-input Gaussian channel with equiprobable inputs at +-d/2 and
 * unit noise, C(d) = 1 - E_Z[log2(1 + exp(-d (d/2 + Z)))].
 */
double	sim_stats_capacity(const struct stats_gh *gh, double d);

/*
 * The same for a binary channel with failure rates pg (good) and pb (bad)
 * and equiprobable inputs: the pass/fail counterpart of C(d).
 */
double	sim_stats_capacity_binary(double pg, double pb);

/*
 * P(X >= k) for X Poisson with mean lambda: how often verdicts whose
 * claims leave lambda wrong ones expected show k or more (the
 * calibration table's p; the Poisson law stands in for the sum of
 * unequal Bernoulli trials, close when each is rare).
 */
double	sim_stats_poisson_tail(unsigned k, double lambda);

#endif
