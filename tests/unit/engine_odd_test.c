/* SPDX-License-Identifier: MIT */
/*
 * The odd run of a commit: a run far from the median of three or more runs
 * of its own commit is no evidence, in the plugged-in posterior and in the
 * one with the levels integrated out, whichever level it lands near.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "bisect/engine.h"
#include "bisect/graph.h"
#include "tests/support/trng.h"
#include "tests/support/tst.h"

TestSuite(engine_odd, .fini = tst_leak_check);

/* Offsets of the endpoint values about their levels (sd about 0.1). */
static const double spread[] = { 0.0, -0.12, 0.12, 0.06, -0.06, 0.1,
    -0.1, 0.02 };
#define NEND (sizeof(spread) / sizeof(spread[0]))

/*
 * A line of 10, levels 10 and 11 (the change at commit 5), the endpoints
 * and commit 4 sampled, then commit 5 with the values v5.  Returns the
 * engine's first action after them in *a and the top mass of its
 * plugged-in posterior.
 */
static double
line_with_5(const double *v5, size_t n5, struct engine_action *a)
{
	static const uint32_t at[] = { 4, 4 };
	static const double val[] = { 10.03, 9.97 };
	struct engine_params p;
	struct engine_status st;
	struct engine e;
	struct graph g;
	size_t i;

	cr_assert_eq(trng_line(&g, 10), 0);
	engine_params_default(&p);
	cr_assert_eq(engine_init(&e, &g, &p, NULL), 0);
	for (i = 0; i < NEND; i++) {
		cr_assert_eq(engine_add_sample(&e, ENGINE_GOOD, 10 + spread[i],
		    NULL), 0);
		cr_assert_eq(engine_add_sample(&e, e.bad,
		    11 + spread[NEND - 1 - i], NULL), 0);
	}
	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		cr_assert_eq(engine_add_sample(&e, at[i], val[i], NULL), 0);
	for (i = 0; i < n5; i++)
		cr_assert_eq(engine_add_sample(&e, 5, v5[i], NULL), 0);
	engine_next(&e, 1, a);
	engine_status(&e, &st);
	cr_assert(st.reproduced);
	engine_release(&e);
	graph_release(&g);
	return st.top[0].mass;
}

/*
 * Commit 5, the culprit, ran 11.02 and 10.98, and once 10.01: a wild run
 * that landed on the good level, ten noise sds from the other two.  The
 * engine weighs commit 5 as if that run had not been made and names it
 * with the same confidence; weighed as evidence, the run cancelled one
 * of the other two and held the posterior below the stop mass.
 */
Test(engine_odd, a_run_far_from_its_commits_others_is_no_evidence)
{
	static const double with_odd[] = { 11.02, 10.01, 10.98 };
	static const double without[] = { 11.02, 10.98 };
	struct engine_action a, b;
	double ma, mb;

	ma = line_with_5(with_odd, 3, &a);
	mb = line_with_5(without, 2, &b);
	cr_assert_eq(b.kind, ENGINE_DONE, "without the run: kind %d",
	    b.kind);
	cr_assert_eq(b.culprit, 5);
	cr_assert_float_eq(ma, mb, 1e-3, "top mass %.9f with the odd run, "
	    "%.9f without", ma, mb);
	cr_assert_eq(a.kind, ENGINE_DONE, "with the odd run: kind %d",
	    a.kind);
	cr_assert_eq(a.culprit, 5);
	cr_assert_float_eq(a.confidence, b.confidence, 1e-3);
}

/*
 * Two runs that disagree name no odd one: which of them is wild takes a
 * third.  Commit 5's 10.3 beside its 11.02 still counts (towards the good
 * side, as three noise sds from the good level and seven from the bad
 * one), so the posterior is less sure of 5 than with 11.02 alone, and
 * not as unsure as with no run of 5 at all.
 */
Test(engine_odd, two_runs_name_no_odd_one)
{
	static const double pair[] = { 11.02, 10.3 };
	static const double one[] = { 11.02 };
	struct engine_action a;
	double m2, m1, m0;

	m2 = line_with_5(pair, 2, &a);
	m1 = line_with_5(one, 1, &a);
	m0 = line_with_5(NULL, 0, &a);
	cr_log_info("top mass %.6f with the pair, %.6f with one run, %.6f "
	    "with none", m2, m1, m0);
	cr_assert_lt(m2, m1 - 1e-3, "top mass %.6f with the pair, %.6f "
	    "with one run", m2, m1);
	cr_assert_gt(m2, m0 + 1e-3, "top mass %.6f with the pair, %.6f "
	    "with none", m2, m0);
}
