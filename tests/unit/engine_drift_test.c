/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "bisect/engine.h"
#include "bisect/graph.h"
#include "tests/support/trng.h"
#include "tests/support/tst.h"

/* Drift of the test machine: endpoint re-checks, the model, its flag. */
TestSuite(engine_drift, .fini = tst_leak_check);

/* A line of n commits, 0 the oldest. */
static void
line(struct graph *g, size_t n)
{
	cr_assert_eq(trng_line(g, n), 0);
}

/* The machine's offset at sample t: a step of `step` at sample `at`. */
static double
machine(unsigned t, double step, unsigned at)
{
	return t >= at ? step : 0;
}

/*
 * A whole bisection on a line with culprit c, effect d and unit normal
 * noise on a machine that steps by `step` at sample `at`.  Returns the
 * final action kind; *got and *st describe the end.  With rec != NULL the
 * samples are recorded (commit, value) for a replay.
 */
static enum engine_action_kind
run(const struct graph *g, const struct engine_params *p, uint32_t c,
    double d, double step, unsigned at, uint64_t seed, uint32_t *got,
    struct engine_status *st, uint32_t *rc, double *rv, size_t *nrec)
{
	struct engine e;
	struct engine_action a;
	struct rng r = { seed };
	unsigned t = 0;
	uint32_t x;
	double y;

	cr_assert_eq(engine_init(&e, g, p, NULL), 0);
	for (;;) {
		engine_next(&e, 1, &a);
		if (a.kind != ENGINE_SAMPLE || t > 2000)
			break;
		x = a.probes[0];
		y = 50 + (x != ENGINE_GOOD && x >= c ? d : 0) +
		    machine(t, step, at) + gauss(&r);
		if (rc != NULL && t < 2000) {
			rc[t] = x;
			rv[t] = y;
		}
		t++;
		cr_assert_eq(engine_add_sample(&e, x, y, NULL), 0);
	}
	if (nrec != NULL)
		*nrec = t;
	*got = a.culprit;
	engine_status(&e, st);
	engine_release(&e);
	return a.kind;
}

Test(engine_drift, rejects_a_negative_threshold)
{
	struct engine_params p;
	struct engine e;
	struct bd_error err;
	struct graph g;

	line(&g, 8);
	engine_params_default(&p);
	p.drift_z = -1;
	cr_assert_eq(engine_init(&e, &g, &p, &err), -EINVAL);
	graph_release(&g);
}

Test(engine_drift, endpoints_are_rechecked_between_probes)
{
	struct engine_params p;
	struct graph g;
	struct engine e;
	struct engine_action a;
	struct rng r = { 7 };
	unsigned i, ends[2] = { 0, 0 }, off;
	uint32_t x;

	line(&g, 200);
	for (off = 0; off < 2; off++) {
		/* At 4 sd the shared mode spaces its re-checks (below). */
		engine_params_staged(&p);
		if (off)
			p.drift_check = 0;
		cr_assert_eq(engine_init(&e, &g, &p, NULL), 0);
		/* A change of 4 sd: reproduced at once. */
		for (i = 0; i < 12; i++) {
			engine_add_sample(&e, ENGINE_GOOD, 10 + 0.5 * gauss(&r), NULL);
			engine_add_sample(&e, e.bad, 12 + 0.5 * gauss(&r), NULL);
		}
		for (i = 0; i < 12; i++) {
			engine_next(&e, 1, &a);
			cr_assert_eq(a.kind, ENGINE_SAMPLE, "kind %d at %u",
			    a.kind, i);
			x = a.probes[0];
			if (x == ENGINE_GOOD || x == e.bad)
				ends[off]++;
			engine_add_sample(&e, x, (x != ENGINE_GOOD && x >= 150 ?
			    12 : 10) + 0.5 * gauss(&r), NULL);
		}
		engine_release(&e);
	}
	cr_assert_geq(ends[0], 2, "%u endpoint re-checks in 12 probes", ends[0]);
	cr_assert_eq(ends[1], 0, "re-checks with drift_check = 0");
	graph_release(&g);
}

/*
 * Six bisections at culprits spread over the line, with a step of size
 * step at sample at (0: a steady machine): how many named the right
 * culprit, and in how many the engine flagged drift.  A flagged drift
 * must have a size above one noise scale.
 */
static void
trials(const struct graph *g, const struct engine_params *p, double step,
    unsigned at, uint64_t seed, unsigned *right, unsigned *found)
{
	struct engine_status st;
	uint32_t got, c;
	unsigned t;

	*right = *found = 0;
	for (t = 0; t < 6; t++) {
		c = (uint32_t)(20 + t * 17);
		if (run(g, p, c, 3, step, at, seed + t, &got, &st, NULL, NULL,
		    NULL) == ENGINE_DONE && got == c)
			(*right)++;
		*found += (unsigned)st.drift;
		cr_log_info("trial %u: samples %zu drift %d size %g", t,
		    st.samples, st.drift, st.drift_size);
		cr_assert(!st.drift || st.drift_size > 1, "size %g",
		    st.drift_size);
	}
}

