/* SPDX-License-Identifier: MIT */
/*
 * Hosts: the health the pool must remember across a restart (drained,
 * quarantined, failure streaks).  The pool writes through on every change.
 */
#include <string.h>

#include "store/store_int.h"

struct store_host_each {
	store_host_cb	 cb;
	void		*arg;
};

void
store_host_init(struct store_host *h)
{
	memset(h, 0, sizeof(*h));
}

void
store_host_release(struct store_host *h)
{
	store_free_str(h->name);
	store_free_str(h->group);
	store_host_init(h);
}

int
store_host_put(struct store *s, const struct store_host *h,
    struct bd_error *err)
{
	sqlite3_stmt *st;

	if (h->name == NULL || h->group == NULL || (int)h->state < 0 ||
	    h->state >= STORE_HOST_NSTATES)
		return bd_error_set(err, -EINVAL, "store: a host needs a name, "
		    "a group and a valid state");
	st = store_stmt(s, STMT_HOST_PUT);
	store_bind_text(st, 1, h->name);
	store_bind_text(st, 2, h->group);
	store_bind_text(st, 3, store_host_state_names[h->state]);
	sqlite3_bind_int(st, 4, h->consecutive_failures);
	store_bind_opt(st, 5, h->last_seen_ms);
	return store_exec(s, st, err, "store host");
}

/* Reads a row of the HOST_COLS columns into h (owned copies). */
static void
store_host_read(sqlite3_stmt *st, struct store_host *h)
{
	store_host_init(h);
	h->name = store_col_text(st, 0);
	h->group = store_col_text(st, 1);
	h->state = store_col_enum(st, 2, store_host_state_names,
	    STORE_HOST_NSTATES);
	h->consecutive_failures = sqlite3_column_int(st, 3);
	h->last_seen_ms = sqlite3_column_int64(st, 4);
}

int
store_host_get(struct store *s, const char *name, struct store_host *h,
    struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	st = store_stmt(s, STMT_HOST_GET);
	store_bind_text(st, 1, name);
	if ((error = store_row(s, st, err, "host %s", name)) != 0)
		return error;
	store_host_read(st, h);
	sqlite3_reset(st);
	return 0;
}

static int
store_host_row(void *arg, sqlite3_stmt *st)
{
	struct store_host_each *e = arg;
	struct store_host h;
	int error;

	store_host_read(st, &h);
	error = e->cb(e->arg, &h);
	store_host_release(&h);
	return error;
}

int
store_host_list(struct store *s, store_host_cb cb, void *arg,
    struct bd_error *err)
{
	struct store_host_each e = { cb, arg };

	return store_each(s, store_stmt(s, STMT_HOST_LIST), store_host_row, &e,
	    err, "list hosts");
}

/* A host describes itself once per command; the newest answer wins. */
int
store_host_describe_put(struct store *s, const char *host,
    const char *command, const char *output, struct bd_error *err)
{
	sqlite3_stmt *st;

	if (host == NULL || command == NULL || output == NULL)
		return bd_error_set(err, -EINVAL, "store: a description needs "
		    "a host, a command and its output");
	st = store_stmt(s, STMT_HOST_DESC_PUT);
	store_bind_text(st, 1, host);
	store_bind_text(st, 2, command);
	store_bind_text(st, 3, output);
	sqlite3_bind_int64(st, 4, store_now_ms());
	return store_exec(s, st, err, "store host description");
}

/* Reports and the step ask whether a host has described itself yet. */
int
store_host_describe_get(struct store *s, const char *host,
    const char *command, char **output, struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	*output = NULL;
	st = store_stmt(s, STMT_HOST_DESC_GET);
	store_bind_text(st, 1, host);
	store_bind_text(st, 2, command);
	if ((error = store_row(s, st, err, "description of host %s",
	    host)) != 0)
		return error;
	*output = store_col_text(st, 0);
	sqlite3_reset(st);
	return 0;
}
