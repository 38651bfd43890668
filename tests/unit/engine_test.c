/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "bisect/engine.h"
#include "bisect/graph.h"
#include "bisect/repro.h"
#include "common/xmalloc.h"
#include "tests/support/trng.h"
#include "tests/support/tst.h"

TestSuite(engine, .fini = tst_leak_check);

static void
linear_graph(struct graph *g, size_t n)
{
	uint32_t *off = xcalloc(n + 1, sizeof(uint32_t));
	uint32_t *par = xcalloc(n, sizeof(uint32_t));
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (i > 0)
			par[k++] = (uint32_t)(i - 1);
		off[i + 1] = (uint32_t)k;
	}
	cr_assert_eq(graph_init_parents(g, n, off, par, NULL), 0);
	free(off);
	free(par);
}

/* Parents as lists terminated by -1, one list per commit. */
static void
dag_graph(struct graph *g, size_t n, const int (*ps)[4])
{
	uint32_t off[64], par[256];
	size_t i, j, k = 0;

	off[0] = 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < 4 && ps[i][j] >= 0; j++)
			par[k++] = (uint32_t)ps[i][j];
		off[i + 1] = (uint32_t)k;
	}
	cr_assert_eq(graph_init_parents(g, n, off, par, NULL), 0);
}

/* Makes the endpoints reproduce cleanly: good ~ 10, bad ~ 20, sd ~ 0.5. */
static void
reproduce(struct engine *e)
{
	static const double jit[] = { -0.5, 0.3, 0.1, -0.2, 0.4, -0.1, 0.6 };
	struct engine_action a;
	struct engine_status st;
	int i;

	for (i = 0; i < 7; i++) {
		cr_assert_eq(engine_add_sample(e, ENGINE_GOOD, 10 + jit[i], NULL), 0);
		cr_assert_eq(engine_add_sample(e, e->bad, 20 - jit[i], NULL), 0);
	}
	engine_status(e, &st);
	cr_assert_eq(st.phase, ENGINE_PHASE_BISECT, "not reproduced: llr %g",
	    st.repro.llr);
	engine_next(e, 0, &a);
	cr_assert_eq(a.kind, ENGINE_WAIT);
}

/* A line of n commits and an engine with default parameters, reproduced. */
static void
start(struct graph *g, struct engine *e, size_t n, struct engine_params *p)
{
	linear_graph(g, n);
	engine_params_default(p);
	cr_assert_eq(engine_init(e, g, p, NULL), 0);
	reproduce(e);
}

static void
finish(struct graph *g, struct engine *e)
{
	engine_release(e);
	graph_release(g);
}

static int
in_anc(const struct graph *g, uint32_t c, uint32_t x)
{
	uint32_t j;

	if (c == x)
		return 1;
	for (j = g->par_off[x]; j < g->par_off[x + 1]; j++)
		if (in_anc(g, c, g->par[j]))
			return 1;
	return 0;
}

/*
 * Runs a whole bisection against a planted culprit with normal noise of
 * unit sd and the given effect (numeric), or failure rates pg/pb.  Returns
 * the final action kind; *got is the culprit when DONE.
 */
static enum engine_action_kind
simulate(const struct graph *g, struct engine_params *p, uint32_t culprit,
    double d, double pg, double pb, uint64_t seed, unsigned k, uint32_t *got)
{
	struct engine e;
	struct engine_action a;
	struct rng r = { seed };
	uint32_t probes[16], c;
	size_t i, np;
	int bad, rounds = 0;
	double v;

	cr_assert_eq(engine_init(&e, g, p, NULL), 0);
	for (;;) {
		engine_next(&e, k, &a);
		if (a.kind != ENGINE_SAMPLE || ++rounds > 2000)
			break;
		np = a.nprobes;
		memcpy(probes, a.probes, np * sizeof(uint32_t));
		for (i = 0; i < np; i++) {
			c = probes[i];
			bad = c != ENGINE_GOOD && in_anc(g, culprit, c);
			if (p->metric == ENGINE_PASSFAIL)
				v = unif(&r) < (bad ? pb : pg);
			else
				v = 100 + (bad ? d : 0) + gauss(&r);
			cr_assert_eq(engine_add_sample(&e, c, v, NULL), 0);
		}
	}
	*got = a.culprit;
	engine_release(&e);
	return a.kind;
}

