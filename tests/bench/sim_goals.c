/*
 * The goals table of issue 15 in bench-sim: the rows the goals name, the
 * shared engine beside the staged one on the same seeds.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/bench/sim.h"
#include "tests/bench/sim_goals.h"

/*
 * The goals of issue 15 (N = 1000, >= 99% exact in every noise model):
 * the mean total samples of the shared engine at d = 2, 4, 8, beside the
 * staged engine on the same seeds.
 */
static const struct {
	double	d, target;
} targets[] = {
	{ .d = 2, .target = 55 },
	{ .d = 4, .target = 25 },
	{ .d = 8, .target = 18 },
};

#define NTARGET (sizeof(targets) / sizeof(targets[0]))

struct target_row {
	const char	*noise;
	double		 d;
	double		 exact[2], samples[2];	/* shared, staged */
};

static struct target_row target_rows[32];
static size_t ntarget_rows;

/* Keeps a row for the goals table when it is one of the rows the goals name. */
void
sim_goals_add(const struct sim_case *cs, double exact_new,
    double samples_new, double exact_old, double samples_old)
{
	struct target_row *tr;
	size_t i;

	if (cs->n != 1000 || strcmp(cs->dag, "linear") != 0 || cs->null ||
	    cs->skip > 0 || cs->drift != NULL || cs->base > 0 ||
	    strcmp(cs->noise, "passfail") == 0 ||
	    ntarget_rows == sizeof(target_rows) / sizeof(target_rows[0]))
		return;
	for (i = 0; i < NTARGET; i++)
		if (targets[i].d == cs->d)
			break;
	if (i == NTARGET)
		return;
	tr = &target_rows[ntarget_rows++];
	tr->noise = cs->noise;
	tr->d = cs->d;
	tr->exact[0] = exact_new;
	tr->samples[0] = samples_new;
	tr->exact[1] = exact_old;
	tr->samples[1] = samples_old;
}

/* The goals table: per row the target, the shared engine and the staged one. */
void
sim_goals_print(void)
{
	size_t i, j;
	int met;

	if (ntarget_rows == 0)
		return;
	printf("\n== issue 15 goals: N=1000, mean total samples at >= 99%% exact"
	    " (shared = the engine now, staged = before, same seeds)\n");
	printf("   %-8s %3s %7s %16s %16s %5s\n", "noise", "d", "target",
	    "shared ex%/smp", "staged ex%/smp", "met");
	for (i = 0; i < ntarget_rows; i++) {
		const struct target_row *tr = &target_rows[i];

		for (j = 0; j < NTARGET && targets[j].d != tr->d; j++)
			;
		met = tr->exact[0] >= 99 && tr->samples[0] <= targets[j].target;
		printf("   %-8s %3g %7.0f %7.1f / %6.1f %7.1f / %6.1f %5s\n",
		    tr->noise, tr->d, targets[j].target, tr->exact[0],
		    tr->samples[0], tr->exact[1], tr->samples[1],
		    met ? "yes" : "no");
	}
}

