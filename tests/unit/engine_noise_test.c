/* SPDX-License-Identifier: MIT */
/*
 * The shape of the engine's likelihood: once the change is confirmed and
 * 32 values are in, normal while the values show no tail, Student-t(t_dof)
 * from the first value three scales from both levels.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "bisect/engine.h"
#include "bisect/graph.h"
#include "bisect/stats.h"
#include "tests/support/trng.h"
#include "tests/support/tst.h"

TestSuite(engine_noise, .fini = tst_leak_check);

/* Offsets of the endpoint values about their levels. */
static const double spread[] = { 0.0, -0.6, 0.6, 0.3, -0.3, 0.1, -0.2, 0.4,
    -0.4, 0.2, -0.1, 0.5, -0.5, 0.15, -0.15, 0.05 };
#define NVAL (sizeof(spread) / sizeof(spread[0]))

/*
 * P(bad) of commit 3, valued v3, after nval values at each endpoint (levels
 * 50 and bad), plus one more at the good endpoint (NAN: none), under
 * likelihood dof `dof`; *confirmed says whether the change was.
 */
static double
prob_bad_at_3(size_t nval, double bad, double v3, double dof,
    double extra_good, int *confirmed)
{
	struct engine_params p;
	struct engine_status st;
	struct engine_action a;
	struct engine e;
	struct graph g;
	size_t i;
	double q;

	cr_assert_eq(trng_line(&g, 8), 0);
	engine_params_default(&p);
	p.t_dof = dof;
	cr_assert_eq(engine_init(&e, &g, &p, NULL), 0);
	for (i = 0; i < nval; i++) {
		cr_assert_eq(engine_add_sample(&e, ENGINE_GOOD, 50 + spread[i],
		    NULL), 0);
		cr_assert_eq(engine_add_sample(&e, 7, bad + spread[NVAL - 1 - i],
		    NULL), 0);
	}
	if (!isnan(extra_good))
		cr_assert_eq(engine_add_sample(&e, ENGINE_GOOD, extra_good,
		    NULL), 0);
	cr_assert_eq(engine_add_sample(&e, 3, v3, NULL), 0);
	engine_next(&e, 1, &a);
	engine_status(&e, &st);
	*confirmed = st.reproduced;
	q = engine_prob_bad(&e)[3];
	engine_release(&e);
	graph_release(&g);
	return q;
}

Test(engine_noise, the_normal_limit_of_the_t_ratio)
{
	cr_assert_float_eq(stats_t_logratio(1, 3, INFINITY), 4, 1e-12);
	cr_assert_float_eq(stats_t_logratio(1, 3, 1e9), 4, 1e-6);
	cr_assert_float_eq(stats_t_logratio(2, 0, 4), -2.5 * log(2), 1e-12);
}

/*
 * Without a tail the default engine weighs commit 3's value as a normal
 * likelihood does (the same posterior as t_dof = INFINITY), which counts
 * a value about two scales past the bad level as more evidence than
 * t_dof = 4 does.
 */
Test(engine_noise, no_tail_means_a_normal_likelihood)
{
	int c1, c2;
	double def = prob_bad_at_3(NVAL, 52, 52.8, 4, NAN, &c1);
	double normal = prob_bad_at_3(NVAL, 52, 52.8, INFINITY, NAN, &c2);

	cr_assert(c1 && c2, "the endpoints confirm the change");
	cr_assert_float_eq(def, normal, 1e-12, "default %g normal %g", def,
	    normal);
	cr_assert_gt(normal, 0.5);
}

/*
 * One wild run at the good endpoint brings the heavy tails back for every
 * value: commit 3's value then counts as under t_dof, less than under a
 * normal likelihood, which would weigh it as before.
 */
Test(engine_noise, one_wild_run_brings_the_heavy_tails_back)
{
	int c1, c2;
	double def = prob_bad_at_3(NVAL, 52, 52.8, 4, 80, &c1);
	double normal = prob_bad_at_3(NVAL, 52, 52.8, INFINITY, 80, &c2);

	cr_assert(c1 && c2, "the endpoints confirm the change");
	cr_assert_lt(def, normal - 1e-3, "default %g normal %g", def, normal);
	cr_assert_gt(def, 0.5);
}

/*
 * Before the change is confirmed the heavy tails hold, tail or none: here
 * the levels are 0.3 apart (0.6%, below min_change), 33 values in.
 */
Test(engine_noise, an_unconfirmed_change_keeps_the_heavy_tails)
{
	int c1, c2;
	double def = prob_bad_at_3(NVAL, 50.3, 50.9, 4, NAN, &c1);
	double normal = prob_bad_at_3(NVAL, 50.3, 50.9, INFINITY, NAN, &c2);

	cr_assert(!c1 && !c2, "a change below min_change is not confirmed");
	cr_assert_lt(def, normal - 1e-3, "default %g normal %g", def, normal);
}

/* So they do while too few values are in to show a tail. */
Test(engine_noise, too_few_values_keep_the_heavy_tails)
{
	int c1, c2;
	double def = prob_bad_at_3(12, 52, 52.8, 4, NAN, &c1);
	double normal = prob_bad_at_3(12, 52, 52.8, INFINITY, NAN, &c2);

	cr_assert(c1 && c2, "the endpoints confirm the change");
	cr_assert_lt(def, normal - 1e-3, "default %g normal %g", def, normal);
}
