/* SPDX-License-Identifier: MIT */
/*
 * Probes: the commits the engine asked for, in the order it asked, for
 * `status` and `log` (steps so far) after any restart.
 */
#include <string.h>

#include "store/store_int.h"

struct store_probe_each {
	store_probe_cb	 cb;
	void		*arg;
};

int
store_probe_add(struct store *s, int64_t bisection, const char *commit,
    int64_t *idp, struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	if (commit == NULL || commit[0] == '\0')
		return bd_error_set(err, -EINVAL, "store: a probe needs a "
		    "commit");
	st = store_stmt(s, STMT_PROBE_ADD);
	sqlite3_bind_int64(st, 1, bisection);
	store_bind_text(st, 2, commit);
	sqlite3_bind_int64(st, 3, store_now_ms());
	if ((error = store_exec(s, st, err, "add probe")) != 0)
		return error;
	if (idp != NULL)
		*idp = sqlite3_last_insert_rowid(s->db);
	return 0;
}

/* Strings point into the row: the callback contract says they die with it. */
static int
store_probe_row(void *arg, sqlite3_stmt *st)
{
	struct store_probe_each *e = arg;
	struct store_probe p;

	memset(&p, 0, sizeof(p));
	p.id = sqlite3_column_int64(st, 0);
	p.bisection = sqlite3_column_int64(st, 1);
	p.commit = (const char *)sqlite3_column_text(st, 2);
	p.requested_ms = sqlite3_column_int64(st, 3);
	return e->cb(e->arg, &p);
}

int
store_probe_list(struct store *s, int64_t bisection, store_probe_cb cb,
    void *arg, struct bd_error *err)
{
	struct store_probe_each e = { cb, arg };
	sqlite3_stmt *st;

	st = store_stmt(s, STMT_PROBE_LIST);
	sqlite3_bind_int64(st, 1, bisection);
	return store_each(s, st, store_probe_row, &e, err, "list probes");
}