Test(engine, rejects_bad_parameters_and_graphs)
{
	struct engine_params p;
	struct engine e;
	struct bd_error err;
	struct graph g, two;
	uint32_t off[3] = { 0, 0, 0 }, par[1] = { 0 };
	double prior[4] = { 0, 0, 0, 0 };

	linear_graph(&g, 4);
	engine_params_default(&p);
	p.confidence = 1;
	cr_assert_eq(engine_init(&e, &g, &p, &err), -EINVAL);
	engine_params_default(&p);
	p.prior = prior;
	cr_assert_eq(engine_init(&e, &g, &p, &err), -EINVAL);
	engine_params_default(&p);
	p.stop_margin = 0;
	cr_assert_eq(engine_init(&e, &g, &p, &err), -EINVAL);
	cr_assert(strstr(err.msg, "stop_margin") != NULL);
	/* Two unrelated roots: the last is not a descendant of the first. */
	cr_assert_eq(graph_init_parents(&two, 2, off, par, NULL), 0);
	engine_params_default(&p);
	cr_assert_eq(engine_init(&e, &two, &p, &err), -EINVAL);
	cr_assert(strstr(err.msg, "descendant") != NULL);
	graph_release(&two);
	graph_release(&g);
}

Test(engine, rejects_bad_events)
{
	struct engine_params p;
	struct engine e;
	struct graph g;

	linear_graph(&g, 5);
	engine_params_default(&p);
	cr_assert_eq(engine_init(&e, &g, &p, NULL), 0);
	cr_assert_eq(engine_add_sample(&e, 5, 1, NULL), -EINVAL);
	cr_assert_eq(engine_add_sample(&e, 1, NAN, NULL), -EINVAL);
	cr_assert_eq(engine_add_skip(&e, ENGINE_GOOD, NULL), -EINVAL);
	cr_assert_eq(engine_add_skip(&e, 4, NULL), -EINVAL);
	engine_release(&e);
	p.metric = ENGINE_PASSFAIL;
	cr_assert_eq(engine_init(&e, &g, &p, NULL), 0);
	cr_assert_eq(engine_add_sample(&e, 1, 0.5, NULL), -EINVAL);
	cr_assert_eq(engine_add_sample(&e, 1, 1, NULL), 0);
	finish(&g, &e);
}

Test(engine, reproduction_starts_with_both_endpoints)
{
	struct engine_params p;
	struct engine e;
	struct engine_action a;
	struct graph g;
	size_t i, ng = 0, nb = 0;

	linear_graph(&g, 50);
	engine_params_default(&p);
	cr_assert_eq(engine_init(&e, &g, &p, NULL), 0);
	engine_next(&e, 6, &a);
	cr_assert_eq(a.kind, ENGINE_SAMPLE);
	cr_assert_eq(a.nprobes, 6);
	for (i = 0; i < a.nprobes; i++) {
		ng += a.probes[i] == ENGINE_GOOD;
		nb += a.probes[i] == e.bad;
	}
	cr_assert_eq(ng, 3);
	cr_assert_eq(nb, 3);
	/* All six in flight: one more host gets the next look's sample. */
	engine_next(&e, 1, &a);
	cr_assert_eq(a.nprobes, 1);
	finish(&g, &e);
}

Test(engine, null_range_is_not_reproduced)
{
	struct engine_params p;
	struct engine e;
	struct engine_action a;
	struct graph g;
	struct rng r = { 7 };
	int n = 0;

	linear_graph(&g, 100);
	engine_params_default(&p);
	cr_assert_eq(engine_init(&e, &g, &p, NULL), 0);
	for (;;) {
		engine_next(&e, 1, &a);
		if (a.kind != ENGINE_SAMPLE)
			break;
		cr_assert_eq(engine_add_sample(&e, a.probes[0],
		    50 + gauss(&r), NULL), 0);
		n++;
	}
	cr_assert_eq(a.kind, ENGINE_NOT_REPRODUCED);
	cr_assert_leq(n, 2 * (int)p.repro_max);
	finish(&g, &e);
}

