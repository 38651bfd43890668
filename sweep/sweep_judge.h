/* SPDX-License-Identifier: MIT */
/*
 * Judging one swept ref: for every watched metric, a change point among
 * the sweep's recent measured refs (those since the metric's last reported
 * change point, at most `baseline` + SWEEP_SPLITS of them, this one last),
 * with bisect/sweep_stats.c.  The verdict is stored with the row (state
 * compared, result JSON) once the runs suffice; until then the caller is
 * told how many more runs which ref should get: this one, or an earlier
 * one revisited to place a change point.
 *
 * Result JSON: {"prev": REF or null, "runs": N, "metrics": [{"name",
 * "median", "stddev_pct", "change_prev", "change_base", "effect", "p_adj",
 * "verdict": "same"|"changed"|"borderline"|"untested", "after": REF or
 * null, "after_row": ID or null, "before": REF or null, "late": N or
 * null}], "changed": [names], "headline": name or null, "change": null or
 * {"before", "before_row", "after", "after_row", "late"}}.  Changes are
 * fractions: change_prev against the previous ref, change_base of the
 * level after the change point against the level before it; "after" is
 * the first ref after the change point, "before" the last ref before it,
 * "late" how many refs after "after" it took to find (0: at its own
 * ref), given for changed and borderline metrics; "change" is the
 * headline's, the range the bisection runs on.
 */
#ifndef SWEEP_SWEEP_JUDGE_H
#define SWEEP_SWEEP_JUDGE_H

#include <stdint.h>

#include <jansson.h>

#include "common/error.h"

struct config;
struct config_sweep;
struct store;

struct sweep_params;

/* The sampling plan of sweep w (its `samples` and `baseline`). */
void	sweep_judge_plan(const struct config_sweep *w, double min_change,
	    struct sweep_params *sp);

/*
 * Judges row id of sweep w after `revisits` revisits of this judgement.
 * *more is set to the runs still wanted (0: the row is now compared, with
 * the result stored) and *revisit to the row that should get them (0:
 * row id itself); *result (may be NULL) gets the result, the caller's to
 * decref (NULL while the row has fewer runs than the first look needs).
 * Returns 0 or a negative errno.
 */
int	sweep_judge_row(struct store *st, const struct config *cfg,
	    const struct config_sweep *w, int64_t id, unsigned revisits,
	    unsigned *more, int64_t *revisit, json_t **result,
	    struct bd_error *err);

/*
 * The runs of one metric at swept ref id, from the store: *v (the
 * caller's to free, NULL when none) holds *n values; *runs (may be NULL)
 * gets the number of runs stored for any metric.
 */
int	sweep_judge_runs(struct store *st, int64_t id, const char *metric,
	    double **v, size_t *n, unsigned *runs, struct bd_error *err);

#endif
