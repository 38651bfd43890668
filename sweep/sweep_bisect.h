/* SPDX-License-Identifier: MIT */
/*
 * A sweep's change becomes one bisection: the metrics that changed
 * between two swept refs share one bisection on the headline metric, the
 * sweep's samples at the two refs become the bisection's own first runs,
 * and a change already being bisected (or already bisected to a culprit)
 * links to that bisection instead of starting another one.
 *
 * Overlap, git-exact.  A bisection's range is its candidate set: the
 * commits reachable from its bad and from none of its goods
 * (`git rev-list bad --not good...`; merge bases standing in for a good
 * that is not an ancestor give the same set).  Two ranges overlap when
 * their candidate sets share a commit, that is when
 * `git rev-list $(git merge-base --all bad1 bad2) --not goods1 goods2`
 * is not empty (the commits reachable from both bads are those reachable
 * from their merge bases).  A change duplicates an existing bisection of
 * the same benchmark and metric, in any host group, that is queued,
 * running, or done with a culprit, whose range overlaps the change's
 * (prev_commit..commit).
 *
 * Reuse.  The bad row's sweep samples count as samples at bad; the
 * good row's count as samples at good only when prev_commit is an
 * ancestor of commit (otherwise the merge base is where good samples are
 * taken, and it needs its own).  They are stored as done runs of the
 * bisection, marked reused_from their sweep row, in the transaction that
 * creates it and links the row, so after a kill -9 the row points at the
 * bisection with its reused runs, or nothing happened.
 *
 * The ancestry and overlap walks run on the calling (loop) thread; over
 * two linux-next tags they visit what lies between the tags.
 */
#ifndef SWEEP_SWEEP_BISECT_H
#define SWEEP_SWEEP_BISECT_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

struct sched;
struct store;

/* One tag pair's change; everything is borrowed for the call. */
struct sweep_change {
	const char *sweep;              /* sweep name */
	int64_t     row;                /* sweep_refs id the change is linked to */
	int64_t     bad_row, prev_row;  /* the rows either side of the change
	                                 * point: bad (0: row) and good */
	const char *ref, *commit;       /* first swept ref after it: bad */
	const char *prev_ref, *prev_commit; /* last swept ref before it: good */
	const char *benchmark, *group;
	const char *headline;           /* metric to bisect */
	const char *const *metrics;     /* every changed metric */
	size_t      nmetrics;
	int         priority;
	const char *fixups;             /* the sweep's fixups key, or NULL */
};

/*
 * Starts the bisection of c, or finds the one that covers it, and links
 * c->row to it; *bisection is its id either way.  Calling it again for a
 * row already linked (after a restart) returns the linked bisection and
 * starts nothing.  Errors: -EINVAL (an incomplete change, or one the
 * scheduler refuses), -ENOENT (unknown commit, benchmark, metric or row).
 */
int	sweep_bisect_start(struct sched *s, struct store *st,
	    const struct sweep_change *c, int64_t *bisection,
	    struct bd_error *err);

#endif