Test(engine_drift, a_step_of_the_machine_is_found_and_modelled)
{
	struct engine_params p;
	struct graph g;
	unsigned right, found;

	line(&g, 128);
	/*
	 * The staged engine: its step falls among the reproduction check's
	 * endpoint samples.  The shared mode has fewer there (below).
	 */
	engine_params_staged(&p);
	/* A step as large as the change, towards the bad level. */
	trials(&g, &p, 3, 20, 300, &right, &found);
	cr_assert_geq(right, 6, "%u of 6 right", right);
	cr_assert_geq(found, 5, "drift found in %u of 6", found);
	/* The shared mode names no wrong culprit and finds some of the steps. */
	engine_params_default(&p);
	trials(&g, &p, 3, 20, 300, &right, &found);
	cr_assert_geq(right, 6, "shared: %u of 6 right", right);
	cr_assert_geq(found, 2, "shared: drift found in %u of 6", found);
	graph_release(&g);
}

Test(engine_drift, a_steady_machine_is_not_flagged)
{
	struct engine_params p;
	struct graph g;
	unsigned right, found;

	line(&g, 128);
	engine_params_default(&p);
	trials(&g, &p, 0, 0, 700, &right, &found);
	cr_assert_geq(right, 6, "%u of 6 right", right);
	cr_assert_eq(found, 0, "drift flagged in %u of 6", found);
	graph_release(&g);
}

/*
 * A bisection with a step of the machine, then a fresh engine fed the
 * stored samples in order: it must end in the same state.  need_drift:
 * the step must have been found.
 */
static void
replays(const struct engine_params *p, int need_drift)
{
	static uint32_t rc[2001];
	static double rv[2001];
	struct engine_status st, st2;
	struct engine e;
	struct graph g;
	uint32_t got;
	size_t n, i;
	const double *m;
	double mass_end;

	line(&g, 128);
	cr_assert_eq(run(&g, p, 70, 3, 3, 20, 42, &got, &st, rc, rv, &n),
	    ENGINE_DONE);
	if (need_drift)
		cr_assert(st.drift, "the step should be found");
	/* A fresh engine fed the stored samples in order ends the same. */
	cr_assert_eq(engine_init(&e, &g, p, NULL), 0);
	for (i = 0; i < n; i++)
		cr_assert_eq(engine_add_sample(&e, rc[i], rv[i], NULL), 0);
	engine_status(&e, &st2);
	m = engine_mass(&e);
	mass_end = m[got];
	cr_assert_eq(st2.drift, st.drift);
	cr_assert_eq(st2.drift_size, st.drift_size);
	cr_assert_eq(st2.reproduced, st.reproduced);
	cr_assert_eq(st2.top[0].commit, got);
	cr_assert_eq(st2.top[0].mass, mass_end);
	cr_assert_eq(st2.scale, st.scale);
	engine_release(&e);
	graph_release(&g);
}

Test(engine_drift, the_drift_model_replays_exactly)
{
	struct engine_params p;

	engine_params_staged(&p);
	replays(&p, 1);
}

Test(engine_drift, the_shared_mode_replays_exactly)
{
	struct engine_params p;

	engine_params_default(&p);
	replays(&p, 0);
}

/*
 * A line's truth: the good level below commit c1, mid from c1, the bad
 * level from c2 (and at the bad endpoint); noise of sd `sd`.
 */
struct truth {
	double		good, mid, bad, sd;
	uint32_t	c1, c2;
};

/*
 * Answers up to limit probes of e from the truth t, one host at a time.
 * Stops at an action other than a sample, or with stop_at_good at the
 * first probe of the good endpoint (left unanswered).  Returns the probes
 * answered; *ends counts the endpoint probes, *last gets the last kind.
 */
static unsigned
answer_probes(struct engine *e, const struct truth *t, struct rng *r,
    unsigned limit, int stop_at_good, unsigned *ends,
    enum engine_action_kind *last)
{
	struct engine_action a;
	unsigned i;
	uint32_t x;
	double y;

	*ends = 0;
	for (i = 0; i < limit; i++) {
		engine_next(e, 1, &a);
		*last = a.kind;
		if (a.kind != ENGINE_SAMPLE)
			break;
		x = a.probes[0];
		if (x == ENGINE_GOOD && stop_at_good)
			break;
		*ends += x == ENGINE_GOOD || x == e->bad;
		y = x == ENGINE_GOOD || x < t->c1 ? t->good :
		    x < t->c2 ? t->mid : t->bad;
		engine_add_sample(e, x, y + t->sd * gauss(r), NULL);
	}
	return i;
}

/*
 * Endpoint re-checks in 10 probes after 24 endpoint samples a side, at an
 * effect of d_sd noise sd, in the shared mode (at 8 sd the bisection of
 * 200 commits ends after 11).
 */