Test(engine, change_below_minimum_is_not_reproduced)
{
	struct engine_params p;
	struct engine e;
	struct engine_action a;
	struct graph g;
	struct rng r = { 3 };

	linear_graph(&g, 20);
	engine_params_default(&p);
	p.min_change = 0.05;
	cr_assert_eq(engine_init(&e, &g, &p, NULL), 0);
	for (;;) {
		engine_next(&e, 1, &a);
		if (a.kind != ENGINE_SAMPLE)
			break;
		/* A certain but 2% change. */
		cr_assert_eq(engine_add_sample(&e, a.probes[0], (a.probes[0] ==
		    ENGINE_GOOD ? 100 : 102) + 0.01 * gauss(&r), NULL), 0);
	}
	cr_assert_eq(a.kind, ENGINE_NOT_REPRODUCED);
	finish(&g, &e);
}

Test(engine, repro_schedule_grows_to_the_cap)
{
	struct repro_params rp = { 3, 100, 0.005, 0.01, 1, 0.25, 0.01, 0, 0, 0 };
	unsigned s[REPRO_MAX_LOOKS];
	size_t k = repro_schedule(&rp, s, REPRO_MAX_LOOKS), i;

	cr_assert_gt(k, 5);
	cr_assert_eq(s[0], 3);
	cr_assert_eq(s[k - 1], 100);
	for (i = 1; i < k; i++)
		cr_assert_gt(s[i], s[i - 1]);
}

/*
 * The shared mode looks at the endpoints every 5%: every sample up to 20
 * a side, never more than 5% beyond the last look, and the cap is reached
 * within the looks the engine keeps even when it is large.
 */
Test(engine, repro_schedule_follows_the_growth)
{
	struct repro_params rp = { 2, 100, 0.005, 0.01, 1, 0.25, 0.01, 0, 0,
	    1.05 };
	unsigned s[REPRO_MAX_LOOKS];
	size_t k = repro_schedule(&rp, s, REPRO_MAX_LOOKS), i;
	struct engine_params p;
	struct engine e;
	struct graph g;

	cr_assert_eq(s[0], 2);
	cr_assert_eq(s[k - 1], 100);
	for (i = 1; i < k; i++) {
		cr_assert_gt(s[i], s[i - 1]);
		cr_assert_leq(s[i], s[i - 1] > 20 ? ceil(s[i - 1] * 1.05) :
		    s[i - 1] + 1, "look %zu: %u after %u", i, s[i], s[i - 1]);
	}
	rp.max_per_side = 1000;
	k = repro_schedule(&rp, s, REPRO_MAX_LOOKS);
	cr_assert_eq(s[k - 1], 1000);
	cr_assert_leq(s[k - 1] - s[k - 2], 60);
	linear_graph(&g, 8);
	engine_params_default(&p);
	p.repro_growth = 1;
	cr_assert_eq(engine_init(&e, &g, &p, NULL), -EINVAL);
	graph_release(&g);
}

/* Git's rule: the probe's candidate-ancestor count w maximises min(w, N - w). */
static void
assert_halving(const struct graph *g, uint32_t expect)
{
	struct engine_params p;
	struct engine e;
	struct engine_action a;

	engine_params_default(&p);
	cr_assert_eq(engine_init(&e, g, &p, NULL), 0);
	reproduce(&e);
	engine_next(&e, 1, &a);
	cr_assert_eq(a.kind, ENGINE_SAMPLE);
	cr_assert_eq(a.nprobes, 1);
	cr_assert_eq(a.probes[0], expect, "probe %u, expected %u", a.probes[0],
	    expect);
	engine_release(&e);
}

