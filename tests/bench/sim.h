/* SPDX-License-Identifier: MIT */
/*
 * Simulator for the bisection engine (make bench-sim): synthetic candidate
 * DAGs with a planted culprit, noise models, and the baseline strategies
 * run on the same cases and seeds.  Not linked into the test runner.
 */
#ifndef TESTS_BENCH_SIM_H
#define TESTS_BENCH_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "bisect/graph.h"

#define SIM_NONE UINT32_MAX

/* One row of the table: everything needed to rerun it. */
struct sim_case {
	const char	*dag;		/* linear | merge */
	size_t		 n;		/* candidates */
	const char	*noise;		/* normal t3 outlier bimodal arrays
					   passfail */
	double		 d;		/* |change| / sd (numeric) */
	double		 pg, pb;	/* failure rates (passfail) */
	double		 skip;		/* fraction of unbuildable commits */
	int		 null;		/* no change at all */
	unsigned	 trials;
	uint64_t	 seed;
	const char	*drift;		/* NULL (none) | linear | step */
	double		 drift_sd;	/* size of the drift, in noise sd */
	unsigned	 drift_len;	/* samples over which it happens */
	double		 base;		/* good level (0: 20), in noise sd */
};

/* xoshiro256** state: every random draw of a trial comes from one. */
struct sim_rng {
	uint64_t	s[4];
};

void		sim_rng_seed(struct sim_rng *r, uint64_t seed, uint64_t stream);
uint64_t	sim_rng_next(struct sim_rng *r);
double		sim_rng_unif(struct sim_rng *r);	/* [0, 1) */
double		sim_rng_norm(struct sim_rng *r);

/* A generated trial: the DAG, the truth and the noise source. */
struct sim_world {
	const struct sim_case *cs;
	unsigned	 trial;
	struct graph	 g;
	uint32_t	 culprit;	/* SIM_NONE on null ranges */
	uint8_t		*bad;		/* truth per candidate */
	uint8_t		*unbuildable;
	double		 base, delta;
	double		 drift_sign;	/* +1 or -1, random per trial */
	double		 drift_at;	/* step drift: when, in samples */
	unsigned	 t;		/* samples drawn so far: the clock */
	int		 wild;		/* the last value came from the outlier
					   model's wild runs */
	struct sim_rng	 rng;		/* noise; reseeded per strategy */
};

/* Builds trial number `trial` of the case; deterministic in the seed. */
void	sim_world_init(struct sim_world *w, const struct sim_case *cs,
	    unsigned trial);
void	sim_world_release(struct sim_world *w);
/* Restarts the noise stream so each strategy sees the same source. */
/* Plants the culprit at c (bad: c and what contains it). */
void	sim_world_plant(struct sim_world *w, uint32_t c);
void	sim_world_reseed(struct sim_world *w, unsigned strategy);
/* A value at a candidate or at SIM_NONE (the good side). */
double	sim_world_sample(struct sim_world *w, uint32_t commit);

/* Outcome of one strategy on one trial. */
enum sim_verdict {
	SIM_DONE,
	SIM_AMONG,
	SIM_INCONCLUSIVE,
	SIM_NOT_REPRODUCED,
	SIM_FAILED,
};

struct sim_result {
	enum sim_verdict verdict;
	uint32_t	 culprit;	/* SIM_DONE */
	double		 confidence;	/* SIM_DONE: the claimed mass */
	int		 drift;		/* the engine reported drift */
	int		 set_has;	/* SIM_AMONG: set contains the culprit */
	size_t		 set_size;
	unsigned	 samples;
	unsigned	 endpoint_samples;
	unsigned	 builds;
	unsigned	 rounds[3];	/* with 1, 4 and 8 hosts */
};

/* Per-step sample counts of a baseline, turned into rounds for k hosts. */
struct sim_steps {
	unsigned	*v;
	size_t		 n, cap;
};

void	sim_steps_add(struct sim_steps *s, unsigned samples);
unsigned sim_steps_rounds(const struct sim_steps *s, unsigned k);
void	sim_steps_release(struct sim_steps *s);

struct engine_params;
/*
 * Feeds one world's answers to the engine, k probes per round; with trace,
 * each sample is printed on stderr as it is taken.
 */
void	sim_run_engine(struct sim_world *w, const struct engine_params *ep,
	    unsigned k, int trace, struct sim_result *r);

void	sim_zeroday(struct sim_world *w, unsigned runs, struct sim_result *r);
void	sim_pinpoint(struct sim_world *w, unsigned attempts, unsigned cap,
	    struct sim_result *r);
void	sim_naive(struct sim_world *w, struct sim_result *r);

#endif
