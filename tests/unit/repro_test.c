/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <math.h>

#include "bisect/repro.h"
#include "tests/support/tst.h"

/* The reproduction check on its own. */
TestSuite(repro, .fini = tst_leak_check);

/* Defaults as the engine passes them. */
static void
params(struct repro_params *rp, double min_change)
{
	rp->min_per_side = 3;
	rp->max_per_side = 100;
	rp->alpha = 0.01;
	rp->beta = 0.01;
	rp->effect = 0.8;
	rp->gap = 0.25;
	rp->min_change = min_change;
	rp->passfail = 0;
	rp->price_min_change = 0;
}

Test(repro, a_quiet_change_above_the_minimum_is_reproduced)
{
	static const double g[] = { 100.2, 99.7, 100.1, 99.9, 100.3, 99.8 };
	static const double b[] = { 102.8, 103.3, 102.9, 103.1, 102.6, 103.2 };
	struct repro_params rp;
	struct repro_stat st;

	params(&rp, 0.01);
	cr_assert_eq(repro_decide(&rp, g, 6, b, 6, 0, &st), REPRO_REPRODUCED,
	    "llr %g", st.llr);
}

/*
 * A quiet metric (0.2% noise) with no change: priced by min_change (1%,
 * five noise sds here) the check rules a change out at five samples a
 * side; priced by 0.8 sd alone it cannot yet.
 */
Test(repro, a_quiet_null_is_priced_by_the_minimum_change)
{
	static const double g[] = { 100.2, 99.7, 100.1, 99.9, 100.3 };
	static const double b[] = { 99.8, 100.2, 100.0, 99.7, 100.1 };
	struct repro_params rp;
	struct repro_stat st;

	params(&rp, 0.01);
	cr_assert_eq(repro_decide(&rp, g, 5, b, 5, 0, &st), REPRO_UNDECIDED,
	    "llr %g", st.llr);
	rp.price_min_change = 1;
	cr_assert_eq(repro_decide(&rp, g, 5, b, 5, 0, &st),
	    REPRO_NOT_REPRODUCED, "llr %g", st.llr);
}

/*
 * A quiet good side and a bad side disturbed by a parallel job, with a
 * third more at bad: the comparison's own standard error is large, so the
 * priced effect is scored small and the change is not ruled out (an
 * earlier pricing in noise sds of the quiet side did rule it out).
 */
Test(repro, a_noisy_side_is_not_ruled_out_by_a_quiet_one)
{
	static const double g[] = { 100.0, 100.1, 100.05 };
	static const double b[] = { 121.0, 170.0, 108.0 };
	struct repro_params rp;
	struct repro_stat st;
	size_t n;

	params(&rp, 0.01);
	rp.price_min_change = 1;
	for (n = 2; n <= 3; n++)
		cr_assert_neq(repro_decide(&rp, g, n, b, n, 0, &st),
		    REPRO_NOT_REPRODUCED, "%zu a side: llr %g p %g", n, st.llr,
		    st.p);
}
