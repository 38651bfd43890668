/*
 * Judging one swept ref: its runs against the previous swept ref and the
 * rolling baseline of the sweep's last `baseline` refs, for every watched
 * metric, with bisect/sweep_stats.c.  The verdict is stored with the row
 * (state compared, result JSON) once the runs suffice; until then the
 * caller is told how many more runs the ref should get.
 *
 * Result JSON: {"prev": REF or null, "runs": N, "metrics": [{"name",
 * "median", "stddev_pct", "change_prev", "change_base", "effect", "p_adj",
 * "verdict": "same"|"changed"|"borderline"|"untested"}], "changed":
 * [names], "headline": name or null}; changes are fractions.
 */
#ifndef DAEMON_SWEEP_JUDGE_H
#define DAEMON_SWEEP_JUDGE_H

#include <stdint.h>

#include <jansson.h>

#include "common/error.h"

struct config;
struct config_sweep;
struct store;

/*
 * Judges row id of sweep w.  *more is set to the runs still wanted (0:
 * the row is now compared, with the result stored); *result (may be NULL)
 * gets the result, the caller's to decref (NULL while the row has fewer
 * runs than the first look needs).  Returns 0 or a negative errno.
 */
int	sweep_judge_row(struct store *st, const struct config *cfg,
	    const struct config_sweep *w, int64_t id, unsigned *more,
	    json_t **result, struct bd_error *err);

/*
 * The runs of one metric at swept ref id, from the store: *v (the
 * caller's to free, NULL when none) holds *n values; *runs (may be NULL)
 * gets the number of runs stored for any metric.
 */
int	sweep_judge_runs(struct store *st, int64_t id, const char *metric,
	    double **v, size_t *n, unsigned *runs, struct bd_error *err);

#endif
