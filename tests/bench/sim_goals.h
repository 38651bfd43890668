/* SPDX-License-Identifier: MIT */
/*
 * bench-sim's goals tables for issue 15: the sample goals (N = 1000,
 * >= 99% exact in every noise model, mean total samples at d = 2, 4 and
 * 8), null ranges (<= 50 samples, <= 1% named) and drift (<= 1% wrong).
 * Rows are kept as they run and printed after the standard table.
 */
#ifndef TESTS_BENCH_SIM_GOALS_H
#define TESTS_BENCH_SIM_GOALS_H

#include "tests/bench/sim.h"

/* A row's figures for one engine, rates in percent. */
struct sim_goal_stat {
	double	exact;		/* the planted culprit named alone */
	double	wrong;		/* a culprit or set named that is not it */
	double	samples;	/* mean total samples */
};

/*
 * Keeps a row when one of the goals names it: the shared engine's figures
 * and the staged one's on the same seeds.
 */
void	sim_goals_add(const struct sim_case *cs,
	    const struct sim_goal_stat *shared,
	    const struct sim_goal_stat *staged);

/* The tables: target, both engines, and whether each goal is met. */
void	sim_goals_print(void);

#endif
