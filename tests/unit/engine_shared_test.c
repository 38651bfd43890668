/* SPDX-License-Identifier: MIT */
/*
 * The shared mode of the engine (the default): the bisection starts after
 * the reproduction check's first look, the check goes on beside it, and a
 * verdict waits for the change to be confirmed.  The staged mode (the
 * engine before) stays selectable.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "bisect/engine.h"
#include "bisect/graph.h"
#include "tests/support/trng.h"
#include "tests/support/tst.h"

TestSuite(engine_shared, .fini = tst_leak_check);

/* A line of n commits, 0 the oldest. */
static void
line(struct graph *g, size_t n)
{
	cr_assert_eq(trng_line(g, n), 0);
}

/*
 * A whole bisection with culprit c (n: none) and effect d in unit normal
 * noise.  Every DONE must come with the change confirmed.  Returns the
 * final kind; *got the culprit, *samples the samples used.
 */
static enum engine_action_kind
run(const struct graph *g, const struct engine_params *p, uint32_t c,
    double d, uint64_t seed, uint32_t *got, size_t *samples)
{
	struct engine e;
	struct engine_action a;
	struct engine_status st;
	struct rng r = { seed };
	unsigned t = 0;
	uint32_t x;

	cr_assert_eq(engine_init(&e, g, p, NULL), 0);
	for (;;) {
		engine_next(&e, 1, &a);
		if (a.kind != ENGINE_SAMPLE || ++t > 2000)
			break;
		x = a.probes[0];
		cr_assert_eq(engine_add_sample(&e, x, 50 + (x != ENGINE_GOOD &&
		    x >= c ? d : 0) + gauss(&r), NULL), 0);
	}
	engine_status(&e, &st);
	if (a.kind == ENGINE_DONE)
		cr_assert(st.reproduced, "a verdict without the change confirmed");
	*got = a.culprit;
	*samples = st.samples;
	engine_release(&e);
	return a.kind;
}

Test(engine_shared, defaults_and_the_staged_engine)
{
	struct engine_params p;
	struct engine e;
	struct graph g;
	struct bd_error err;

	engine_params_default(&p);
	cr_assert_eq(p.mode, ENGINE_MODE_SHARED);
	cr_assert_eq(p.repro_min, 2);
	engine_params_staged(&p);
	cr_assert_eq(p.mode, ENGINE_MODE_STAGED);
	cr_assert_eq(p.repro_min, 3);
	line(&g, 8);
	p.mode = (enum engine_mode)7;
	cr_assert_eq(engine_init(&e, &g, &p, &err), -EINVAL);
	cr_assert_str_eq(err.msg, "unknown engine mode");
	graph_release(&g);
}

/*
 * Two samples a side with a clear change: the check is not decided yet,
 * the engine already asks for a candidate, and the staged engine would
 * still sample the endpoints.
 */
Test(engine_shared, bisects_before_the_change_is_confirmed)
{
	static const double jit[] = { -0.5, 0.5 };
	struct engine_params p;
	struct engine e;
	struct engine_action a;
	struct engine_status st;
	struct graph g;
	int i, mode;

	line(&g, 100);
	for (mode = 0; mode < 2; mode++) {
		if (mode == 0)
			engine_params_default(&p);
		else
			engine_params_staged(&p);
		cr_assert_eq(engine_init(&e, &g, &p, NULL), 0);
		for (i = 0; i < 2; i++) {
			engine_add_sample(&e, ENGINE_GOOD, 10 + jit[i], NULL);
			engine_add_sample(&e, e.bad, 20 - jit[i], NULL);
		}
		engine_status(&e, &st);
		cr_assert_not(st.reproduced, "llr %g", st.repro.llr);
		engine_next(&e, 1, &a);
		cr_assert_eq(a.kind, ENGINE_SAMPLE);
		if (mode == 0) {
			cr_assert_eq(st.phase, ENGINE_PHASE_BISECT);
			cr_assert_neq(a.probes[0], ENGINE_GOOD);
			cr_assert_neq(a.probes[0], e.bad);
		} else {
			cr_assert_eq(st.phase, ENGINE_PHASE_REPRO);
			cr_assert(a.probes[0] == ENGINE_GOOD ||
			    a.probes[0] == e.bad);
		}
		engine_release(&e);
	}
	graph_release(&g);
}

/* Planted culprits at 4 sd: right every time, and fewer samples than staged. */
Test(engine_shared, fewer_samples_than_the_staged_engine)
{
	struct engine_params sh, st;
	struct graph g;
	size_t n, n_sh = 0, n_st = 0;
	uint32_t got, c;
	unsigned t;

	line(&g, 200);
	engine_params_default(&sh);
	engine_params_staged(&st);
	for (t = 0; t < 8; t++) {
		c = (uint32_t)(10 + 23 * t);
		cr_assert_eq(run(&g, &sh, c, 4, 100 + t, &got, &n), ENGINE_DONE);
		cr_assert_eq(got, c, "shared, trial %u", t);
		n_sh += n;
		cr_assert_eq(run(&g, &st, c, 4, 100 + t, &got, &n), ENGINE_DONE);
		cr_assert_eq(got, c, "staged, trial %u", t);
		n_st += n;
	}
	cr_log_info("samples: shared %zu, staged %zu", n_sh, n_st);
	cr_assert_lt(n_sh, n_st, "shared %zu, staged %zu", n_sh, n_st);
	graph_release(&g);
}

/* Nothing changed: every run ends "not reproduced", none names a culprit. */
Test(engine_shared, a_null_range_is_not_reproduced)
{
	struct engine_params p;
	struct graph g;
	size_t n;
	uint32_t got;
	unsigned t;

	line(&g, 200);
	engine_params_default(&p);
	for (t = 0; t < 8; t++)
		cr_assert_eq(run(&g, &p, UINT32_MAX, 0, 500 + t, &got, &n),
		    ENGINE_NOT_REPRODUCED, "trial %u", t);
	graph_release(&g);
}
