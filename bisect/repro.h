/* SPDX-License-Identifier: MIT */
/*
 * Reproduction check: before any bisection, decide from samples at the
 * good and the bad endpoint whether the change is real.
 *
 * A sequential probability ratio test on the endpoint comparison.  Samples
 * are added per side at looks of growing size (repro_min, then x growth
 * each time, at least one more sample a look, up to repro_max).  At each
 * look the comparison's two-sided p value is turned into a normal score
 * z, and the log likelihood ratio of "the
 * sides differ by the effect of interest" (either sign) against "no
 * difference" is
 *
 *     LLR = log cosh(theta z) - theta^2 / 2,
 *
 * theta being the score such an effect would have at this look, averaged
 * over effects 1, 2, 4 and 8 times that size (so that large changes are
 * recognised early).  LLR >=
 * log((1 - beta) / alpha) is "reproduced", LLR <= log(beta / (1 - alpha))
 * "not reproduced"; reaching the cap undecided is "not reproduced".
 *
 * Numeric metrics compare Huber locations with a pooled robust scale
 * (stats_compare), with the effect of interest in units of the noise
 * standard deviation; pass/fail results
 * use Fisher's exact test, with the effect a failure-rate gap.  A numeric
 * change whose relative size is below min_change is "not reproduced"
 * however certain.  The false "reproduced" rate on null ranges is measured
 * in the simulator (sim --calibrate) and reported in docs/statistics.md.
 *
 * Pure functions; the caller owns every array.
 */
#ifndef BISECT_REPRO_H
#define BISECT_REPRO_H

#include <stddef.h>

#define REPRO_MAX_LOOKS 128

/* Look growth when repro_params.growth is 0 (the staged engine's). */
#define REPRO_GROWTH 1.25

struct repro_params {
	unsigned	min_per_side;	/* first look (default 3) */
	unsigned	max_per_side;	/* cap (default 60) */
	double		alpha;		/* false "reproduced" rate target */
	double		beta;		/* missed effect-of-interest rate */
	double		effect;		/* numeric effect of interest, in sd;
					   min_change in measured sds when
					   that is larger */
	double		gap;		/* pass/fail failure-rate gap */
	double		min_change;	/* relative (numeric) or absolute rate */
	int		passfail;	/* values are 0 pass / 1 fail */
	int		price_min_change; /* numeric: the effect of interest is
					   at least min_change, scored by the
					   comparison's standard error */
	double		growth;		/* each look this many times the last,
					   at least one sample more (0: 1.25) */
};

enum repro_result {
	REPRO_UNDECIDED,
	REPRO_REPRODUCED,
	REPRO_NOT_REPRODUCED,
};

/* What the last look saw, for status and reports. */
struct repro_stat {
	double	good;		/* robust location or failure rate */
	double	bad;
	double	rel_change;	/* (bad - good) / |good|, or rate difference */
	double	p;		/* two-sided p value of the comparison */
	double	llr;		/* sequential log likelihood ratio */
};

/*
 * Per-side sample counts of the looks, ascending, the last one equal to
 * max_per_side.  Returns how many were written (at most max).
 */
size_t	repro_schedule(const struct repro_params *rp, unsigned *sizes,
	    size_t max);

/*
 * Decides at one look from all endpoint samples so far.  last says whether
 * this is the final look (undecided becomes not reproduced).
 */
enum repro_result repro_decide(const struct repro_params *rp,
	    const double *good, size_t ng, const double *bad, size_t nb,
	    int last, struct repro_stat *st);

/* The sequential LLR for normal score z when the alternative has score theta. */
double	repro_llr(double z, double theta);

#endif
