/* SPDX-License-Identifier: MIT */
/*
 * The goals tables of issue 15 in bench-sim: the rows the goals name, the
 * shared engine beside the staged one on the same seeds.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/bench/sim.h"
#include "tests/bench/sim_goals.h"

/*
 * The sample goals of issue 15 (N = 1000, >= 99% exact in every noise
 * model): the mean total samples of the shared engine at d = 2, 4, 8.
 */
static const struct {
	double	d, target;
} targets[] = {
	{ .d = 2, .target = 55 },
	{ .d = 4, .target = 25 },
	{ .d = 8, .target = 18 },
};

#define NTARGET (sizeof(targets) / sizeof(targets[0]))

/* The null goal: mean samples and the rate of named culprits. */
#define NULL_SAMPLES	50
#define NULL_NAMED	1.0

/* The drift goal: the rate of wrong culprits. */
#define DRIFT_WRONG	1.0

enum goal_kind {
	GOAL_SAMPLES,
	GOAL_NULL,
	GOAL_DRIFT,
};

struct goal_row {
	enum goal_kind		 kind;
	struct sim_case		 cs;
	struct sim_goal_stat	 st[2];		/* shared, staged */
};

static struct goal_row goal_rows[64];
static size_t ngoal_rows;

/* The sample target at d, or NAN when the goals name no such row. */
static double
sample_target(double d)
{
	size_t i;

	for (i = 0; i < NTARGET; i++)
		if (targets[i].d == d)
			return targets[i].target;
	return NAN;
}

/* Which goal a row answers, or -1 for none. */
static int
goal_of(const struct sim_case *cs)
{
	if (cs->n != 1000 || strcmp(cs->dag, "linear") != 0 || cs->skip > 0)
		return -1;
	if (cs->drift != NULL)
		return GOAL_DRIFT;
	if (cs->null)
		return GOAL_NULL;
	if (cs->base > 0 || strcmp(cs->noise, "passfail") == 0 ||
	    isnan(sample_target(cs->d)))
		return -1;
	return GOAL_SAMPLES;
}

/* Keeps a row for the goals tables when it is one the goals name. */
void
sim_goals_add(const struct sim_case *cs, const struct sim_goal_stat *shared,
    const struct sim_goal_stat *staged)
{
	struct goal_row *gr;
	int kind = goal_of(cs);

	if (kind < 0 || ngoal_rows == sizeof(goal_rows) / sizeof(goal_rows[0]))
		return;
	gr = &goal_rows[ngoal_rows++];
	gr->kind = (enum goal_kind)kind;
	gr->cs = *cs;
	gr->st[0] = *shared;
	gr->st[1] = *staged;
}

/* The row's name in the null and drift tables. */
static void
row_name(const struct sim_case *cs, char *buf, size_t len)
{
	if (strcmp(cs->noise, "passfail") == 0)
		snprintf(buf, len, "passfail %g/%g", cs->pg, cs->pb);
	else if (cs->drift != NULL)
		snprintf(buf, len, "%s %gsd d=%g", cs->drift, cs->drift_sd,
		    cs->d);
	else if (cs->base > 0)
		snprintf(buf, len, "%s base=%g", cs->noise, cs->base);
	else
		snprintf(buf, len, "%s", cs->noise);
}

/* Whether a row meets its goal, with the shared engine's figures. */
static int
row_met(const struct goal_row *gr)
{
	const struct sim_goal_stat *s = &gr->st[0];

	switch (gr->kind) {
	case GOAL_SAMPLES:
		return s->exact >= 99 && s->samples <= sample_target(gr->cs.d);
	case GOAL_NULL:
		return s->samples <= NULL_SAMPLES && s->wrong <= NULL_NAMED;
	case GOAL_DRIFT:
		return s->wrong <= DRIFT_WRONG;
	}
	return 0;
}

/* The sample goals: per row the target, the shared engine and the staged one. */
static void
print_samples(void)
{
	size_t i;

	printf("\n== issue 15 goals: N=1000, mean total samples at >= 99%% exact"
	    " (shared = the engine now, staged = before, same seeds)\n");
	printf("   %-8s %3s %7s %16s %16s %5s\n", "noise", "d", "target",
	    "shared ex%/smp", "staged ex%/smp", "met");
	for (i = 0; i < ngoal_rows; i++) {
		const struct goal_row *gr = &goal_rows[i];

		if (gr->kind != GOAL_SAMPLES)
			continue;
		printf("   %-8s %3g %7.0f %7.1f / %6.1f %7.1f / %6.1f %5s\n",
		    gr->cs.noise, gr->cs.d, sample_target(gr->cs.d),
		    gr->st[0].exact, gr->st[0].samples, gr->st[1].exact,
		    gr->st[1].samples, row_met(gr) ? "yes" : "no");
	}
}

/* The null or drift goal: per row the wrong rate and samples of both engines. */
static void
print_rates(enum goal_kind kind, const char *title)
{
	char name[64];
	size_t i;

	printf("\n== issue 15 goals: %s\n", title);
	printf("   %-22s %18s %18s %5s\n", "row", "shared wrong%/smp",
	    "staged wrong%/smp", "met");
	for (i = 0; i < ngoal_rows; i++) {
		const struct goal_row *gr = &goal_rows[i];

		if (gr->kind != kind)
			continue;
		row_name(&gr->cs, name, sizeof(name));
		printf("   %-22s %8.1f / %7.1f %8.1f / %7.1f %5s\n", name,
		    gr->st[0].wrong, gr->st[0].samples, gr->st[1].wrong,
		    gr->st[1].samples, row_met(gr) ? "yes" : "no");
	}
}

/* The tables, each only when its rows ran. */
void
sim_goals_print(void)
{
	size_t i;
	int have[3] = { 0, 0, 0 };

	for (i = 0; i < ngoal_rows; i++)
		have[goal_rows[i].kind] = 1;
	if (have[GOAL_SAMPLES])
		print_samples();
	if (have[GOAL_NULL])
		print_rates(GOAL_NULL, "null ranges, mean samples <= 50 with"
		    " <= 1% named (wrong% = named)");
	if (have[GOAL_DRIFT])
		print_rates(GOAL_DRIFT, "drift, <= 1% wrong culprits");
}
