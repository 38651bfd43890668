/* SPDX-License-Identifier: MIT */
/*
 * Reports: the finished text and JSON of a bisection, kept so `report ID`
 * answers the same after a restart and without recomputing.
 */
#include "store/store_int.h"

int
store_report_put(struct store *s, int64_t bisection, const char *text,
    const char *json, struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	if (text == NULL)
		return bd_error_set(err, -EINVAL, "store: a report needs text");
	st = store_stmt(s, STMT_REPORT_PUT);
	sqlite3_bind_int64(st, 1, bisection);
	store_bind_text(st, 2, text);
	store_bind_text(st, 3, json);
	sqlite3_bind_int64(st, 4, store_now_ms());
	if ((error = store_exec(s, st, err, "store report")) == -ENOENT)
		bd_error_set(err, error, "store %s: no bisection %lld for a "
		    "report", s->path, (long long)bisection);
	return error;
}

int
store_report_get(struct store *s, int64_t bisection, char **textp,
    char **jsonp, struct bd_error *err)
{
	sqlite3_stmt *st;
	int error;

	st = store_stmt(s, STMT_REPORT_GET);
	sqlite3_bind_int64(st, 1, bisection);
	if ((error = store_row(s, st, err, "report of bisection %lld",
	    (long long)bisection)) != 0)
		return error;
	*textp = store_col_text(st, 0);
	*jsonp = store_col_text(st, 1);
	sqlite3_reset(st);
	return 0;
}
