/* SPDX-License-Identifier: MIT */
/*
 * "Is there a change", asked of every sample (bisect/engine_exist.c): the
 * Bayes factor matches its integral, candidates' samples confirm a change
 * the endpoints alone cannot yet, a steady range is not confirmed, and a
 * verdict waits while the levels and scale (pass/fail: the failure rates)
 * integrated out leave it open.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "bisect/engine.h"
#include "bisect/graph.h"
#include "tests/support/trng.h"
#include "tests/support/tst.h"

TestSuite(engine_exist, .fini = tst_leak_check);

/* The effect sizes (noise sds) the engine's alternative mixes. */
static const double taus[] = { 0.5, 1, 2, 4, 8 };

/* log of the normal density of x with mean m and sd s. */
static double
lnorm(double x, double m, double s)
{
	return -0.5 * ((x - m) / s) * ((x - m) / s) - log(s) -
	    0.5 * log(2 * M_PI);
}

/*
 * The Bayes factor of "bad side at mu + delta sigma" against "one level"
 * by brute force: the likelihoods integrated over mu, log sigma (the
 * invariant prior d mu d sigma / sigma) and delta ~ N(0, tau^2), on grids
 * wide enough for the values below.  An independent check of the closed
 * form the engine uses.
 */
static double
brute_lbf(const double *g, size_t ng, const double *b, size_t nb)
{
	const int NM = 160, NS = 120, ND = 120;
	double m0 = 0, m1[5] = { 0 }, mu, s, dl, l0, lg, lb, w, sum = 0;
	int i, j, k;
	size_t x, t;

	for (i = 0; i < NM; i++) {
		mu = 7 + 8.0 * i / NM;
		for (j = 0; j < NS; j++) {
			/* d sigma / sigma = d log sigma: the grid is in log sigma. */
			s = exp(-3 + 5.0 * j / NS);
			lg = 0;
			for (x = 0; x < ng; x++)
				lg += lnorm(g[x], mu, s);
			l0 = lg;
			for (x = 0; x < nb; x++)
				l0 += lnorm(b[x], mu, s);
			m0 += exp(l0);
			for (t = 0; t < 5; t++) {
				for (k = 0; k < ND; k++) {
					dl = taus[t] * (-7 + 14.0 * k / ND);
					lb = 0;
					for (x = 0; x < nb; x++)
						lb += lnorm(b[x], mu + dl * s, s);
					w = exp(lnorm(dl, 0, taus[t])) *
					    taus[t] * 14.0 / ND;
					m1[t] += exp(lg + lb) * w;
				}
			}
		}
	}
	for (t = 0; t < 5; t++)
		sum += m1[t] / m0;
	return log(sum / 5);
}

/*
 * On a graph of two commits with samples only at the endpoints every
 * culprit splits the samples the same way, so the engine's factor is the
 * two-sample one; it must agree with the integral.
 */
Test(engine_exist, the_bayes_factor_is_the_integral)
{
	static const double good[] = { 10.2, 11.1, 9.6, 10.4 };
	static const double bad[] = { 11.3, 12.2, 10.9, 11.8 };
	struct engine_params p;
	struct engine_status st;
	struct engine e;
	struct graph g;
	double want;
	size_t i;

	cr_assert_eq(trng_line(&g, 2), 0);
	engine_params_default(&p);
	cr_assert_eq(engine_init(&e, &g, &p, NULL), 0);
	for (i = 0; i < 4; i++) {
		cr_assert_eq(engine_add_sample(&e, ENGINE_GOOD, good[i], NULL), 0);
		cr_assert_eq(engine_add_sample(&e, e.bad, bad[i], NULL), 0);
	}
	engine_status(&e, &st);
	want = brute_lbf(good, 4, bad, 4);
	cr_log_info("closed form %.6f, integral %.6f", st.change_lbf, want);
	cr_assert(want > 1, "the integral %g should favour a change", want);
	cr_assert_not(st.reproduced, "confirmed before the last sample");
	cr_assert(fabs(st.change_lbf - want) < 0.01, "closed form %g, integral %g",
	    st.change_lbf, want);
	engine_release(&e);
	graph_release(&g);
}

