/* SPDX-License-Identifier: MIT */
/*
 * The sweep tests' look at the real daemon of tests/support/svc.h: tags
 * made in the fixture repository, the daemon restarted as a mirror of it
 * with sweeps, their rows as `sweep NAME` shows them, and what a sweep
 * left in the work directory and the database.
 */
#ifndef TESTS_SUPPORT_SWEEPSVC_H
#define TESTS_SUPPORT_SWEEPSVC_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* sweep-tag.sh OP NAME REV on the fixture repository: the sha it printed. */
char	*sweepsvc_tag(const char *op, const char *name, const char *rev);
/*
 * The daemon again, now mirroring the fixture repository (its tags
 * next-*) with the sweep sections added, then extra (may be NULL, e.g. a
 * [lab]); min_change (NULL: the fixture's 5%) replaces the benchmark's
 * floor.
 */
void	 sweepsvc_restart_mirrored(const char *sweeps, const char *min_change,
	    const char *extra);
/* `sweep NAME` (caller decrefs). */
json_t	*sweepsvc_show(const char *name);
/* The row of ref at commit in a `sweep` reply (borrowed), or NULL. */
json_t	*sweepsvc_row(const json_t *r, const char *ref, const char *commit);
/* A row's state word, "" for no row. */
const char *sweepsvc_row_state(const json_t *row);
/* Polls `sweep NAME` until ref at commit is in state; the reply. */
json_t	*sweepsvc_wait(const char *name, const char *ref, const char *commit,
	    const char *state);
/*
 * The run ids that logged steps for row id ("sweep-ROW-JOB", the sweep job
 * stored before the run): a run that a restart follows again keeps its id.
 */
size_t	 sweepsvc_log_runs(int64_t id);
/* Sweep runs of row id still stored as in flight, read beside the daemon. */
int64_t	 sweepsvc_jobs_left(int64_t id);

#endif
