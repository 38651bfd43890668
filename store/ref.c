/* SPDX-License-Identifier: MIT */
/*
 * Ref events and the ref snapshot: what each fetch changed among the
 * watched refs, stored with the snapshot it leads to in one transaction,
 * so that after kill -9 a fetch's events are either all stored and the
 * snapshot moved, or neither (and the next comparison finds them again).
 */
#include <string.h>

#include "store/store_int.h"

struct store_ref_each {
	store_ref_event_cb	 ecb;
	store_ref_cb		 rcb;
	void			*arg;
};

/* One event and its effect on the snapshot; inside the caller's transaction. */
static int
store_ref_event_one(struct store *s, struct store_ref_event *ev,
    int64_t seen_ms, struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	if (ev->ref == NULL || ev->change < 0 ||
	    ev->change >= STORE_REF_NCHANGES)
		return bd_error_set(err, -EINVAL, "store: a ref event needs a "
		    "ref and a change");
	st = store_stmt(s, STMT_REF_EVENT_ADD);
	store_bind_text(st, 1, ev->ref);
	store_bind_text(st, 2, ev->old_id);
	store_bind_text(st, 3, ev->new_id);
	store_bind_text(st, 4, store_ref_change_names[ev->change]);
	sqlite3_bind_int64(st, 5, seen_ms);
	if ((error = store_exec(s, st, err, "add ref event")) != 0)
		return error;
	ev->seq = sqlite3_last_insert_rowid(s->db);
	ev->seen_ms = seen_ms;
	if (ev->new_id == NULL) {
		st = store_stmt(s, STMT_REF_DEL);
		store_bind_text(st, 1, ev->ref);
	} else {
		st = store_stmt(s, STMT_REF_PUT);
		store_bind_text(st, 1, ev->ref);
		store_bind_text(st, 2, ev->new_id);
	}
	return store_exec(s, st, err, "ref snapshot");
}

int
store_ref_event_add(struct store *s, struct store_ref_event *ev, size_t n,
    int64_t seen_ms, struct bd_error *err)
{
	size_t i;
	int error;

	if (n == 0)
		return 0;
	if ((error = store_begin(s, err)) != 0)
		return error;
	for (i = 0; i < n; i++)
		if ((error = store_ref_event_one(s, &ev[i], seen_ms, err)) != 0)
			goto fail;
	if ((error = store_commit(s, err)) == 0)
		return 0;
fail:
	store_rollback(s);
	for (i = 0; i < n; i++)
		ev[i].seq = 0;
	return error;
}

/* Strings point into the row, as the list contract says. */
static int
store_ref_event_row(void *arg, sqlite3_stmt *st)
{
	struct store_ref_each *e = arg;
	struct store_ref_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.seq = sqlite3_column_int64(st, 0);
	ev.ref = (const char *)sqlite3_column_text(st, 1);
	ev.old_id = (const char *)sqlite3_column_text(st, 2);
	ev.new_id = (const char *)sqlite3_column_text(st, 3);
	ev.change = store_col_enum(st, 4, store_ref_change_names,
	    STORE_REF_NCHANGES);
	ev.seen_ms = sqlite3_column_int64(st, 5);
	return e->ecb(e->arg, &ev);
}

int
store_ref_event_list_since(struct store *s, int64_t seq,
    store_ref_event_cb cb, void *arg, struct bd_error *err)
{
	struct store_ref_each e = { .ecb = cb, .arg = arg };
	sqlite3_stmt *st;

	st = store_stmt(s, STMT_REF_EVENT_LIST);
	sqlite3_bind_int64(st, 1, seq);
	return store_each(s, st, store_ref_event_row, &e, err,
	    "list ref events");
}

int
store_ref_event_last(struct store *s, int64_t *seqp, struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	st = store_stmt(s, STMT_REF_EVENT_LAST);
	if ((error = store_row(s, st, err, "last ref event")) != 0)
		return error;
	*seqp = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return 0;
}

/* A snapshot row, borrowed for the callback. */
static int
store_ref_row(void *arg, sqlite3_stmt *st)
{
	struct store_ref_each *e = arg;
	struct store_ref r;

	r.ref = (const char *)sqlite3_column_text(st, 0);
	r.id = (const char *)sqlite3_column_text(st, 1);
	return e->rcb(e->arg, &r);
}

int
store_ref_list(struct store *s, store_ref_cb cb, void *arg,
    struct bd_error *err)
{
	struct store_ref_each e = { .rcb = cb, .arg = arg };

	return store_each(s, store_stmt(s, STMT_REF_LIST), store_ref_row, &e,
	    err, "list refs");
}
