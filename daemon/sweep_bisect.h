/*
 * What a sweep does with a change it found: one bisection between the
 * previous swept ref (good) and the new one (bad) on the headline metric,
 * linked from the new ref's row.
 *
 * Strings in struct sweep_change are borrowed for the call.
 */
#ifndef DAEMON_SWEEP_BISECT_H
#define DAEMON_SWEEP_BISECT_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

struct sched;
struct store;

struct sweep_change {
	const char *sweep;              /* sweep name */
	int64_t     row, prev_row;      /* sweep_refs ids: new and previous */
	const char *ref, *commit;       /* new swept ref: bad */
	const char *prev_ref, *prev_commit; /* previous swept ref: good */
	const char *benchmark, *group;
	const char *headline;           /* metric to bisect */
	const char *const *metrics;     /* every changed metric */
	size_t      nmetrics;
	int         priority;
};

/* Starts (or links to) the bisection of one change, stores the link
 * with the row (store_sweep_ref_set's bisection); *bisection is set. */
int sweep_bisect_start(struct sched *s, struct store *st,
    const struct sweep_change *c, int64_t *bisection,
    struct bd_error *err);

#endif
