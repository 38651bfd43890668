/* SPDX-License-Identifier: MIT */
/*
 * The two-culprit row of bench-sim (sim_multi.c): two planted culprits with
 * half of the change each, the single-culprit engine beside the engine
 * followed by the daemon's split of the remaining sub-ranges.
 */
#ifndef TESTS_BENCH_SIM_MULTI_H
#define TESTS_BENCH_SIM_MULTI_H

#include <stdint.h>

#include "bisect/engine.h"

/* Prints the row: how often both culprits are found, and at what cost. */
void	sim_multi_row(const struct engine_params *ep, unsigned trials,
	    uint64_t seed);

#endif
