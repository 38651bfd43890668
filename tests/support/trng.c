/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>

#include "tests/support/trng.h"

/* splitmix64: a full-period 64-bit sequence, cheap and well mixed. */
double
unif(struct rng *r)
{
	uint64_t z = (r->x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

/* Box-Muller; 1 - u keeps the logarithm finite. */
double
gauss(struct rng *r)
{
	double u = unif(r), v = unif(r);

	return sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
}

/* One shape for the engine suites' lines, so they bisect the same graph. */
int
trng_line(struct graph *g, size_t n)
{
	uint32_t off[256], par[256];
	size_t i, k = 0;

	if (n > 255)
		return -EINVAL;
	off[0] = 0;
	for (i = 0; i < n; i++) {
		if (i > 0)
			par[k++] = (uint32_t)(i - 1);
		off[i + 1] = (uint32_t)k;
	}
	return graph_init_parents(g, n, off, par, NULL);
}
