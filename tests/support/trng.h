/*
 * A small deterministic generator for simulated samples in the engine
 * tests: splitmix64 draws and Box-Muller normals, the same on every run.
 */
#ifndef TESTS_SUPPORT_TRNG_H
#define TESTS_SUPPORT_TRNG_H

#include <stdint.h>

struct rng {
	uint64_t	x;		/* the seed, advanced by every draw */
};

/* Uniform in [0, 1). */
double	unif(struct rng *r);
/* Standard normal. */
double	gauss(struct rng *r);

#endif
