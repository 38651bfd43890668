/* SPDX-License-Identifier: MIT */
/*
 * What the watcher tells the rest of the daemon about the mirror's refs:
 * one event per watched ref that appeared, moved (a rewritten tag counts)
 * or disappeared in a fetch.  Events are stored before anyone acts on them
 * (store/ref.c, table ref_events, seq increasing), so a consumer keeps the
 * seq of the last event it handled in its own table and, after a restart,
 * asks the store for the events after it: none is lost or handled twice.
 *
 * This header is the contract between the watcher (sweep/watcher.c,
 * repo/mirror.c) and its consumers (nightly sweeps).  Strings are
 * borrowed for the duration of a callback.
 */
#ifndef REPO_REFS_H
#define REPO_REFS_H

#include <stdint.h>

enum ref_change {
	REF_APPEARED = 0,
	REF_MOVED,
	REF_DISAPPEARED,
};

struct ref_event {
	int64_t		 seq;		/* the store's row id, increasing */
	const char	*ref;		/* full name: refs/tags/next-20261201 */
	const char	*old_id;	/* 40 hex digits; NULL when appeared */
	const char	*new_id;	/* 40 hex digits; NULL when disappeared */
	enum ref_change	 change;
	int64_t		 seen_ms;	/* when the fetch saw it */
};

/*
 * A consumer of ref events, called on the loop after the events of one
 * fetch are stored, in seq order.
 */
typedef void ref_event_fn(void *arg, const struct ref_event *ev);

#endif