/* Count, sum and sum of squares of v about ref. */
static void
moments(const double *v, size_t n, double ref, double *s, double *ss)
{
	size_t i;

	for (*s = 0, *ss = 0, i = 0; i < n; i++) {
		*s += v[i] - ref;
		*ss += (v[i] - ref) * (v[i] - ref);
	}
}

/*
 * The factor as the simulator's reference policy calls it, from sums
 * alone: the integral for unequal groups, whatever reference the sums are
 * taken about.
 */
Test(engine_exist, the_factor_from_sums_is_the_integral)
{
	static const double good[] = { 9.8, 10.9, 10.1 };
	static const double bad[] = { 11.6, 12.4, 11.0, 12.1, 11.9 };
	double want, got[2], ref[2] = { 0, 10.9 }, sa, ssa, sb, ssb;
	size_t k;

	want = brute_lbf(good, 3, bad, 5);
	for (k = 0; k < 2; k++) {
		moments(good, 3, ref[k], &sa, &ssa);
		moments(bad, 5, ref[k], &sb, &ssb);
		got[k] = engine_split_lbf(3, sa, ssa, 5, sb, ssb, 1e-12);
		cr_assert(fabs(got[k] - want) < 0.01,
		    "about %g: closed form %g, integral %g", ref[k], got[k],
		    want);
	}
	cr_assert(want > 1, "the integral %g should favour a change", want);
	cr_assert(fabs(got[0] - got[1]) < 1e-9, "the reference moved it");
	cr_assert_eq(engine_split_lbf(0, 0, 0, 5, sb, ssb, 1e-12), 0,
	    "an empty group is no evidence");
}

/*
 * Feeds the engine's own probes with a change of d sd at commit c (c = n
 * for none) in unit normal noise until the change is confirmed or the
 * engine stops.  Returns whether it was confirmed; *ends the endpoint
 * samples at that point.
 */
static int
confirm(const struct engine_params *p, const struct graph *g, uint32_t c,
    double d, uint64_t seed, size_t *ends)
{
	struct engine e;
	struct engine_action a;
	struct engine_status st;
	struct rng r = { seed };
	unsigned t;
	uint32_t x;

	cr_assert_eq(engine_init(&e, g, p, NULL), 0);
	for (t = 0; t < 600; t++) {
		engine_status(&e, &st);
		if (st.reproduced)
			break;
		engine_next(&e, 1, &a);
		if (a.kind != ENGINE_SAMPLE)
			break;
		x = a.probes[0];
		cr_assert_eq(engine_add_sample(&e, x, 50 + (x != ENGINE_GOOD &&
		    x >= c ? d : 0) + gauss(&r), NULL), 0);
	}
	engine_status(&e, &st);
	*ends = st.good_samples + st.bad_samples;
	engine_release(&e);
	return st.reproduced;
}

/*
 * A change of 8 sd: with the factor the change is confirmed with fewer
 * endpoint samples than the endpoint check needs alone, and with at most
 * one more a side than its first look (2 a side), so the candidates'
 * samples did the confirming.
 */
Test(engine_exist, candidates_confirm_a_change)
{
	struct engine_params with, without;
	struct graph g;
	size_t ends_with, ends_without, sum_with = 0, sum_without = 0;
	unsigned t;

	cr_assert_eq(trng_line(&g, 200), 0);
	engine_params_default(&with);
	without = with;
	without.exist_alpha = 0;
	for (t = 0; t < 6; t++) {
		uint32_t c = (uint32_t)(17 + 29 * t);

		cr_assert(confirm(&with, &g, c, 8, 40 + t, &ends_with),
		    "trial %u not confirmed", t);
		cr_assert(confirm(&without, &g, c, 8, 40 + t, &ends_without),
		    "trial %u not confirmed by the endpoints", t);
		sum_with += ends_with;
		sum_without += ends_without;
	}
	cr_log_info("endpoint samples at confirmation: %zu with the factor, "
	    "%zu without", sum_with, sum_without);
	cr_assert_lt(sum_with, sum_without, "%zu endpoint samples with the "
	    "factor, %zu without", sum_with, sum_without);
	cr_assert_leq(sum_with, 6 * (2 * 2 + 2), "%zu endpoint samples in 6 "
	    "trials with the factor", sum_with);
	graph_release(&g);
}

