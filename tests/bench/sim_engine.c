/* SPDX-License-Identifier: MIT */
/*
 * The bisection engine fed by a simulated world: what the standard table
 * and the fix-up benchmark share.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/engine.h"
#include "common/xmalloc.h"
#include "tests/bench/sim.h"

/*
 * One line per sample for --trace, after the engine took it: where the
 * bisection looked, what it saw, and what the posterior made of it, and
 * whether the value was one of the outlier model's wild runs.  A long
 * bisection is read off these lines (docs/statistics-history.md).
 */
static void
trace_sample(const struct engine *e, const struct sim_world *w, uint32_t c,
    double y, size_t n)
{
	struct engine_status st;
	const char *truth = "good";
	char where[16] = "good";

	engine_status(e, &st);
	if (c != ENGINE_GOOD) {
		snprintf(where, sizeof(where), "%u", c);
		truth = c == w->culprit ? "culprit" : w->bad[c] ? "bad" : "good";
	}
	fprintf(stderr, "trace trial %u sample %zu commit %s truth %s value %.3f "
	    "p_bad %.4f top %u mass %.4f levels %.3f %.3f scale %.3f "
	    "confirmed %d lbf %.2f left %zu wild %d\n", w->trial, n, where,
	    truth, y, c == ENGINE_GOOD ? 0 : engine_prob_bad(e)[c],
	    st.ntop > 0 ? st.top[0].commit : 0, st.ntop > 0 ? st.top[0].mass : 0,
	    st.good_level, st.bad_level, st.scale, st.reproduced,
	    st.change_lbf, st.candidates_left, w->wild);
}

/*
 * Feeds one world's answers to the engine, k probes per round; with trace,
 * each sample is printed as it is taken.
 */
void
sim_run_engine(struct sim_world *w, const struct engine_params *ep, unsigned k,
    int trace, struct sim_result *r)
{
	struct engine_params p = *ep;
	struct engine e;
	struct engine_action a;
	struct engine_status es;
	struct bd_error err;
	uint32_t *probes = xcalloc(k, sizeof(uint32_t)), c, bad = w->g.n - 1;
	uint8_t *built = xcalloc(w->g.n, 1);
	unsigned rounds = 0, good_built = 0;
	size_t i, np;
	double y;

	memset(r, 0, sizeof(*r));
	p.metric = strcmp(w->cs->noise, "passfail") == 0 ? ENGINE_PASSFAIL :
	    ENGINE_NUMERIC;
	if (engine_init(&e, &w->g, &p, &err) != 0) {
		fprintf(stderr, "sim: engine_init: %s\n", err.msg);
		exit(1);
	}
	for (;;) {
		engine_next(&e, k, &a);
		if (a.kind != ENGINE_SAMPLE || rounds > 100000)
			break;
		rounds++;
		np = a.nprobes;
		memcpy(probes, a.probes, np * sizeof(uint32_t));
		for (i = 0; i < np; i++) {
			c = probes[i];
			if (c == ENGINE_GOOD) {
				r->builds += !good_built;
				good_built = 1;
				r->samples++;
				r->endpoint_samples++;
				y = sim_world_sample(w, SIM_NONE);
				engine_add_sample(&e, c, y, NULL);
				if (trace)
					trace_sample(&e, w, c, y, r->samples);
				continue;
			}
			r->builds += !built[c];
			built[c] = 1;
			if (w->unbuildable[c]) {
				engine_add_skip(&e, c, NULL);
				continue;
			}
			r->samples++;
			r->endpoint_samples += c == bad;
			y = sim_world_sample(w, c);
			engine_add_sample(&e, c, y, NULL);
			if (trace)
				trace_sample(&e, w, c, y, r->samples);
		}
	}
	r->rounds[0] = rounds;
	engine_status(&e, &es);
	r->drift = es.drift;
	switch (a.kind) {
	case ENGINE_DONE:
		r->verdict = SIM_DONE;
		r->culprit = a.culprit;
		r->confidence = a.confidence;
		break;
	case ENGINE_AMONG:
		r->verdict = SIM_AMONG;
		r->set_size = a.nset;
		for (i = 0; i < a.ncands; i++)
			r->set_has |= a.cands[i].commit == w->culprit;
		break;
	case ENGINE_INCONCLUSIVE:
		r->verdict = SIM_INCONCLUSIVE;
		break;
	case ENGINE_NOT_REPRODUCED:
		r->verdict = SIM_NOT_REPRODUCED;
		break;
	default:
		r->verdict = SIM_FAILED;
	}
	engine_release(&e);
	free(probes);
	free(built);
}

