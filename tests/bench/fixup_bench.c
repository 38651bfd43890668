/* SPDX-License-Identifier: MIT */
/*
 * make bench-fixup: how often a change planted inside a broken stretch
 * (commits that do not build, repaired a few commits later) is named
 * exactly, measured side by side on the same worlds: bisectd with
 * automatic fix-ups (the repair is found through its Fixes: trailer and
 * picked onto the stretch, so it builds), bisectd without them (the
 * stretch is skipped), and git bisect run with one run per commit and
 * `git bisect skip` for the stretch.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/engine.h"
#include "tests/bench/sim.h"

enum { FX_AUTO, FX_NONE, FX_GIT, FX_N };

static const char *const fx_names[FX_N] = {
	"bisectd, automatic fix-ups",
	"bisectd, no fix-ups (skips)",
	"git bisect run + skip",
};

struct fx_count {
	unsigned	 exact, set, wrong, other;
	double		 samples;
};

/* The world with a stretch of len broken commits and the culprit in it. */
static void
fx_world(struct sim_world *w, const struct sim_case *cs, unsigned trial,
    size_t len, size_t *start)
{
	size_t i, n = cs->n;

	sim_world_init(w, cs, trial);
	memset(w->unbuildable, 0, n);
	/* Away from both ends: the endpoints themselves build. */
	*start = 1 + (size_t)(sim_rng_next(&w->rng) % (n - len - 2));
	sim_world_plant(w, (uint32_t)(*start + sim_rng_next(&w->rng) % len));
	for (i = *start; i < *start + len; i++)
		w->unbuildable[i] = 1;
	sim_world_reseed(w, 0);
}

static void
fx_add(struct fx_count *c, const struct sim_world *w,
    const struct sim_result *r)
{
	c->samples += r->samples;
	if (r->verdict == SIM_DONE && r->culprit == w->culprit)
		c->exact++;
	else if (r->verdict == SIM_DONE)
		c->wrong++;
	else if (r->verdict == SIM_AMONG && r->set_has)
		c->set++;
	else
		c->other++;
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "trials", 1, 0, 't' }, { "n", 1, 0, 'n' }, { "d", 1, 0, 'd' },
		{ "len", 1, 0, 'l' }, { "seed", 1, 0, 's' }, { 0, 0, 0, 0 },
	};
	struct sim_case cs = { "linear", 200, "normal", 3, 0.1, 1, 0, 0, 30, 1,
	    NULL, 1, 80, 0 };
	struct engine_params ep;
	struct fx_count c[FX_N];
	struct sim_world w;
	struct sim_result r;
	size_t len = 5, start;
	unsigned t;
	int ch, k;

	while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (ch) {
		case 't': cs.trials = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'n': cs.n = strtoul(optarg, NULL, 10); break;
		case 'd': cs.d = strtod(optarg, NULL); break;
		case 'l': len = strtoul(optarg, NULL, 10); break;
		case 's': cs.seed = strtoull(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: fixup_bench [--trials T] [--n N] "
			    "[--d D] [--len L] [--seed S]\n");
			return 2;
		}
	}
	if (cs.trials == 0 || cs.n < len + 4 || len == 0) {
		fprintf(stderr, "fixup_bench: need trials > 0 and n >= len + 4\n");
		return 2;
	}
	engine_params_default(&ep);
	memset(c, 0, sizeof(c));
	for (t = 0; t < cs.trials; t++) {
		fx_world(&w, &cs, t, len, &start);
		/* Automatic fix-ups: the stretch builds with the repair. */
		memset(w.unbuildable, 0, cs.n);
		sim_world_reseed(&w, FX_AUTO);
		sim_run_engine(&w, &ep, 1, 0, &r);
		fx_add(&c[FX_AUTO], &w, &r);
		memset(w.unbuildable + start, 1, len);
		sim_world_reseed(&w, FX_NONE);
		sim_run_engine(&w, &ep, 1, 0, &r);
		fx_add(&c[FX_NONE], &w, &r);
		sim_world_reseed(&w, FX_GIT);
		sim_naive(&w, &r);
		fx_add(&c[FX_GIT], &w, &r);
		sim_world_release(&w);
	}
	printf("change planted inside a broken stretch of %zu commits "
	    "(repaired by a Fixes: commit after it)\n%zu candidates, linear, "
	    "normal noise, |change| = %.1f sd, %u trials, seed %llu\n\n", len,
	    cs.n, cs.d, cs.trials, (unsigned long long)cs.seed);
	printf("%-30s %14s %14s %8s %8s %9s\n", "strategy", "named exactly",
	    "set holds it", "wrong", "other", "samples");
	for (k = 0; k < FX_N; k++)
		printf("%-30s %13.1f%% %13.1f%% %7.1f%% %7.1f%% %9.1f\n",
		    fx_names[k], 100.0 * c[k].exact / cs.trials,
		    100.0 * c[k].set / cs.trials, 100.0 * c[k].wrong / cs.trials,
		    100.0 * c[k].other / cs.trials, c[k].samples / cs.trials);
	return 0;
}
