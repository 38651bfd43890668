/* SPDX-License-Identifier: MIT */
/*
 * The simulator's reference policy (tests/bench/sim_infogain.c): levels
 * and scale integrated out, each probe chosen by expected information.
 */
#ifndef TESTS_BENCH_SIM_INFOGAIN_H
#define TESTS_BENCH_SIM_INFOGAIN_H

#include "tests/bench/sim.h"

/*
 * Runs the reference on one trial: DONE once the top commit holds
 * stop_mass and the Bayes factor of a change reaches 1 / exist_alpha,
 * INCONCLUSIVE at max_samples.  FAILED, with no sample taken, where it
 * does not apply: merge or skipping ranges, null ranges, pass/fail.
 */
void	sim_infogain(struct sim_world *w, double stop_mass, double exist_alpha,
	    unsigned max_samples, struct sim_result *r);

#endif