Test(engine, uniform_prior_halves_like_git_on_a_line)
{
	struct graph g;

	linear_graph(&g, 8);
	/* w(x) = x + 1 of 8: index 3 splits 4/4. */
	assert_halving(&g, 3);
	graph_release(&g);
	linear_graph(&g, 11);
	/* w = 6 (index 5) vs w = 5 (index 4): both split 5/6; take min. */
	{
		struct engine_params p;
		struct engine e;
		struct engine_action a;

		engine_params_default(&p);
		cr_assert_eq(engine_init(&e, &g, &p, NULL), 0);
		reproduce(&e);
		engine_next(&e, 1, &a);
		cr_assert(a.probes[0] == 4 || a.probes[0] == 5);
		engine_release(&e);
	}
	graph_release(&g);
}

Test(engine, uniform_prior_halves_like_git_across_merges)
{
	/* Topic branch 3-4 merged at 5: w = 1 2 3 1 2 6 7 8, best index 2. */
	static const int merge[8][4] = {
		{ -1 }, { 0, -1 }, { 1, -1 }, { -1 }, { 3, -1 }, { 2, 4, -1 },
		{ 5, -1 }, { 6, -1 },
	};
	/* Diamond: w(3) = 4 of 7 only when 0 is not counted twice. */
	static const int diamond[7][4] = {
		{ -1 }, { 0, -1 }, { 0, -1 }, { 1, 2, -1 }, { 3, -1 }, { 4, -1 },
		{ 5, -1 },
	};
	struct graph g;

	dag_graph(&g, 8, merge);
	assert_halving(&g, 2);
	graph_release(&g);
	dag_graph(&g, 7, diamond);
	assert_halving(&g, 3);
	graph_release(&g);
}

Test(engine, done_needs_the_culprit_and_its_parent_sampled)
{
	struct engine_params p;
	struct engine e;
	struct engine_action a;
	struct graph g;
	double prior[10];
	int i;

	linear_graph(&g, 10);
	engine_params_default(&p);
	/* Commit 4 is nearly excluded a priori, so 5 gets the mass early. */
	for (i = 0; i < 10; i++)
		prior[i] = i == 4 ? 1e-9 : 1;
	p.prior = prior;
	cr_assert_eq(engine_init(&e, &g, &p, NULL), 0);
	reproduce(&e);
	for (i = 0; i < 3; i++) {
		engine_add_sample(&e, 5, 20, NULL);
		engine_add_sample(&e, 3, 10, NULL);
	}
	cr_assert_gt(engine_mass(&e)[5], p.confidence);
	engine_next(&e, 1, &a);
	cr_assert_eq(a.kind, ENGINE_SAMPLE, "kind %d", a.kind);
	cr_assert_eq(a.probes[0], 4, "must sample the parent first");
	engine_add_sample(&e, 4, 10, NULL);
	engine_next(&e, 1, &a);
	cr_assert_eq(a.kind, ENGINE_DONE);
	cr_assert_eq(a.culprit, 5);
	cr_assert_geq(a.confidence, p.confidence);
	finish(&g, &e);
}

Test(engine, root_culprit_uses_the_good_boundary)
{
	struct engine_params p;
	struct engine e;
	struct engine_action a;
	struct graph g;
	int i;

	start(&g, &e, 6, &p);
	for (i = 0; i < 3; i++)
		engine_add_sample(&e, 0, 20, NULL);
	engine_next(&e, 1, &a);
	cr_assert_eq(a.kind, ENGINE_DONE, "kind %d", a.kind);
	cr_assert_eq(a.culprit, 0);
	finish(&g, &e);
}

