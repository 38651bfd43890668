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
