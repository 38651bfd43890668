/*
 * bench-sim's goals table for issue 15 (N = 1000, >= 99% exact in every
 * noise model, mean total samples at d = 2, 4 and 8): rows are kept as
 * they run and printed after the standard table.
 */
#ifndef TESTS_BENCH_SIM_GOALS_H
#define TESTS_BENCH_SIM_GOALS_H

#include "tests/bench/sim.h"

/*
 * Keeps a row when it is one the goals name: exact% and mean samples of
 * the shared engine and of the staged one.
 */
void	sim_goals_add(const struct sim_case *cs, double exact_new,
	    double samples_new, double exact_old, double samples_old);

/* The table: target, both engines, and whether the goal is met. */
void	sim_goals_print(void);

#endif
