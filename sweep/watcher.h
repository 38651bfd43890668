/* SPDX-License-Identifier: MIT */
/*
 * The watcher: keeps the mirror ([repo] path) up to date with [repo] url.
 * It fetches every fetch_interval, on `fetch`, and when a bisection names
 * a revision the mirror lacks; fetches run on the thread pool
 * (repo/mirror.c), one at a time.  After each fetch it compares the
 * watched refs (watch_refs globs) with the snapshot in the store, stores
 * the differences as ref events together with the new snapshot
 * (store_ref_event_add), and then calls every listener with them, in seq
 * order.  A failed fetch is retried with exponential backoff.
 *
 * A consumer that must not miss an event across a restart keeps the seq
 * of the last one it handled and calls watcher_replay() at startup.
 *
 * Ownership: struct watcher is the watcher's; listeners' args are
 * borrowed and must outlive the watcher (or until watcher_free).
 */
#ifndef SWEEP_WATCHER_H
#define SWEEP_WATCHER_H

#include <stdint.h>

#include <jansson.h>
#include <uv.h>

#include "common/error.h"
#include "repo/refs.h"

struct config;
struct store;
struct watcher;

/* What the watcher borrows from the daemon. */
struct watcher_env {
	uv_loop_t	*loop;
	struct store	*store;
	/* The configuration in effect (it changes on reload). */
	const struct config *(*config)(void *arg);
	void		*config_arg;
	/* The event sink of `watch` (kind "repo"); fields are stolen. */
	void		(*emit)(void *arg, const char *kind, json_t *fields);
	void		*emit_arg;
	/* Called after every successful fetch (may be NULL). */
	void		(*fetched)(void *arg);
	void		*fetched_arg;
	/* The wall clock, ms since the epoch (tests may set their own). */
	int64_t		(*now_ms)(void);
};

/*
 * Called when a fetch ends: rc 0 or a negative errno, msg the error.
 * The watcher's own callbacks for `fetch --wait` and bisect requests.
 */
typedef void watcher_done_fn(void *arg, int rc, const char *msg);

/* Starts watching when [repo] url is set; else only answers state. */
int	watcher_new(const struct watcher_env *env, struct watcher **wp,
	    struct bd_error *err);
/* Cancels a running fetch (mirror_cancel: its sockets are shut); closes. */
void	watcher_stop(struct watcher *w);
/* Frees after the loop has ended; NULL is ignored. */
void	watcher_free(struct watcher *w);

/* Adds a listener, called after every fetch with each stored event. */
void	watcher_listen(struct watcher *w, ref_event_fn *fn, void *arg);
/* Calls fn with every stored event after seq, oldest first. */
int	watcher_replay(struct watcher *w, int64_t seq, ref_event_fn *fn,
	    void *arg, struct bd_error *err);

/*
 * Starts a fetch now (or joins the running one) and calls done (may be
 * NULL) when it ends.  -ENOTSUP when no url is configured.
 */
int	watcher_fetch(struct watcher *w, watcher_done_fn *done, void *arg,
	    struct bd_error *err);
/* Whether a fetch is running. */
int	watcher_busy(const struct watcher *w);
/* The state for `repo`: url, last fetch, next, refs, progress. */
json_t	*watcher_state(struct watcher *w);
/* The stored ref events after seq, as `repo --since` shows them. */
json_t	*watcher_events(struct watcher *w, int64_t seq);

#endif
