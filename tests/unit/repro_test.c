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