static unsigned
rechecks_at(const struct graph *g, double d_sd)
{
	struct engine_params p;
	struct engine e;
	struct engine_status st;
	struct rng r = { 11 };
	struct truth t = { 10, 0, 10 + 0.5 * d_sd, 0.5, 150, 150 };
	enum engine_action_kind last;
	unsigned i, ends;

	engine_params_default(&p);
	cr_assert_eq(engine_init(&e, g, &p, NULL), 0);
	for (i = 0; i < 24; i++) {
		engine_add_sample(&e, ENGINE_GOOD, 10 + 0.5 * gauss(&r), NULL);
		engine_add_sample(&e, e.bad, 10 + 0.5 * d_sd + 0.5 * gauss(&r),
		    NULL);
	}
	engine_status(&e, &st);
	cr_assert(st.reproduced, "a change of %g sd is confirmed", d_sd);
	i = answer_probes(&e, &t, &r, 10, 0, &ends, &last);
	cr_assert_eq(last, ENGINE_SAMPLE, "kind %d at %u", last, i);
	engine_release(&e);
	return ends;
}

/*
 * The shared mode re-checks the endpoints as before at 2 sd, and spaces
 * the re-checks at 8 sd, where a drift of 4 sd cannot pass for a side.
 */
Test(engine_drift, the_shared_mode_spaces_rechecks_at_large_effects)
{
	struct graph g;
	unsigned at2, at8;

	line(&g, 200);
	at2 = rechecks_at(&g, 2);
	at8 = rechecks_at(&g, 8);
	cr_assert_geq(at2, 2, "%u re-checks in 10 probes at 2 sd", at2);
	cr_assert_lt(at8, at2, "%u re-checks at 8 sd, %u at 2 sd", at8, at2);
	graph_release(&g);
}

/*
 * Probes until the engine asks for the good endpoint, at most limit, on a
 * line whose good side is at 20 and bad side (from commit 150) at 28 with
 * noise 0.3, after a first look whose good side holds a wild run (2.0).
 * Returns the probes taken; the good level is then still off by about 9
 * unless the good endpoint was sampled again.
 */
static unsigned
probes_to_good_recheck(const struct graph *g, unsigned limit)
{
	struct engine_params p;
	struct engine e;
	struct rng r = { 5 };
	struct truth t = { 20, 0, 28, 0.3, 150, 150 };
	enum engine_action_kind last;
	unsigned i, ends;

	engine_params_default(&p);
	cr_assert_eq(engine_init(&e, g, &p, NULL), 0);
	engine_add_sample(&e, ENGINE_GOOD, 20.1, NULL);
	engine_add_sample(&e, ENGINE_GOOD, 2.0, NULL);
	for (i = 0; i < 3; i++)
		engine_add_sample(&e, e.bad, 28 + 0.3 * gauss(&r), NULL);
	i = answer_probes(&e, &t, &r, limit, 1, &ends, &last);
	cr_assert_eq(last, ENGINE_SAMPLE, "kind %d at %u", last, i);
	engine_release(&e);
	return i;
}

/*
 * Endpoint probes among 20 on a line at 20 with two culprits, 100 (to 24)
 * and 150 (to 28), noise 0.3, after three values a side: the commits
 * between the culprits sit off both levels for good.
 */
static unsigned
endpoint_probes_two_culprits(const struct graph *g)
{
	struct engine_params p;
	struct engine e;
	struct rng r = { 9 };
	struct truth t = { 20, 24, 28, 0.3, 100, 150 };
	enum engine_action_kind last;
	unsigned i, ends;

	engine_params_default(&p);
	cr_assert_eq(engine_init(&e, g, &p, NULL), 0);
	for (i = 0; i < 3; i++) {
		engine_add_sample(&e, ENGINE_GOOD, 20 + 0.3 * gauss(&r), NULL);
		engine_add_sample(&e, e.bad, 28 + 0.3 * gauss(&r), NULL);
	}
	answer_probes(&e, &t, &r, 20, 0, &ends, &last);
	engine_release(&e);
	return ends;
}

/*
 * A commit sampled twice or more whose values sit far from both levels,
 * while a side has two values, says the levels are wrong, not the commit:
 * the endpoint re-check comes at once, although at this apparent effect
 * the re-checks are spaced far apart.  Before, the engine sampled such a
 * commit ten times over.  From three values a side a robust level
 * rejects a wild run itself, and a commit between two culprits must not
 * call a re-check with every sample.
 */
Test(engine_drift, a_commit_off_both_levels_calls_a_recheck)
{
	struct graph g;
	unsigned n;

	line(&g, 200);
	n = probes_to_good_recheck(&g, 30);
	cr_assert_lt(n, 8, "the good endpoint re-checked after %u probes", n);
	n = endpoint_probes_two_culprits(&g);
	cr_assert_leq(n, 2, "%u endpoint probes in 20 between two culprits", n);
	graph_release(&g);
}