Test(engine, skipped_commits_give_culprit_among)
{
	struct engine_params p;
	struct engine e;
	struct engine_action a;
	struct graph g;
	int i, seen = 0;
	size_t k;

	start(&g, &e, 10, &p);
	for (i = 0; i < 3; i++) {
		engine_add_sample(&e, 3, 10, NULL);
		engine_add_sample(&e, 6, 20, NULL);
	}
	cr_assert_eq(engine_add_skip(&e, 4, NULL), 0);
	cr_assert_eq(engine_add_skip(&e, 5, NULL), 0);
	engine_next(&e, 1, &a);
	cr_assert_eq(a.kind, ENGINE_AMONG, "kind %d", a.kind);
	cr_assert_eq(a.nset, 3);
	for (k = 0; k < a.ncands; k++)
		seen |= 1 << a.cands[k].commit;
	cr_assert_eq(seen, (1 << 4) | (1 << 5) | (1 << 6));
	cr_assert_geq(a.confidence, p.confidence);
	/* Late samples at a skipped commit un-skip it: 6 is cleared. */
	for (i = 0; i < 3; i++)
		engine_add_sample(&e, 5, 20, NULL);
	engine_next(&e, 1, &a);
	cr_assert_eq(a.kind, ENGINE_AMONG, "kind %d", a.kind);
	cr_assert_eq(a.nset, 2);
	finish(&g, &e);
}

Test(engine, budget_ends_inconclusive)
{
	struct engine_params p;
	struct engine e;
	struct engine_action a;
	struct graph g;
	int guard = 0;

	linear_graph(&g, 64);
	engine_params_default(&p);
	p.max_samples = 40;
	cr_assert_eq(engine_init(&e, &g, &p, NULL), 0);
	reproduce(&e);
	/* Every probe answers exactly between the levels. */
	for (;;) {
		engine_next(&e, 1, &a);
		if (a.kind != ENGINE_SAMPLE || ++guard > 100)
			break;
		engine_add_sample(&e, a.probes[0], 15, NULL);
	}
	cr_assert_eq(a.kind, ENGINE_INCONCLUSIVE, "kind %d", a.kind);
	cr_assert_gt(a.ncands, 1);
	cr_assert_leq(a.ncands, ENGINE_MAX_CANDS);
	cr_assert_geq(a.cands[0].mass, a.cands[1].mass);
	finish(&g, &e);
}

Test(engine, an_outlier_cannot_flip_a_side)
{
	struct engine_params p;
	struct engine e;
	struct engine_status st;
	struct graph g;

	start(&g, &e, 20, &p);
	engine_add_sample(&e, 9, 10.2, NULL);
	engine_add_sample(&e, 9, 9.7, NULL);
	cr_assert_lt(engine_prob_bad(&e)[9], 0.01);
	engine_add_sample(&e, 9, 1e6, NULL);
	cr_assert_lt(engine_prob_bad(&e)[9], 0.01);
	engine_add_sample(&e, 9, -1e6, NULL);
	cr_assert_lt(engine_prob_bad(&e)[9], 0.01);
	/* Even a value exactly at the other level does not outvote two. */
	engine_add_sample(&e, 9, 20, NULL);
	cr_assert_lt(engine_prob_bad(&e)[9], 0.5);
	engine_status(&e, &st);
	cr_assert_eq(st.misfits, 2);
	finish(&g, &e);
}

/*
 * A sample's evidence counts in the update it arrives in, also when its
 * commit is the first sampled candidate or the one that widens the
 * descendant sets to a second 64-bit word (the 65th): the posterior once
 * read the set width from before the rebuild, and such a sample counted
 * only from the next event on.
 */
Test(engine, a_sample_counts_at_once_when_it_adds_a_slot)
{
	struct engine_params p;
	struct engine e;
	struct graph g;
	uint32_t x;

	start(&g, &e, 400, &p);
	cr_assert_lt(engine_prob_bad(&e)[199], 0.6);
	engine_add_sample(&e, 199, 20, NULL);
	cr_assert_gt(engine_prob_bad(&e)[199], 0.9, "P(bad) %g",
	    engine_prob_bad(&e)[199]);
	for (x = 0; x < 63; x++)
		engine_add_sample(&e, x, 10, NULL);
	cr_assert_lt(engine_prob_bad(&e)[120], 0.6);
	engine_add_sample(&e, 120, 20, NULL);
	cr_assert_gt(engine_prob_bad(&e)[120], 0.9, "P(bad) %g",
	    engine_prob_bad(&e)[120]);
	finish(&g, &e);
}

