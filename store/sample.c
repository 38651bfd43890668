/*
 * Samples: the measured values, read back to rebuild the engine and to
 * answer `samples ID`.  They are written by store_run_finish, and copied
 * from a sweep's samples by store_bisection_create_linked.
 */
#include <string.h>

#include "store/store_int.h"

struct store_sample_each {
	store_sample_cb	 cb;
	void		*arg;
};

/* Strings point into the row: the callback contract says they die with it. */
static int
store_sample_row(void *arg, sqlite3_stmt *st)
{
	struct store_sample_each *e = arg;
	struct store_sample sm;

	memset(&sm, 0, sizeof(sm));
	sm.run = sqlite3_column_int64(st, 0);
	sm.commit = (const char *)sqlite3_column_text(st, 1);
	sm.host = (const char *)sqlite3_column_text(st, 2);
	sm.metric = (const char *)sqlite3_column_text(st, 3);
	sm.value = sqlite3_column_double(st, 4);
	sm.attempt = sqlite3_column_int(st, 5);
	sm.seq = sqlite3_column_int64(st, 6);
	sm.index = (unsigned)sqlite3_column_int64(st, 7);
	sm.reused_from = sqlite3_column_int64(st, 8);
	return e->cb(e->arg, &sm);
}

int
store_sample_list(struct store *s, int64_t bisection, const char *commit,
    store_sample_cb cb, void *arg, struct bd_error *err)
{
	struct store_sample_each e = { cb, arg };
	sqlite3_stmt *st;

	st = store_stmt(s, STMT_SAMPLE_LIST);
	sqlite3_bind_int64(st, 1, bisection);
	store_bind_text(st, 2, commit);
	return store_each(s, st, store_sample_row, &e, err, "list samples");
}
