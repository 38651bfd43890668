/* SPDX-License-Identifier: MIT */
/*
 * Nightly sweeps: each [sweep NAME] follows the watched refs that match its
 * tag_pattern.  Every ref event the watcher stores is handled once per
 * sweep: a new or moved matching ref becomes a row to sweep (a moved one
 * marks its older commit rewritten), and the sweep's cursor (the seq of
 * the last event it handled) moves in the same transaction, so after a
 * kill -9 the events after the cursor are replayed and no tag is recorded
 * twice or lost (store/sweep.c).
 *
 * A sweep first seen takes the newest existing matching ref (by name, as
 * linux-next's next-YYYYMMDD tags sort by date), or its `start` ref, as
 * its first baseline; only later refs are swept.
 *
 * The worker (sweep_run.c) samples one row per sweep at a time, oldest
 * first: the first baseline to the plan's first look, then each pending
 * row through the scheduler (sched_run_sweep) until sweep_judge_row
 * compares it; a build that fails marks the row failed.  A compared row
 * with changed metrics goes to sweep_bisect_start.  `schedule = each`
 * sweeps every pending row; `daily HH:MM` sweeps, at that time, only the
 * newest row that appeared before it: the older ones stay recorded as
 * pending with a result {"skipped": "superseded", "by": REF} and are
 * shown as "skipped".  `sweep NAME --now` makes the newest row due at
 * once (the sweeps row's state is "now" until the worker takes it).
 *
 * Ownership: struct sweeper is the daemon's; the env is borrowed and must
 * outlive it.  Replies are new JSON objects owned by the caller.
 */
#ifndef SWEEP_SWEEP_H
#define SWEEP_SWEEP_H

#include <stdint.h>

#include <jansson.h>
#include <uv.h>

#include "common/error.h"
#include "repo/refs.h"

struct config;
struct store;
struct sweeper;

struct sched;

struct sweeper_env {
	uv_loop_t	*loop;		/* NULL: no worker (tests) */
	struct sched	*sched;		/* where the runs go */
	struct store	*store;
	/* The configuration in effect (it changes on reload). */
	const struct config *(*config)(void *arg);
	void		*config_arg;
	/* The wall clock, ms since the epoch (tests may set their own). */
	int64_t		(*now_ms)(void);
};

int	sweeper_new(const struct sweeper_env *env, struct sweeper **out,
	    struct bd_error *err);
/* Shutdown: the worker takes no more rows; runs out are the scheduler's. */
void	sweeper_stop(struct sweeper *sw);
void	sweeper_free(struct sweeper *sw);
/* A worker pass soon (coalesced): new rows, a --now, a restart. */
void	sweeper_kick(struct sweeper *sw);
/*
 * The daily time minute (after 00:00 UTC) last passed at or before now_ms
 * and the next one after it, in ms since the epoch.
 */
void	sweeper_daily_due(unsigned minute, int64_t now_ms, int64_t *last,
	    int64_t *next);

/*
 * Gives every configured sweep without stored state its first baseline and
 * a cursor at the newest stored event; *replay_from is set to the smallest
 * cursor of all sweeps, where the caller replays the stored events from.
 */
int	sweeper_start(struct sweeper *sw, int64_t *replay_from,
	    struct bd_error *err);

/* The watcher's listener (arg: the sweeper); also used for replay. */
ref_event_fn sweeper_ref_event;

/* Whether glob matches ref, as a full name or as a tag's short name. */
int	sweeper_match(const char *glob, const char *ref);

/*
 * `sweep NAME --now`: the newest matching ref in the stored snapshot is
 * recorded to sweep, unless the sweep already has that ref at that commit.
 * -ENOENT for an unknown sweep or when no ref matches.
 */
int	sweeper_now(struct sweeper *sw, const char *name, struct bd_error *err);

/* {"sweeps":[...]} for `sweeps`: each sweep's last ref, state and next. */
json_t	*sweeper_list(struct sweeper *sw, struct bd_error *err);
/* {"sweep":{...},"refs":[...]} for `sweep NAME`; NULL and -ENOENT when none. */
json_t	*sweeper_show(struct sweeper *sw, const char *name,
	    struct bd_error *err);

#endif
