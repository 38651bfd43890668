/* SPDX-License-Identifier: MIT */
/*
 * A small deterministic generator for simulated samples in the engine
 * tests: splitmix64 draws and Box-Muller normals, the same on every run.
 */
#ifndef TESTS_SUPPORT_TRNG_H
#define TESTS_SUPPORT_TRNG_H

#include <stddef.h>
#include <stdint.h>

#include "bisect/graph.h"

struct rng {
	uint64_t	x;		/* the seed, advanced by every draw */
};

/* Uniform in [0, 1). */
double	unif(struct rng *r);
/* Standard normal. */
double	gauss(struct rng *r);

/*
 * A line of n <= 255 commits, 0 the oldest, each the parent of the next:
 * the candidate graph of most engine tests.  Returns graph_init_parents'
 * result (0 or a negative errno); the caller releases g.
 */
int	trng_line(struct graph *g, size_t n);

#endif