/* Feeds a recorded event log to a fresh engine. */
struct event {
	uint32_t	commit;
	double		value;
	int		skip;
};

Test(engine, state_rebuilds_exactly_from_samples)
{
	struct engine_params p;
	struct engine e, f;
	struct engine_action a, b;
	struct graph g;
	struct rng r = { 11 };
	struct event ev[400];
	size_t nev = 0, i;
	uint32_t probes[4];

	linear_graph(&g, 300);
	engine_params_default(&p);
	cr_assert_eq(engine_init(&e, &g, &p, NULL), 0);
	while (nev < 60) {
		engine_next(&e, 3, &a);
		cr_assert_eq(a.kind, ENGINE_SAMPLE);
		memcpy(probes, a.probes, a.nprobes * sizeof(uint32_t));
		for (i = 0; i < a.nprobes; i++) {
			ev[nev].commit = probes[i];
			ev[nev].skip = probes[i] == 77;
			ev[nev].value = 10 + (probes[i] != ENGINE_GOOD &&
			    probes[i] >= 150) + gauss(&r);
			if (ev[nev].skip)
				engine_add_skip(&e, 77, NULL);
			else
				engine_add_sample(&e, probes[i], ev[nev].value, NULL);
			nev++;
		}
	}
	cr_assert_eq(engine_init(&f, &g, &p, NULL), 0);
	for (i = 0; i < nev; i++) {
		if (ev[i].skip)
			engine_add_skip(&f, ev[i].commit, NULL);
		else
			engine_add_sample(&f, ev[i].commit, ev[i].value, NULL);
	}
	cr_assert_eq(memcmp(engine_mass(&e), engine_mass(&f),
	    g.n * sizeof(double)), 0);
	cr_assert_eq(memcmp(engine_prob_bad(&e), engine_prob_bad(&f),
	    g.n * sizeof(double)), 0);
	/* Nothing is in flight after the last round: same next action. */
	engine_next(&e, 4, &a);
	engine_next(&f, 4, &b);
	cr_assert_eq(a.kind, b.kind);
	cr_assert_eq(a.nprobes, b.nprobes);
	cr_assert_eq(memcmp(a.probes, b.probes, a.nprobes * sizeof(uint32_t)), 0);
	engine_release(&e);
	engine_release(&f);
	graph_release(&g);
}

Test(engine, in_flight_probes_are_not_asked_again)
{
	struct engine_params p;
	struct engine_status st;
	struct engine e;
	struct engine_action a;
	struct graph g;
	uint32_t first, second;

	start(&g, &e, 1000, &p);
	engine_next(&e, 1, &a);
	first = a.probes[0];
	engine_next(&e, 1, &a);
	cr_assert_eq(a.kind, ENGINE_SAMPLE);
	second = a.probes[0];
	cr_assert_neq(first, second);
	engine_status(&e, &st);
	cr_assert_eq(st.inflight, 2);
	/* The first probe failed on its host: one left in flight. */
	engine_probe_dropped(&e, first);
	engine_status(&e, &st);
	cr_assert_eq(st.inflight, 1);
	engine_next(&e, 1, &a);
	cr_assert_eq(a.kind, ENGINE_SAMPLE);
	cr_assert_neq(a.probes[0], second);
	/* A sample ends a probe in flight. */
	engine_add_sample(&e, second, 10, NULL);
	engine_status(&e, &st);
	cr_assert_eq(st.inflight, 1);
	/* After a restart the daemon re-registers what is still running. */
	engine_probe_restore(&e, ENGINE_GOOD);
	engine_probe_restore(&e, 7);
	engine_status(&e, &st);
	cr_assert_eq(st.inflight, 3);
	finish(&g, &e);
}

