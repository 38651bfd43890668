/* SPDX-License-Identifier: MIT */
/*
 * Events: who asked for what and how it ended, one row per state-changing
 * request, so an operator can audit the daemon after the fact.
 */
#include <string.h>

#include "store/store_int.h"

struct store_event_each {
	store_event_cb	 cb;
	void		*arg;
};

int
store_event_add(struct store *s, int64_t time_ms, uid_t uid,
    const char *request, const char *outcome, struct bd_error *err)
{
	sqlite3_stmt *st;

	if (request == NULL || outcome == NULL)
		return bd_error_set(err, -EINVAL, "store: an event needs a "
		    "request and an outcome");
	st = store_stmt(s, STMT_EVENT_ADD);
	sqlite3_bind_int64(st, 1, time_ms);
	sqlite3_bind_int64(st, 2, (int64_t)uid);
	store_bind_text(st, 3, request);
	store_bind_text(st, 4, outcome);
	return store_exec(s, st, err, "add event");
}

/* Two bounded deletes at the old end of the table; see store.h. */
int
store_event_prune(struct store *s, int64_t before_ms, uint64_t keep,
    struct bd_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (before_ms > 0) {
		st = store_stmt(s, STMT_EVENT_PRUNE_AGE);
		sqlite3_bind_int64(st, 1, before_ms);
		if ((rc = store_exec(s, st, err, "prune events by age")) < 0)
			return rc;
	}
	if (keep > 0) {
		st = store_stmt(s, STMT_EVENT_PRUNE_ROWS);
		sqlite3_bind_int64(st, 1, (int64_t)keep);
		if ((rc = store_exec(s, st, err, "prune events by rows")) < 0)
			return rc;
	}
	return 0;
}

/* Strings point into the row: the callback contract says they die with it. */
static int
store_event_row(void *arg, sqlite3_stmt *st)
{
	struct store_event_each *e = arg;
	struct store_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.id = sqlite3_column_int64(st, 0);
	ev.time_ms = sqlite3_column_int64(st, 1);
	ev.uid = (uid_t)sqlite3_column_int64(st, 2);
	ev.request = (const char *)sqlite3_column_text(st, 3);
	ev.outcome = (const char *)sqlite3_column_text(st, 4);
	return e->cb(e->arg, &ev);
}

int
store_event_list(struct store *s, int64_t after_id, size_t limit,
    store_event_cb cb, void *arg, struct bd_error *err)
{
	struct store_event_each e = { cb, arg };
	sqlite3_stmt *st;

	st = store_stmt(s, STMT_EVENT_LIST);
	sqlite3_bind_int64(st, 1, after_id);
	sqlite3_bind_int64(st, 2, limit == 0 ? -1 : (int64_t)limit);
	return store_each(s, st, store_event_row, &e, err, "list events");
}
