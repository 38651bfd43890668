/* SPDX-License-Identifier: MIT */
/*
 * No arithmetic of the engine or the sweep turns finite inputs into NaN or Inf: values
 * near the bound (1e100), tiny and subnormal ones, negative levels,
 * constants, and mixtures of signs and magnitudes go through a whole
 * bisection, and every output (levels, scale, effect, factor, masses,
 * P(bad), the action's confidence, the estimate) stays finite.  Values
 * near 1.7e308 once gave a NaN confidence that the store refused, and the
 * bisection hung; they are now refused where they enter (common/agg.h).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bisect/engine.h"
#include "bisect/sweep_stats.h"
#include "common/agg.h"
#include "tests/support/trng.h"
#include "tests/support/tst.h"

TestSuite(engine_finite, .fini = tst_leak_check);

#define NCOMMITS	12
#define CULPRIT		5

/* A value's shape: level of each side and noise, all in one unit. */
struct shape {
	const char	*name;
	double		 good, bad, noise, unit;
};

static const struct shape shapes[] = {
	{ "near the bound", 0.5, 0.9, 0.02, 1e100 },
	{ "near the bound, both signs", -0.9, 0.9, 0.05, 1e100 },
	{ "tiny", 1, 2, 0.1, 1e-300 },
	{ "subnormal", 1, 3, 0.5, 1e-310 },
	{ "negative", -100, -90, 1, 1 },
	{ "constant", 7, 7, 0, 1 },
	{ "zero, then a step", 0, 1, 0, 1 },
	{ "huge level, tiny change", 1, 1 + 1e-12, 1e-13, 1e90 },
	{ "mixed magnitudes", 1e-200, 1e80, 0, 1 },
};

/* A fixed generator: the same values in every run of the test. */
static uint64_t finite_rng = 88172645463325252ull;

static double
finite_unit(void)
{
	finite_rng ^= finite_rng << 13;
	finite_rng ^= finite_rng >> 7;
	finite_rng ^= finite_rng << 17;
	return (double)(finite_rng >> 11) / 9007199254740992.0 - 0.5;
}

static void
finite_check(const struct engine *e, const struct engine_action *a,
    const char *shape, size_t step)
{
	struct engine_status st;
	const double *m = engine_mass(e), *q = engine_prob_bad(e);
	size_t i;

	engine_status(e, &st);
	cr_assert(isfinite(st.good_level) && isfinite(st.bad_level) &&
	    isfinite(st.scale) && isfinite(st.effect) &&
	    isfinite(st.est_samples_left) && !isinf(st.change_lbf),
	    "%s, step %zu: levels %g %g scale %g effect %g est %g lbf %g",
	    shape, step, st.good_level, st.bad_level, st.scale, st.effect,
	    st.est_samples_left, st.change_lbf);
	for (i = 0; i < NCOMMITS; i++)
		cr_assert(isfinite(m[i]) && isfinite(q[i]), "%s, step %zu: "
		    "commit %zu mass %g P(bad) %g", shape, step, i, m[i], q[i]);
	for (i = 0; i < st.ntop; i++)
		cr_assert(isfinite(st.top[i].mass), "%s: top mass", shape);
	if (a->kind != ENGINE_SAMPLE && a->kind != ENGINE_WAIT)
		cr_assert(isfinite(a->confidence) && a->confidence >= 0 &&
		    a->confidence <= 1 + 1e-9, "%s, step %zu: confidence %g",
		    shape, step, a->confidence);
}

/* One bisection of a shape to its end (or 300 samples), checked at each step. */
static void
finite_bisect(const struct shape *sh)
{
	struct engine_params p;
	struct engine_action a;
	struct engine e;
	struct graph g;
	uint32_t probes[4];
	size_t step, i, np;
	double v;

	cr_assert_eq(trng_line(&g, NCOMMITS), 0);
	engine_params_default(&p);
	p.max_samples = 300;
	cr_assert_eq(engine_init(&e, &g, &p, NULL), 0);
	for (step = 0; step < 300; step++) {
		engine_next(&e, 2, &a);
		finite_check(&e, &a, sh->name, step);
		if (a.kind != ENGINE_SAMPLE)
			break;
		np = a.nprobes < 4 ? a.nprobes : 4;
		for (i = 0; i < np; i++)
			probes[i] = a.probes[i];
		for (i = 0; i < np; i++) {
			v = (probes[i] != ENGINE_GOOD && probes[i] >= CULPRIT ?
			    sh->bad : sh->good) + sh->noise * finite_unit();
			v *= sh->unit;
			cr_assert(agg_value_valid(v));
			cr_assert_eq(engine_add_sample(&e, probes[i], v, NULL),
			    0, "%s: %g refused", sh->name, v);
		}
	}
	engine_release(&e);
	graph_release(&g);
}

Test(engine_finite, every_output_stays_finite)
{
	size_t i;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		finite_bisect(&shapes[i]);
}

Test(engine_finite, values_past_the_bound_are_refused)
{
	struct engine_params p;
	struct bd_error err;
	struct engine e;
	struct graph g;

	cr_assert_eq(trng_line(&g, 4), 0);
	engine_params_default(&p);
	cr_assert_eq(engine_init(&e, &g, &p, NULL), 0);
	cr_expect_eq(engine_add_sample(&e, ENGINE_GOOD, 1.7e308, &err),
	    -ERANGE);
	cr_expect_eq(engine_add_sample(&e, 3, -1e101, &err), -ERANGE);
	cr_expect_eq(engine_add_sample(&e, 3, NAN, &err), -EINVAL);
	cr_expect_eq(engine_add_sample(&e, 3, -1e100, &err), 0);
	engine_release(&e);
	graph_release(&g);
}

/*
 * The sweep's statistics on the same shapes: series of tags whose runs
 * hold values near the bound, tiny, subnormal, negative, constant and
 * mixed, with the level stepping at a tag, judged as each tag arrives.
 * Every number of every verdict stays finite (effect and p included).
 */
Test(engine_finite, sweep_outputs_stay_finite)
{
	struct sweep_series tags[8];
	double v[8][10];
	struct sweep_metric_in in;
	struct sweep_metric_out out;
	struct sweep_params p;
	const struct shape *sh;
	size_t s, t, k, ntags;

	sweep_params_default(&p);
	for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		sh = &shapes[s];
		for (t = 0; t < 8; t++) {
			for (k = 0; k < 10; k++)
				v[t][k] = sh->unit * ((t >= 5 ? sh->bad :
				    sh->good) + sh->noise * finite_unit());
			tags[t] = (struct sweep_series){ v[t], t == 0 ? 10 : 5 };
		}
		for (ntags = 2; ntags <= 8; ntags++) {
			in = (struct sweep_metric_in){ tags, ntags };
			memset(&out, 0, sizeof(out));
			sweep_stats_judge(&p, &in, 1, &out);
			cr_assert(isfinite(out.loc_cur) &&
			    isfinite(out.loc_prev) &&
			    isfinite(out.loc_before) &&
			    isfinite(out.loc_after) && isfinite(out.scale) &&
			    isfinite(out.rel_prev) && isfinite(out.rel) &&
			    isfinite(out.effect) && isfinite(out.p) &&
			    isfinite(out.p_adj), "%s, %zu tags: cur %g prev %g "
			    "before %g after %g scale %g rel %g/%g effect %g "
			    "p %g/%g", sh->name, ntags, out.loc_cur,
			    out.loc_prev, out.loc_before, out.loc_after,
			    out.scale, out.rel_prev, out.rel, out.effect,
			    out.p, out.p_adj);
		}
	}
}