Test(engine, k_probes_are_distinct_posterior_quantiles)
{
	struct engine_params p;
	struct engine e;
	struct engine_action a;
	struct graph g;
	const double *q;
	double qs[8], t;
	size_t i, j;

	start(&g, &e, 1000, &p);
	engine_next(&e, 8, &a);
	cr_assert_eq(a.kind, ENGINE_SAMPLE);
	cr_assert_eq(a.nprobes, 8);
	q = engine_prob_bad(&e);
	for (i = 0; i < 8; i++) {
		for (j = 0; j < i; j++)
			cr_assert_neq(a.probes[i], a.probes[j]);
		qs[i] = q[a.probes[i]];
	}
	/* Sorted, the probes sit at i/9 of the posterior. */
	for (i = 0; i < 8; i++)
		for (j = i + 1; j < 8; j++)
			if (qs[j] < qs[i]) {
				t = qs[i];
				qs[i] = qs[j];
				qs[j] = t;
			}
	for (i = 0; i < 8; i++)
		cr_assert(fabs(qs[i] - (i + 1) / 9.0) < 0.01, "q %g", qs[i]);
	finish(&g, &e);
}

Test(engine, status_reports_candidates)
{
	struct engine_params p;
	struct engine e;
	struct engine_status st;
	struct graph g;
	int i;

	start(&g, &e, 100, &p);
	for (i = 0; i < 3; i++) {
		engine_add_sample(&e, 49, 10, NULL);
		engine_add_sample(&e, 74, 20, NULL);
	}
	engine_status(&e, &st);
	cr_assert_eq(st.phase, ENGINE_PHASE_BISECT);
	cr_assert_eq(st.samples, 20);
	cr_assert_eq(st.ntop, 3);
	cr_assert(st.top[0].commit >= 50 && st.top[0].commit <= 74);
	cr_assert_geq(st.top[0].mass, st.top[1].mass);
	cr_assert(st.candidates_left >= 20 && st.candidates_left <= 26,
	    "left %zu", st.candidates_left);
	cr_assert(fabs(st.good_level - 10) < 0.5 && fabs(st.bad_level - 20) < 0.5);
	cr_assert_gt(st.est_samples_left, 2);
	finish(&g, &e);
}

Test(engine, simulated_bisections_find_the_culprit)
{
	static const int merge[12][4] = {
		{ -1 }, { 0, -1 }, { -1 }, { 2, -1 }, { 1, 3, -1 }, { 4, -1 },
		{ 4, -1 }, { 6, -1 }, { 5, 7, -1 }, { 2, -1 }, { 8, 9, -1 },
		{ 10, -1 },
	};
	struct engine_params p;
	struct graph lin, dag;
	enum engine_action_kind k;
	uint32_t got;
	unsigned t, ok = 0, total = 0;

	linear_graph(&lin, 200);
	dag_graph(&dag, 12, merge);
	engine_params_default(&p);
	for (t = 0; t < 24; t++) {
		uint32_t c = (uint32_t)((t * 37 + 11) % 200);

		k = simulate(&lin, &p, c, t % 2 ? 2 : 4, 0, 0, 100 + t,
		    t % 3 ? 1 : 4, &got);
		ok += k == ENGINE_DONE && got == c;
		total++;
		c = t % 12;
		k = simulate(&dag, &p, c, 3, 0, 0, 500 + t, 1, &got);
		ok += k == ENGINE_DONE && got == c;
		total++;
	}
	cr_assert_geq(ok, total - 1, "%u of %u right", ok, total);
	graph_release(&lin);
	graph_release(&dag);
}

Test(engine, flaky_pass_fail_bisection)
{
	struct engine_params p;
	struct graph g;
	uint32_t got;
	unsigned t, ok = 0;

	linear_graph(&g, 64);
	engine_params_default(&p);
	p.metric = ENGINE_PASSFAIL;
	for (t = 0; t < 12; t++) {
		uint32_t c = (uint32_t)((t * 23 + 5) % 64);

		/* 20% flaky failures before, 90% failures after. */
		if (simulate(&g, &p, c, 0, 0.2, 0.9, 900 + t, 2, &got) ==
		    ENGINE_DONE && got == c)
			ok++;
	}
	cr_assert_geq(ok, 11, "%u of 12 right", ok);
	graph_release(&g);
}
