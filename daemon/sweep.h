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
 * Ownership: struct sweeper is the daemon's; the env is borrowed and must
 * outlive it.  Replies are new JSON objects owned by the caller.
 */
#ifndef DAEMON_SWEEP_H
#define DAEMON_SWEEP_H

#include <jansson.h>

#include "common/error.h"
#include "repo/refs.h"

struct config;
struct store;
struct sweeper;

struct sweeper_env {
	struct store	*store;
	/* The configuration in effect (it changes on reload). */
	const struct config *(*config)(void *arg);
	void		*config_arg;
};

int	sweeper_new(const struct sweeper_env *env, struct sweeper **out,
	    struct bd_error *err);
void	sweeper_free(struct sweeper *sw);

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