/*
 * No change anywhere, while the bisection samples candidates: the factor
 * must not confirm one.  Ten seeded runs to the end.
 */
Test(engine_exist, a_steady_range_is_not_confirmed)
{
	struct engine_params p;
	struct graph g;
	size_t ends;
	unsigned t;

	cr_assert_eq(trng_line(&g, 200), 0);
	engine_params_default(&p);
	for (t = 0; t < 10; t++)
		cr_assert_not(confirm(&p, &g, 200, 0, 900 + t, &ends),
		    "trial %u confirmed a change that is not there", t);
	graph_release(&g);
}

/* exist_alpha outside [0, 0.5) is refused. */
Test(engine_exist, exist_alpha_is_checked)
{
	struct engine_params p;
	struct engine e;
	struct graph g;
	struct bd_error err;

	cr_assert_eq(trng_line(&g, 4), 0);
	engine_params_default(&p);
	p.exist_alpha = 0.7;
	cr_assert_eq(engine_init(&e, &g, &p, &err), -EINVAL);
	p.exist_alpha = -1;
	cr_assert_eq(engine_init(&e, &g, &p, &err), -EINVAL);
	graph_release(&g);
}

/*
 * Four quiet samples a side (0.01 apart) and a line of 10 with the change
 * at commit 5; the candidates 2-7 get eight samples at their levels,
 * moved by spread times a fixed pattern of offsets: commit 4's towards
 * the bad level, by up to one spread, commit 5's away from the good one.
 * Returns the engine's first action.
 */
static void
quiet_ends(struct engine *e, const struct graph *g, double spread,
    struct engine_action *a)
{
	static const double good[] = { 10.00, 10.02, 9.99, 10.01 };
	static const uint32_t at[] = { 2, 7, 4, 5, 4, 5, 3, 6 };
	static const double off[] = { 0.3, -0.3, 1, -1, 0.8, -0.8, 0.2, -0.2 };
	struct engine_params p;
	size_t i;

	engine_params_default(&p);
	cr_assert_eq(engine_init(e, g, &p, NULL), 0);
	for (i = 0; i < 4; i++) {
		cr_assert_eq(engine_add_sample(e, ENGINE_GOOD, good[i], NULL), 0);
		cr_assert_eq(engine_add_sample(e, e->bad, good[i] + 1, NULL), 0);
	}
	for (i = 0; i < 8; i++)
		cr_assert_eq(engine_add_sample(e, at[i], at[i] >= 5 ?
		    11 - spread * off[i] : 10 + spread * off[i], NULL), 0);
	engine_next(e, 1, a);
}

/* A numeric commit's value: 10 before the change at 5, 11 from it, noisy. */
static double
spread_value(uint32_t x, struct rng *r)
{
	return (x == ENGINE_GOOD || x < 5 ? 10 : 11) + 0.3 * gauss(r);
}

/* A pass/fail commit's result: it fails from the change at 5 on, always. */
static double
passfail_value(uint32_t x, struct rng *r)
{
	(void)r;
	return x != ENGINE_GOOD && x >= 5;
}

/*
 * The engine, with the change confirmed and commit 5 at the stop mass in
 * the plugged-in posterior, must not decide yet (action a).  Samples on
 * with value() until it does, then checks the verdict: commit 5, at the
 * stop mass, stated at no more than the plugged-in mass.
 */
