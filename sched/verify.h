/* SPDX-License-Identifier: MIT */
/*
 * The verification phase of a bisection, between the engine's culprit and
 * the stored verdict: the culprit's suspicious signs and its revert on top
 * of bad (repo/revert, on the thread pool), runs at the revert asked from
 * the scheduler, the revert compared with bad and with the culprit's
 * parent (bisect/stats), and whether the culprit's build is byte-identical
 * to its parent's (the builds table).
 *
 * Nothing of it is stored until the verdict: the revert commit has a fixed
 * sha and its runs are stored under the bisection, so after a restart the
 * engine reaches the same culprit and verification counts the runs it
 * already has.  The struct verify belongs to its bisection
 * (bisection_free() calls verify_free()).
 */
#ifndef SCHED_VERIFY_H
#define SCHED_VERIFY_H

#include <jansson.h>

#include "bisect/engine.h"
#include "bisect/report.h"
#include "store/store.h"

struct bisection;
struct sched;
struct verify;

/*
 * Starts verifying the culprit of a (ENGINE_DONE) unless it is verified
 * already: returns 1 when the bisection is now in BISECTION_VERIFYING
 * (sched_finish() is called again when the checks are over), 0 when the
 * verdict can be stored now.
 */
int	verify_start(struct sched *s, struct bisection *b,
	    const struct engine_action *a);
/* A cancelled bisection's child bisections are cancelled with it. */
void	verify_cancel_children(struct sched *s, struct bisection *b);
/* A child bisection (of a sub-range) ended: its parent may conclude. */
void	verify_child_ended(struct sched *s, struct bisection *child);
/* The scheduler's word that a run asked by verification ended. */
void	verify_run_ended(struct bisection *b);
/* What the checks change in the verdict (a no-op build not restored). */
void	verify_adjust(const struct bisection *b, struct store_verdict_info *v);
/* The report's section, or NULL when nothing was checked; b owns it. */
const struct report_verification *verify_report(const struct bisection *b);
/*
 * The functions the culprit's diff touches and the recipients MAINTAINERS
 * proposes for its paths, or NULL when nothing was checked; b owns them.
 */
struct repo_touched;
struct repo_maint;
const struct repo_touched *verify_touched(const struct bisection *b);
const struct repo_maint *verify_maint(const struct bisection *b);
/* Runs spent on verification, for the report's cost. */
size_t	verify_runs(const struct bisection *b);
/* The status command's "verification" object (new reference), or NULL. */
json_t	*verify_status_json(const struct bisection *b);
void	verify_free(struct verify *v);

#endif