static void
waits_then_settles_at_5(struct engine *e, struct engine_action *a,
    double (*value)(uint32_t, struct rng *), struct rng *r)
{
	struct engine_status st;
	unsigned t;
	uint32_t x;

	engine_status(e, &st);
	cr_assert(st.reproduced);
	cr_assert_eq(st.top[0].commit, 5);
	cr_assert_geq(st.top[0].mass, 0.995, "plugged-in mass %g",
	    st.top[0].mass);
	cr_assert_eq(a->kind, ENGINE_SAMPLE, "decided at once (kind %d, "
	    "confidence %g)", a->kind, a->confidence);
	for (t = 0; t < 300 && a->kind == ENGINE_SAMPLE; t++) {
		x = a->probes[0];
		cr_assert_eq(engine_add_sample(e, x, value(x, r), NULL), 0);
		engine_next(e, 1, a);
	}
	engine_status(e, &st);
	cr_log_info("verdict after %zu samples, confidence %.5f", st.samples,
	    a->confidence);
	cr_assert_eq(a->kind, ENGINE_DONE, "kind %d after %zu samples",
	    a->kind, st.samples);
	cr_assert_eq(a->culprit, 5);
	cr_assert_geq(a->confidence, 0.995);
	cr_assert_leq(a->confidence, st.top[0].mass);
}

/*
 * The endpoints make the scale look like 0.01 and every candidate sample
 * decisive, so the plugged-in posterior holds the stop mass at commit 5
 * whether the candidates are quiet or spread by 0.3.  With the scale
 * integrated out the spread ones leave commit 4 open (its values are
 * 0.24-0.3 above the good level, 0.01 sd by the endpoints): the engine must
 * sample on, and name 5 only once further samples settle it, with a
 * stated confidence no higher than the plugged-in mass.
 */
Test(engine_exist, a_verdict_waits_for_the_integrated_posterior)
{
	struct engine_action a;
	struct engine_status st;
	struct engine quiet, spread;
	struct graph g;
	struct rng r = { 77 };

	cr_assert_eq(trng_line(&g, 10), 0);
	quiet_ends(&quiet, &g, 0, &a);
	engine_status(&quiet, &st);
	cr_assert(st.reproduced);
	cr_assert_eq(a.kind, ENGINE_DONE, "quiet candidates: kind %d", a.kind);
	cr_assert_eq(a.culprit, 5);
	quiet_ends(&spread, &g, 0.3, &a);
	waits_then_settles_at_5(&spread, &a, spread_value, &r);
	engine_release(&quiet);
	engine_release(&spread);
	graph_release(&g);
}

/*
 * Pass/fail on a line of 10 with the change at commit 5: ends samples a
 * side, the good end passing and the bad end failing every time, then the
 * samples of pat, each a commit digit and 'p' or 'f'.  Returns the
 * engine's first action after them.
 */
static void
passfail_case(struct engine *e, const struct graph *g, unsigned ends,
    const char *pat, struct engine_action *a)
{
	struct engine_params p;
	unsigned i;

	engine_params_default(&p);
	p.metric = ENGINE_PASSFAIL;
	cr_assert_eq(engine_init(e, g, &p, NULL), 0);
	for (i = 0; i < ends; i++) {
		cr_assert_eq(engine_add_sample(e, ENGINE_GOOD, 0, NULL), 0);
		cr_assert_eq(engine_add_sample(e, e->bad, 1, NULL), 0);
	}
	for (i = 0; pat[i] != '\0' && pat[i + 1] != '\0'; i += 2)
		cr_assert_eq(engine_add_sample(e, (uint32_t)(pat[i] - '0'),
		    pat[i + 1] == 'f', NULL), 0);
	engine_next(e, 1, a);
}

/*
 * Commit 4 passed three times and commit 5, the culprit, failed five
 * times and passed once.  The plugged-in failure rates come from the
 * clean ends (0 and 1, smoothed), so commit 4's passes look like proof
 * that it is good and the plugged-in posterior gives 5 the stop mass.
 * With the rates integrated out, "the change is at 4" is still open:
 * three passes more on the bad side only lower its rate to what 5's own
 * pass suggests.  The engine must sample on, and name 5 once further
 * samples settle it, at no more than the plugged-in mass.
 */
Test(engine_exist, a_passfail_verdict_waits_for_the_rates_integrated)
{
	struct engine_action a;
	struct engine e;
	struct graph g;

	cr_assert_eq(trng_line(&g, 10), 0);
	passfail_case(&e, &g, 20, "4p5f4p5f4p5f5p5f5f", &a);
	waits_then_settles_at_5(&e, &a, passfail_value, NULL);
	engine_release(&e);
	graph_release(&g);
}
